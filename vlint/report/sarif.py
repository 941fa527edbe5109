"""SARIF 2.1.0 (``--format sarif``), for GitHub code scanning and other SARIF viewers.

One run: ``tool.driver`` lists every rule of the catalog (bundled and ``--rules-dir``) with its
docs page as ``helpUri``; each finding is a result with ``ruleId``/``ruleIndex``, level, message,
one physical location (paths relative to ``%SRCROOT%``, the folder vlint ran in) and
``partialFingerprints`` (see :mod:`vlint.suppression.baseline`). Files that could not be read are
``invocations[0].toolExecutionNotifications`` (level ``error``), and so are launches the memory model
could not check (level ``note``, ``descriptor.id`` ``memory-unavailable``, with the reason and fix).
Secrets are masked as in every other format.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from urllib.parse import quote

from vlint import __version__
from vlint.core.escape import json_text
from vlint.core.finding import Finding
from vlint.core.rule import Rule
from vlint.core.span import Span
from vlint.core.typing_names import Any
from vlint.engine.catalog import Catalog
from vlint.engine.results import LintReport
from vlint.report.json_report import jsonable, memory_counts
from vlint.security.secrets import Redactor
from vlint.suppression.baseline import FINGERPRINT_KEY

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
INFORMATION_URI = "https://github.com/vlint-dev/vlint"
#: the generated rule pages (``tools/gen_docs.py`` → ``docs/rules/<CODE>.md``)
RULE_DOCS_URL = INFORMATION_URI + "/blob/main/docs/rules/{code}.md"
SRCROOT = "%SRCROOT%"

_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
_GROUPS = {
    "0": "arguments",
    "1": "scheduling",
    "2": "memory",
    "3": "parallelism",
    "4": "model",
    "5": "security",
    "6": "wiring",
    "9": "vlint",
}


def rule_help_uri(rule: Rule) -> str | None:
    """The docs page of a bundled rule; custom rules have none."""
    return None if rule.custom else RULE_DOCS_URL.format(code=rule.code)


def _first_paragraph(text: str) -> str:
    return text.strip().split("\n\n", 1)[0].replace("\n", " ").strip()


#: what kind of problem each group's rules find (SARIF tags; GitHub code scanning filters by them)
_KIND = {"1": "performance"}


def rule_tags(rule: Rule) -> list[str]:
    """``security`` for rules with a security-severity, else ``correctness`` (what vLLM refuses, fails
    or does wrong) or ``performance`` (scheduling); then the rule's group and its own tags."""
    tags = ["custom"] if rule.custom else []
    group = rule.code[2] if not rule.custom and rule.code.startswith("VL") and len(rule.code) == 5 else ""
    tags.append("security" if rule.security_severity is not None else _KIND.get(group, "correctness"))
    if group:
        tags.append(_GROUPS.get(group, "other"))
    return list(dict.fromkeys([*tags, *rule.tags]))


def rule_descriptor(rule: Rule) -> dict[str, Any]:
    tags = rule_tags(rule)
    d: dict[str, Any] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": _first_paragraph(rule.docs) if rule.docs else rule.summary},
        "defaultConfiguration": {"enabled": rule.enabled, "level": _LEVEL[rule.severity]},
        "properties": {"tags": tags, "severity": rule.severity},
    }
    if rule.security_severity is not None:
        # GitHub code scanning ranks security alerts by this (a string, as GitHub documents it)
        d["properties"]["security-severity"] = f"{rule.security_severity:.1f}"
    if rule.docs:
        d["help"] = {"text": rule.docs.strip(), "markdown": rule.docs.strip()}
    uri = rule_help_uri(rule)
    if uri:
        d["helpUri"] = uri
    return d


def _artifact(path: str) -> dict[str, Any]:
    p = path.replace("\\", "/")
    if PurePosixPath(p).is_absolute() or (len(p) > 1 and p[1] == ":"):
        return {"uri": "file://" + _quote(p) if Path(path).is_absolute() else _quote(p)}
    return {"uri": _quote(p), "uriBaseId": SRCROOT}


def _quote(path: str) -> str:
    """A path as a URI: a file name that is not UTF-8 (its bytes decoded with surrogateescape) is
    percent-encoded byte for byte, as the file system has it."""
    return quote(path.encode("utf-8", "surrogateescape"))


def _region(span: Span) -> dict[str, Any] | None:
    if span.line < 1:
        return None
    region: dict[str, Any] = {"startLine": span.line, "startColumn": max(span.column, 1)}
    if span.end_line >= span.line:
        region["endLine"] = span.end_line
        end_col = span.end_column if span.end_column >= 1 else region["startColumn"]
        if span.end_line == span.line:
            end_col = max(end_col, region["startColumn"])
        region["endColumn"] = end_col
    return region


def _location(path: str, span: Span | None) -> dict[str, Any]:
    physical: dict[str, Any] = {"artifactLocation": _artifact(path)}
    if span is not None:
        region = _region(span)
        if region is not None:
            physical["region"] = region
    return {"physicalLocation": physical}


def _result(f: Finding, index: int, fingerprint: str, red: Redactor) -> dict[str, Any]:
    text = red.text(f.message)
    props: dict[str, Any] = {"severity": f.severity}
    if f.context:
        props["context"] = f.context
    if f.data:
        props["data"] = jsonable(f.data, red)
    if f.fix is not None:
        fix = red.text(f.fix.description)
        props["fix"] = fix
        props["fixApplicable"] = f.fix.applicable
        text += f"\n{f.fix.label}: {fix}"
    return {
        "ruleId": f.code,
        "ruleIndex": index,
        "level": _LEVEL[f.severity],
        "message": {"text": text},
        "locations": [_location(f.span.path, f.span)],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
        "properties": props,
    }


def sarif_document(
    report: LintReport, catalog: Catalog, prints: Sequence[str], root: Path | None = None
) -> dict[str, Any]:
    red = report.redactor()
    rules = list(catalog.rules)
    index = {r.code: i for i, r in enumerate(rules)}
    results = [
        _result(f, index[f.code], fp, red) for f, fp in zip(report.findings, prints, strict=True) if f.code in index
    ]
    notifications = []
    for fr in report.files:
        if fr.error is None:
            continue
        span = Span(fr.path, fr.error.line, fr.error.column or 1) if fr.error.line else None
        notifications.append(
            {
                "level": "error",
                "message": {"text": f"{fr.path}: {red.text(fr.error.message)}"},
                "locations": [_location(fr.path, span)],
                "descriptor": {"id": "file-error"},
            }
        )
    failed = bool(notifications)
    notifications.extend(_memory_notifications(report, red))
    root_uri = "file://" + _quote(str((root or Path.cwd()).absolute())).rstrip("/") + "/"
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "vlint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [rule_descriptor(r) for r in rules],
            }
        },
        "invocations": [
            {
                "executionSuccessful": not failed,
                "toolExecutionNotifications": notifications,
            }
        ],
        "originalUriBaseIds": {SRCROOT: {"uri": root_uri}},
        "columnKind": "unicodeCodePoints",
        "results": results,
        "properties": {
            "files": len(report.files),
            "launches": sum(fr.launches for fr in report.files),
            "suppressed": len(report.suppressed),
            "memory": memory_counts(report),
        },
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def _memory_notifications(report: LintReport, red: Redactor) -> list[dict[str, Any]]:
    """A note per launch the memory model could not check (``memory-unavailable``), with the fix, and per
    assumption about a launch's GPU environment (``memory-environment``)."""
    from vlint.launch.memory_status import memory_status

    out = []
    for fr in report.files:
        for d in fr.deployments:
            st = memory_status(d)
            span = d.invocation.span
            for n in st.notes:  # what vlint assumed about the GPU's environment (vlint.launch.free_memory)
                out.append(
                    {
                        "level": "note",
                        "message": {"text": f"{fr.path}:{span.line}: {red.text(n.text)}"},
                        "locations": [_location(fr.path, span)],
                        "descriptor": {"id": "memory-environment"},
                        "properties": {"kind": n.kind},
                    }
                )
            if st.answer is not None or st.explained is None:
                continue
            text = f"{fr.path}:{span.line}: memory model not run: {red.text(st.explained)}"
            out.append(
                {
                    "level": "note",
                    "message": {"text": text},
                    "locations": [_location(fr.path, span)],
                    "descriptor": {"id": "memory-unavailable"},
                    "properties": {"kind": st.kind, "model": jsonable(d.model, red)},
                }
            )
    return out


def render(report: LintReport, catalog: Catalog, prints: Sequence[str], root: Path | None = None) -> str:
    return json_text(sarif_document(report, catalog, prints, root))
