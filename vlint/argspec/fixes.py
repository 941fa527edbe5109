"""Fixes for what vLLM's parser rejects: abbreviated options (VL005), removed flags (VL002) and unknown
flags with a unique did-you-mean (VL001).

A removed flag is *renamed* when the replacement table (:mod:`vlint.argspec.replacements`) names one
option the target version has and the value carries over unchanged (``--chat-template-text-format`` →
``--chat-template-content-format``), or a flag that took no value becomes an option with a fixed value
(``--disable-mm-preprocessor-cache`` → ``--mm-processor-cache-gb 0``). Anything else is removed: safely
when the table says nothing replaces it (the flag had no effect any more), otherwise as an unsafe fix
because the behaviour it asked for is gone.
"""

from __future__ import annotations

import json

from vlint.core.finding import Fix, SettingChange, remove_words, rename
from vlint.core.lazy_re import lazy_compile
from vlint.core.span import Span
from vlint.core.typing_names import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vlint.argspec.spec import ArgSpec, Argument

_MECHANICAL = lazy_compile(r"(--[a-z0-9][a-z0-9-]*)(?: ([A-Za-z0-9_.]+))?")


def _target(origin: str) -> str:
    return "config" if origin == "config" else "cli"


def abbreviation_fix(span: Span, written: str, full: str, dest: str, origin: str) -> Fix:
    """VL005: write the option in full (safe: argparse already reads it as ``full``)."""
    target = _target(origin)
    shown = full if target == "cli" else full[2:]
    return Fix(
        f"write {shown} in full instead of {written}",
        span,
        None,
        unsafe=False,
        changes=(rename(dest, span, full, target=target),),
    )


def typo_fix(span: Span, written: str, option: str | None, spec: ArgSpec, origin: str) -> Fix | None:
    """VL001 with a unique did-you-mean (:func:`vlint.argspec.parse.unique_suggestion`): rename the flag.

    Unsafe: vLLM refuses the launch as written, and the rename makes a value take effect that never
    has (a guess of what was meant, to review)."""
    if option is None:
        return None
    hit = spec.lookup(option)
    if hit is None:
        return None
    target = _target(origin)
    shown = option if target == "cli" else option[2:]
    was = written if target == "cli" else written.lstrip("-")
    return Fix(
        f"rename {was} to {shown}",
        span,
        None,
        unsafe=True,
        changes=(rename(hit[0].dest, span, option, target=target),),
    )


def _old_argument(option: str, last_in: str) -> Argument | None:
    """The flag as the last bundled release that had it defined it (for its arity)."""
    from vlint.argspec.spec import bundled_versions, load_spec
    from vlint.core.version import Version

    v = Version.try_parse(last_in)
    if v is None or v not in bundled_versions():
        return None
    hit = load_spec(v).lookup(option)
    return hit[0] if hit is not None else None


def _mechanical_rename(
    advice: str | None, old: Argument | None, spec: ArgSpec, span: Span, target: str, entry_spans: tuple[Span, ...]
) -> tuple[SettingChange, str] | None:
    """The rename to ``advice`` when it is one option of ``spec`` (``--x`` or ``--x VALUE`` for a flag)
    that takes a value exactly when ``old`` did; with the option as it would be written."""
    m = _MECHANICAL.fullmatch(advice or "")
    new_hit = spec.lookup(m.group(1)) if m else None
    if m is None or new_hit is None or old is None or new_hit[1]:
        return None
    new_opt, literal = m.group(1), m.group(2)
    new_arg = new_hit[0]
    same_shape = literal is None and old.takes_value == new_arg.takes_value
    flag_to_value = literal is not None and not old.takes_value and new_arg.takes_value
    if not (same_shape or flag_to_value):
        return None
    spans = entry_spans[:2] if target == "config" and entry_spans else (span,)
    change = SettingChange(new_arg.dest, "rename", literal, new_opt, spans, target=target)
    return change, new_opt + (f" {literal}" if literal else "")


def deprecated_flag_fix(
    option: str,
    arg: Argument,
    advice: str | None,
    spec: ArgSpec,
    span: Span,
    origin: str,
    entry_spans: tuple[Span, ...],
) -> Fix | None:
    """VL009: the flag that replaces a deprecated one (from the table of what replaced removed flags):
    a safe rename when it is mechanical, else the advice in words; None when the table names none."""
    if not advice or advice.startswith("nothing"):
        return None
    renamed = _mechanical_rename(advice, arg, spec, span, _target(origin), entry_spans)
    if renamed is not None:
        change, shown = renamed
        return Fix(f"replace {option} with {shown}", span, None, unsafe=False, changes=(change,))
    return Fix(f"use {advice} instead of {option}", span, None)


def removed_flag_fix(
    data: dict[str, Any],
    span: Span,
    *,
    origin: str,
    value_span: Span | None,
    entry_spans: tuple[Span, ...] = (),
    spec: ArgSpec,
) -> Fix:
    """VL002: the replacement option when it is a mechanical rename, else remove the flag.

    ``value_span`` is the word the parser took as the flag's value (command line); ``entry_spans``
    the key and value of a config-file entry."""
    option = str(data.get("option") or "")
    advice = data.get("replacement")
    removed_in = data.get("removed_in", "?")
    target = _target(origin)
    old = _old_argument(option, str(data.get("last_in", "")))
    renamed = _mechanical_rename(advice, old, spec, span, target, entry_spans)
    if renamed is not None:
        change, shown = renamed
        return Fix(
            f"replace {option} with {shown} (its replacement; {option} was removed in vLLM {removed_in})",
            span,
            None,
            unsafe=False,
            changes=(change,),
        )
    if target == "config" and entry_spans:
        spans = entry_spans
    else:
        takes_value = old.takes_value if old is not None else value_span is not None
        spans = (span, value_span) if takes_value and value_span is not None else (span,)
    safe = isinstance(advice, str) and advice.startswith("nothing")
    if safe:
        why = f"removed in vLLM {removed_in}: {advice}"
    elif advice:
        why = f"removed in vLLM {removed_in}; to keep its effect use {advice}"
    else:
        why = f"removed in vLLM {removed_in}; nothing replaces it"
    return Fix(
        f"remove {option} ({why})", span, None, unsafe=not safe, changes=(remove_words(option, spans, target=target),)
    )


def json_value_fix(span: Span, dest: str, option: str, value: dict[str, Any], written: str, origin: str) -> Fix:
    """VL004: a dict option written as ``KEY=VALUE`` pairs, which only vLLM 0.8.5-0.9.x's fallback read, on a
    release that reads JSON alone: write the same pairs as a JSON object. Unsafe: the launch refused so
    far, and the value takes effect for the first time."""
    text = json.dumps(value)
    return Fix(
        f"write {written} as JSON: {text}",
        span,
        None,
        unsafe=True,
        changes=(SettingChange(dest, "set", value, option, (span,), target=_target(origin)),),
    )
