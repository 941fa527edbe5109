"""Hover on a launch's model name, a memory-relevant flag or the ``vllm`` word: the memory summary
``vlint explain`` prints for that launch (weights, KV cache tokens, max concurrency, what each
suggested change would give), from the deployment the last lint resolved."""

from __future__ import annotations

from lsprotocol import types

from vlint.core.lazy_re import lazy_compile
from vlint.core.typing_names import TYPE_CHECKING
from vlint.launch.memory_inputs import NEEDED

if TYPE_CHECKING:
    from vlint.core.span import Span
    from vlint.engine.results import LintReport
    from vlint.launch.deployment import Deployment
    from vlint.server.positions import Lines

#: settings whose flag or value a hover answers (the model and every input of the memory model)
HOVER_DESTS = frozenset({"model", *NEEDED})
_BACKTICKS = lazy_compile(r"`+")


def _contains(span: Span, line: int, column: int) -> bool:
    after_start = (line, column) >= (span.line, span.column)
    before_end = (line, column) <= (span.end_line, span.end_column)
    return after_start and before_end


def target_at(report: LintReport, shown: str, line: int, column: int) -> tuple[Deployment, Span] | None:
    """The deployment whose model, memory-relevant setting or launch word is at ``line:column`` of
    the file ``shown``, and that word's span."""
    for fr in report.files:
        for dep in fr.deployments:
            spans: list[Span] = [dep.invocation.span]
            for dest, s in dep.args.settings.items():
                if dest in HOVER_DESTS:
                    spans.extend(x for x in (s.span, s.value_span) if x is not None)
            for span in spans:
                if span.path == shown and _contains(span, line, column):
                    return dep, span
    return None


def summary(dep: Deployment) -> str:
    """``vlint explain``'s text for one deployment, without colour."""
    from vlint.commands.explain import what_ifs
    from vlint.report.explain import render_text
    from vlint.report.text import Styler

    return render_text(dep, Styler(False), what_ifs(dep))


def hover(report: LintReport, shown: str, lines: Lines, pos: types.Position, markdown: bool) -> types.Hover | None:
    line, column = lines.vlint_position(pos)
    found = target_at(report, shown, line, column)
    if found is None:
        return None
    dep, span = found
    text = report.redactor().text(summary(dep)).rstrip("\n")
    if markdown:
        content = types.MarkupContent(kind=types.MarkupKind.Markdown, value=code_block(text))
    else:
        content = types.MarkupContent(kind=types.MarkupKind.PlainText, value=text)
    return types.Hover(contents=content, range=lines.range(span))


def code_block(text: str, info: str = "text") -> str:
    """``text`` as a Markdown fenced code block that no line of it can close or break out of: the
    fence is one backtick longer than the longest run of backticks in ``text``, and at least three
    (CommonMark: a closing fence is at least as long as the opening one)."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"
