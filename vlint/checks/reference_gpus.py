"""Rules for a launch that names no GPU (VL230, VL231): the memory model over the reference GPUs.

:mod:`vlint.launch.gpu_fit` computes the entries; these checks only word them. A GPU whose margin lies inside
the memory model's measured uncertainty is "too close to call", never counted as a failure.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from vlint.checks import CheckContext, Hit, check
from vlint.core.finding import Fix
from vlint.core.typing_names import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment
    from vlint.launch.gpu_fit import GpuFit


def _layout(dep: Deployment, fits: list[GpuFit]) -> str:
    n = fits[0].count if fits else 1
    kind = fits[0].kind if fits else "GPU"
    if kind == "accelerator option":
        return f"each with its GPU count as $SKYPILOT_NUM_GPUS_PER_NODE; vLLM {dep.version}"
    if kind == "CPU host":
        return f"{dep.parallel_label()}; vLLM {dep.version}"
    return f"{f'one {kind}' if n == 1 else f'{n} {kind}s'}: {dep.parallel_label()}; vLLM {dep.version}"


def _head(dep: Deployment, fits: list[GpuFit]) -> tuple[str, str, str]:
    """(what is not known, the reference devices, how to get the full check)."""
    from vlint.launch.gpu_fit import unknown_gpu_label

    kind = fits[0].kind
    if kind == "accelerator option":
        return (
            "SkyPilot launches this task on one of its resources.accelerators",
            "accelerator options",
            "pass --gpu NAME:COUNT for the full memory check on one",
        )
    if kind == "CPU host":
        return (
            f"VLLM_CPU_KVCACHE_SPACE is not set, so vLLM {dep.version}'s CPU backend takes half the host's memory "
            "per NUMA node for the KV cache",
            "reference host sizes (memory per NUMA node)",
            "set VLLM_CPU_KVCACHE_SPACE (GiB) for the full memory check",
        )
    if kind != "GPU":
        what = "TPU" if kind == "TPU" else "Gaudi"
        return (
            f"the {what} type is not named",
            f"reference {kind}s",
            "a node label or resource profile naming it gives the full memory check",
        )
    unknown = unknown_gpu_label(dep)
    if unknown is None:
        return (
            "no GPU is named",
            "reference GPUs",
            "name the GPU with --gpu or [tool.vlint] gpu for the full memory check",
        )
    return (
        f"the GPU type {unknown} is not in vlint's GPU catalog",
        "reference GPUs",
        "give its memory with --gpu-memory-gib or [tool.vlint] gpu-memory-gib for the full memory check",
    )


def _data(dep: Deployment, fits: list[GpuFit]) -> dict[str, Any]:
    from vlint.launch.gpu_fit import fit_dict

    return {
        "model": dep.model,
        "vllm_version": str(dep.version),
        "gpus_per_replica": fits[0].count if fits else 1,
        "starts_on": [f.gpu for f in fits if f.starts and not f.too_close_to_call],
        "fails_on": [f.gpu for f in fits if not f.starts and not f.too_close_to_call],
        "too_close_to_call_on": [f.gpu for f in fits if f.too_close_to_call],
        "gpu_fit": [fit_dict(f) for f in fits],
    }


def _names(fits: list[GpuFit]) -> str:
    from vlint.launch.gpu_fit import label

    return ", ".join(label(f) if f.kind == "accelerator option" else f.gpu for f in fits)


@check("gpu_fit.reference_gpus")
def reference_gpus(ctx: CheckContext) -> Iterator[Hit]:
    """Info: on which reference GPUs the launch starts, when it names none (or one vlint does not know)."""
    from vlint.launch.gpu_fit import gpu_fit, unknown_gpu_label

    dep = ctx.dep
    assert dep is not None
    fits = gpu_fit(dep)
    if not fits:
        return
    ok = [f for f in fits if f.starts and not f.too_close_to_call]
    bad = [f for f in fits if not f.starts and not f.too_close_to_call]
    close = [f for f in fits if f.too_close_to_call]
    if not ok and not close:
        return  # VL231 says it
    first = ok[0] if ok else close[0]
    need, gmu = first.need_gib, first.gpu_memory_utilization
    parts = []
    head, refs, tail = _head(dep, fits)
    if ok and not bad and not close:
        parts.append(f"starts on every one ({_names(ok)})")
    elif ok:
        parts.append(f"starts on {_names(ok)}")
    if bad:
        parts.append(f"not on {_names(bad)}")
    if close:
        parts.append(f"too close to call on {_names(close)}")
    if first.kind == "CPU host":
        request = first.memory.request_kv_gib if first.memory else 0.0
        needs = f"one request of max_model_len needs {request:.1f} GiB of KV cache"
    else:
        unit = "GPU" if first.kind in ("GPU", "accelerator option") else "device"
        needs = f"it needs ≈ {need:.1f} GiB per {unit} at gpu_memory_utilization {gmu}"
    message = f"{head}; on the {refs} ({_layout(dep, fits)}) this launch " + "; ".join(parts) + f" — {needs} ({tail})"
    data = _data(dep, fits)
    data["stated_gpu"] = unknown_gpu_label(dep) if first.kind == "GPU" else None
    data["gpu_memory_needed_gib"] = round(need, 2)
    yield Hit(dep.invocation.span, data, message=message)


@check("gpu_fit.starts_nowhere")
def starts_nowhere(ctx: CheckContext) -> Iterator[Hit]:
    """Error: the launch starts on none of the reference GPUs, up to the largest (VL210's wording)."""
    from vlint.launch.gpu_fit import gpu_fit, label

    dep = ctx.dep
    assert dep is not None
    fits = gpu_fit(dep)
    if not fits or any(f.starts or f.too_close_to_call for f in fits):
        return
    largest = max(fits, key=lambda f: f.total_gib)
    kind = {"CPU host": "CPU host (memory per NUMA node)", "accelerator option": "accelerator option"}.get(
        largest.kind, largest.kind
    )
    where = (
        f"on any reference {kind} up to {label(largest)}, {largest.total_gib:.2f} GiB each, {dep.parallel_label()}, "
        f"vLLM {dep.version}"
    )
    data = _data(dep, fits)
    data.update(where=where, failure=largest.failure, gpu_memory_needed_gib=round(largest.need_gib, 2), gpu=largest.gpu)
    message = ctx.message_of("VL210", data)
    m = largest.memory
    stage = m.failure_stage if m is not None else None
    if stage == "startup_free_memory" and m is not None:
        most = math.floor(m.max_gmu_free * 100) / 100
        fix = Fix(
            f"lower --gpu-memory-utilization to at most {most:.2f}: vLLM checks at startup that this share of the "
            "GPU is free, and the CUDA context alone takes some",
            unsafe=True,
        )
    elif stage == "kv_cache_check" and m is not None and m.estimated_max_model_len:
        fix = Fix(
            f"lower --max-model-len to {m.estimated_max_model_len} or less (what fits on {largest.gpu}), or "
            "use more GPUs (--tensor-parallel-size) or --kv-cache-dtype fp8",
            unsafe=True,
        )
    else:
        fix = Fix(
            f"the launch needs ≈ {largest.need_gib:.1f} GiB per GPU: use more GPUs (--tensor-parallel-size, "
            "--pipeline-parallel-size), a quantized checkpoint, or a lower --max-model-len",
            unsafe=True,
        )
    yield Hit(dep.invocation.span, data, message=message, fix=fix)
