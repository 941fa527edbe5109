"""Deployment wiring (VL605–VL608): how a launch is plugged into its container, host and GPUs."""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks import CheckContext, Hit, check
from vlint.core.finding import Fix
from vlint.core.record import record
from vlint.core.typing_names import TYPE_CHECKING, Any
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
    #: ``--kv-cache-memory-bytes``: the launch holds what it uses, not its utilization — the pinned KV cache,
    #: weights, non-torch memory, CUDA graphs and the activation peak (GiB, the memory model's estimate)
    pinned_gib: float | None = None
    #: the estimate's uncertainty on that footprint, as a fraction of the GPU
    band: float = 0.0

    @property
    def name(self) -> str:
        return self.dep.invocation.label or self.dep.invocation.program


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _claim(dep: Deployment) -> _Claim | None:
    """The GPUs a launch takes and the fraction of each it asks for (None when vlint cannot tell)."""
    facts = dep.invocation.facts
    ids = facts.get("gpu_ids")
    if ids is None or "runs_with" not in facts:
        return None
    pinned = _pinned_footprint(dep) if dep.is_set("kv_cache_memory_bytes") else None
    if dep.is_set("kv_cache_memory_bytes") and pinned is None:
        return None  # the footprint of a pinned KV size needs the memory model (the model and the GPU)
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
    claim = _Claim(dep, float(gmu), gpus, tuple(profiles), dep.value("enable_sleep_mode") is True)
    if pinned is not None:
        claim.pinned_gib, frac, claim.band = pinned
        claim.gmu = frac
    return claim


def _pinned_footprint(dep: Deployment) -> tuple[float, float, float] | None:
    """(GiB, fraction of the GPU, uncertainty as a fraction) a launch with ``--kv-cache-memory-bytes`` holds
    once busy: vLLM allocates the pinned KV cache whatever the utilization says ([0.33.0]
    vllm/v1/worker/gpu_worker.py:656-682), on top of the weights, non-torch memory, CUDA graphs and the
    activation peak. None without the memory model's estimate."""
    m = dep.memory
    if m is None or m.pinned_kv is None or m.total_gib <= 0:
        return None
    p = m.pinned_kv
    used = m.free_at_start_gib - p.load_room_gib + p.pinned_gib  # weights + non-torch + graphs + activation + KV
    return used, used / m.total_gib, p.uncertainty_gib / m.total_gib


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
    parts = " + ".join(
        f"{c.gmu:g} ({c.name})"
        if c.pinned_gib is None
        else f"≈{c.gmu:.2f} ({c.name}: {c.pinned_gib:.1f} GiB with its --kv-cache-memory-bytes)"
        for c in on_gpu
    )
    sleeping = sum(1 for c in on_gpu if c.sleep)
    sleep_mode = sleeping >= len(on_gpu) - 1
    note = (
        "; they use --enable-sleep-mode, so this works only if every other instance is asleep whenever one "
        "starts or wakes up"
        if sleep_mode
        else ""
    )
    pinned = [c for c in on_gpu if c.pinned_gib is not None]
    data = {
        "gpu": gpu,
        "total": round(total, 4),
        "parts": parts,
        "launches": [c.name for c in on_gpu],
        "utilizations": [c.gmu for c in on_gpu],
        "sleep_mode": sleep_mode,
        "note": note,
    }
    fix = Fix(
        "lower --gpu-memory-utilization so the instances sharing the GPU add up to at most 1.0 (minus what "
        "other processes use), give each its own GPU (device_ids), or put them in different compose profiles"
    )
    if not pinned:
        return Hit(span, data, severity="warning" if sleep_mode else None, fix=fix)
    # a pinned launch holds an estimated footprint, reached under load: a warning, never an error
    band = sum(c.band for c in pinned)
    names = ", ".join(c.name for c in pinned)
    if last.pinned_gib is not None:
        kv = last.dep.setting("kv_cache_memory_bytes")
        span = kv.full_span if kv is not None else span
    how = (
        f"too close to call (± {band:.2f} of the GPU, the memory model's uncertainty) whether they fit"
        if total - 1.0 <= band
        else "more than the whole GPU"
    )
    data.update(pinned=[c.name for c in pinned], pinned_gib=[round(c.pinned_gib or 0.0, 2) for c in pinned])
    msg = (
        f"{parts} share GPU {gpu}: together they hold ≈{total:.2f} of it, {how}. vLLM sizes a pinned KV cache "
        f"(--kv-cache-memory-bytes of {names}) without looking at what the other instances hold, so the instance "
        "that starts last fails vLLM's startup check or its KV allocation, or runs out of memory under load"
        f"{note}"
    )
    return Hit(
        span,
        data,
        message=msg,
        severity="warning",
        fix=Fix(
            f"lower --kv-cache-memory-bytes of {names} (and the other instances' --gpu-memory-utilization) so "
            "that together they fit the GPU, give each its own GPU (device_ids), or put them in different "
            "compose profiles"
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
        fix=Fix(_repeated_fix(words, runs)),
    )


def _repeated_fix(words: str, runs: str) -> str:
    if words.split()[:1] and words.split()[0].rsplit("/", 1)[-1] in ("sh", "bash", "dash", "zsh", "ash"):
        # CMD ["sh", "-c", "…"]: dropping the shell would leave the whole script as one argument
        return (
            f'make the shell the entry point (ENTRYPOINT ["{words.split()[0]}", "-c"] in the Dockerfile, '
            f"entrypoint: in compose, command: in Kubernetes), or give only the model and flags, which the "
            f"image's entry point ({runs}) runs"
        )
    return f"drop `{words}` from the command (the image's entry point already runs {runs})"


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
