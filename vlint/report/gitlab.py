"""GitLab Code Quality report (``--format gitlab``): the Code Climate JSON subset GitLab reads from
``artifacts: reports: codequality`` to annotate merge requests.

Each finding: ``description``, ``check_name`` (the rule code), ``fingerprint`` (the same as SARIF's
and the baseline's), ``severity`` (error → major, warning → minor, info → info; ``critical`` for an
error that stops vLLM from starting is not distinguished) and ``location.path`` /
``location.lines.begin``. File errors become ``major`` issues named ``file-error``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from vlint.core.escape import json_text
from vlint.core.typing_names import Any
from vlint.engine.results import LintReport

_SEVERITY = {"error": "major", "warning": "minor", "info": "info"}


def _category(code: str, severity: str) -> str:
    group = code[2:3] if code.startswith("VL") else ""
    if group == "0":
        return "Compatibility"
    if group == "5":
        return "Security"
    if group == "9":
        return "Style"
    return "Bug Risk" if severity == "error" else "Performance"


def issues(report: LintReport, prints: Sequence[str]) -> list[dict[str, Any]]:
    red = report.redactor()
    out: list[dict[str, Any]] = []
    for fr in report.files:
        if fr.error is not None:
            message = f"{fr.path}: {red.text(fr.error.message)}"
            out.append(
                {
                    "type": "issue",
                    "description": message,
                    "check_name": "file-error",
                    "fingerprint": hashlib.sha256(f"file-error\x00{fr.path}".encode()).hexdigest()[:32],
                    "severity": "major",
                    "location": {"path": fr.path, "lines": {"begin": fr.error.line or 1}},
                }
            )
    for f, fp in zip(report.findings, prints, strict=True):
        out.append(
            {
                "type": "issue",
                "description": f"{f.code} {red.text(f.message)}",
                "check_name": f.code,
                "categories": [_category(f.code, f.severity)],
                "fingerprint": fp,
                "severity": _SEVERITY[f.severity],
                "location": {"path": f.span.path, "lines": {"begin": max(f.span.line, 1)}},
            }
        )
    return out


def render(report: LintReport, prints: Sequence[str]) -> str:
    return json_text(issues(report, prints))
