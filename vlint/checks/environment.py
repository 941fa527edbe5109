"""vLLM environment variables (VL013, VL014): names the target version does not read."""

from __future__ import annotations

from collections.abc import Iterator

from vlint.argspec.history import history
from vlint.checks import CheckContext, Hit, check
from vlint.core.finding import Fix
from vlint.core.version import V

#: from this release vLLM itself warns "Unknown vLLM environment variable detected: %s"
#: (vllm/platforms/interface.py:1457-1471 in 0.33.0; present since [0.17.0] vllm/envs.py:1704-1710)
WARNS_SINCE = V("0.17.0")


@check("environment.unknown")
def unknown_env(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    if not dep.spec.env_vars:
        return
    h = history()
    for name, tok in dep.invocation.env.items():
        if not name.startswith("VLLM_") or name in dep.spec.env_vars:
            continue
        present = h.env_present_in(name)
        if any(v < dep.version for v in present):
            continue  # removed: VL014
        later = [v for v in present if v > dep.version]
        note = (
            f"it is read from vLLM {later[0]} on" if later else "no release vlint knows reads it; a fork or plugin may"
        )
        warns = dep.version >= WARNS_SINCE
        yield Hit(
            tok.span,
            {
                "name": name,
                "note": note,
                "vllm_version": str(dep.version),
                "effect": "vLLM warns 'Unknown vLLM environment variable detected' and ignores it"
                if warns
                else "vLLM ignores it",
            },
            severity="warning" if warns and later else "info",
        )


@check("environment.removed")
def removed_env(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    if not dep.spec.env_vars:
        return
    h = history()
    for name, tok in dep.invocation.env.items():
        if not name.startswith("VLLM_") or name in dep.spec.env_vars:
            continue
        present = h.env_present_in(name)
        before = [v for v in present if v < dep.version]
        if not before:
            continue
        last = before[-1]
        gone = next((v for v in h.versions if v > last and v not in present), dep.version)
        extra = ""
        if name == "VLLM_USE_V1" and not tok.unresolved and tok.text.strip() in ("0", "false", "False"):
            extra = "; it asks for the V0 engine, which no longer exists in this version"
        elif name == "VLLM_ATTENTION_BACKEND":
            extra = "; use --attention-backend NAME (0.13.0+) or --attention-config '{\"backend\": NAME}'"
        yield Hit(
            tok.span,
            {
                "name": name,
                "removed_in": str(gone),
                "last_in": str(last),
                "extra": extra,
                "vllm_version": str(dep.version),
            },
            fix=Fix(f"remove {name}{extra.replace('; ', ' (') + ')' if extra else ''}"),
        )
