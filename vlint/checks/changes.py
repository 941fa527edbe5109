"""Structured changes for fixes: :class:`~vlint.core.finding.SettingChange` objects built from a resolved
deployment, with the spans ``vlint fix`` edits.

Checks call these helpers; each returns ``None`` (or an empty tuple) when the change cannot be
written mechanically: a value that comes from a variable vlint cannot see, a Python keyword argument,
a ``--set`` override. The fix then stays advice (a sentence) only.
"""

from __future__ import annotations

from vlint.core.finding import Fix, SettingChange
from vlint.core.record import replace
from vlint.core.span import Span
from vlint.core.typing_names import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vlint.argspec.parse import Setting
    from vlint.argspec.spec import ArgSpec
    from vlint.core.invocation import Entry, Invocation
    from vlint.launch.deployment import Deployment

#: origins of settings whose text vlint can edit (not ``kwargs`` or ``override``)
_EDITABLE = {"cli": "cli", "config": "config"}


def with_changes(fix: Fix, *changes: SettingChange | None) -> Fix:
    """``fix`` carrying ``changes`` as its edits; advice only when one of them cannot be written."""
    if not changes or any(c is None for c in changes):
        return fix
    return replace(fix, changes=tuple(c for c in changes if c is not None))


def option_for(spec: ArgSpec, dest: str) -> str | None:
    """The long option vLLM documents for ``dest`` (``--max-model-len``)."""
    arg = spec.by_dest.get(dest)
    if arg is None:
        return None
    longs = [o for o in arg.option_strings if o.startswith("--")]
    return arg.name if arg.name.startswith("--") else (longs[0] if longs else None)


def _within(inner: Span, outer: Span) -> bool:
    return (
        inner.path == outer.path
        and (inner.line, inner.column) >= (outer.line, outer.column)
        and (inner.end_line, inner.end_column) <= (outer.end_line, outer.end_column)
    )


def setting_spans(inv: Invocation, s: Setting) -> tuple[Span, ...]:
    """The flag/key and every value word of one occurrence of a setting."""
    if s.origin == "config":
        return (s.span,) if s.value_span is None else (s.span, s.value_span)
    spans = [s.span]
    if s.value_span is not None and s.value_span != s.span:
        spans.extend(t.span for t in inv.args if _within(t.span, s.value_span) and t.span != s.span)
    return tuple(spans)


def set_value(dep: Deployment, dest: str, value: Any) -> SettingChange | None:
    """Write ``value`` for ``dest``: in place where the launch sets it, else added to the launch."""
    s = dep.setting(dest)
    option = option_for(dep.spec, dest)
    if s is None:
        return add_option(dep, dest, option, value) if option else None
    target = _EDITABLE.get(s.origin)
    if target is None or s.unresolved or s.value_span is None:
        return None
    return SettingChange(dest, "set", value, option, (s.value_span,), target=target)


def remove_setting(dep: Deployment, dest: str) -> tuple[SettingChange, ...]:
    """Delete every occurrence of ``dest`` the launch writes (empty when one cannot be edited)."""
    occurrences = list(dep.args.occurrences.get(dest, []))
    current = dep.setting(dest)
    if current is not None and current not in occurrences:
        occurrences.append(current)
    out: list[SettingChange] = []
    for s in occurrences:
        target = _EDITABLE.get(s.origin)
        if target is None:
            return ()
        out.append(SettingChange(dest, "remove", None, s.option, setting_spans(dep.invocation, s), target=target))
    return tuple(out)


def remove_entry(entry: Entry, dest: str) -> SettingChange:
    """Delete one key of a vLLM ``--config`` file (e.g. a ``key: false`` that vLLM drops)."""
    return SettingChange(dest, "remove", None, entry.key, (entry.key_span, entry.value_span), target="config")


def add_option(dep: Deployment, dest: str, option: str | None, value: Any = None) -> SettingChange | None:
    """Add ``option [value]`` to the launch: after its last argument, or as a new key of the config
    file that holds its settings (a bare config file, or ``vllm serve --config FILE`` with no other
    flags on the command line)."""
    if option is None:
        return None
    where = add_anchor(dep.invocation)
    if where is None:
        return None
    target, anchor = where
    return SettingChange(dest, "add", value, option, (), anchor=anchor, target=target)


def add_anchor(inv: Invocation) -> tuple[str, Span] | None:
    """Where new settings go: (``config``, the last entry) or (``cli``, the last argv word)."""
    cfg = inv.config
    last_entry = cfg.entries[-1] if cfg is not None and cfg.entries else None
    entry_span = last_entry.key_span.to(last_entry.value_span) if last_entry is not None else None
    if inv.program == "config":
        return ("config", entry_span) if entry_span is not None else None
    if inv.program == "LLM":
        return None
    if entry_span is not None and not _other_cli_flags(inv):
        return "config", entry_span
    if inv.args:
        return "cli", inv.args[-1].span
    if inv.program == "image":  # docker run IMAGE: the arguments follow the image
        return "cli", inv.span
    return None


def _other_cli_flags(inv: Invocation) -> bool:
    """Does the command line carry flags other than ``--config FILE`` and the model?"""
    skip = False
    for t in inv.args:
        if skip:
            skip = False
            continue
        text = t.text
        if text in ("--config", "--model"):
            skip = True
            continue
        if text.startswith(("--config=", "--model=")) or not text.startswith("-"):
            continue
        return True
    return False
