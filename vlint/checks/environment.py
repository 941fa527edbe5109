"""vLLM environment variables (VL013, VL014): names the target version does not read — a launch's, and
those of a file of environment alone (a ``.env``) that no launch of the run reads, against the release a
launch with nothing stated would be checked at (the message says which and why)."""

from __future__ import annotations

from collections.abc import Collection, Iterator

from vlint.argspec.history import history
from vlint.checks import CheckContext, Hit, check
from vlint.core.finding import Fix
from vlint.core.invocation import Token
from vlint.core.record import record
from vlint.core.version import V, Version

#: from this release vLLM itself warns "Unknown vLLM environment variable detected: %s"
#: (vllm/platforms/interface.py:1457-1471 in 0.33.0; present since [0.17.0] vllm/envs.py:1704-1710)
WARNS_SINCE = V("0.17.0")


@record(slots=True)
class _Target:
    """The variables one rule run reads: a launch's, or a file's that no launch reads."""

    env: dict[str, Token]
    version: Version
    known: Collection[str]
    #: appended to the message of a file's variables: the release is the launch's own otherwise
    assumed: str = ""


def _target(ctx: CheckContext) -> _Target | None:
    if ctx.dep is not None:
        dep = ctx.dep
        return _Target(dep.invocation.env, dep.version, dep.spec.env_vars) if dep.spec.env_vars else None
    lone = ctx.file.environment if ctx.file is not None else None
    if lone is None or not lone.known:
        return None
    assumed = (
        f" (no launch in the files linted reads {ctx.file.path if ctx.file else 'this file'}: checked against "
        f"vLLM {lone.version}, {lone.version_reason})"
    )
    return _Target(lone.env, lone.version, lone.known, assumed)


@check("environment.unknown", environment_files=True)
def unknown_env(ctx: CheckContext) -> Iterator[Hit]:
    t = _target(ctx)
    if t is None:
        return
    h = history()
    for name, tok in t.env.items():
        if not name.startswith("VLLM_") or name in t.known:
            continue
        present = h.env_present_in(name)
        if any(v < t.version for v in present):
            continue  # removed: VL014
        later = [v for v in present if v > t.version]
        note = (
            f"it is read from vLLM {later[0]} on" if later else "no release vlint knows reads it; a fork or plugin may"
        )
        warns = t.version >= WARNS_SINCE
        yield Hit(
            tok.span,
            {
                "name": name,
                "note": note,
                "vllm_version": str(t.version),
                "effect": "vLLM warns 'Unknown vLLM environment variable detected' and ignores it"
                if warns
                else "vLLM ignores it",
                "assumed": t.assumed,
            },
            severity="warning" if warns and later else "info",
        )


@check("environment.removed", environment_files=True)
def removed_env(ctx: CheckContext) -> Iterator[Hit]:
    t = _target(ctx)
    if t is None:
        return
    h = history()
    for name, tok in t.env.items():
        if not name.startswith("VLLM_") or name in t.known:
            continue
        present = h.env_present_in(name)
        before = [v for v in present if v < t.version]
        if not before:
            continue
        last = before[-1]
        gone = next((v for v in h.versions if v > last and v not in present), t.version)
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
                "vllm_version": str(t.version),
                "assumed": t.assumed,
            },
            fix=Fix(f"remove {name}{extra.replace('; ', ' (') + ')' if extra else ''}"),
        )
