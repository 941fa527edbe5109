"""The JSON report (``--format json``). Its shape is versioned by ``format_version``; see
``docs/guide.md`` ("JSON output") for every field."""

from __future__ import annotations

import math

from vlint import __version__
from vlint.core.escape import json_text
from vlint.core.finding import Finding, SettingChange
from vlint.core.span import Span
from vlint.core.typing_names import Any
from vlint.engine.results import LintReport
from vlint.security.secrets import Redactor

FORMAT_VERSION = 1


def jsonable(value: Any, red: Redactor | None = None) -> Any:
    """Findings' data as JSON: unresolved values and non-finite numbers become strings, secrets masked."""
    if isinstance(value, str):
        return red.text(value) if red is not None else value
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v, red) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [jsonable(v, red) for v in value]
    return jsonable(str(value), red)


def span_dict(span: Span, *, path: bool = False) -> dict[str, Any]:
    d: dict[str, Any] = {"path": span.path} if path else {}
    d.update(line=span.line, column=span.column, end_line=span.end_line, end_column=span.end_column)
    return d


def change_dict(c: SettingChange, red: Redactor | None = None) -> dict[str, Any]:
    """One structured edit of a fix (``vlint fix`` applies these; see docs/fix-and-size.md)."""
    return {
        "dest": c.dest,
        "action": c.action,
        "option": c.option,
        "value": jsonable(c.value, red),
        "target": c.target,
        "spans": [span_dict(s, path=True) for s in c.spans],
        "anchor": span_dict(c.anchor, path=True) if c.anchor is not None else None,
    }


def finding_dict(f: Finding, red: Redactor | None = None) -> dict[str, Any]:
    fix = None
    if f.fix is not None:
        fix = {
            "description": jsonable(f.fix.description, red),
            "replacement": jsonable(f.fix.replacement, red),
            "unsafe": f.fix.unsafe,
            # vlint fix (and the editor's quick fix) can apply it; false: advice to follow by hand
            "applicable": f.fix.applicable,
        }
        if f.fix.span is not None:
            fix["span"] = span_dict(f.fix.span)
        fix["changes"] = [change_dict(c, red) for c in f.fix.changes]
    return {
        "code": f.code,
        "name": f.name,
        "severity": f.severity,
        "path": f.span.path,
        "line": f.span.line,
        "column": f.span.column,
        "end_line": f.span.end_line,
        "end_column": f.span.end_column,
        "message": jsonable(f.message, red),
        "context": jsonable(f.context, red),
        "data": jsonable(f.data, red),
        "fix": fix,
    }


def launch_dict(dep: Any, red: Redactor | None = None) -> dict[str, Any]:
    """One launch of a file: where it is, its model and whether the memory model answered."""
    from vlint.launch.memory_status import memory_status

    st = memory_status(dep)
    inv = dep.invocation
    return {
        "line": inv.span.line,
        "column": inv.span.column,
        "lines": list(inv.lines()),
        "fragment": inv.fragment,
        "label": inv.label or inv.program,
        "model": jsonable(dep.model, red),
        "vllm_version": str(dep.version),
        "gpu": dep.gpu.name if dep.gpu is not None else None,
        "memory_answer": st.answer,
        "memory_unavailable": jsonable(st.explained, red) if st.answer != "memory" else None,
        "memory_unavailable_kind": st.kind or None,
        "notes": [{"kind": n.kind, "text": jsonable(n.text, red)} for n in st.notes],
    }


def report_dict(report: LintReport) -> dict[str, Any]:
    red = report.redactor()
    files = []
    for fr in report.files:
        files.append(
            {
                "path": fr.path,
                "launches": fr.launches,
                "error": None
                if fr.error is None
                else {"message": red.text(fr.error.message), "line": fr.error.line, "column": fr.error.column},
                "sources": list(fr.sources),
                "linked": list(fr.linked),
                "used_by": list(fr.used_by),
                "vllm_versions": [str(v) for v in sorted({d.version for d in fr.deployments})],
                "skipped": fr.skipped or None,
                "notes": [red.text(n) for n in fr.notes],
                "deployments": [launch_dict(d, red) for d in fr.deployments],
            }
        )
    counts = {s: 0 for s in ("error", "warning", "info")}
    for f in report.findings:
        counts[f.severity] += 1
    return {
        "format_version": FORMAT_VERSION,
        "version": __version__,
        "files": files,
        "findings": [finding_dict(f, red) for f in report.findings],
        "summary": {
            "files": len(report.files),
            "launches": sum(fr.launches for fr in report.files),
            "file_errors": sum(1 for fr in report.files if fr.error is not None),
            "skipped": sum(1 for fr in report.files if fr.skipped),
            "errors": counts["error"],
            "warnings": counts["warning"],
            "info": counts["info"],
            "memory": memory_counts(report),
        },
    }


def memory_counts(report: LintReport) -> dict[str, int]:
    """Launches the memory model answered (``checked``: on their GPU, ``gpu_fit``: over the reference
    GPUs) and those it did not (``unavailable``)."""
    from vlint.launch.memory_status import memory_status

    out = {"checked": 0, "gpu_fit": 0, "unavailable": 0}
    for fr in report.files:
        for d in fr.deployments:
            answer = memory_status(d).answer
            out["checked" if answer == "memory" else answer or "unavailable"] += 1
    return out


def render(report: LintReport) -> str:
    return json_text(report_dict(report))
