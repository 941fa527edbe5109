"""Deployment wiring (VL605–VL608): how a launch is plugged into its container, host and GPUs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from vlint.checks import CheckContext, Hit, check
from vlint.core.finding import Fix
from vlint.core.record import record
from vlint.core.unresolved import UNRESOLVED

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment

_EPS = 1e-9


@record(slots=True)
class _Claim:
    dep: Deployment
    gmu: float
    gpus: tuple[str, ...]
    profiles: tuple[str, ...]
    sleep: bool

    @property
    def name(self) -> str:
        return self.dep.invocation.label or self.dep.invocation.program


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _claim(dep: Deployment) -> _Claim | None:
    """The GPUs a launch takes and the fraction of each it asks for (None when vlint cannot tell)."""
    facts = dep.invocation.facts
    ids = facts.get("gpu_ids")
    if ids is None or "runs_with" not in facts or dep.is_set("kv_cache_memory_bytes"):
        return None
    gmu = dep.value("gpu_memory_utilization")
    if gmu is UNRESOLVED or not isinstance(gmu, int | float) or isinstance(gmu, bool) or abs(gmu) > 2**53:
        return None
    world = 1
    for dest in ("tensor_parallel_size", "pipeline_parallel_size"):
        n = _int(dep.value(dest, 1))
        if n is None:
            return None
        world *= n
    visible = ids.value
    if visible == "all" and world > 1024:  # no host has that many GPUs (--tensor-parallel-size 2147483648)
        return None
    gpus = tuple(str(i) for i in range(world)) if visible == "all" else tuple(visible)[:world]
    profiles = facts["compose_profiles"].value if "compose_profiles" in facts else ()
    return _Claim(dep, float(gmu), gpus, tuple(profiles), dep.value("enable_sleep_mode") is True)


def _scenarios(claims: list[_Claim]) -> list[list[_Claim]]:
    """Sets of launches that run at the same time: every compose profile alone, or none."""
    profiles = sorted({p for c in claims for p in c.profiles})
    out = []
    for active in [None, *profiles]:
        out.append([c for c in claims if not c.profiles or (active is not None and active in c.profiles)])
    return out


@check("deployment_wiring.shared_gpu_memory")
def shared_gpu_memory(ctx: CheckContext) -> Iterator[Hit]:
    """VL605: launches that run together on one GPU ask for more than all of its memory."""
    file = ctx.file
    assert file is not None
    groups: dict[str, list[_Claim]] = {}
    for dep in file.deployments:
        claim = _claim(dep)
        if claim is not None:
            groups.setdefault(str(dep.invocation.facts["runs_with"].value), []).append(claim)
    reported: set[tuple[int, ...]] = set()
    for claims in groups.values():
        for running in _scenarios(claims):
            for gpu in sorted({g for c in running for g in c.gpus}):
                on_gpu = [c for c in running if gpu in c.gpus]
                total = sum(c.gmu for c in on_gpu)
                key = tuple(sorted(id(c) for c in on_gpu))
                if len(on_gpu) < 2 or total <= 1.0 + _EPS or key in reported:
                    continue
                reported.add(key)
                yield _shared_hit(on_gpu, gpu, total)


def _shared_hit(on_gpu: list[_Claim], gpu: str, total: float) -> Hit:
    on_gpu = sorted(on_gpu, key=lambda c: (c.dep.path, c.dep.invocation.span.line, c.dep.invocation.span.column))
    last = on_gpu[-1]
    setting = last.dep.setting("gpu_memory_utilization")
    span = setting.full_span if setting is not None else last.dep.invocation.span
    parts = " + ".join(f"{c.gmu:g} ({c.name})" for c in on_gpu)
    sleeping = sum(1 for c in on_gpu if c.sleep)
    sleep_mode = sleeping >= len(on_gpu) - 1
    note = (
        "; they use --enable-sleep-mode, so this works only if every other instance is asleep whenever one "
        "starts or wakes up"
        if sleep_mode
        else ""
    )
    return Hit(
        span,
        {
            "gpu": gpu,
            "total": round(total, 4),
            "parts": parts,
            "launches": [c.name for c in on_gpu],
            "utilizations": [c.gmu for c in on_gpu],
            "sleep_mode": sleep_mode,
            "note": note,
        },
        severity="warning" if sleep_mode else None,
        fix=Fix(
            "lower --gpu-memory-utilization so the instances sharing the GPU add up to at most 1.0 (minus what "
            "other processes use), give each its own GPU (device_ids), or put them in different compose profiles"
        ),
    )


@check("deployment_wiring.build_args_not_at_runtime")
def build_args_not_at_runtime(ctx: CheckContext) -> Iterator[Hit]:
    """VL606: a build argument the run-time command reads never gets into the container."""
    dep = ctx.dep
    assert dep is not None
    fact = dep.invocation.facts.get("lost_build_args")
    if fact is None or not isinstance(fact.value, list):
        return
    for item in fact.value:
        name = item.name
        yield Hit(
            item.span,
            {"name": name, "reason": item.reason, "value": item.value},
            fix=Fix(
                f"declare `ARG {name}` and copy it with `ENV {name}=${{{name}}}` in the Dockerfile, or set {name} "
                "in the service's `environment:` instead of `build.args`"
            ),
        )


@check("deployment_wiring.repeated_entrypoint")
def repeated_entrypoint(ctx: CheckContext) -> Iterator[Hit]:
    """VL607: the command repeats ``vllm serve`` on an image whose entry point already runs it."""
    dep = ctx.dep
    assert dep is not None
    fact = dep.invocation.facts.get("duplicate_serve")
    if fact is None or fact.span is None:
        return
    words = fact.value if isinstance(fact.value, str) else "serve"
    image = dep.invocation.facts.get("image")
    prefix = "the image already runs "
    runs = fact.detail[len(prefix) :] if fact.detail.startswith(prefix) else "vllm serve"
    yield Hit(
        fact.span,
        {
            "words": words,
            "image": image.value if image is not None else "the image",
            "runs": runs,
        },
        fix=Fix(f"drop `{words}` from the command (the image's entry point already runs {runs})"),
    )


@check("deployment_wiring.legacy_api_server")
def legacy_api_server(ctx: CheckContext) -> Iterator[Hit]:
    """VL608: ``python -m vllm.entrypoints.api_server``, the demo server."""
    dep = ctx.dep
    assert dep is not None
    if dep.invocation.program != "legacy-api-server":
        return
    yield Hit(
        dep.invocation.span,
        {"model": dep.model},
        fix=Fix("run `vllm serve MODEL` (or python -m vllm.entrypoints.openai.api_server --model MODEL)"),
    )
