"""Lint the same files at two vLLM releases and compare each launch (:mod:`vlint.launch.upgrade`).

:func:`upgrade` is ``vlint upgrade``: the launches of PATHS at the release each resolves to (or
``--from``) and at the target (``--to``), each side linted exactly as ``vlint check --vllm-version R``
lints it. :func:`diff_base` is ``vlint check --diff-base REF``: the same files as REF has them
(:mod:`vlint.run.git_ref`), the launches whose stated release differs between REF and the working
tree, and for each a VL640 finding on the line that states the release (the image tag, the pin, the
Helm value) with what the bump does.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from vlint.core.invocation import Problem
from vlint.core.record import field, record, replace
from vlint.core.typing_names import TYPE_CHECKING, Any
from vlint.core.version import Version
from vlint.engine.results import FileResult, LintReport
from vlint.engine.runner import Engine, Selection, describe
from vlint.launch.upgrade import Change, Comparison, compare, shown
from vlint.run.lint import LintOptions, Reader, lint_paths

if TYPE_CHECKING:
    from vlint.core.finding import Finding
    from vlint.launch.deployment import Deployment
    from vlint.launch.resolver import ResolveOptions
    from vlint.run.git_ref import Snapshot

Explain = Callable[["Deployment"], dict[str, Any]]
Post = Callable[[LintReport], None]


@record(slots=True)
class LaunchResult:
    """One launch of the run."""

    #: display path of the file the launch is in
    path: str
    before: Deployment
    after: Deployment | None = None
    comparison: Comparison | None = None
    #: why the source release is unknown (no comparison then), naming the flag that gives it
    unresolved: str = ""


@record(slots=True)
class UpgradeRun:
    target: Version
    launches: list[LaunchResult]
    before: LintReport
    after: LintReport

    @property
    def file_errors(self) -> list[FileResult]:
        return [fr for fr in self.after.files if fr.error is not None]


def at_release(opts: LintOptions, version: Version | None, why: str) -> LintOptions:
    """``opts`` for a lint run in this process (full deployments) where every launch is checked against
    ``version`` (None: the release each launch resolves to), as ``--vllm-version`` would."""
    base = replace(opts, jobs=1, auto_jobs=False, progress=None)
    if version is None:
        return base
    made: dict[int, ResolveOptions] = {}

    def over(r: ResolveOptions) -> ResolveOptions:
        hit = made.get(id(r))
        if hit is None:
            hit = made[id(r)] = replace(r, vllm_version=version, vllm_version_source=why)
        return hit

    settings_for = opts.settings_for
    if settings_for is None:
        return replace(base, resolve=over(opts.resolve))

    def per_file(path: Path) -> tuple[Engine, ResolveOptions]:
        engine, r = settings_for(path)
        return engine, over(r)

    return replace(base, resolve=over(opts.resolve), settings_for=per_file)


def launches_of(report: LintReport) -> list[tuple[FileResult, Deployment, list[Finding]]]:
    """Every launch of a report with the findings about it (by the launch the engine names in each)."""
    out = []
    for fr in report.files:
        for dep in fr.deployments:
            context = describe(dep)
            out.append((fr, dep, [f for f in fr.findings if f.context == context]))
    return out


def _keyed(report: LintReport) -> dict[tuple[str, str, int], tuple[FileResult, Deployment, list[Finding]]]:
    """Launches by (file, label, occurrence): the same launch in two lints of one file, also when another
    launch was added above it or its image now runs another program."""
    out = {}
    seen: dict[tuple[str, str], int] = {}
    for fr, dep, findings in launches_of(report):
        k = (fr.path, dep.invocation.label)
        seen[k] = seen.get(k, 0) + 1
        out[(*k, seen[k])] = (fr, dep, findings)
    return out


def _lint(paths: list[Path], engine: Engine, opts: LintOptions, post: Post | None, reader: Any = None) -> LintReport:
    report = lint_paths(paths, engine, opts, reader=reader)
    if post is not None:
        post(report)
    return report


def unresolved_reason(dep: Deployment) -> str:
    """Why a launch's release is unknown, naming the flag that gives it ("" when it is known)."""
    if dep.version_wanted is not None:
        return ""
    why = dep.version_reason.split("; pass --vllm-version", 1)[0]
    return (
        f"the vLLM release of this launch is not stated ({why}): pass --from X.Y.Z (the release it runs now), "
        "or state it (an image tag, a vllm==X pin, vllm-version in .vlint.toml)"
    )


def upgrade(
    paths: list[Path],
    engine: Engine,
    opts: LintOptions,
    *,
    target: Version,
    target_why: str,
    source: Version | None = None,
    source_why: str = "",
    explain: Explain,
    post: Post | None = None,
) -> UpgradeRun:
    """Every launch of ``paths`` at ``source`` (None: the release each resolves to) and at ``target``."""
    # one reader for both releases: each file is read and its launches extracted once
    reader = Reader(opts)
    before = _lint(paths, engine, at_release(opts, source, source_why), post, reader=reader)
    after = _lint(paths, engine, at_release(opts, target, target_why), post, reader=reader)
    later = _keyed(after)
    results = []
    for key, (fr, dep, bf) in _keyed(before).items():
        twin = later.get(key)
        why = unresolved_reason(dep) if source is None else ""
        if twin is None or why:
            results.append(LaunchResult(fr.path, dep, twin[1] if twin else None, unresolved=why))
            continue
        _, adep, af = twin
        results.append(LaunchResult(fr.path, dep, adep, compare(dep, adep, bf, af, explain=explain)))
    return UpgradeRun(target, results, before, after)


# -- pull requests: --diff-base ------------------------------------------------------------------
@record(slots=True)
class DiffBase:
    """What ``--diff-base`` found."""

    base: str
    #: launches whose stated release changed (each got a VL640 finding)
    compared: list[LaunchResult] = field(default_factory=list)
    #: one line each: what could not be compared, and why
    notes: list[str] = field(default_factory=list)


def diff_base(
    report: LintReport,
    engine: Engine,
    opts: LintOptions,
    snapshot: Snapshot,
    *,
    explain: Explain,
    post: Post | None = None,
) -> DiffBase:
    """Add to ``report`` (the working tree's lint) a VL640 finding for every launch whose stated vLLM
    release differs at ``snapshot``, on the line that states it, with what the bump does."""
    from vlint.run.git_ref import RefReader

    out = DiffBase(snapshot.name)
    with_launches = [fr for fr in report.files if fr.launches]
    if not with_launches:
        return out
    paths = [opts.root / fr.path for fr in with_launches]
    # the base only has to say which release each launch states: no rule runs, nothing is rendered
    # (a chart is rendered from the working tree's files), every file read comes from the snapshot
    quiet = Engine(engine.catalog, Selection(select=()))
    base_opts = replace(
        at_release(opts, None, ""),
        render=False,
        suppress=False,
        unknown_format_is_error=False,
        settings_for=(lambda p, sf=opts.settings_for: (quiet, sf(p)[1])) if opts.settings_for else None,
    )
    base = lint_paths(paths, quiet, base_opts, reader=RefReader(base_opts, snapshot))
    now = at_release(opts, None, "")
    head = _lint(paths, engine, now, post)
    at_base = _keyed(base)
    groups: dict[Version, list[tuple[tuple[str, str, int], Deployment]]] = {}
    unmatched = 0
    for key, (_, dep, _) in _keyed(head).items():
        old = at_base.get(key)
        if old is None:
            unmatched += 1
            continue
        was = old[1]
        if dep.version_wanted is None or was.version_wanted is None or dep.version_wanted == was.version_wanted:
            if dep.version_wanted is not None and was.version_wanted is None:
                out.notes.append(
                    f"{key[0]}: {dep.invocation.label or dep.invocation.program} states vLLM {dep.version_wanted} now "
                    f"and no release at {snapshot.name}: not compared"
                )
            continue
        groups.setdefault(was.version, []).append((key, was))
    if unmatched:
        out.notes.append(
            f"{unmatched} launch{'es' if unmatched != 1 else ''} not found at {snapshot.name} (new, or built by "
            "rendering a chart or overlay, which reads the working tree): not compared"
        )
    current = _keyed(head)
    for version, items in sorted(groups.items(), key=lambda kv: kv[0]):
        files = sorted({k[0] for k, _ in items})
        why = f"vLLM {version} at {snapshot.name}"
        before = _keyed(_lint([opts.root / f for f in files], engine, at_release(opts, version, why), post))
        for key, was in items:
            b, a = before.get(key), current.get(key)
            if b is None or a is None:
                continue
            result = LaunchResult(key[0], b[1], a[1], compare(b[1], a[1], b[2], a[2], explain=explain))
            out.compared.append(result)
            _annotate(report, engine, result, was, snapshot.name)
    report.findings.sort(key=lambda f: f.sort_key())
    return out


def _annotate(report: LintReport, engine: Engine, result: LaunchResult, was: Deployment, base: str) -> None:
    """The VL640 finding of one launch, on the line that states its release."""
    cmp = result.comparison
    assert cmp is not None and result.after is not None
    dep = result.after
    fact = dep.invocation.facts.get("vllm_version")
    span = fact.span if fact is not None and fact.span is not None else dep.invocation.span
    problem = Problem("VL640", span, upgrade_message(cmp, f"{was.version_reason} at {base}"), upgrade_data(cmp, base))
    f = engine.builtin_finding(
        problem.code,
        problem.span,
        problem.message,
        problem.data,
        describe(dep),
        severity="warning" if cmp.breaks else "info",
    )
    if f is None:  # VL640 is not selected
        return
    holder = next((fr for fr in report.files if fr.path == span.path), None) or next(
        (fr for fr in report.files if fr.path == result.path), None
    )
    if holder is not None:
        holder.findings.append(f)
        holder.findings.sort(key=lambda x: x.sort_key())
    report.findings.append(f)


def upgrade_data(cmp: Comparison, base: str) -> dict[str, Any]:
    from vlint.launch.upgrade import change_dict

    return {
        "from": str(cmp.source),
        "to": str(cmp.target),
        "base": base,
        "counts": cmp.counts(),
        "changes": [change_dict(c) for c in cmp.changes],
    }


def upgrade_message(cmp: Comparison, was: str) -> str:
    """One line for a pull request: the bump, its breaks, what changes, the memory before and after."""
    src, dst = cmp.source, cmp.target
    dep = cmp.after
    who = dep.invocation.label or dep.invocation.program
    parts = [f"vLLM {src} → {dst} for {who} at line {dep.invocation.span.line} (before: {was})"]
    breaks = cmp.breaks
    if breaks:
        parts.append(f"{len(breaks)} break{'s' if len(breaks) != 1 else ''}: " + "; ".join(_short(c) for c in breaks))
    else:
        parts.append(f"nothing {dst} rejects")
    behaviour = cmp.group("behaviour")
    if behaviour:
        named = ", ".join(f"{c.setting} {shown(c.before)} → {shown(c.after)}" for c in behaviour[:6])
        more = f" and {len(behaviour) - 6} more" if len(behaviour) > 6 else ""
        parts.append(f"{len(behaviour)} default{'s' if len(behaviour) != 1 else ''} change: {named}{more}")
    mem = _memory_line(cmp)
    if mem:
        parts.append(mem)
    deps = cmp.group("deprecations")
    if deps:
        parts.append("deprecated: " + "; ".join(c.message for c in deps))
    parts.append(f"`vlint upgrade {dep.path} --from {src} --to {dst}` shows every change with its source")
    return ". ".join(parts)


def _short(c: Change) -> str:
    d = c.data
    if c.kind in ("removed", "renamed") and d.get("removed_in"):
        use = f", use {d['replacement']}" if c.kind == "renamed" and d.get("replacement") else ""
        return f"{c.setting} removed in {d['removed_in']}{use}"
    return c.message


def _memory_line(cmp: Comparison) -> str:
    mb, ma = cmp.explain_before.get("memory"), cmp.explain_after.get("memory")
    if mb is None or ma is None:
        return ""
    vb, va = cmp.verdict_before, cmp.verdict_after
    return (
        f"memory per GPU: KV cache {mb['kv_cache_gib']:.2f} → {ma['kv_cache_gib']:.2f} GiB, "
        f"{mb['kv_cache_tokens']:,} → {ma['kv_cache_tokens']:,} tokens, concurrency "
        f"{mb['max_concurrency']:.2f}x → {ma['max_concurrency']:.2f}x; {vb} → {va}"
    )
