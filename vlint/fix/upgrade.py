"""``vlint upgrade --fix``: migrate the files to the target release, with ``vlint fix``'s safety rules.

Two steps, both on the files' text in memory (nothing is written before the end, so ``--diff`` shows
exactly what ``--fix`` writes):

1. **the release itself**: the image tag or ``vllm==`` pin that states each launch's release is
   rewritten to the target (``vllm/vllm-openai:v0.8.5`` → ``:v0.33.0``, ``vllm==0.8.5`` → ``vllm==0.33.0``),
   only where the text names the release plainly (a tag with a suffix, a variable, a vendor tag or a lock
   file is left alone, with the reason); the result is linted again and kept only if every file still
   parses, every launch is still found, and each rewritten launch now resolves to the target;
2. **the flags**: :func:`vlint.fix.apply.fix_paths` at the target release, applying only the safe fixes of
   the flags the target removed (VL002: a renamed flag, a removed flag that did nothing), each verified by
   linting again (its finding gone, nothing new).

Writes go through :func:`vlint.fix.apply.write_fixed` (inside the lint root, never through a link).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path

from vlint.core.finding import Finding
from vlint.core.record import field, record
from vlint.core.version import Version
from vlint.engine.results import LintReport
from vlint.engine.runner import Engine
from vlint.fix.apply import FixOutcome, OverlayReader, fix_paths, write_refusal
from vlint.fix.editor import CannotApply, Text, TextEdit, apply_edits
from vlint.run.lint import LintOptions, Reader, lint_paths
from vlint.run.upgrade import UpgradeRun, at_release, launches_of

#: the findings whose safe fixes migrate a launch to the target release
MIGRATED = frozenset({"VL002"})


@record(slots=True)
class Bump:
    """The release a launch states, rewritten to the target (or why not)."""

    path: str
    line: int
    launch: str
    old: str
    new: str = ""
    #: why it is not rewritten ("" when it is)
    reason: str = ""


@record(slots=True)
class UpgradeFix:
    outcome: FixOutcome
    bumps: list[Bump] = field(default_factory=list)
    #: launches whose release is not rewritten, with the reason
    not_bumped: list[Bump] = field(default_factory=list)


def _norm(path: Path) -> Path:
    return Path(os.path.normpath(path.absolute()))


def _version_at(raw: str, version: str) -> list[re.Match[str]]:
    """Where ``raw`` names ``version`` plainly: ``v0.8.5`` or ``0.8.5`` not glued to more of a tag."""
    return list(re.finditer(rf"(?<![\w.])v?(?P<v>{re.escape(version)})(?![\w.+-])", raw))


def plan_bumps(run: UpgradeRun, opts: LintOptions, target: Version) -> tuple[list[TextEdit], list[Bump], list[Bump]]:
    """The edits that rewrite each stated release to ``target``: (edits, bumps, launches not rewritten)."""
    reader = Reader(opts)
    texts: dict[str, Text] = {}
    edits: dict[tuple[str, int, int], TextEdit] = {}
    bumps: list[Bump] = []
    skipped: list[Bump] = []
    for _, dep, _ in launches_of(run.before):
        inv = dep.invocation
        who = f"{inv.label or inv.program} at {inv.path}:{inv.span.line}"
        if dep.version_wanted == target or dep.version == target:
            continue
        fact = inv.facts.get("vllm_version")
        if fact is None or fact.span is None:
            skipped.append(
                Bump(
                    inv.path,
                    inv.span.line,
                    who,
                    str(dep.version),
                    reason=f"its release comes from {dep.version_reason}, not from a file: nothing to rewrite",
                )
            )
            continue
        span = fact.span
        bump = Bump(span.path, span.line, who, str(fact.value))
        why = None
        if "locked" in fact.detail:
            why = f"{span.path} is a lock file: change the pin it was locked from and lock again"
        else:
            why = write_refusal(_norm(opts.root / span.path), opts.lint_root)
            if why is not None:
                why = f"{span.path} {why}"
        if why is None:
            try:
                t = texts.get(span.path) or Text(span.path, reader.read(opts.root / span.path).text)
                texts[span.path] = t
                a, b = t.range(span)
            except (CannotApply, OSError) as e:
                why = str(e)
            except Exception as e:  # a SourceError: the file cannot be read
                why = getattr(e, "message", str(e))
        if why is None:
            raw = t.text[a:b]
            hits = _version_at(raw, str(fact.value))
            if any(m in raw for m in ("$", "{{", "`")):
                why = f"`{raw}` comes from a variable or template: rewrite it where it is set"
            elif len(hits) != 1:
                why = (
                    f"`{raw}` does not name {fact.value} plainly (a tag with a suffix, a vendor tag): "
                    "rewrite it by hand"
                )
            else:
                m = hits[0]
                new = str(target)
                key = (span.path, a + m.start("v"), a + m.end("v"))
                edits[key] = TextEdit(span.path, key[1], key[2], new)
                bump.new = raw[: m.start("v")] + new + raw[m.end("v") :]
                bump.old = raw
        if why is not None:
            bump.reason = why
            skipped.append(bump)
        else:
            bumps.append(bump)
    return list(edits.values()), bumps, skipped


def _launch_counts(report: LintReport) -> dict[str, int]:
    return {fr.path: fr.launches for fr in report.files}


def upgrade_fix(
    paths: list[Path],
    engine: Engine,
    opts: LintOptions,
    run: UpgradeRun,
    *,
    target: Version,
    target_why: str,
    post: Callable[[LintReport], None] | None = None,
) -> UpgradeFix:
    """The migrated text of every file (nothing written: :func:`vlint.fix.apply.write_fixed` does it)."""
    opts = at_release(opts, None, "")
    edits, bumps, skipped = plan_bumps(run, opts, target)
    originals: dict[Path, tuple[str, str]] = {}
    overlay: dict[Path, str] = {}
    by_file: dict[str, list[TextEdit]] = {}
    for e in edits:
        by_file.setdefault(e.path, []).append(e)
    reader = Reader(opts)
    for shown, es in by_file.items():
        p = _norm(opts.root / shown)
        text = reader.read(p).text
        originals[p] = (shown, text)
        overlay[p] = apply_edits(text, es)
    if overlay:
        overlay, bumps, skipped = _verify_bumps(paths, engine, opts, overlay, originals, bumps, skipped, target, post)
    migrated = fix_paths(
        paths,
        engine,
        at_release(opts, target, target_why),
        post=post,
        wanted=lambda f: f.code in MIGRATED,
        texts=overlay,
    )
    changed: dict[Path, tuple[str, str, str]] = {}
    for p, (shown, _old, new) in migrated.changed.items():
        changed[p] = (shown, originals.get(p, (shown, _old))[1], new)
    for p, text in overlay.items():
        if p not in changed and text != originals[p][1]:
            changed[p] = (originals[p][0], originals[p][1], text)
    migrated.changed = changed
    return UpgradeFix(migrated, bumps, skipped)


def _verify_bumps(
    paths: list[Path],
    engine: Engine,
    opts: LintOptions,
    overlay: dict[Path, str],
    originals: dict[Path, tuple[str, str]],
    bumps: list[Bump],
    skipped: list[Bump],
    target: Version,
    post: Callable[[LintReport], None] | None,
) -> tuple[dict[Path, str], list[Bump], list[Bump]]:
    """Lint the rewritten files as the files now say (no release given): a file whose rewrite breaks
    parsing, loses a launch or leaves a launch on another release keeps its original text."""

    def lint(texts: dict[Path, str]) -> LintReport:
        report = lint_paths(paths, engine, opts, reader=OverlayReader(opts, texts))
        if post is not None:
            post(report)
        return report

    before, after = lint({}), lint(overlay)
    counts = _launch_counts(before)
    errors_before = {fr.path for fr in before.files if fr.error is not None}
    bad: dict[str, str] = {}
    for fr in after.files:
        if fr.error is not None and fr.path not in errors_before:
            bad[fr.path] = f"{fr.path} would no longer parse: {fr.error.message}"
        elif fr.launches < counts.get(fr.path, 0):
            bad[fr.path] = f"vlint would no longer find every vLLM launch in {fr.path}"
    rewritten = {b.path for b in bumps}
    for _, dep, _ in launches_of(after):
        fact = dep.invocation.facts.get("vllm_version")
        where = fact.span.path if fact is not None and fact.span is not None else None
        if where in rewritten and dep.version_wanted != target:
            bad.setdefault(
                where, f"a launch of {dep.invocation.path} would state vLLM {dep.version_wanted}, not {target}"
            )
    if not bad:
        return overlay, bumps, skipped
    kept = {p: t for p, t in overlay.items() if originals[p][0] not in bad}
    for b in bumps:
        if b.path in bad:
            b.reason = bad[b.path]
            skipped.append(b)
    return kept, [b for b in bumps if b.path not in bad], skipped


def migrated_left(report: LintReport) -> list[Finding]:
    """Findings a safe migration fix could still clear (for the summary)."""
    return [
        f for f in report.findings if f.code in MIGRATED and f.fix is not None and f.fix.changes and not f.fix.unsafe
    ]
