"""Deployment → memory-model inputs: the one place that decides whether an estimate is possible."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

from vlint.core.typing_names import TYPE_CHECKING, Any
from vlint.core.unresolved import UNRESOLVED
from vlint.sources.containers.images import parse_image, ships_flashinfer

if TYPE_CHECKING:
    from vlint.hardware.accelerators import Accelerator
    from vlint.hardware.gpus import GpuSpec
    from vlint.launch.deployment import Deployment
    from vlint.memory import MemoryEstimate, MemoryInputs
    from vlint.memory.platforms import KvSpace
    from vlint.resolve.model_arch import ModelArch

#: settings the memory model needs; an unresolved value for any of them makes the estimate a guess
NEEDED = (
    "max_model_len",
    "gpu_memory_utilization",
    "max_num_seqs",
    "max_num_batched_tokens",
    "tensor_parallel_size",
    "pipeline_parallel_size",
    "kv_cache_dtype",
    "block_size",
    "enforce_eager",
    "dtype",
    "quantization",
    "cpu_offload_gb",
    "kv_cache_memory_bytes",
    "num_gpu_blocks_override",
    "enable_chunked_prefill",
    "speculative_config",
    "max_loras",
    "max_lora_rank",
    "limit_mm_per_prompt",
)


#: model types whose memory the model does not reproduce: no estimate (a wrong number is worse than
#: none), with the reason
NOT_MODELLED = {
    "deepseek_v4": (
        "compressed sparse attention: per-layer compressed KV states (1 per 4 or 128 tokens), a sliding-window "
        "cache and an indexer cache, grouped by page size ([0.33.0] vllm/models/deepseek_v4/attention.py, "
        "compressor.py)"
    ),
    "mllama": "cross-attention encoder-decoder; V0 profiles max_num_seqs sequences with the maximum images each",
}
#: vLLM picks the model class by ``architectures``: checkpoints that name one of these classes under
#: another ``model_type`` (sgl-project's DeepSeek-V4 FP8 copies say ``deepseek_ref``) are the same model
NOT_MODELLED_ARCHITECTURES = {
    "DeepseekV4ForCausalLM": "deepseek_v4",
    "MllamaForConditionalGeneration": "mllama",
}
#: how :data:`NOT_MODELLED` reasons start (vlint.launch.memory_status tells the kind by it)
NOT_MODELLED_PREFIX = "the memory model does not reproduce"


def unmodelled_type(arch: ModelArch) -> str | None:
    """The :data:`NOT_MODELLED` entry an architecture falls under (by model type or vLLM class), or None."""
    for t in (arch.model_type, arch.text_model_type):
        if t in NOT_MODELLED:
            return t
    for name in arch.architectures:
        if name in NOT_MODELLED_ARCHITECTURES:
            return NOT_MODELLED_ARCHITECTURES[name]
    return None


def not_modelled(dep: Deployment) -> str | None:
    """Why the memory model has no answer for the launch's architecture, or None."""
    arch = dep.arch
    t = unmodelled_type(arch) if arch is not None else None
    return f"{NOT_MODELLED_PREFIX} {t} models' KV cache ({NOT_MODELLED[t]})" if t else None


def blocked_by(dep: Deployment) -> str | None:
    """Why no estimate can be made (unknown model/GPU, unresolved setting), or None."""
    if dep.arch is None:
        if dep.model_note:
            return dep.model_note
        return "the model is unknown to vlint" if dep.model else "no model is named"
    why = not_modelled(dep)
    if why is not None:
        return why
    if dep.gpu is None:
        why = platform_blocked(dep)
        if why is not None:
            return why
    return settings_blocked(dep)


def settings_blocked(dep: Deployment) -> str | None:
    """Why the launch's settings keep the memory model from computing (unresolved, absurd, a tensor
    parallel size that cannot split the model), or None."""
    assert dep.arch is not None
    for d in NEEDED:
        s = dep.setting(d)
        if s is not None and s.value is UNRESOLVED:
            return f"{d} is not resolved ({s.raw or s.option})"
        if s is not None and (_absurd(s.value) or (d.endswith("_parallel_size") and _too_many_ranks(s.value))):
            return f"{d} is {s.raw or s.value}, beyond what the memory model computes with"
        if s is not None and d in _NAMES and s.value is not None and not isinstance(s.value, str):
            # a typed value from Python or YAML kwargs (`quantization: 1`): vLLM takes a name here
            return f"{d} is {s.raw or s.value!r}, not a name the memory model knows"
    tp = dep.value("tensor_parallel_size")
    if isinstance(tp, int) and not isinstance(tp, bool) and tp > 1:
        from vlint.resolve.parallel import tp_split_error

        err = tp_split_error(dep.arch, tp)
        if err is not None:
            return f"tensor_parallel_size {tp} cannot split the model evenly ({err.message})"
    return None


#: settings whose value is a name (a method, a dtype)
_NAMES = frozenset({"quantization", "dtype", "kv_cache_dtype"})

#: tensor/pipeline parallel sizes past this are no deployment (the model lays out one entry per rank)
MAX_RANKS = 4096


def _too_many_ranks(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > MAX_RANKS


def _absurd(value: object) -> bool:
    """NaN, infinities and integers past float precision (``--max-model-len 1e309``, ``10**400``):
    vLLM rejects or cannot use them, and the arithmetic would overflow."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return abs(value) > 2**53
    return isinstance(value, float) and not math.isfinite(value)


def _mapping(value: Any) -> Mapping[str, Any] | None:
    """A dict-valued setting, also when written as a JSON string."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    return value if isinstance(value, Mapping) else None


def redundant_experts(dep: Deployment) -> int:
    """EPLB's redundant experts the launch asks for: ``--eplb-config`` ``num_redundant_experts`` (from
    0.10.2), else ``--num-redundant-experts`` (0.10.0-0.11.x); 0 when neither is set or resolved."""
    eplb = _mapping(dep.value("eplb_config"))
    spare = dep.value("num_redundant_experts")
    if eplb is not None and eplb.get("num_redundant_experts") is not None:
        spare = eplb.get("num_redundant_experts")
    return spare if isinstance(spare, int) and not isinstance(spare, bool) and spare > 0 else 0


def feature_inputs(dep: Deployment) -> dict[str, Any]:
    """Memory-model inputs for optional features that ``resolve_defaults`` does not carry:
    speculative decoding (method, draft model), LoRA slots, multimodal limits, expert and
    context parallelism."""
    out: dict[str, Any] = {}
    spec = _mapping(dep.value("speculative_config"))
    if spec is not None:
        method = spec.get("method")
        model = spec.get("model")
        if not method and isinstance(model, str) and model.lower() in ("ngram", "[ngram]"):
            method = "ngram"
        draft = None
        if isinstance(model, str) and model and model.lower() not in ("ngram", "[ngram]"):
            from vlint.resolve.catalog import lookup_catalog

            draft = lookup_catalog(model)
            if not method:
                low = model.lower()
                method = "eagle3" if "eagle3" in low else "eagle" if "eagle" in low else "draft_model"
        out["spec_method"] = str(method) if method else None
        out["draft_arch"] = draft
    if dep.value("enable_lora"):
        out["max_loras"] = int(dep.value("max_loras") or 1)
        out["max_lora_rank"] = int(dep.value("max_lora_rank") or 16)
        if isinstance(dep.value("lora_dtype"), str) and dep.value("lora_dtype") != "auto":
            out["lora_dtype"] = dep.value("lora_dtype")
    lim = _mapping(dep.value("limit_mm_per_prompt"))
    if lim is not None:
        out["limit_mm_per_prompt"] = dict(lim)
    if dep.value("enable_expert_parallel") is True:
        out["expert_parallel"] = True
        spare = redundant_experts(dep)
        if spare:
            out["redundant_experts"] = spare
    backend = dep.value("all2all_backend")
    if isinstance(backend, str) and backend:
        out["all2all_backend"] = backend
    for dest in ("prefill_context_parallel_size", "decode_context_parallel_size"):
        cp = dep.value(dest)
        if isinstance(cp, int) and not isinstance(cp, bool) and cp > 1:
            out[dest] = cp
    mode = dep.value("mm_encoder_tp_mode")
    if dep.value("enable_multimodal_encoder_data_parallel") is True:
        mode = "data"  # the flag --mm-encoder-tp-mode data replaced (0.10.2)
    if isinstance(mode, str):
        out["mm_encoder_tp_mode"] = mode
    if dep.value("language_model_only"):
        out["language_model_only"] = True
    if pooling_runner(dep):
        out["runner"] = "pooling"
    if dep.value("skip_mm_profiling"):
        out["skip_mm_profiling"] = True
    if runs_flashinfer_image(dep):
        out["flashinfer_installed"] = True
    return out


#: --task values of the pooling runner ([0.9.1] vllm/config.py:90-95 ``_RUNNER_TASKS``; "embedding" is
#: the older spelling of "embed")
POOLING_TASKS = frozenset({"embed", "embedding", "classify", "score", "reward"})


def pooling_runner(dep: Deployment) -> bool:
    """Whether the launch asks for vLLM's pooling runner: ``--runner pooling`` ([0.13.0]
    vllm/config/model.py:105, 756-774) or a pooling ``--task`` (releases before ``--runner``)."""
    runner = dep.value("runner")
    task = dep.value("task")
    return (isinstance(runner, str) and runner.lower() == "pooling") or (
        isinstance(task, str) and task.lower() in POOLING_TASKS
    )


def runs_flashinfer_image(dep: Deployment) -> bool:
    """Whether the launch runs in vLLM's CUDA server image, which has the flashinfer package (the
    profiling sampler of 0.8-0.11.1 then skips the full-vocabulary sort)."""
    fact = dep.invocation.facts.get("image")
    image = parse_image(str(fact.value)) if fact is not None else None
    return image is not None and ships_flashinfer(image)


def platform_blocked(dep: Deployment) -> str | None:
    """Why a launch that names no GPU gets no estimate on its own platform (None: it gets one)."""
    from vlint.launch.platform import CPU, HPU, TPU, platform_of

    plat = platform_of(dep)
    if plat == CPU:
        space = cpu_space(dep)
        return None if space.bytes is not None else space.why
    if plat in (TPU, HPU):
        if accelerator_of(dep) is None:
            what = "TPU" if plat == TPU else "Gaudi"
            return f"the {what} type is unknown (the node label or resource profile names none vlint knows)"
        return None
    return "the GPU type is unknown (pass --gpu)"


def cpu_space(dep: Deployment) -> KvSpace:
    """The KV cache space vLLM's CPU backend takes for the launch (``VLLM_CPU_KVCACHE_SPACE`` as its
    release reads it)."""
    from vlint.memory.platforms import KvSpace, cpu_kv_space

    value = dep.env.get("VLLM_CPU_KVCACHE_SPACE")
    if value is UNRESOLVED:
        return KvSpace("cpu", None, "VLLM_CPU_KVCACHE_SPACE is not resolved")
    return cpu_kv_space(dep.version, value if isinstance(value, str) else None)


def accelerator_of(dep: Deployment) -> Accelerator | None:
    """The TPU or Gaudi device the launch's surroundings name (a GKE node label, a resource profile)."""
    from vlint.hardware.accelerators import lookup_accelerator
    from vlint.launch.platform import platform_of

    facts = dep.invocation.facts
    for key in ("gpu_label", "gpu_type"):
        fact = facts.get(key)
        if fact is not None:
            acc = lookup_accelerator(str(fact.value), platform_of(dep))
            if acc is not None:
                return acc
    return None


def estimate_for(dep: Deployment) -> MemoryEstimate | None:
    if blocked_by(dep) is not None:
        return None
    from vlint.memory import estimate_memory

    assert dep.arch is not None
    if dep.gpu is None:
        from vlint.launch.platform import CPU, platform_of

        if platform_of(dep) == CPU:
            m = estimate_on_cpu(dep, cpu_space(dep))
        else:
            acc = accelerator_of(dep)
            assert acc is not None
            m = estimate_on_accelerator(dep, acc)
        return _low_confidence_verdict(m, dep.arch.confidence)
    return _low_confidence_verdict(estimate_memory(gpu_inputs(dep)), dep.arch.confidence)


def gpu_inputs(dep: Deployment, arch: ModelArch | None = None, features: dict[str, Any] | None = None) -> MemoryInputs:
    """The memory model's inputs for the launch on its GPU (``arch`` in place of its model's facts):
    the one place estimates, what-ifs and fixes take them from. ``features``: the launch's
    :func:`feature_inputs`, when the caller has them (they do not depend on the GPU)."""
    from vlint.memory import inputs_from_resolved

    arch = arch or dep.arch
    assert arch is not None and dep.gpu is not None
    env = {k: v for k, v in dep.env.items() if isinstance(v, str)}
    extra = {"gpu_count": dep.gpu_count, "env": env, **(feature_inputs(dep) if features is None else features)}
    if dep.gpu_free_gib is not None:  # the rest is held by other processes
        extra["other_gpu_usage_gib"] = max(0.0, dep.gpu.total_gib - dep.gpu_free_gib)
    return inputs_from_resolved(arch, dep.gpu, dep.version, dep.resolved, **extra)


def _platform_inputs(dep: Deployment, device: str, gib: float, space: KvSpace | None = None) -> MemoryInputs:
    """Memory-model inputs on a platform with a KV space of its own: its engine and block size."""
    from vlint.hardware.gpus import GpuSpec
    from vlint.memory import inputs_from_resolved
    from vlint.memory.platforms import BLOCK_SIZE, HPU_BLOCK_SIZE, TPU_BLOCK_SIZE, cpu_engine

    assert dep.arch is not None
    block = dep.user_value("block_size")
    default_block = {"CPU": BLOCK_SIZE, "TPU": TPU_BLOCK_SIZE}.get(device, HPU_BLOCK_SIZE)
    env = {k: v for k, v in dep.env.items() if isinstance(v, str)}
    extra = {
        "gpu_count": dep.gpu_count,
        "env": env,
        **feature_inputs(dep),
        "engine": cpu_engine(dep.version) if device == "CPU" else "V1",
        "block_size": block if isinstance(block, int) and block > 0 else default_block,
    }
    stand_in = GpuSpec(device, device.lower(), gib, source=space.why if space is not None else "")
    return inputs_from_resolved(dep.arch, stand_in, dep.version, dep.resolved, **extra)


def estimate_on_cpu(dep: Deployment, space: KvSpace) -> MemoryEstimate:
    """The launch on vLLM's CPU backend with ``space`` of KV cache."""
    from vlint.memory.platforms import estimate_fixed

    return estimate_fixed(_platform_inputs(dep, "CPU", (space.bytes or 0) / 2**30, space), space)


def estimate_on_accelerator(dep: Deployment, acc: Accelerator) -> MemoryEstimate:
    """The launch on a TPU or Gaudi device: the plugin's KV space from the device memory and the
    weights on each device (:mod:`vlint.memory.platforms`)."""
    from vlint.memory.platforms import estimate_fixed, hpu_kv_space, rank_weights, tpu_kv_space

    inputs = _platform_inputs(dep, acc.platform, acc.hbm_gib)
    west = rank_weights(inputs)
    w = max(west.per_stage)
    gmu = float(inputs.gpu_memory_utilization)
    if acc.platform == "TPU":
        space = tpu_kv_space(acc, gmu, w, dep.version)
    else:
        space = hpu_kv_space(acc, gmu, w, dep.version, hpu_graph_reserved(dep))
    return estimate_fixed(inputs, space, west)


def hpu_graph_reserved(dep: Deployment) -> float:
    """vllm-gaudi's share of usable memory kept for HPU graphs: ``VLLM_GRAPH_RESERVED_MEM`` (0.1), none
    with --enforce-eager ([vllm-gaudi@091bbadd] vllm_gaudi/v1/worker/hpu_worker.py:409-414)."""
    if dep.value("enforce_eager") is True:
        return 0.0
    value = dep.env.get("VLLM_GRAPH_RESERVED_MEM")
    try:
        return float(value) if isinstance(value, str) else 0.1
    except ValueError:
        return 0.1  # vllm-gaudi: "Invalid VLLM_GRAPH_RESERVED_MEM value, using default"


#: with model facts of low confidence (docs/models.md: partly inferred), a predicted failure stands only
#: when the launch would fail with every size its model facts give this many times smaller: no inferred
#: bit width or layer list moves a size by that much
LOW_CONFIDENCE_FACTOR = 2.0

#: the stages whose verdict is the sizing of the model's memory (loading the weights, then the KV cache
#: the budget leaves: no block, one request's KV cache, the Mamba-block check): the uncertainty of the
#: facts is taken on the launch's whole need there, so that one stage's ratio is not read alone (a GPU
#: that loads the weights and falls short of KV by a wide ratio would be "not", a smaller one that falls
#: short of the weights by a narrow one "too close", for the same launch)
SIZING_STAGES = frozenset({"weights", "no_kv_memory", "kv_cache_check", "mamba_blocks"})


def fails_with_smaller_facts(m: MemoryEstimate, factor: float = LOW_CONFIDENCE_FACTOR) -> bool:
    """Whether ``m``'s launch would still fail vLLM's sizing if every size the model's facts decide
    (weights, activation, CUDA graphs inside the budget, the KV cache of one request of max_model_len,
    or the Mamba check's blocks) were ``factor`` times smaller: the weights against what is free at
    startup (the estimate's weights stage), the rest with the non-torch memory (no model fact) against
    the gpu_memory_utilization budget ([0.19.0] vllm/v1/worker/gpu_worker.py:416-420: available =
    requested − non-KV memory). Both grow with the GPU, so a larger GPU never fails
    this where a smaller one passes it."""
    stages = m.stages or []
    weights = max((s.weights_gib for s in stages), default=m.weights_gib)
    graphs = m.cuda_graph_in_budget
    per_rank = max(
        (s.weights_gib + s.activation_gib + (s.cuda_graph_gib if graphs else 0.0) for s in stages),
        default=m.weights_gib + m.activation_gib + (m.cuda_graph_gib if graphs else 0.0),
    )
    kv = m.request_kv_gib
    if m.failure_stage in ("no_kv_memory", "kv_cache_check", "mamba_blocks"):
        kv = max(kv, m.need_gib)
    if weights / factor > m.free_at_start_gib:
        return True
    return (per_rank + kv) / factor + m.non_torch_gib > m.budget_gib


def _low_confidence_verdict(m: MemoryEstimate, confidence: str | None) -> MemoryEstimate:
    """A failure that inferred facts could explain is a close call, not a failure (an error must mean
    vLLM refuses). At a sizing stage (:data:`SIZING_STAGES`) the failure stands when the launch fails
    with facts :data:`LOW_CONFIDENCE_FACTOR` times smaller (:func:`fails_with_smaller_facts`); at a later
    one (a pinned KV cache, graph capture) when it needs that many times what is left. The startup
    free-memory check (gpu_memory_utilization against what the GPU has free) uses no model fact and is
    left as it is."""
    if confidence != "low" or m.starts or m.too_close_to_call or m.failure_stage == "startup_free_memory":
        return m
    if m.failure_stage in SIZING_STAGES:
        if fails_with_smaller_facts(m):
            return m
    elif m.need_gib >= LOW_CONFIDENCE_FACTOR * max(m.left_gib, 0.0):
        return m
    from vlint.core.record import replace

    return replace(m, too_close_to_call=True, facts_low_confidence=True)


def estimate_on_gpu(
    dep: Deployment, gpu: GpuSpec, gpu_count: int | None = None, *, features: dict[str, Any] | None = None
) -> MemoryEstimate | None:
    """The memory estimate of ``dep``'s launch on ``gpu`` (× ``gpu_count``), with the defaults that
    release picks for that GPU re-resolved from the launch's own settings. Pure: no I/O beyond
    the bundled data. None when the model is unknown or a needed setting is unresolved. ``features``:
    ``feature_inputs(dep)`` when the caller sizes the launch on several GPUs (computed once)."""
    if dep.arch is None:
        return None
    from vlint.core.record import replace as dc_replace
    from vlint.resolve.defaults import resolve_defaults

    user: dict[str, Any] = {d: s.value for d, s in dep.args.settings.items() if s.value is not UNRESOLVED}
    user["env"] = {k: v for k, v in dep.env.items() if v is not UNRESOLVED}
    resolved = resolve_defaults(
        dep.version, gpu=gpu, usage_context=dep.invocation.usage_context, arch=dep.arch, user=user
    )
    # what is free is a fact of the launch's own GPU: another GPU (a reference GPU) is taken as all free
    free = dep.gpu_free_gib if dep.gpu is not None and dep.gpu.name == gpu.name else None
    probe = dc_replace(
        dep, gpu=gpu, gpu_count=gpu_count, resolved=resolved, gpu_free_gib=free, _memory=None, _memory_done=False
    )
    if blocked_by(probe) is not None:
        return None
    from vlint.memory import estimate_memory

    assert probe.arch is not None
    return _low_confidence_verdict(estimate_memory(gpu_inputs(probe, features=features)), probe.arch.confidence)
