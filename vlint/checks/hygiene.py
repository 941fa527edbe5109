"""Settings that work but cost something (eager mode) or do nothing (ignored config values)."""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks import CheckContext, Hit, check
from vlint.finding import Fix


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
        fix=Fix(f"remove {s.option} unless you are debugging or short of memory for CUDA graphs", s.full_span, ""),
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
            fix=Fix(f"{hint} (and delete `{key}: false`)", unsafe=False),
        )
