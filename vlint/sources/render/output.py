"""What the sources of rendered files share: linting a tool's output with spans mapped back to the
source files, and the notes for what was not rendered."""

from __future__ import annotations

from vlint.core.invocation import Problem
from vlint.core.span import Span
from vlint.sources.base import ReadFile, SourceError, SourceResult, SourceText
from vlint.sources.render.mapping import Origins, SpanMapper, remap_result


def not_rendered(span: Span, what: str, key: str, shown: str, why: str, how: str, *, read: int = 0) -> Problem:
    """VL630: ``what`` (``the Helm chart``) ``shown`` was not rendered, why, and how to check it; ``read``
    launches of its templates were read without rendering (plain values substituted)."""
    checked = (
        "the vLLM launches it builds are not checked"
        if not read
        else f"{read} vLLM launch{'es' if read > 1 else ''} of its templates {'were' if read > 1 else 'was'} read "
        "without rendering (values.yaml substituted where the template is plain), the rest is not checked"
    )
    return Problem(
        "VL630",
        span,
        f"{what} {shown} is not rendered: {why}; {checked} (or lint its output: {how})",
        {key: shown, "why": why, **({"read_unrendered": read} if read else {})},
    )


def not_checked(what: str, shown: str, why: str, how: str, *, read: int = 0) -> str:
    """The run note for ``what`` (``the Helm chart``) ``shown`` that was not rendered for a reason that
    says nothing about the files (the tool is not installed, a file it names was not given to vlint):
    one line, with the fix; ``read`` launches of its templates were read without rendering."""
    checked = (
        "its vLLM launches are not checked"
        if not read
        else f"{read} vLLM launch{'es' if read > 1 else ''} of its templates {'were' if read > 1 else 'was'} read "
        "without rendering, the rest is not checked"
    )
    return f"{what} {shown} is not rendered: {why}; {checked} (or lint its output: {how})"


def render_blocked(span: Span, what: str, key: str, shown: str, why: str) -> Problem:
    """VL631: what stops ``what`` (``the Helm chart``) ``shown`` from being rendered, on the line that asks for it."""
    return Problem(
        "VL631",
        span,
        f"{why}: {what} {shown} is not rendered, so the vLLM launches it builds are not checked",
        {key: shown},
    )


def merge(found: SourceResult, result: SourceResult) -> None:
    result.invocations.extend(found.invocations)
    result.assignments.extend(found.assignments)
    result.secret_tokens.extend(found.secret_tokens)
    result.problems.extend(found.problems)
    result.notes.extend(found.notes)
    result.linked.extend(found.linked)
    if found.error is not None and result.error is None:
        result.error = found.error


def lint_rendered(
    output: str, src: SourceText, read_file: ReadFile, origins: Origins, fallback: Span, tool: str
) -> SourceResult:
    """The launches of a tool's rendered manifests, with spans in the source files."""
    from vlint.sources.kube import kubernetes

    virtual = f"\x00{tool}:{src.path}"
    rendered = SourceText(virtual, src.abspath.parent / f".{tool}-output.yaml", output)
    found = kubernetes.extract(rendered, read_file)
    mapper = SpanMapper(virtual, output, origins, fallback)
    out = remap_result(found, mapper.span)
    if out.error is not None:  # the tool's output is not YAML vlint reads: say where, in the source
        out.error = SourceError(f"the output of {tool} could not be read: {out.error.message}", fallback.line)
    for inv in out.invocations:
        inv.label = f"{inv.label} ({tool} output)" if inv.label else f"{tool} output"
    return out
