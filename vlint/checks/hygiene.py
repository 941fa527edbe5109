"""Settings that work but cost something (eager mode) or do nothing (ignored config values)."""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks import CheckContext, Hit, check
from vlint.checks.changes import add_option, remove_entry, remove_setting, with_changes
from vlint.core.finding import Fix
from vlint.core.typing_names import TYPE_CHECKING

if TYPE_CHECKING:
    from vlint.core.invocation import Entry
    from vlint.launch.deployment import Deployment


@check("hygiene.enforce_eager")
def enforce_eager(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    s = dep.setting("enforce_eager")
    if s is None or s.value is not True:
        return
    yield Hit(
        s.full_span,
        {"option": s.option},
        fix=Fix(
            f"remove {s.option} unless you are debugging or short of memory for CUDA graphs",
            s.full_span,
            "",
            unsafe=True,
            changes=remove_setting(dep, "enforce_eager"),
        ),
    )


@check("hygiene.config_false_ignored")
def config_false_ignored(ctx: CheckContext) -> Iterator[Hit]:
    """``key: false`` in a --config file is dropped by vllm serve: the setting keeps its default."""
    dep = ctx.dep
    assert dep is not None
    for entry, reason in dep.args.dropped:
        if entry.value is not False:
            continue
        key = entry.key.strip()
        flag = key.replace("_", "-")
        arg = dep.spec.lookup("--" + flag)
        if arg is None:
            continue  # unknown keys are reported as such
        argument = arg[0]
        effective = dep.resolved.get(argument.dest)
        default = effective.value if effective is not None and effective.origin == "default" else argument.default
        if default is False or (default is None and argument.action in ("store_true",)):
            continue  # false is already the default: dropping it changes nothing
        negatives = [o for o in argument.negative_option_strings if o.startswith("--no-")] or list(
            argument.negative_option_strings
        )
        hint = f"pass {negatives[0]} on the command line" if negatives else "remove the key"
        yield Hit(
            entry.key_span.to(entry.value_span),
            {
                "key": key,
                "dest": argument.dest,
                "default": default,
                "reason": reason,
                "hint": hint,
                "default_text": "on" if default is True else repr(default),
            },
            fix=_false_key_fix(dep, entry, argument.dest, key, negatives[0] if negatives else None, hint),
        )


def _false_key_fix(dep: Deployment, entry: Entry, dest: str, key: str, negative: str | None, hint: str) -> Fix:
    """Delete the ignored key and, where the launch has a command line, pass the negative flag there
    (unsafe: it turns the feature off, which is what the key meant but not what vLLM does today)."""
    on_cli = dep.invocation.program not in ("config", "LLM") and negative is not None
    add = add_option(dep, dest, negative) if on_cli else None
    if add is not None and add.target != "cli":
        add = None
    where = f"; {negative} is added to the command line" if add is not None else ""
    changes = (remove_entry(entry, dest), add) if add is not None else (remove_entry(entry, dest),)
    # turning the feature off is what the user wrote: the advice on that choice comes with it
    brings = _OFF_ADVICE.get(dest, ()) if add is not None else ()
    return with_changes(Fix(f"{hint} (and delete `{key}: false`){where}", unsafe=True, brings=brings), *changes)


#: rules that give advice on a feature turned off (not a refusal): a VL011 fix that turns it off brings them
_OFF_ADVICE = {"enable_prefix_caching": ("VL610",), "enable_chunked_prefill": ("VL101",)}
