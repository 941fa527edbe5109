"""Memory-related settings that need no memory model (VL2xx): gpu_memory_utilization and
max_model_len."""

from __future__ import annotations

import math
from collections.abc import Iterator

from vlint.checks import CheckContext, Hit, check
from vlint.checks.changes import remove_setting, set_value, with_changes
from vlint.core.finding import Fix
from vlint.core.typing_names import TYPE_CHECKING
from vlint.core.version import V

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment

#: the default of VL201's ``threshold`` option (rules/VL201-gpu-memory-utilization-no-headroom.yaml)
HIGH_GMU = 0.95
#: contexts up to this are "short": leaving max_model_len unset costs little
SHORT_CONTEXT = 8192


def _as_float(value: int | float) -> float:
    """An integer too large for a float (``gpu_memory_utilization=10**400`` in Python) is infinite."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


@check("memory.gmu_headroom")
def gmu_headroom(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    s = dep.setting("gpu_memory_utilization")
    if s is None or isinstance(s.value, bool) or not isinstance(s.value, int | float):
        return
    v = _as_float(s.value)
    threshold = float(ctx.option("threshold"))
    if not math.isfinite(v) or (v < threshold and v < 1.0) or v > 1.0:
        return
    total = dep.gpu.total_gib if dep.gpu is not None else None
    if total:
        left_text = f"{(1 - v) * total:.2f} GiB of the {dep.gpu.name}'s {total:.2f} GiB"  # type: ignore[union-attr]
    else:
        left_text = f"{(1 - v) * 100:.0f}% of the GPU's memory"
    yield Hit(
        s.value_site,
        {
            "gpu_memory_utilization": v,
            "left_gib": (1 - v) * total if total else None,
            "left_gib_text": left_text,
            "tp": dep.value("tensor_parallel_size"),
        },
        severity="error" if v >= 1.0 else "warning",
        fix=with_changes(
            Fix(
                "use --gpu-memory-utilization 0.9 (or lower on GPUs shared with other processes)",
                s.value_span,
                "0.9",
                unsafe=True,
            ),
            set_value(dep, "gpu_memory_utilization", 0.9),
        ),
    )


#: CacheConfig validates gpu_memory_utilization with pydantic Field(gt=0, le=1) from 0.11.1
#: ([0.11.1] vllm/config/cache.py:50); before, only a value above 1 is refused ("GPU memory utilization must be
#: less than 1.0. Got 1.5.", [0.10.2] vllm/config/cache.py:163-166) and 0 or a negative value pass the
#: configuration
GMU_PYDANTIC_SINCE = V("0.11.1")


@check("memory.gmu_range")
def gmu_range(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    s = dep.setting("gpu_memory_utilization")
    if s is None or isinstance(s.value, bool) or not isinstance(s.value, int | float):
        return
    v = _as_float(s.value)
    if math.isfinite(v) and 0 < v <= 1:
        return
    old = dep.version < GMU_PYDANTIC_SINCE
    if old and not v > 1:
        return  # 0 and negative values pass the configuration of these releases
    reason = (
        f"GPU memory utilization must be less than 1.0. Got {s.raw or v}."
        if old
        else "Input should be greater than 0"
        if math.isfinite(v) and v <= 0
        else "Input should be less than or equal to 1"
        if v > 1
        else "Input should be a finite number"
    )
    yield Hit(
        s.value_site,
        {"gpu_memory_utilization": s.raw or str(v), "reason": reason},
        fix=with_changes(
            Fix(
                "gpu_memory_utilization is a fraction of the GPU's total memory in (0, 1], e.g. 0.9",
                s.value_span,
                "0.9",
                unsafe=True,
            ),
            set_value(dep, "gpu_memory_utilization", 0.9),
        ),
    )


#: VL203 stays silent when the memory model says the full context fits this many times over
FITS_MANY_TIMES = 4


def _fits_everywhere(dep: Deployment) -> bool:
    """A launch that names no GPU starts, full context and all, on every reference GPU (the smallest
    included) — or on every accelerator option its task lists (SkyPilot ``resources.accelerators``:
    the only GPUs it can be given) —, each outside the memory model's uncertainty: the startup failure
    this rule warns of cannot happen on any of them."""
    from vlint.launch.gpu_fit import OPTION, gpu_fit

    fits = [f for f in gpu_fit(dep) or [] if f.kind in ("GPU", OPTION)]
    return bool(fits) and all(f.starts and not f.too_close_to_call for f in fits)


@check("memory.max_model_len_unset")
def max_model_len_unset(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    if dep.is_set("max_model_len") or dep.args.opaque:
        return
    if dep.model is None:
        return
    derived = None
    if dep.arch is not None:
        if not dep.arch.has_kv_cache:
            return  # an encoder-only model keeps no KV cache: the context costs no startup memory
        r = dep.resolved.get("max_model_len")
        derived = r.value if r is not None else None
        if isinstance(derived, int) and derived <= SHORT_CONTEXT:
            return
        m = dep.memory
        if m is not None and m.starts and not m.too_close_to_call and m.max_concurrency >= FITS_MANY_TIMES:
            return  # the full context fits many times over: nothing to warn about
        if m is None and dep.gpu is None and _fits_everywhere(dep):
            return  # no GPU named, and it starts with its full context on every reference GPU
    if derived is not None:
        yield Hit(
            dep.invocation.span,
            {"model": dep.model, "derived": derived, "context": f"its full {derived:,}-token context"},
            fix=Fix(
                "set --max-model-len to the longest prompt + output you serve, e.g. --max-model-len 16384", unsafe=True
            ),
        )
    else:
        yield Hit(
            dep.invocation.span,
            {
                "model": dep.model,
                "derived": None,
                "context": "the context length from its config.json (vlint does not know this model)",
            },
            severity="info",
            fix=Fix("set --max-model-len to the longest prompt + output you serve", unsafe=True),
        )


#: what :func:`vlint.resolve.model_arch.derived_max_model_len` says when the config has no length key
NO_LENGTH_KEY = "no length key"
#: model origins whose facts are a transcription (the bundled catalog), not the model's own config.json
#: (:func:`vlint.resolve.model_sources.find_model`; facts taken by the name are softened by the engine)
RECORD_ORIGINS = ("catalog",)


@check("memory.max_model_len_over_derived")
def max_model_len_over_derived(ctx: CheckContext) -> Iterator[Hit]:
    """User max_model_len above what vLLM derives from config.json (vllm/config/model.py:2653-2683, 0.33.0)."""
    dep = ctx.dep
    assert dep is not None
    s = dep.setting("max_model_len")
    derived = dep.resolved.get("derived_max_model_len")
    if s is None or derived is None or not isinstance(s.value, int) or isinstance(s.value, bool):
        return
    limit = derived.value
    if not isinstance(limit, int) or s.value <= limit or s.value == -1:
        return
    allow = str(dep.env.get("VLLM_ALLOW_LONG_MAX_MODEL_LEN", "")).strip().lower() in ("1", "true")
    key = derived.why.split("config.json ", 1)[-1].split(" (", 1)[0] if "config.json" in derived.why else "config"
    # vLLM's 2048 is what a config.json without any length key gives; a bundled record is a transcription
    # that may have left the key out (e.g. "max_position_embeddings left out"), so the limit is only assumed
    assumed = NO_LENGTH_KEY in derived.why and dep.model_origin in RECORD_ORIGINS
    consequence = (
        "vLLM only warns because VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 is set"
        if allow
        else "vLLM refuses to start"
        if not assumed
        else f"vLLM refuses to start if the model's own config.json has no length key either (inferred: the"
        f" {dep.model_origin} record vlint has for it carries none, so vLLM's 2048 default was assumed)"
    )
    yield Hit(
        s.value_site,
        {
            "max_model_len": s.value,
            "derived": limit,
            "key": key,
            "allowed": allow,
            "model": dep.model,
            "consequence": consequence,
        },
        severity="warning" if allow or assumed else "error",
        fix=with_changes(
            Fix(
                f"use --max-model-len {limit} or less (or extend the context with rope scaling via --hf-overrides)",
                s.value_span,
                str(limit),
                unsafe=True,
            ),
            set_value(dep, "max_model_len", limit),
        ),
    )


#: the largest tensor-parallel size the VL205 fix considers (no GPU node or cluster runs more)
MAX_TP_SEARCH = 1024


@check("memory.tensor_parallel_split")
def tensor_parallel_split(ctx: CheckContext) -> Iterator[Hit]:
    """A tensor-parallel size that cannot split the attention heads, the vocabulary or the KV heads
    (vlint/resolve/parallel.py)."""
    dep = ctx.dep
    assert dep is not None
    s = dep.setting("tensor_parallel_size")
    arch = dep.arch
    if s is None or arch is None or not isinstance(s.value, int) or isinstance(s.value, bool) or s.value <= 1:
        return
    from vlint.resolve.parallel import TP_SIZES, tp_split_error, tp_splits

    err = tp_split_error(arch, s.value)
    if err is None:
        return
    # searched from at most MAX_TP_SEARCH down: a fuzzed 10**12 must not become a 10**12-step loop
    below = next((t for t in range(min(s.value - 1, MAX_TP_SEARCH), 1, -1) if tp_splits(arch, t)), 1)
    above = next((t for t in TP_SIZES if t > s.value and tp_splits(arch, t)), None)
    fix_text = f"use --tensor-parallel-size {below} (the largest below {s.value} that splits the model evenly)"
    if above is not None:
        fix_text += f", or {above} on {above} GPUs"
    yield Hit(
        s.value_site,
        {
            "tp": s.value,
            "model": dep.model,
            "error": err.message,
            "stage": err.stage,
            "heads": err.heads,
            "kv_heads": err.kv_heads,
            "suggested_tp": below,
        },
        fix=with_changes(
            Fix(fix_text, s.value_span, str(below), unsafe=True), set_value(dep, "tensor_parallel_size", below)
        ),
    )


@check("memory.bfloat16_unsupported_gpu")
def bfloat16_unsupported_gpu(ctx: CheckContext) -> Iterator[Hit]:
    """bfloat16 on an NVIDIA GPU below compute capability 8.0 (T4, V100, RTX 20xx): the worker's
    dtype check (vllm/platforms/cuda.py:462-480 in 0.19.1; vllm/worker/worker.py:533-550 in 0.8.5)."""
    from vlint.resolve.dtypes import UNSTABLE_IN_FLOAT16
    from vlint.resolve.model_arch import normalize_dtype

    dep = ctx.dep
    assert dep is not None
    gpu = dep.gpu
    cc = gpu.cc_major_minor if gpu is not None else None
    if gpu is None or gpu.vendor != "nvidia" or cc is None or cc >= (8, 0):
        return
    # the resolver decides what --dtype (or its default, auto) becomes on this GPU and release
    resolved = dep.resolved.get("dtype")
    if resolved is None or normalize_dtype(str(resolved.value)) != "bfloat16":
        return
    s = dep.setting("dtype")
    explicit = s is not None and str(s.value).lower() != "auto"
    if not explicit and dep.arch is None:
        return  # bfloat16 only assumed for a model vlint does not know
    span = s.full_span if s is not None else dep.invocation.span
    why = f"--dtype {s.value}" if explicit and s is not None else resolved.why
    model_type = dep.arch.model_type if dep.arch is not None else None
    if model_type in UNSTABLE_IN_FLOAT16:
        note = f"{model_type} is numerically unstable in float16; float32 doubles the weights' memory"
        target = "float32"
    else:
        target, note = "half", "float16 has the same memory cost"
    yield Hit(
        span,
        {
            "gpu": gpu.device_name or gpu.name,
            "cc": f"{cc[0]}.{cc[1]}",
            "why": why,
            "version": str(dep.version),
        },
        fix=with_changes(Fix(f"use --dtype {target} ({note})", unsafe=True), set_value(dep, "dtype", target)),
    )


@check("memory.float16_refused")
def float16_refused(ctx: CheckContext) -> Iterator[Hit]:
    """``--dtype float16`` for a model type the target release refuses in float16 (resolve/dtypes.py)."""
    from vlint.resolve.dtypes import float16_refusal, refuses_float16
    from vlint.resolve.model_arch import normalize_dtype

    dep = ctx.dep
    assert dep is not None
    s = dep.setting("dtype")
    arch = dep.arch
    if s is None or arch is None or not isinstance(s.value, str) or normalize_dtype(s.value) != "float16":
        return
    if not refuses_float16(arch.model_type, dep.version):
        return
    cc = dep.gpu.cc_major_minor if dep.gpu is not None and dep.gpu.vendor == "nvidia" else None
    if cc is not None and cc < (8, 0):
        gpu_name = dep.gpu.name if dep.gpu else "GPU"
        target, note = "float32", f"the {gpu_name} has no bfloat16; float32 doubles the weights' memory"
    else:
        target, note = "bfloat16", "the dtype the model was trained in"
    yield Hit(
        s.value_site,
        {"model_type": arch.model_type, "error": float16_refusal(arch.model_type), "model": dep.model},
        fix=with_changes(
            Fix(f"use --dtype {target} ({note})", s.value_span, target, unsafe=True),
            set_value(dep, "dtype", target),
        ),
    )


@check("memory.quantization_mismatch")
def quantization_mismatch(ctx: CheckContext) -> Iterator[Hit]:
    """``--quantization`` of another format than the checkpoint's (vlint/resolve/quantization.py)."""
    dep = ctx.dep
    assert dep is not None
    s = dep.setting("quantization")
    arch = dep.arch
    if s is None or arch is None or not isinstance(s.value, str):
        return
    from vlint.resolve.quantization import quantization_mismatch as mismatch

    error = mismatch(arch.quant_method, s.value)
    if error is None:
        return
    yield Hit(
        s.value_site,
        {"error": error, "model": dep.model, "checkpoint": arch.quant_method, "flag": s.value},
        fix=Fix(
            f"remove {s.option} {s.value}: vLLM reads the method from the checkpoint ({arch.quant_method})",
            s.value_site,
            "",
            unsafe=True,  # the launch then runs the checkpoint's method, not the one asked for
            changes=remove_setting(dep, "quantization"),
        ),
    )
