"""Rules on the memory model's estimate (VL21x): will it start, how many requests fit, what eats the memory.

All numbers are per GPU rank, GiB = 2**30 bytes, like vLLM's logs. The estimate is computed once per
deployment (:attr:`vlint.launch.deployment.Deployment.memory`); these checks only read it. They stay silent
when the model or the GPU is unknown (``vlint explain`` says why).
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks import CheckContext, Hit, check
from vlint.checks import memory_fixes as fixes
from vlint.checks.changes import remove_setting, set_value, with_changes
from vlint.core.finding import Fix
from vlint.core.record import replace
from vlint.core.typing_names import TYPE_CHECKING, Any
from vlint.launch.free_memory import free_source

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment
    from vlint.memory import MemoryEstimate

GIB = 2**30
#: a chunk size vLLM itself uses by default on large GPUs (vllm/engine/arg_utils.py:2939-3039, 0.33.0)
REFERENCE_CHUNK = 8192


def memory_data(dep: Deployment, m: MemoryEstimate) -> dict[str, Any]:
    """The numbers every memory finding carries (for JSON/SARIF consumers)."""
    return {
        "gpu": dep.gpu.name if dep.gpu else None,
        "total_gib": round(m.total_gib, 2),
        "budget_gib": round(m.budget_gib, 2),
        "weights_gib": round(m.weights_gib, 2),
        "activation_gib": round(m.activation_gib, 2),
        "non_torch_gib": round(m.non_torch_gib, 2),
        "cuda_graph_gib": round(m.cuda_graph_gib, 2),
        "kv_cache_gib": round(m.kv_cache_gib, 2),
        "kv_cache_tokens": m.kv_cache_tokens,
        "max_concurrency": round(m.max_concurrency, 2),
        "max_model_len": dep.value("max_model_len"),
        "estimated_max_model_len": m.estimated_max_model_len,
        "engine": m.engine,
        "vllm_version": str(dep.version),
    }


def _where(dep: Deployment) -> str:
    m = dep.memory
    gpu = dep.gpu.name if dep.gpu else "?"
    if m is not None and m.platform != "cuda":
        gpu = "CPU backend" if m.platform == "cpu" else m.device
    tp = dep.value("tensor_parallel_size") or 1
    pp = dep.value("pipeline_parallel_size") or 1
    par = f", TP{tp}" + (f" PP{pp}" if pp and pp > 1 else "") if (tp and tp > 1) or (pp and pp > 1) else ""
    return f"{gpu}{par}, vLLM {dep.version}"


#: failure stages whose vLLM message quotes the memory free at start (the startup check, loading the weights)
_QUOTES_FREE = ("startup_free_memory", "weights")


@check("memory_model.will_not_start")
def will_not_start(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    m = dep.memory
    if m is None or (m.starts and not m.too_close_to_call):
        return
    data = memory_data(dep, m)
    where = _where(dep)
    if (m.failure_stage or "") in _QUOTES_FREE and m.platform == "cuda":
        # vLLM's message quotes the free memory: say where vlint's figure for it comes from
        where += f"; free memory: {free_source(dep)}"
    data.update(
        failure=m.failure,
        stage=m.failure_stage,
        where=where,
        free_memory_source=free_source(dep) if m.platform == "cuda" else None,
        need_gib=round(m.need_gib, 2),
        left_gib=round(m.left_gib, 2),
        uncertainty_gib=round(m.uncertainty_gib, 2),
        too_close_to_call=m.too_close_to_call,
    )
    if m.too_close_to_call:
        yield _close_call(dep, m, data)
        return
    stage = m.failure_stage or ""
    fix: Fix | None = None
    if m.platform == "cpu" and stage in ("kv_cache_check", "no_kv_memory"):
        span = dep.span_of("max_model_len")
        fits = (
            f"set --max-model-len {m.estimated_max_model_len} (the largest that fits), or "
            if m.estimated_max_model_len
            else ""
        )
        fix = Fix(f"{fits}raise VLLM_CPU_KVCACHE_SPACE (GiB of host memory for the KV cache)", unsafe=True)
    elif stage == "kv_cache_check" and m.estimated_max_model_len:
        span = dep.span_of("max_model_len")
        fix = Fix(
            f"set --max-model-len {m.estimated_max_model_len} (the largest that fits, as vLLM computes it), "
            "or use a larger/extra GPU, --kv-cache-dtype fp8, or a higher --gpu-memory-utilization",
            unsafe=True,
        )
    elif stage in ("kv_cache_check", "no_kv_memory", "weights"):
        span = dep.span_of("tensor_parallel_size", "gpu_memory_utilization", "max_model_len")
        fix = Fix(
            "the weights leave no room: use more GPUs (--tensor-parallel-size), a quantized checkpoint, or a "
            "GPU with more memory",
            unsafe=True,
        )
    elif stage in ("kv_cache_allocation", "cuda_graph_capture") and m.pinned_kv is not None:
        # the pinned KV size leaves no room: lowering it is the fix (before any other setting's)
        yield Hit(dep.span_of("kv_cache_memory_bytes"), data, fix=pinned_kv_fix(dep, m))
        return
    elif stage == "startup_free_memory":
        span = dep.span_of("gpu_memory_utilization")
        fix = Fix(f"lower --gpu-memory-utilization to at most {m.max_gmu_free:.2f}", unsafe=True)
    elif stage == "cuda_graph_capture":
        span = dep.span_of("gpu_memory_utilization")
        fix = Fix(
            "lower --gpu-memory-utilization (V0 captures CUDA graphs outside the budget) or use --enforce-eager",
            unsafe=True,
        )
    elif stage == "mamba_blocks":
        span = dep.span_of("max_num_seqs")
        fix = Fix("lower --max-num-seqs", unsafe=True)
    else:
        span = dep.invocation.span
    chosen = dep.invocation.facts.get("parallelism_by_runtime")
    if chosen is not None and not dep.is_set("tensor_parallel_size") and not dep.is_set("pipeline_parallel_size"):
        # the runtime picks TP/PP from the model's size when it starts it: the failure rests on vlint's TP 1
        data["parallelism_by_runtime"] = chosen.detail
        base = ctx.message_of("VL210", data) or f"vLLM will not start ({where}): {m.failure}"
        msg = f"{base} — at TP 1, but {chosen.detail}: not certain, so a warning"
        yield Hit(span, data, message=msg, severity="warning", fix=lambda: fixes.will_not_start_fix(dep, m) or fix)
        return
    yield Hit(span, data, fix=lambda: fixes.will_not_start_fix(dep, m) or fix)


_CLOSE_WHAT = {
    "kv_cache_check": "one request of max_model_len needs {need} GiB of KV cache",
    "no_kv_memory": "the KV cache needs at least one block ({need} GiB)",
    "weights": "the weights need {need} GiB per GPU",
    "startup_free_memory": "gpu_memory_utilization asks for {need} GiB",
    "cuda_graph_capture": "CUDA graph capture needs ~{need} GiB outside the budget",
    "mamba_blocks": "max_num_seqs Mamba state blocks need {need} GiB",
    "sampler_warmup": "the sampler warm-up needs ~{need} GiB",
}


def _close_call(dep: Deployment, m: MemoryEstimate, data: dict[str, Any]) -> Hit:
    """Inside the model's own uncertainty: a warning with the numbers, never an error."""
    stage = m.failure_stage or ("sampler_warmup" if m.risks and "sampler" in m.risks[-1] else "kv_cache_check")
    what = _CLOSE_WHAT.get(stage, "it needs {need} GiB").format(need=f"{m.need_gib:.2f}")
    if m.platform != "cuda":
        what = what.replace("per GPU", "per device")
    verdict = "vLLM would just fail" if not m.starts else "vLLM would just start"
    if m.facts_low_confidence and dep.arch is not None and dep.arch.inferred_from_name:
        why = (
            f"the model's facts are inferred from its name ({dep.arch.inferred_from_name}), and the shortfall "
            "is one they could explain"
        )
    elif m.facts_low_confidence:
        why = (
            f"{dep.model}'s facts in vlint's catalog are of low confidence (partly inferred: vlint models show "
            f"{dep.model}), and the shortfall is one they could explain"
        )
    elif m.platform in ("tpu", "hpu"):
        why = "the margin is inside the band of a model no startup log of this platform calibrates"
    else:
        why = "the margin is inside the memory model's measured uncertainty"
    msg = (
        f"too close to call whether vLLM starts ({data['where']}): {what}, about {m.left_gib:.2f} ± "
        f"{m.uncertainty_gib:.2f} GiB left ({verdict} by the point estimate; {why})"
    )
    if m.facts_low_confidence:
        data["model_facts_confidence"] = "low"
    span = (
        dep.span_of("max_model_len", "gpu_memory_utilization")
        if stage == "kv_cache_check"
        else dep.span_of("gpu_memory_utilization", "max_num_seqs")
    )
    return Hit(
        span,
        data,
        message=msg,
        severity="warning",
        fix=lambda: (
            (fixes.will_not_start_fix(dep, m) if not m.starts else None)
            or Fix(
                "leave a margin: lower --max-model-len or --max-num-seqs, or raise --gpu-memory-utilization if the GPU "
                "is not shared",
                unsafe=True,
            )
        ),
    )


@check("memory_model.low_concurrency")
def low_concurrency(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    m = dep.memory
    target = float(ctx.option("min-concurrency"))
    if m is None or not m.starts or m.max_concurrency >= target or m.max_concurrency <= 0:
        return
    data = memory_data(dep, m)
    data["where"] = _where(dep)
    data["min_concurrency"] = target
    more = (
        "raise VLLM_CPU_KVCACHE_SPACE"
        if m.platform == "cpu"
        else "use --kv-cache-dtype fp8, or add GPUs (--tensor-parallel-size)"
    )
    yield Hit(
        dep.span_of("max_model_len"),
        data,
        fix=lambda: (
            fixes.low_concurrency_fix(dep, m, target)
            or Fix(f"lower --max-model-len to the longest request you serve, or {more}", unsafe=True)
        ),
    )


@check("memory_model.small_kv_cache")
def small_kv_cache(ctx: CheckContext) -> Iterator[Hit]:
    """The weights (and activations) leave under 10% of the budget for the KV cache."""
    dep = ctx.dep
    assert dep is not None
    m = dep.memory
    share = float(ctx.option("min-kv-share"))
    if m is None or not m.starts or m.max_concurrency < 2 or m.budget_gib <= 0:
        return
    if m.kv_cache_gib >= share * m.budget_gib:
        return
    data = memory_data(dep, m)
    data.update(where=_where(dep), kv_share=round(100 * m.kv_cache_gib / m.budget_gib, 1))
    yield Hit(
        dep.span_of("tensor_parallel_size", "gpu_memory_utilization"),
        data,
        fix=lambda: (
            fixes.small_kv_fix(dep, m, share)
            or Fix(
                "more GPUs (--tensor-parallel-size), a quantized checkpoint or --kv-cache-dtype fp8 give the "
                "KV cache room for more concurrent requests",
                unsafe=True,
            )
        ),
    )


@check("memory_model.large_activation_peak")
def large_activation_peak(ctx: CheckContext) -> Iterator[Hit]:
    """The profiling run sizes activations for a very large step (chunking off or a huge budget)."""
    dep = ctx.dep
    assert dep is not None
    m = dep.memory
    arch = dep.arch
    if m is None or arch is None or m.platform != "cuda":
        return
    tokens = dep.value("max_num_batched_tokens")
    if not isinstance(tokens, int) or tokens < 4 * REFERENCE_CHUNK:
        return
    from vlint.launch.memory_inputs import gpu_inputs
    from vlint.memory import estimate_memory

    assert dep.gpu is not None
    base = gpu_inputs(dep, arch)
    alt = estimate_memory(replace(base, max_num_batched_tokens=REFERENCE_CHUNK, enable_chunked_prefill=True))
    saved = m.activation_gib - alt.activation_gib
    if saved < 1.0:
        return
    tp = int(dep.value("tensor_parallel_size") or 1)
    b = 2  # bf16/fp16 activations
    qkv = tokens * (arch.hidden_size + 2 * arch.num_kv_heads * arch.head_dim) * b / GIB / max(tp, 1)
    ffn = tokens * 2 * (arch.intermediate_size or 0) * b / GIB / max(tp, 1)
    data = memory_data(dep, m)
    data.update(
        tokens=tokens,
        qkv_gib=round(qkv, 2),
        ffn_gib=round(ffn, 2),
        alt_activation_gib=round(alt.activation_gib, 2),
        saved_gib=round(saved, 2),
        alt_kv_cache_gib=round(alt.kv_cache_gib, 2),
        chunked=bool(dep.value("enable_chunked_prefill")),
        where=_where(dep),
    )
    yield Hit(
        dep.span_of("max_num_batched_tokens", "enable_chunked_prefill"),
        data,
        fix=lambda: (
            fixes.chunk_fix(dep, m)
            or Fix(
                f"--max-num-batched-tokens {REFERENCE_CHUNK} with chunked prefill keeps the activation peak "
                f"at ≈{alt.activation_gib:.1f} GiB and gives the KV cache {saved:.1f} GiB more",
                unsafe=True,
            )
        ),
    )


@check("memory_model.tight_headroom")
def tight_headroom(ctx: CheckContext) -> Iterator[Hit]:
    """It starts, but what is left outside the budget (or after it) is thin: OOM risks the log won't show."""
    dep = ctx.dep
    assert dep is not None
    m = dep.memory
    if m is None or not m.starts or not m.risks:
        return
    if m.pinned_kv is not None and m.pinned_kv.verdict != "fits":
        return  # the pinned KV size is what leaves no room: VL215 says it, with the size that fits
    data = memory_data(dep, m)
    data.update(risk="; ".join(m.risks), where=_where(dep), headroom_gib=round(m.headroom_outside_budget_gib, 2))
    if m.pinned_kv is not None:  # no budget: what the pinned KV cache leaves is the headroom
        yield Hit(dep.span_of("kv_cache_memory_bytes"), data, fix=pinned_kv_fix(dep, m))
        return
    yield Hit(
        dep.span_of("gpu_memory_utilization", "max_num_seqs"),
        data,
        fix=lambda: (
            fixes.tight_headroom_fix(dep, m)
            or Fix(
                "leave more memory outside the budget: lower --gpu-memory-utilization or --max-num-seqs", unsafe=True
            )
        ),
    )


def pinned_kv_fix(dep: Deployment, m: MemoryEstimate) -> Fix:
    """Lower ``--kv-cache-memory-bytes`` to what vLLM itself would suggest for this GPU, or drop it."""
    p = m.pinned_kv
    assert p is not None
    drop = "drop --kv-cache-memory-bytes (vLLM then sizes the KV cache from --gpu-memory-utilization)"
    if p.fit_bytes <= 0:
        return with_changes(Fix(drop, unsafe=True), *remove_setting(dep, "kv_cache_memory_bytes"))
    lower = (
        f"lower --kv-cache-memory-bytes to {p.fit_bytes} ({p.fit_bytes / GIB:.2f} GiB: what is left after the "
        "weights, non-torch memory, CUDA graphs, the activation peak and the sampler warm-up, less the memory "
        "model's uncertainty and vLLM's own 150 MiB margin)"
    )
    return with_changes(
        Fix(f"{lower}; or {drop}", unsafe=True, alternatives=(drop,)),
        set_value(dep, "kv_cache_memory_bytes", p.fit_bytes),
    )


def _pinned_data(dep: Deployment, m: MemoryEstimate) -> dict[str, Any]:
    p = m.pinned_kv
    assert p is not None
    data = memory_data(dep, m)
    st = m.stages[p.stage] if p.stage < len(m.stages) else m.stages[0]
    data.update(
        where=_where(dep),
        pinned_gib=round(p.pinned_gib, 2),
        pinned_bytes=int(dep.value("kv_cache_memory_bytes") or 0),
        free_gib=round(m.free_at_start_gib, 2),
        alloc_room_gib=round(p.alloc_room_gib, 2),
        capture_room_gib=round(p.capture_room_gib, 2),
        load_room_gib=round(p.load_room_gib, 2),
        graphs_gib=round(p.alloc_room_gib - p.capture_room_gib, 2),
        weights_gib=round(st.weights_gib, 2),
        activation_gib=round(st.activation_gib, 2),
        short_gib=round(p.pinned_gib - p.load_room_gib, 2),
        fit_bytes=p.fit_bytes,
        fit_gib=round(p.fit_bytes / GIB, 2),
        uncertainty_gib=round(p.uncertainty_gib, 2),
        verdict=p.verdict,
        too_close_to_call=p.verdict == "close",
    )
    return data


@check("memory_model.pinned_kv_cache")
def pinned_kv_cache(ctx: CheckContext) -> Iterator[Hit]:
    """VL215: --kv-cache-memory-bytes is larger than what the GPU has left for it once it is busy."""
    dep = ctx.dep
    assert dep is not None
    m = dep.memory
    if m is None or m.pinned_kv is None or not m.starts or m.pinned_kv.verdict == "fits":
        return
    p = m.pinned_kv
    data = _pinned_data(dep, m)
    msg = None
    if p.verdict == "close":
        msg = (
            f"too close to call whether --kv-cache-memory-bytes ({p.pinned_gib:.2f} GiB) leaves room "
            f"({data['where']}): "
            f"after the weights ({data['weights_gib']:.2f} GiB), non-torch memory, CUDA graphs "
            f"({data['graphs_gib']:.2f} GiB) and the activation peak ({data['activation_gib']:.2f} GiB) about "
            f"{p.load_room_gib:.2f} ± {p.uncertainty_gib:.2f} GiB is left of the {m.free_at_start_gib:.2f} GiB free "
            "at start; vLLM does not check the pinned size, so if it does not fit the server starts and runs out "
            "of memory under load"
        )
    yield Hit(dep.span_of("kv_cache_memory_bytes"), data, message=msg, fix=pinned_kv_fix(dep, m))
