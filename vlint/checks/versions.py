"""The target vLLM release lies outside the releases vlint knows (VL016)."""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks import CheckContext, Hit, check


@check("versions.outside_bundled")
def outside_bundled(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    if not dep.version_outside or dep.version_wanted is None:
        return
    fact = dep.invocation.facts.get("vllm_version")
    span = fact.span if fact is not None and fact.span is not None else dep.invocation.span
    pinned = ""
    if span.path != dep.invocation.span.path:
        # the release is pinned in another file (a Dockerfile beside a Python launch): the finding is the
        # launch's, in the launch's file, and says where the pin is (that file may not even be linted)
        pinned = f" (pinned at {span.path}:{span.line})"
        span = dep.invocation.span
    from vlint.argspec.spec import bundled_versions

    versions = bundled_versions()
    if dep.version_outside == "newer":
        message = (
            f"vlint knows vLLM releases up to {versions[-1]}; {dep.version_wanted}{pinned} is newer and was checked as "
            f"{dep.version}: flags, defaults and registries it added are unknown (update vlint)"
        )
    else:
        message = (
            f"vLLM {dep.version_wanted}{pinned} is older than the oldest release vlint knows ({versions[0]}); "
            f"it was checked as {dep.version}, whose flags and defaults may differ"
        )
    yield Hit(
        span,
        {"wanted": str(dep.version_wanted), "checked": str(dep.version), "outside": dep.version_outside},
        message=message,
    )
