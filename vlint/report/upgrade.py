"""``vlint upgrade``'s output: per launch, what the version bump breaks, the settings whose effective value
changes, the memory before and after (side by side, as ``vlint explain --set`` shows it), and what a
later release deprecates; as text or as JSON (``schemas/upgrade.schema.json``).

The memory numbers are ``vlint explain --format json``'s, for each release: :func:`explain_view` is the
explain document of a deployment, and the JSON carries its ``memory`` unchanged.
"""

from __future__ import annotations

from vlint.core.escape import printable
from vlint.core.typing_names import TYPE_CHECKING, Any
from vlint.launch.upgrade import GROUPS, Change, Comparison, change_dict, shown
from vlint.report.explain import explain_dict, model_facts_line, side_by_side
from vlint.report.json_report import jsonable

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment
    from vlint.run.upgrade import LaunchResult, UpgradeRun
    from vlint.security.secrets import Redactor

#: the JSON output's format (``schemas/upgrade.schema.json``); bumped when a key changes meaning
FORMAT_VERSION = 1
_TITLES = {
    "breaks": "breaks: what vLLM {to} rejects or refuses",
    "behaviour": "behaviour: settings whose effective value changes",
    "memory": "memory per GPU",
    "deprecations": "deprecations: accepted by {to}, removed later",
    "notes": "notes: other findings that appear at {to}",
}


def explain_view(dep: Deployment) -> dict[str, Any]:
    """What the comparison reads of explain: its JSON document of the deployment."""
    return explain_dict(dep)


# -- JSON -------------------------------------------------------------------------------------------
def upgrade_doc(run: UpgradeRun, source: str | None) -> dict[str, Any]:
    red = run.after.redactor()
    launches = [launch_doc(r, red) for r in run.launches]
    errors = [
        red.text(f"{fr.path}{':' + str(fr.error.line) if fr.error.line else ''}: error: {fr.error.message}")
        for fr in run.file_errors
        if fr.error is not None
    ]
    compared = [r for r in run.launches if r.comparison is not None]
    return {
        "format_version": FORMAT_VERSION,
        "to": str(run.target),
        "from": source,
        "launches": launches,
        "errors": errors,
        "summary": {
            "launches": len(run.launches),
            "compared": len(compared),
            "unresolved": sum(1 for r in run.launches if r.unresolved),
            "with_breaks": sum(1 for r in compared if r.comparison is not None and r.comparison.breaks),
        },
    }


def launch_doc(r: LaunchResult, red: Redactor | None = None) -> dict[str, Any]:
    dep = r.before
    inv = dep.invocation
    cmp = r.comparison
    d: dict[str, Any] = {
        "file": inv.path,
        "line": inv.span.line,
        "column": inv.span.column,
        "label": inv.label or inv.program,
        "model": dep.model,
        "from": str(dep.version) if not r.unresolved else None,
        "from_reason": dep.version_reason,
        "to": str(r.after.version) if r.after is not None else None,
        "to_reason": r.after.version_reason if r.after is not None else None,
        "gpu": r.after.gpu.name if r.after is not None and r.after.gpu is not None else None,
        "unresolved": r.unresolved or None,
        "counts": cmp.counts() if cmp is not None else None,
        "changes": [change_dict(c) for c in cmp.changes] if cmp is not None else [],
        "memory": {
            "before": cmp.explain_before.get("memory") if cmp else None,
            "after": cmp.explain_after.get("memory") if cmp else None,
        },
        "memory_unavailable": {
            "before": cmp.explain_before.get("memory_unavailable") if cmp else None,
            "after": cmp.explain_after.get("memory_unavailable") if cmp else None,
        },
        "verdict": {
            "before": cmp.verdict_before.as_dict() if cmp and cmp.verdict_before else None,
            "after": cmp.verdict_after.as_dict() if cmp and cmp.verdict_after else None,
        },
        "gpu_fit": {
            "before": cmp.explain_before.get("gpu_fit") if cmp else None,
            "after": cmp.explain_after.get("gpu_fit") if cmp else None,
        },
    }
    return jsonable(d, red)


# -- text -------------------------------------------------------------------------------------------
def render_text(run: UpgradeRun, style: Any) -> str:
    red = run.after.redactor()
    out = []
    for r in run.launches:
        out.append(render_launch(r, style, red))
    for fr in run.file_errors:
        assert fr.error is not None
        out.append(printable(red.text(f"{fr.path}: error: {fr.error.message}")) + "\n")
    out.append(summary(run) + "\n")
    return "\n".join(out)


def summary(run: UpgradeRun) -> str:
    n = len(run.launches)
    compared = [r.comparison for r in run.launches if r.comparison is not None]
    broken = sum(1 for c in compared if c.breaks)
    unresolved = sum(1 for r in run.launches if r.unresolved)
    text = f"{n} vLLM launch{'es' if n != 1 else ''} to vLLM {run.target}: {len(compared)} compared"
    if compared:
        text += f", {broken} with breaks" if broken else ", none breaks"
    if unresolved:
        text += f"; {unresolved} not compared (release not stated: pass --from X.Y.Z)"
    if run.file_errors:
        text += f"; {len(run.file_errors)} file{'s' if len(run.file_errors) != 1 else ''} could not be read"
    return text + "."


def render_launch(r: LaunchResult, style: Any, red: Redactor) -> str:
    dep = r.before
    inv = dep.invocation

    def say(text: str) -> str:
        return printable(red.text(text))

    lines = [
        style(say(f"{inv.path}:{inv.span.line}: {inv.label or inv.program} — {dep.model or '(no model)'}"), bold=True)
    ]
    cmp = r.comparison
    if cmp is None:
        lines.append("  " + style("not compared: ", fg="yellow", bold=True) + say(r.unresolved or "no target launch"))
        return "\n".join(lines) + "\n"
    a = cmp.after
    gpu = f"{a.gpu.name} ({a.gpu.total_gib:.2f} GiB)" if a.gpu else "no GPU named"
    lines.append(say(f"  vLLM {cmp.source} ({dep.version_reason}) → {cmp.target} ({a.version_reason}); {gpu}"))
    if not cmp.changes:
        lines.append(f"  nothing changes for this launch from {cmp.source} to {cmp.target}")
    for group in GROUPS:
        changes = cmp.group(group)
        if not changes and group != "breaks":
            continue
        title = _TITLES[group].format(to=cmp.target)
        lines.append("")
        lines.append("  " + style(f"{title} ({len(changes)})", bold=True))
        if group == "breaks" and not changes:
            lines.append(f"    none: vLLM {cmp.target} accepts every flag and starts where {cmp.source} does")
        elif group == "behaviour":
            lines += [say(x) for x in _behaviour_rows(changes, cmp)]
        elif group == "memory":
            lines += _memory_rows(cmp, style, say)
        else:
            for c in changes:
                lines.append(say(_change_line(c, style)))
    facts = model_facts_line(a)
    if facts:
        lines.append("")
        lines.append("  " + style(say(facts), dim=True))
    return "\n".join(lines) + "\n"


def _change_line(c: Change, style: Any) -> str:
    where = f"{c.span.path}:{c.span.line}: " if c.span is not None else ""
    kind = c.kind if c.new else f"{c.kind} (already)"
    colour = {"removed": "red", "renamed": "yellow", "refused": "red", "deprecated": "yellow"}.get(c.kind)
    fix = "  [vlint upgrade --fix]" if c.fixable else ""
    return f"    {style(kind, fg=colour)}  {where}{c.message}{fix}"


def _behaviour_rows(changes: list[Change], cmp: Comparison) -> list[str]:
    """``setting  before → after  where it changed``, aligned."""
    rows = [("setting", str(cmp.source), str(cmp.target), "changed in (vLLM's reason, from vlint's defaults)")]
    for c in changes:
        steps = c.data.get("changed_in") or []
        if steps:
            where = "; ".join(f"{s['release']}: {s['why']}" for s in steps)
        else:
            where = f"{cmp.target}: {c.data.get('why_after', '')}"
        rows.append((c.setting, shown(c.before), shown(c.after), where))
    w = [max(len(r[i]) for r in rows) for i in range(3)]
    return [f"    {a:<{w[0]}}  {b:>{w[1]}} → {x:<{w[2]}}  {d}".rstrip() for a, b, x, d in rows]


def _memory_rows(cmp: Comparison, style: Any, say: Any) -> list[str]:
    b, a = cmp.before, cmp.after
    if b.memory is None and a.memory is None:
        fb, fa = cmp.explain_before.get("gpu_fit"), cmp.explain_after.get("gpu_fit")
        out = [
            "    " + say(f"not computed at {cmp.source}: {cmp.explain_before.get('memory_unavailable') or 'unknown'}")
        ]
        if fa:
            out.append("    " + say(f"on the reference GPUs ({cmp.source} → {cmp.target}):"))
            for c in cmp.group("memory"):
                out.append("      " + say(c.message))
            if not cmp.group("memory"):
                out.append("      the same verdicts and KV tokens on every reference GPU")
        elif not fb:
            out.append("    " + say(f"not computed at {cmp.target}: {cmp.explain_after.get('memory_unavailable')}"))
        return out
    out = [
        ("  " + line).rstrip()
        for line in side_by_side(
            b, a, f"vLLM {cmp.source}", f"vLLM {cmp.target}", style, (str(cmp.source), str(cmp.target))
        )[1:]
    ]
    vb, va = cmp.verdict_before, cmp.verdict_after
    if vb is not None and va is not None:
        out.append(
            "    " + say(f"verdict with the memory model's uncertainty: {vb} ({cmp.source}) → {va} ({cmp.target})")
        )
    return out
