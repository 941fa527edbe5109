"""``vlint check --add-suppressions``: write a ``# vlint: disable=CODES`` comment for every finding
that is reported now (ruff's ``--add-noqa``), so that a repository can adopt a rule and fix the
existing findings later.

Where a comment goes, per line of a finding (all codes of that line in one comment):

- at the end of the line (``… # vlint: disable=VL101,VL201``) in YAML, shell scripts and Python,
  where that is a comment: the line does not end with a ``\\`` continuation and has no comment yet
  (an existing ``# vlint: disable=…`` there gets the new codes added);
- otherwise on a line of its own just above the command's first line, with its indentation: a
  Dockerfile (``#`` is a comment only at the start of a line), a ``.env`` file, a line continued with
  ``\\``, or a line that already ends with another comment.

The edited text is linted again before anything is written: every finding a comment was added for
must be gone, and nothing else may change (the launches found, files that parse, other findings);
a file where that fails is tried with every comment on its own line, then left alone with the
reason. Writing goes through the fixer's writer (:func:`vlint.fix.apply.write_fixed`: only linted
files inside the lint root, never through a symbolic link). Findings about suppressions
(VL901-VL903) get no comment.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from vlint.core.finding import Finding
from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record
from vlint.engine.results import LintReport
from vlint.suppression.inline import NO_REASON, NOT_SUPPRESSIBLE, comment_start, flavor_of

_DISABLE = lazy_compile(r"^(#+\s*vlint\s*:\s*disable\s*=\s*)([A-Za-z0-9_,\s-]+?)(\s*(?:(?:--|#).*)?)$", re.IGNORECASE)


@record(slots=True)
class Added:
    path: str
    line: int
    codes: tuple[str, ...]


@record(slots=True)
class AddOutcome:
    added: list[Added] = field(default_factory=list)
    #: display path → why no comment was written there
    skipped: dict[str, str] = field(default_factory=dict)
    #: file → (display path, original text, new text)
    changed: dict[Path, tuple[str, str, str]] = field(default_factory=dict)


def _kind(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if name in ("dockerfile", "containerfile") or name.startswith(("dockerfile.", "containerfile.")):
        return "dockerfile"
    if name.endswith((".dockerfile", ".containerfile")):
        return "dockerfile"
    if name == ".env" or name.startswith(".env.") or name.endswith(".env"):
        return "env"
    return flavor_of(path)


def _continues(line: str) -> bool:
    stripped = line.rstrip("\r")
    return stripped.endswith("\\") and not stripped.endswith("\\\\")


def _comment(codes: list[str]) -> str:
    return f"# vlint: disable={','.join(codes)}"


def add_comments(text: str, path: str, by_line: dict[int, list[str]], *, own_line_only: bool = False) -> str:
    """``text`` with a suppression comment for each (line → codes): one comment per logical line (a
    command continued with ``\\`` is one line, as :mod:`vlint.suppression.inline` reads it), at the end of its last
    physical line where that is a comment, else on a line of its own above its first."""
    lines = text.split("\n")
    kind = _kind(path)
    inline_ok = kind in ("yaml", "shell", "python") and not own_line_only
    logical: dict[tuple[int, int], list[str]] = {}
    for line_no in sorted(by_line):
        if not 1 <= line_no <= len(lines):
            continue
        start = end = line_no
        while start > 1 and _continues(lines[start - 2]):
            start -= 1
        while end < len(lines) and _continues(lines[end - 1]):
            end += 1
        logical.setdefault((start, end), []).extend(by_line[line_no])
    above: dict[int, list[str]] = {}
    for (start, end), found in sorted(logical.items()):
        codes = sorted(dict.fromkeys(found))
        line = lines[end - 1]
        at = comment_start(line, kind if kind in ("yaml", "python") else "shell") if "#" in line else None
        if inline_ok and not _continues(line):
            if at is None:
                lines[end - 1] = line.rstrip() + "  " + _comment(codes)
                continue
            m = _DISABLE.match(line[at:].rstrip())
            if m is not None:  # an existing `# vlint: disable=…` on the line gets the new codes
                old = [c.strip() for c in m.group(2).split(",") if c.strip()]
                merged = ",".join(dict.fromkeys([*old, *codes]))
                lines[end - 1] = line[:at] + m.group(1) + merged + m.group(3)
                continue
        above.setdefault(start, []).extend(codes)
    for start in sorted(above, reverse=True):
        first = lines[start - 1]
        indent = first[: len(first) - len(first.lstrip())]
        lines.insert(start - 1, indent + _comment(sorted(dict.fromkeys(above[start]))))
    return "\n".join(lines)


def _targets(report: LintReport) -> dict[str, dict[int, list[str]]]:
    out: dict[str, dict[int, list[str]]] = {}
    read = report.read_paths
    for f in report.findings:
        if f.code in NOT_SUPPRESSIBLE or f.span.path not in read or f.span.path.startswith("<"):
            continue
        out.setdefault(f.span.path, {}).setdefault(f.span.line, []).append(f.code)
    return out


def _key(f: Finding) -> tuple[str, str]:
    return (f.code, f.span.path)


def plan(
    report: LintReport,
    texts: Callable[[str], str],
    relint: Callable[[dict[str, str]], LintReport],
) -> AddOutcome:
    """The comments for every finding of ``report``, each file's result checked by ``relint``
    (display path → new text, linted as an overlay)."""
    outcome = AddOutcome()
    broken = {fr.path for fr in report.files if fr.error is not None}
    for shown, by_line in sorted(_targets(report).items()):
        if shown in broken:
            outcome.skipped[shown] = "the file failed to parse; it is not edited"
            continue
        try:
            original = texts(shown)
        except OSError as e:
            outcome.skipped[shown] = f"cannot read: {e}"
            continue
        wanted = Counter(c for codes in by_line.values() for c in codes)
        reason = ""
        for own_line_only in (False, True):
            new = add_comments(original, shown, by_line, own_line_only=own_line_only)
            reason = _verify(report, relint({shown: new}), shown, wanted)
            if not reason:
                outcome.changed[Path(shown)] = (shown, original, new)
                outcome.added.extend(Added(shown, n, tuple(sorted(set(c)))) for n, c in sorted(by_line.items()))
                break
        if reason:
            outcome.skipped[shown] = reason
    return outcome


def _verify(before: LintReport, after: LintReport, shown: str, wanted: Counter[str]) -> str:
    """Why the commented file is not right ("" when it is): its findings must be gone, nothing else
    may change."""
    for fr in after.files:
        if fr.error is not None and fr.path == shown:
            return f"the file would no longer parse with the comments: {fr.error.message}"
    launches = {fr.path: fr.launches for fr in before.files}
    for fr in after.files:
        if fr.launches != launches.get(fr.path, fr.launches):
            return "the comments would change the vLLM launches vlint finds in the file"
    left = [f for f in after.findings if f.span.path == shown and f.code in wanted and f.code not in NOT_SUPPRESSIBLE]
    if left:
        return f"a comment would not suppress {left[0].code} at line {left[0].span.line} (vlint cannot comment there)"
    # VL903 (reason required, when on) reports the new comments themselves: expected
    new_codes = Counter(
        _key(f) for f in after.findings if (f.span.path != shown or f.code not in wanted) and f.code != NO_REASON
    ) - Counter(_key(f) for f in before.findings)
    if new_codes:
        (code, path), _ = new_codes.most_common(1)[0]
        return f"the comments would bring a new finding ({code} in {path})"
    return ""
