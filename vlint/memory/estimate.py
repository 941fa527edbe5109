"""vLLM's startup memory accounting, offline: weights, activation, non-torch, CUDA graphs, KV.

``estimate_memory(MemoryInputs) -> MemoryEstimate``. All headline numbers are per GPU rank as
vLLM logs them (the first rank's worker line; KV blocks/tokens are the minimum over PP stages,
as the engine core uses). GiB = 2**30 bytes. Every term that is estimated rather than exact is
explained in ``assumptions``.

V1 (vllm/v1/worker/gpu_worker.py determine_available_memory)::

    available_kv = total × gmu − weights − non_torch − activation_peak
                   − cudagraph_estimate (if VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS; default from 0.20)

V0 (vllm/worker/worker.py determine_num_available_blocks): the same without graphs; graphs are
captured after the KV cache, outside the budget.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from collections.abc import Mapping

from vlint.core.record import record, replace
from vlint.core.typing_names import Any
from vlint.core.version import V, Version
from vlint.hardware.gpus import GpuSpec
from vlint.memory.constants import constants, switches
from vlint.memory.encoder_tp import supports_encoder_data_parallel
from vlint.memory.extras import draft_estimate, draft_kv_arch, lora_bytes
from vlint.memory.inputs import MemoryInputs
from vlint.memory.kv import (
    MLA,
    KVLayout,
    LayerSpec,
    StateCache,
    attention_block_size_for_hybrid,
    build_layout,
    estimate_max_model_len,
    indexer_key_bytes,
    kv_elem_bytes,
    kv_tokens,
    layer_specs,
    max_concurrency,
    pp_partition,
    request_bytes,
)
from vlint.memory.warmup import sampler_warmup
from vlint.memory.weights import loaded_weights, moe_split
from vlint.resolve.model_arch import ModelArch, checkpoint_kv_cache_dtype, dtype_bytes

GIB = float(2**30)


@record
class StageEstimate:
    stage: int
    layers: int
    weights_gib: float
    activation_gib: float
    non_torch_gib: float
    cuda_graph_gib: float
    available_kv_gib: float
    num_blocks: int
    bytes_per_block: float


#: vLLM's own safety margin when it suggests a --kv-cache-memory-bytes value: "memory profiling may
#: slightly underestimate the memory consumption. So leave a small buffer (=150MiB) to avoid OOM"
#: ([0.33.0] vllm/v1/worker/gpu_worker.py:1023-1026, the suggestion at :1027-1037)
PINNED_KV_BUFFER_BYTES = 150 * (1 << 20)


@record
class PinnedKV:
    """``--kv-cache-memory-bytes`` (0.10.2+): vLLM takes the value as the KV cache size, skips the
    profiling-based budget and never checks it against free memory ([0.33.0]
    vllm/v1/worker/gpu_worker.py:656-682, [0.10.2] :235-252). What is left for it on the tightest rank,
    in GiB: ``alloc_room`` when the KV cache is allocated (free at start − weights − non-torch), then
    minus the CUDA graphs captured after it (``capture_room``), then minus the activation peak of a
    full step (``load_room``), which a busy server reaches."""

    pinned_gib: float
    alloc_room_gib: float
    capture_room_gib: float
    load_room_gib: float
    #: what vLLM itself suggests to "fully utilize gpu memory" (the load room − 150 MiB), less the
    #: uncertainty and leaving the sampler warm-up its room, in whole MiB (the minimum over the ranks)
    fit_bytes: int
    uncertainty_gib: float
    #: ``fits`` | ``close`` (inside the uncertainty of one of the three rooms) | ``oom_under_load`` |
    #: ``fails_at_capture`` | ``fails_at_allocation``
    verdict: str
    stage: int = 0


@record
class MemoryEstimate:
    engine: str
    total_gib: float
    budget_gib: float
    weights_gib: float
    activation_gib: float
    non_torch_gib: float
    cuda_graph_gib: float  # estimated CUDA-graph memory (V1 estimate / V0 capture)
    cuda_graph_in_budget: bool
    kv_cache_gib: float  # available KV memory on the first rank (as logged)
    kv_cache_gib_min: float  # minimum over PP stages
    kv_bytes_per_token: float  # per rank, summed over layers (full-length accounting)
    kv_bytes_per_token_by_kind: dict[str, float]
    block_size: int
    num_blocks: int
    num_kv_groups: int
    kv_cache_tokens: int
    max_concurrency: float
    request_kv_gib: float  # KV one request of max_model_len needs on the tightest rank
    starts: bool
    failure: str | None
    failure_stage: str | None
    estimated_max_model_len: int | None
    free_at_start_gib: float
    headroom_outside_budget_gib: float
    stages: list[StageEstimate]
    assumptions: list[str]
    notes: list[str]
    risks: list[str]  # things that may fail after startup accounting passes (estimates)
    max_gmu_free: float  # largest gpu_memory_utilization the startup free-memory check allows
    # V0 with TP > 1: only the driver (rank 0) samples, so the other ranks log a smaller activation
    # and more KV memory; the engine takes the minimum block count (the driver's)
    other_ranks_activation_gib: float | None = None
    other_ranks_kv_cache_gib: float | None = None
    # the deciding check: what it needs, what the model says is left, and the model's uncertainty
    # (about 2σ of its leave-one-out error on real logs); inside the band the verdict is a close call
    need_gib: float = 0.0
    left_gib: float = 0.0
    uncertainty_gib: float = 0.0
    too_close_to_call: bool = False
    #: the verdict is a close call because the model's facts are of low confidence (partly inferred)
    facts_low_confidence: bool = False
    # after the KV cache is allocated (CUDA-graph capture outside the budget, sampler warm-up): inside
    # the band the estimate cannot tell whether it OOMs (reported as a risk, VL214)
    late_close_call: bool = False
    #: the device vLLM runs on: ``cuda`` (CUDA/ROCm GPUs, this module), or ``cpu`` / ``tpu`` / ``hpu``
    #: (:mod:`vlint.memory.platforms`: the KV cache is a space the platform decides; no activation,
    #: non-torch or CUDA-graph terms)
    platform: str = "cuda"
    #: the device on another platform (``TPU-v6e``, ``Gaudi3``, ``CPU``); "" for a GPU (the deployment's)
    device: str = ""
    #: ``--kv-cache-memory-bytes`` against what is free (V1 on a GPU; None when not pinned)
    pinned_kv: PinnedKV | None = None

    def as_dict(self) -> dict[str, Any]:
        from vlint.core.record import asdict

        return asdict(self)


# --------------------------------------------------------------------------------------------


def _serving_dtype(inp: MemoryInputs) -> str:
    if inp.dtype and inp.dtype != "auto":
        return inp.dtype
    return inp.arch.serving_dtype_default


def sparse_mla_cache_dtype(inp: MemoryInputs) -> str | None:
    """The KV cache dtype vLLM settles on for a sparse-attention MLA model (DeepSeek-V3.2, GLM-5), where
    an fp8 request becomes DeepSeek's ``fp8_ds_mla`` layout (656 B per token) or stays standard fp8
    (576 B) depending on the release, the model class and the attention backend the GPU gets; None when
    vlint cannot tell (the estimate then says so).

    - 0.11.0: DeepSeek-V3.2 turns ``auto`` and fp8 into fp8_ds_mla ([0.11.0]
      vllm/model_executor/models/config.py:403-424); 0.11.1-0.17.x: fp8 only ([0.13.0] config.py:470-490).
    - from 0.18.0 the attention layer converts fp8 when the backend is FlashMLA-sparse ([0.19.1]
      vllm/model_executor/layers/attention/mla_attention.py:341-355; from 0.25 FlashMLA-sparse takes "fp8"
      as its alias, [0.33.0] vllm/v1/attention/backends/mla/flashmla_sparse.py:149-153). Hopper always
      gets FlashMLA-sparse for fp8 (the FlashAttention sparse backend is bf16-only); Blackwell prefers
      FlashInfer-sparse (standard fp8) for fp8 from 0.19.0, and in 0.18 when a rank has 16 heads or fewer
      ([0.18.0] / [0.19.0] vllm/platforms/cuda.py ``_get_backend_priorities``)."""
    a = inp.arch
    kv = str(inp.kv_cache_dtype or "auto").lower()
    if not a.index_head_dim or not a.is_mla or kv == "fp8_ds_mla":
        return kv
    ver = inp.version
    v32 = "DeepseekV32ForCausalLM" in a.architectures
    if ver < V("0.11.1") and v32 and (kv == "auto" or kv.startswith("fp8")):
        return "fp8_ds_mla"
    if not kv.startswith("fp8"):
        return kv
    if ver < V("0.18.0"):
        return "fp8_ds_mla" if v32 else None
    cc = inp.gpu.cc_major_minor
    if cc is None or cc[0] not in (9, 10):
        return None
    if cc[0] == 9:
        return "fp8_ds_mla"
    if ver >= V("0.19.0"):
        return kv
    heads = a.num_attention_heads // max(1, inp.tensor_parallel_size)
    return kv if heads <= 16 else "fp8_ds_mla"


#: from 0.24.0 a layer an IndexCache config skips builds no indexer, so it holds no indexer key cache
#: ([0.24.0] vllm/model_executor/models/deepseek_v2.py: ``if self.is_v32 and (not _skip_topk or
#: is_mtp_layer)``; 0.23.0 built one on every layer)
INDEXER_SKIP_SINCE = "0.24.0"


#: hybrid architectures whose model class supports the "all" Mamba cache mode (SupportsMambaPrefixCaching:
#: [0.13.0] / [0.19.0] / [0.31.0] vllm/model_executor/models/{bamba,falcon_h1,granitemoehybrid,jamba,
#: nemotron_h,zamba2}.py; Bamba no longer from 0.28.0); Gated DeltaNet models (Qwen3-Next, Qwen3.5/3.6)
#: never declare it. The mode itself is gone from 0.32.0 (``MambaCacheMode = Literal["align", "none"]``,
#: [0.32.0] vllm/config/cache.py)
MAMBA_PREFIX_CACHING_ARCHS = frozenset(
    {
        "NemotronHForCausalLM",
        "FalconH1ForCausalLM",
        "GraniteMoeHybridForCausalLM",
        "JambaForCausalLM",
        "Zamba2ForCausalLM",
        "BambaForCausalLM",
    }
)
#: releases that shape the Mamba cache mode (vllm/model_executor/models/config.py MambaModelConfig):
#: from 0.12.0 prefix caching keeps one page per block on models that support it and is turned off on the
#: others ([0.13.0] :289-309); from 0.15.0 the "all"/"align"/"none" modes, prefix caching picking "all" where
#: supported and "align" elsewhere ([0.15.1] :332-380, [0.26.0] :558-602); from 0.28.0 "align" by default
#: ([0.28.0] :602-629, vllm-project/vllm#50991); from 0.32.0 no "all" mode
MAMBA_BLOCK_PER_BLOCK_SINCE = "0.12.0"
MAMBA_MODES_SINCE = "0.15.0"
MAMBA_ALIGN_DEFAULT_SINCE = "0.28.0"
MAMBA_ALL_MODE_UNTIL = "0.32.0"


def mamba_cache_mode(inp: MemoryInputs) -> str:
    """The Mamba cache mode vLLM runs a hybrid launch with: "none" (one state per request), "align" (the
    state at the last block boundary and the running one) or "all" (one state per block, like attention)."""
    a, ver = inp.arch, inp.version
    if inp.engine != "V1" or not a.has_state_layers or not inp.enable_prefix_caching:
        return "none"
    supports = bool(MAMBA_PREFIX_CACHING_ARCHS.intersection(a.architectures)) and ver < V(MAMBA_ALL_MODE_UNTIL)
    if ver < V(MAMBA_BLOCK_PER_BLOCK_SINCE):
        return "none"
    if ver < V(MAMBA_MODES_SINCE):
        return "all" if supports else "none"
    user = str(inp.mamba_cache_mode or "none").lower()
    if user == "none":
        user = "align" if ver >= V(MAMBA_ALIGN_DEFAULT_SINCE) or not supports else "all"
    return "align" if user == "all" and not supports else user


#: the release from which a Mamba2 mixer (Nemotron-H …) exports a prefill checkpoint in the "align" mode:
#: one more page per request (``num_prefill_checkpoint_blocks=1``, [0.32.0]
#: vllm/model_executor/layers/mamba/mamba_mixer2.py; [0.33.0] :1106-1117; :1135-1141 of
#: vllm/v1/kv_cache_interface.py); Gated DeltaNet layers do so from 0.33.0 when FlashInfer runs their prefill
#: (on Hopper always; on Blackwell only with CUDA 13, which vlint does not know), keeping blocks on a
#: 64-token grid ([0.33.0] vllm/model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py:148-215, 690-748;
#: FLASHINFER_GDN_CHECKPOINT_ALIGNMENT, vllm/v1/attention/backends/gdn_attn.py:34)
MAMBA2_CHECKPOINT_SINCE = "0.32.0"
GDN_CHECKPOINT_SINCE = "0.33.0"
GDN_CHECKPOINT_ALIGNMENT = 64
#: speculative positions: the conv state of a Gated DeltaNet layer keeps ``kernel - 1 + num_spec`` positions
#: in every release that has one ([0.10.2] vllm/model_executor/layers/mamba/mamba_utils.py:185-191), of a
#: Nemotron-H / Mamba2 layer from 0.17.0 ([0.17.0] :136-145, vllm/model_executor/models/nemotron_h.py), of
#: the other Mamba2 hybrids (Granite-4.0-H, Falcon-H1, Zamba2) by 0.33.0 (not in [0.25.1]); a request holds
#: ``num_speculative_blocks`` more state pages from 0.15.0 ([0.15.1] vllm/v1/kv_cache_interface.py
#: MambaSpec.max_memory_usage_bytes; in the "all" mode from 0.27.0, [0.27.1])
MAMBA2_SPEC_CONV_SINCE = {"NemotronHForCausalLM": "0.17.0", "Mamba2ForCausalLM": "0.17.0"}
MAMBA2_SPEC_CONV_OTHERS_SINCE = "0.33.0"
SPEC_STATE_BLOCKS_SINCE = "0.15.0"
SPEC_STATE_BLOCKS_ALL_MODE_SINCE = "0.27.0"


def _gdn_checkpoints(inp: MemoryInputs) -> bool:
    cc = inp.gpu.cc_major_minor
    return inp.arch.state_family == "gdn" and inp.version >= V(GDN_CHECKPOINT_SINCE) and cc is not None and cc[0] == 9


def state_cache(inp: MemoryInputs) -> StateCache:
    """How the release keeps one request's Mamba/linear states: the speculative conv positions and the
    pages per request of the cache mode."""
    a, ver = inp.arch, inp.version
    if not a.has_state_layers:
        return StateCache()
    nspec = max(0, int(inp.num_speculative_tokens or 0))
    conv = 0
    if nspec and a.state_family == "gdn":
        conv = nspec
    elif nspec and a.state_family == "mamba2":
        since = next((MAMBA2_SPEC_CONV_SINCE[x] for x in a.architectures if x in MAMBA2_SPEC_CONV_SINCE), None)
        conv = nspec if ver >= V(since or MAMBA2_SPEC_CONV_OTHERS_SINCE) else 0
    spec_blocks = nspec if ver >= V(SPEC_STATE_BLOCKS_SINCE) else 0
    mode = mamba_cache_mode(inp)
    if mode == "all":
        return StateCache(conv, spec_blocks if ver >= V(SPEC_STATE_BLOCKS_ALL_MODE_SINCE) else 0, True)
    if mode == "align":
        ckpt = 1 if (a.state_family == "mamba2" and ver >= V(MAMBA2_CHECKPOINT_SINCE)) or _gdn_checkpoints(inp) else 0
        return StateCache(conv, 2 + spec_blocks + ckpt)
    return StateCache(conv, 1 + spec_blocks)


def _state_note(inp: MemoryInputs) -> str:
    st, mode = state_cache(inp), mamba_cache_mode(inp)
    pages = f"one per block + {st.pages}" if st.per_block else str(st.pages)
    spec = f", conv state + {st.conv_positions} speculative positions" if st.conv_positions else ""
    cc = inp.gpu.cc_major_minor
    gdn_align = mode == "align" and inp.arch.state_family == "gdn" and inp.version >= V(GDN_CHECKPOINT_SINCE)
    if gdn_align and cc is not None and cc[0] in (10, 12):
        spec += (
            " (the Triton GDN prefill assumed: with a CUDA 13 runtime FlashInfer runs it and adds a checkpoint "
            "page per request on a 64-token block grid)"
        )
    return f"; Mamba cache mode {mode!r}: {pages} state page(s) per request{spec}"


#: from 0.20.0 the block alignment is the attention backend's smallest kernel block (16 for FlashAttention,
#: FlashInfer and Triton) or the configured block size when larger ([0.26.0] vllm/platforms/interface.py:875-882);
#: before, 16 ([0.19.0] vllm/model_executor/models/config.py:217-218)
HYBRID_ALIGN_TO_BLOCK_SINCE = "0.20.0"
#: Mamba1 has no chunk: vLLM uses 1024 ([0.19.0] vllm/config/model.py:1339-1344)
MAMBA1_CHUNK = 1024


def hybrid_block_size(inp: MemoryInputs, specs: list[LayerSpec]) -> int:
    """The attention block size of a hybrid (attention + Mamba/linear) launch: enlarged until one attention
    page holds a state (:func:`vlint.memory.kv.attention_block_size_for_hybrid`)."""
    bs = int(inp.block_size)
    if inp.engine != "V1" or not any(s.kind == "mamba" for s in specs):
        return bs
    align = max(16, bs) if inp.version >= V(HYBRID_ALIGN_TO_BLOCK_SINCE) else 16
    mode = mamba_cache_mode(inp)
    if mode == "align" and _gdn_checkpoints(inp):
        align = math.lcm(align, GDN_CHECKPOINT_ALIGNMENT)
    chunk = None
    if mode == "all":
        chunk = inp.mamba_block_size or inp.arch.mamba_chunk_size or MAMBA1_CHUNK
    return attention_block_size_for_hybrid(specs, bs, align, chunk=chunk)


def stage_specs(
    inp: MemoryInputs,
    layer_range: tuple[int, int],
    kv_b: float,
    model_b: float,
    hybrid_mgr: bool,
    draft_arch: ModelArch | None,
) -> list[LayerSpec]:
    """KV specs of one PP stage on one TP rank, the drafter's layers included on the last stage."""
    tp = max(1, inp.tensor_parallel_size)
    cache_dtype = sparse_mla_cache_dtype(inp) or inp.kv_cache_dtype
    specs = layer_specs(
        inp.arch,
        layer_range=layer_range,
        tp=tp,
        kv_bytes=kv_b,
        model_dtype_bytes=model_b,
        kv_cache_dtype=cache_dtype,
        treat_windowed_as_full=not hybrid_mgr,
        indexer_skips=inp.version >= V(INDEXER_SKIP_SINCE),
        state=state_cache(inp),
    )
    if draft_arch is not None:
        specs = specs + layer_specs(
            draft_arch,
            layer_range=(0, draft_arch.num_layers),
            tp=tp,
            kv_bytes=kv_b,
            model_dtype_bytes=model_b,
            kv_cache_dtype=cache_dtype,
            treat_windowed_as_full=not hybrid_mgr,
        )
    return specs


def vision_tower_loaded(inp: MemoryInputs) -> bool:
    """Multimodal towers are skipped when every modality is limited to 0 per prompt (from 0.16.0:
    ``_mark_tower_model``, [0.19.0] vllm/model_executor/models/interfaces.py:249-298) or with
    ``--language-model-only``."""
    if not inp.arch.is_multimodal or inp.version < V("0.16.0"):
        return True
    if inp.language_model_only:
        return False
    lim = inp.limit_mm_per_prompt
    return not (lim is not None and len(lim) > 0 and all(_limit_count(v) == 0 for v in lim.values()))


def encoder_data_parallel(inp: MemoryInputs) -> bool:
    """``--mm-encoder-tp-mode data`` on an architecture whose code supports it (see
    :mod:`vlint.memory.encoder_tp`): the encoder's weights are whole on every TP rank."""
    if inp.mm_encoder_tp_mode != "data" or not inp.arch.is_multimodal or inp.tensor_parallel_size <= 1:
        return False
    return supports_encoder_data_parallel(inp.arch.architectures, inp.version)


#: the release from which a hybrid (Mamba / linear-attention) model fails at startup when max_num_seqs
#: exceeds the KV pool's blocks: [0.20.0] vllm/config/compilation.py:1420-1440
#: (resolve_cudagraph_mode_and_sizes raises "max_num_seqs (N) exceeds available Mamba cache blocks",
#: [0.26.0] :1476-1499), only when the resolved cudagraph mode has full CUDA graphs and not while
#: profiling. [0.19.0] vllm/v1/worker/gpu_model_runner.py:6390-6404 and compilation.py:1282-1330
#: only cap the capture sizes to the blocks (a warning); --enforce-eager (cudagraph_mode NONE) returns
#: before the check ([0.26.0] compilation.py:1366-1369).
MAMBA_BLOCKS_CHECK_SINCE = "0.20.0"


def mamba_blocks_checked(inp: MemoryInputs) -> bool:
    """Whether the release refuses a hybrid model whose max_num_seqs exceeds the KV pool's blocks: V1
    from 0.20.0 with full CUDA graphs (not ``--enforce-eager``)."""
    return inp.engine == "V1" and inp.version >= V(MAMBA_BLOCKS_CHECK_SINCE) and not inp.enforce_eager


def _limit_count(v: Any) -> int:
    if isinstance(v, Mapping):
        v = v.get("count", 999)
    try:
        return int(v)
    except (TypeError, ValueError):
        return 999


#: compute capabilities vLLM's symmetric-memory all-reduce serves ([0.19.0]
#: vllm/distributed/device_communicators/all_reduce_utils.py:52-71: 9.0, 10.0, 10.3; on others
#: symm_mem.py:64-70 logs "SymmMemCommunicator: Device capability 8.0 not supported"). The ~2 GiB of
#: non-torch growth the v0.19 H100 logs show at TP>1 (constants "multi_gpu_nvlink") is measured on these
#: parts only; NVLink A100s log the line above and grow far less: h141 (0.27.1 TP2, "Actual usage is
#: 25.86 GiB for consumed memory (weights + non-torch)" with 25.69 GiB of weights: 0.17 GiB), h148 (0.19.0
#: TP2, 0.9 x 39.38 - 18.58 weights - 15.96 KV = 0.90 GiB for activation and non-torch). They take the
#: multi-GPU value without that path (ESTIMATE: which of symmetric memory, NCCL NVLS or the fused
#: all-reduce workspaces holds the 2 GiB is not established; h086, filed as an A100 TP4 on 0.13.0, left
#: ~5 GiB outside weights and KV: it is an A800, whose large default tier profiles 1024 sampler rows)
SYMM_MEM_CAPABILITY = (9, 0)


def multi_gpu_nvlink_class(gpu: GpuSpec) -> bool:
    """Whether a V1 TP>1 launch on ``gpu`` takes the ``multi_gpu_nvlink`` non-torch figure: NVLink and a
    compute capability vLLM's symmetric-memory all-reduce serves (:data:`SYMM_MEM_CAPABILITY`)."""
    cc = gpu.cc_major_minor
    return bool(gpu.nvlink) and (cc is None or cc >= SYMM_MEM_CAPABILITY)


#: vLLM turns its custom all-reduce off on more than two GPUs not fully connected by NVLink ("Custom
#: allreduce is disabled because it's not supported on more than two PCIe-only GPUs", [0.19.0]
#: vllm/distributed/device_communicators/custom_all_reduce.py:152-158, [0.10.2] :143-149;
#: is_fully_connected asks NVML for NVLink between every pair, [0.19.0] vllm/platforms/cuda.py:579-600);
#: the all-reduce then falls through to PyNCCL ([0.19.0] cuda_communicator.py:189-229), captured inside
#: every CUDA graph (parallel_state.py:463-490 graph_capture). The graph term (fitted on NVLink or
#: TP <= 2 launches) leaves out what NCCL holds for the collectives it captures. ROCm does not take this
#: path (XGMI peers, custom_all_reduce.py:159-163).
CUSTOM_ALL_REDUCE_PCIE_MAX_RANKS = 2


def graphs_capture_nccl(inp: MemoryInputs) -> bool:
    """Whether ``inp``'s CUDA graphs capture NCCL all-reduces (V1, graphs on, TP above
    :data:`CUSTOM_ALL_REDUCE_PCIE_MAX_RANKS` on NVIDIA GPUs without NVLink): memory the graph estimate
    does not count."""
    return (
        inp.engine == "V1"
        and not inp.enforce_eager
        and inp.tensor_parallel_size > CUSTOM_ALL_REDUCE_PCIE_MAX_RANKS
        and inp.gpu.vendor == "nvidia"
        and not inp.gpu.nvlink
    )


def _non_torch(inp: MemoryInputs) -> tuple[float, str]:
    c = constants("non_torch_gib", inp.version, inp.engine)
    tp, pp = inp.tensor_parallel_size, inp.pipeline_parallel_size
    if tp > 1:
        if inp.engine == "V0":
            v = c["multi_gpu"]
        elif multi_gpu_nvlink_class(inp.gpu):
            v = c["multi_gpu_nvlink"] + c.get("multi_gpu_per_extra_rank", 0) * (tp - 2)
        else:
            v = c["multi_gpu_pcie"]
        return v, f"non-torch at TP={tp} on {inp.gpu.name}: {v:.2f} GiB (step function; estimate)"
    if pp > 1:
        return c["pp_only"], f"non-torch at PP={pp}, TP=1: {c['pp_only']:.2f} GiB (estimate)"
    return c["tp1"], f"non-torch at TP=1: {c['tp1']:.2f} GiB (estimate)"


def sampler_bytes_per_element(inp: MemoryInputs) -> tuple[float, str]:
    """Peak bytes per (row × vocab) element of the profiling sampler pass on top of the logits
    compute_logits returns (model dtype), and the code path that sizes it (``sampler`` constants)."""
    c = constants("sampler", inp.version, inp.engine)
    path = str(c.get("path", "pytorch_sort"))
    extra = float(c["extra_bytes"])
    flag = str(inp.env.get("VLLM_USE_FLASHINFER_SAMPLER", "")).strip().lower()
    if inp.engine == "V1" and flag in ("1", "true") and path == "pytorch_sort":
        # opted in (0.11.2-0.16) or forced (0.8-0.11.1): FlashInfer top-k/top-p, no full sort
        return float(c.get("flashinfer_extra_bytes", extra)), "flashinfer"
    if (
        inp.engine == "V1"
        and path == "pytorch_sort"
        and inp.flashinfer_installed
        and c.get("flashinfer_default_if_installed")
        and flag not in ("0", "false")
    ):
        # FlashInfer imports and VLLM_USE_FLASHINFER_SAMPLER is unset: "is not False" selects it
        # ([0.10.1.1] vllm/v1/sample/ops/topk_topp_sampler.py:34-50)
        return float(c.get("flashinfer_extra_bytes", extra)), "flashinfer"
    rows = sampler_rows(inp)
    small = int(c.get("small_batch_rows", 0) or 0)
    if path == "triton_inplace" and rows < small:
        sort = constants("sampler", V("0.16.0"), "V1")
        return float(sort["extra_bytes"]), "pytorch_sort"
    return extra, path


def sampler_rows(inp: MemoryInputs) -> int:
    """Rows of the profiling sampler pass: V1 min(max_num_batched_tokens, max_num_seqs) dummy requests
    ([0.19.0] vllm/v1/worker/gpu_model_runner.py:5641); V0 one per dummy sequence ([0.7.3]
    vllm/worker/model_runner.py:1294)."""
    return max(1, min(int(inp.max_num_seqs), int(inp.max_num_batched_tokens)))


@record(frozen=True)
class ActivationTerms:
    """The profiling peak of one stage, by term (bytes)."""

    forward: float  # the forward pass of max_num_batched_tokens tokens (fitted per-token bytes)
    sampler: float  # the sampler pass over rows × vocab (bytes from vLLM's sampler code)
    moe_workspace: float
    multimodal: float
    base: float  # fitted intercept
    sampler_path: str = ""
    rows: int = 0
    #: the fused-MoE intermediate caches outlive the MoE layer (0.14+: the workspace manager keeps them
    #: through the sampler pass); before, they are freed after each layer and only add to the forward
    moe_persistent: bool = True

    @property
    def forward_peak(self) -> float:
        """The forward pass's peak, with the MoE caches when they are freed after each layer."""
        return self.forward + (0.0 if self.moe_persistent else self.moe_workspace)

    @property
    def core(self) -> float:
        if not self.moe_persistent:
            return max(self.forward_peak, self.sampler)
        return max(self.forward, self.sampler) + self.moe_workspace

    @property
    def total(self) -> float:
        return self.core + self.base + self.multimodal


#: from 0.26.0 only decode context parallelism spreads a request's KV ([0.26.0]
#: vllm/v1/kv_cache_interface.py:258-263); before, decode × prefill ([0.25.1] and [0.19.1]
#: vllm/v1/kv_cache_interface.py:112-121)
PCP_SHARDS_KV_UNTIL = "0.26.0"


def context_parallel(inp: MemoryInputs) -> int:
    """Ranks one request's full-attention KV is spread over: decode × prefill context parallelism
    (decode only from 0.26.0)."""
    pcp = max(1, inp.prefill_context_parallel_size) if inp.version < V(PCP_SHARDS_KV_UNTIL) else 1
    return max(1, inp.decode_context_parallel_size) * pcp


#: all-to-all backends whose dispatch gathers every data-parallel rank's tokens on each rank
#: ([0.10.2] vllm/distributed/device_communicators/all2all.py:46-66 naive_multicast;
#: [0.33.0] all2all.py:55-140 AgRsAll2AllManager all_gatherv); DeepEP, pplx, FlashInfer, mori and
#: NIXL send each token only to the ranks of its experts
GATHERING_ALL2ALL = ("naive", "allgather_reducescatter")


def moe_gathered_tokens(inp: MemoryInputs, tokens: int) -> int:
    """Tokens one rank's MoE layers run in the profile: with data parallelism every rank profiles the
    same step and the default all-to-all backends gather them all ([0.10.2]
    vllm/model_executor/layers/fused_moe/layer.py:1768-1784)."""
    dp = max(1, inp.data_parallel_size)
    if dp == 1:
        return tokens
    return tokens * dp if all2all_backend(inp) in GATHERING_ALL2ALL else tokens


def all2all_backend(inp: MemoryInputs) -> str:
    """The MoE all-to-all backend: --all2all-backend, else VLLM_ALL2ALL_BACKEND, else the release's default."""
    return inp.all2all_backend or str(inp.env.get("VLLM_ALL2ALL_BACKEND") or "") or _default_all2all(inp.version)


def _default_all2all(version: Version) -> str:
    """``naive`` until 0.10, ``allgather_reducescatter`` from 0.11.0 ([0.11.0] vllm/envs.py:1241;
    [0.16.0] vllm/config/parallel.py:150)."""
    return "allgather_reducescatter" if version >= V("0.11.0") else "naive"


def activation_terms(inp: MemoryInputs, stage: int, pp: int, layers: int, *, driver: bool = True) -> ActivationTerms:
    """The activation peak of PP stage ``stage`` by term (the driver rank unless ``driver=False``)."""
    a = inp.arch
    c = constants("activation", inp.version, inp.engine)
    tp = inp.tensor_parallel_size
    b = dtype_bytes(_serving_dtype(inp))
    tokens = int(inp.max_num_batched_tokens)
    rows = sampler_rows(inp)
    inter = a.intermediate_size
    if a.is_moe:
        inter = max(
            a.intermediate_size if a.num_moe_layers < a.num_layers else 0,
            (a.moe_intermediate_size or 0) * max(1, a.num_experts_per_tok),
        )
    fwd = tokens * (c["fwd_hidden_mult"] * a.hidden_size + c["fwd_inter_mult"] * inter / tp) * b
    per_elem, path = sampler_bytes_per_element(inp)
    sc = constants("sampler", inp.version, inp.engine)
    # a pooling runner warms up its pooler over the hidden states instead of sampling: no logits over
    # the vocabulary ([0.13.0] vllm/v1/worker/gpu_model_runner.py:4478-4481, _dummy_pooler_run 4399-4422)
    samples = stage == pp - 1 and (driver or not sc.get("driver_only")) and inp.runner != "pooling"
    sampler = rows * a.vocab_size * (b + per_elem) if samples else 0.0
    moe_ws = 0.0
    if a.is_moe and a.quant_method not in ("mxfp4", "gpt_oss_mxfp4") and a.num_moe_layers and layers:
        gathered = moe_gathered_tokens(inp, tokens)
        t = min(gathered, int(c.get("moe_chunk_tokens", 32768)))
        moe_tp = moe_split(inp).tp
        moe_ws = t * max(1, a.num_experts_per_tok) * 3 * (a.moe_intermediate_size or a.intermediate_size) / moe_tp * 2
        if gathered > tokens:
            # the gathered hidden states and the MoE output over them, before the combine scatters it back
            moe_ws += 2 * gathered * a.hidden_size * b
    mm = mm_profile_bytes(inp, b)[0] if stage == 0 else 0.0
    persistent = bool(c.get("moe_workspace_persistent", True))
    base = float(c["base_gib"]) * GIB
    return ActivationTerms(fwd, sampler, moe_ws, mm, base, path if samples else "", rows, persistent)


def profile_persistent_bytes(t: ActivationTerms) -> float:
    """Bytes of the profile peak that stay allocated after the profile run: the fused-MoE workspace when the
    workspace manager keeps it (0.14+). From 0.27.0 vLLM logs them in "consumed memory (weights +
    non-torch)", the free-memory drop, and only the rest as "peak activation" ([0.27.0]
    vllm/utils/mem_utils.py:317-326); the sum, and so the KV cache, is the same as before."""
    return t.moe_workspace if t.moe_persistent else 0.0


def _activation(
    inp: MemoryInputs, stage: int, pp: int, layers: int, *, driver: bool = True
) -> tuple[ActivationTerms, list[str]]:
    """The stage's activation terms (their ``total`` is the peak) and the notes that word them."""
    t = activation_terms(inp, stage, pp, layers, driver=driver)
    b = dtype_bytes(_serving_dtype(inp))
    per_elem, _ = sampler_bytes_per_element(inp)
    mm_note = mm_profile_bytes(inp, b)[1] if t.multimodal else ""
    gathered = moe_gathered_tokens(inp, inp.max_num_batched_tokens)
    sampler = (
        "no sampler (the pooling runner warms up its pooler instead)"
        if inp.runner == "pooling"
        else f"sampler {t.rows} rows × {inp.arch.vocab_size} vocab × {b + per_elem:g} B ({t.sampler_path or 'none'}) "
        f"{t.sampler / GIB:.2f} GiB"
    )
    notes = [
        f"activation: forward of {inp.max_num_batched_tokens} tokens {t.forward / GIB:.2f} GiB, {sampler}"
        + (f", fused-MoE workspace {t.moe_workspace / GIB:.2f} GiB" if t.moe_workspace else "")
        + (
            f" (data parallel: the MoE layers run the {inp.data_parallel_size} ranks' {gathered} tokens)"
            if t.moe_workspace and gathered > inp.max_num_batched_tokens
            else ""
        )
        + (f", {mm_note}" if mm_note else "")
        + " (forward and base fitted; sampler bytes from vLLM's sampler code)"
    ]
    sc = constants("sampler", inp.version, inp.engine)
    if t.sampler_path == "pytorch_sort" and sc.get("flashinfer_default_if_installed") and inp.engine == "V1":
        saved = t.rows * inp.arch.vocab_size * (per_elem - float(sc.get("flashinfer_extra_bytes", per_elem)))
        notes.append(
            f"vLLM {inp.version} samples with FlashInfer when the flashinfer package is installed (e.g. the "
            f"vllm-openai image): the profiling peak is then ~{saved / GIB:.2f} GiB smaller and the KV cache larger"
        )
    return t, notes


def mm_profile_bytes(inp: MemoryInputs, b: float) -> tuple[float, str]:
    """What the multimodal encoder profiling keeps alive through the LM profiling pass.

    V1 profile_run encodes ``max_mm_items_per_batch`` dummy items of the modality with the most
    tokens and keeps the batched inputs and the encoder outputs until the pass ends ([0.19.0]
    vllm/v1/worker/gpu_model_runner.py:5721-5795). Items per batch = min(encoder budget // tokens per
    item, max_num_seqs × items per prompt), budget = max(max_num_batched_tokens, tokens per item),
    items per prompt = min(--limit-mm-per-prompt, max_model_len // tokens per item)
    ([0.19.0] vllm/multimodal/encoder_budget.py:140-183, vllm/v1/core/encoder_cache_manager.py:
    309-316). Inputs are taken as float32 pixels, outputs as model-dtype embeddings. Models whose
    item size config.json does not give: the fitted ``multimodal_fallback_gib``."""
    a = inp.arch
    if not a.is_multimodal or inp.engine != "V1" or not vision_tower_loaded(inp) or inp.skip_mm_profiling:
        return 0.0, ""
    lim = inp.limit_mm_per_prompt
    if lim is not None and len(lim) > 0 and all(_limit_count(v) == 0 for v in lim.values()):
        return 0.0, ""
    tok, elems = a.mm_tokens_per_item, a.mm_item_elems
    if not tok or not elems:
        c = constants("activation", inp.version, inp.engine)
        g = float(c.get("multimodal_fallback_gib", 0.0))
        return g * GIB, f"multimodal encoder profiling {g:.2f} GiB (fitted: item size unknown)"
    limit = min((_limit_count(v) for v in lim.values()), default=999) if lim else 999
    budget = max(int(inp.max_num_batched_tokens), tok)
    per_prompt = max(1, min(limit, int(inp.max_model_len) // tok))
    reqs = int(inp.max_num_seqs)
    if not inp.enable_chunked_prefill:
        reqs = min(reqs, int(inp.max_num_batched_tokens) // tok)
    items = max(1, min(budget // tok, reqs * per_prompt))
    extra = items * (elems * 4 + tok * a.hidden_size * b)
    return extra, f"multimodal encoder profiling {items} items × {tok} tokens {extra / GIB:.2f} GiB"


def _graph_sizes(inp: MemoryInputs) -> list[int]:
    if inp.enforce_eager:
        return []
    if inp.cudagraph_capture_sizes is not None:
        return list(inp.cudagraph_capture_sizes)
    from vlint.resolve.defaults import cudagraph_sizes

    sizes, _ = cudagraph_sizes(
        inp.version,
        engine=inp.engine,
        max_num_seqs=inp.max_num_seqs,
        max_num_batched_tokens=inp.max_num_batched_tokens,
        gpu=inp.gpu,
        num_speculative_tokens=inp.num_speculative_tokens,
        architectures=inp.arch.architectures,
    )
    return sizes


#: cudagraph_mode vLLM defaults to on V1 with compilation: PIECEWISE through 0.10 ([0.10.2]
#: vllm/config/__init__.py:3386-3394), FULL_AND_PIECEWISE from 0.11.0 ([0.11.0] vllm/config/__init__.py:361-374)
FULL_AND_PIECEWISE_SINCE = "0.11.0"


def cudagraph_mode(inp: MemoryInputs) -> str:
    """The cudagraph_mode of a V1 launch: the resolved one, else the release default; pooling and
    encoder-decoder models, and decode context parallelism from 0.11.2, fall back to PIECEWISE
    ([0.11.0] vllm/config/__init__.py:368-374; [0.11.2] vllm/config/vllm.py:472-499)."""
    mode = (inp.cudagraph_mode or "").upper()
    if mode in ("", "AUTO", "V0"):
        mode = "FULL_AND_PIECEWISE" if inp.version >= V(FULL_AND_PIECEWISE_SINCE) else "PIECEWISE"
    if "FULL" in mode and (
        inp.runner == "pooling"
        or inp.arch.is_encoder_decoder
        or (inp.decode_context_parallel_size > 1 and inp.version >= V("0.11.2"))
    ):
        mode = "PIECEWISE"
    return mode


def graph_counts(inp: MemoryInputs) -> tuple[int, int]:
    """CUDA graphs a rank captures, as (mixed routine, separate FULL decode routine): one mixed (piecewise,
    or full with FULL) graph per capture size, and with a separate FULL decode routine (FULL_AND_PIECEWISE,
    FULL_DECODE_ONLY) one per capture size between q and q × max_num_seqs, q = 1 + speculative tokens
    ([0.19.0] vllm/v1/cudagraph_dispatcher.py:187-228 initialize_cudagraph_keys). V0: one per size."""
    sizes = _graph_sizes(inp)
    if not sizes or inp.engine == "V0":
        return len(sizes), 0
    mode = cudagraph_mode(inp)
    if mode == "NONE":
        return 0, 0
    q = 1 + max(0, int(inp.num_speculative_tokens))
    ordered = sorted(sizes)  # (already ascending: a pass in C) the sizes in [q, q × max_num_seqs]
    decode = bisect_right(ordered, q * int(inp.max_num_seqs)) - bisect_left(ordered, q)
    if mode == "FULL_DECODE_ONLY":
        return 0, decode
    return len(sizes), (decode if mode == "FULL_AND_PIECEWISE" else 0)


def graph_features(inp: MemoryInputs, layers: int) -> tuple[float, float, float, float] | None:
    """The CUDA-graph term's features, in units of the 51-size reference capture: vLLM's estimate is the
    largest first capture plus a per-graph cost for every further graph of each routine ([0.19.0]
    vllm/v1/worker/gpu_model_runner.py:5899-5955 profile_cudagraph_memory), a graph's cost growing with
    the layers it records: (graphs, layers × mixed graphs, layers × FULL decode graphs, MoE × graphs).
    None without graphs."""
    mixed, full = graph_counts(inp)
    if not mixed + full:
        return None
    ref = 51.0
    moe = 1.0 if inp.arch.is_moe else 0.0
    tot = (mixed + full) / ref
    return tot, layers * mixed / ref, layers * full / ref, moe * tot


def _cuda_graph(inp: MemoryInputs, layers: int, *, actual: bool = False) -> float:
    """CUDA-graph memory of one rank: vLLM's estimate (what 0.20+ subtracts from the budget), or with
    ``actual`` what the capture really takes: the estimate × the median logged actual/estimate ratio
    (v0.19+ logs both, "CUDA graph pool memory: X (actual), Y (estimated)")."""
    f = graph_features(inp, layers)
    if f is None:
        return 0.0
    c = constants("cuda_graph", inp.version, inp.engine)
    if inp.engine == "V0":
        return c["per_layer_gib"] * layers * len(_graph_sizes(inp)) / float(c.get("reference_sizes", 35)) * GIB

    per = c["per_layer_gib"]
    vals = (c["base_gib"], per, c.get("per_layer_full_gib", per), c["moe_extra_gib"])
    est = sum(v * x for v, x in zip(vals, f, strict=True))
    return est * GIB * (float(c.get("actual_over_estimate", 1.0)) if actual else 1.0)


def _in_flight_tokens(inp: MemoryInputs, sw: Mapping[str, Any]) -> int:
    if not sw.get("sliding_window_inflight"):
        return inp.max_num_batched_tokens
    pp = inp.pipeline_parallel_size
    batches = (pp + 1 if inp.version >= V("0.33.0") else 2 if pp <= 1 else pp) if inp.async_scheduling else pp
    return max(1, batches) * inp.max_num_batched_tokens


def estimate_memory(inp: MemoryInputs) -> MemoryEstimate:
    """Predict what vLLM prints and decides at startup for one deployment (per GPU rank)."""
    a, gpu, ver = inp.arch, inp.gpu, inp.version
    sw = switches(ver)
    engine = inp.engine
    tp, pp = max(1, inp.tensor_parallel_size), max(1, inp.pipeline_parallel_size)
    total = gpu.total_gib * GIB
    gmu = float(inp.gpu_memory_utilization)
    budget = total * gmu
    assumptions: list[str] = []
    notes: list[str] = []
    risks: list[str] = []
    sd = _serving_dtype(inp)
    model_b = dtype_bytes(sd)
    kv_b = kv_elem_bytes(inp.kv_cache_dtype, model_b)
    if inp.kv_cache_dtype in (None, "auto") and checkpoint_kv_cache_dtype(a, ver):
        kv_b = 1.0
        notes.append(f"checkpoint kv_cache_quant_algo={a.kv_cache_quant_algo}: fp8 KV cache")
    if a.kv_not_counted:
        risks.append(f"{a.name}: {a.kv_not_counted} (estimate)")
    backend = all2all_backend(inp)
    if a.is_moe and inp.expert_parallel and backend not in GATHERING_ALL2ALL:
        risks.append(
            f"all-to-all backend {backend}: its communication buffers are allocated outside the model and not "
            "counted (DeepEP high-throughput: VLLM_DEEPEP_BUFFER_SIZE_MB, 1024 MiB per rank by default, as much "
            "again across nodes, [0.33.0] vllm/distributed/device_communicators/all2all.py:261-275)"
        )
    if a.index_head_dim:
        idx_layers = sum(
            1 for i in range(a.num_layers) if a.has_indexer(i, skipped_layers_drop_it=ver >= V(INDEXER_SKIP_SINCE))
        )
        assumptions.append(
            f"sparse attention: an indexer key cache of {indexer_key_bytes(a):g} B per token on {idx_layers} of "
            f"{a.num_layers} layers, in the latent cache's KV group"
        )
        layout = sparse_mla_cache_dtype(inp)
        if layout is None:
            assumptions.append(
                "fp8 latent cache sized at 1 B per element (576 B per token per layer): on this GPU vlint does "
                "not know whether vLLM's sparse attention backend stores DeepSeek's fp8_ds_mla layout instead "
                "(656 B); --kv-cache-dtype fp8_ds_mla sizes that one"
            )
        elif layout == "fp8_ds_mla" and str(inp.kv_cache_dtype or "auto").lower() != "fp8_ds_mla":
            assumptions.append(
                f"latent cache in DeepSeek's fp8_ds_mla layout (656 B per token per layer), which vLLM "
                f"{ver} picks for --kv-cache-dtype {inp.kv_cache_dtype or 'auto'} here"
            )

    parts = pp_partition(a.num_layers, pp)
    west = loaded_weights(
        a,
        serving_dtype=sd,
        version=ver,
        gpu=gpu,
        tp=tp,
        parts=parts,
        quantization=inp.quantization,
        cpu_offload_gb=inp.cpu_offload_gb,
        vision_loaded=vision_tower_loaded(inp),
        moe=moe_split(inp),
        vision_replicated=encoder_data_parallel(inp),
        pooling=inp.runner == "pooling",
    )
    weights = west.per_stage
    assumptions.extend(west.notes)
    lora, lnotes = lora_bytes(inp, parts)
    weights = [w + x for w, x in zip(weights, lora, strict=True)]
    assumptions.extend(lnotes)
    draft = draft_estimate(inp)
    draft_arch = None
    if draft is not None:
        weights[-1] += draft.weights_bytes
        assumptions.extend(draft.notes)
        draft_arch = draft_kv_arch(draft)
    nt, ntn = _non_torch(inp)
    assumptions.append(ntn)
    est_graphs = inp.estimate_cudagraphs
    env_flag = str(inp.env.get("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS", "")).strip().lower()
    if est_graphs is None and env_flag:
        est_graphs = env_flag in ("1", "true", "yes", "on")
    if est_graphs is None:
        est_graphs = engine == "V1" and ver >= V("0.20.0")
    if engine == "V0":
        est_graphs = False
    hybrid_mgr = bool(sw.get("hybrid_kv_manager")) and engine == "V1" and not inp.disable_hybrid_kv_cache_manager
    legacy_v1 = engine == "V1" and not sw.get("snapshot_profiler")
    if legacy_v1:
        assumptions.append("V1 before the snapshot profiler: non-torch includes the CUDA context (estimate)")

    stages: list[StageEstimate] = []
    layouts: list[KVLayout] = []
    other_act: float | None = None
    if context_parallel(inp) > 1:
        assumptions.append(
            f"context parallel (decode {inp.decode_context_parallel_size} × prefill "
            f"{inp.prefill_context_parallel_size}): each rank keeps every {context_parallel(inp)}th token of a "
            "request's full-attention KV"
            + (
                " (prefill context parallelism no longer shards it from 0.26.0)"
                if inp.version >= V(PCP_SHARDS_KV_UNTIL) and inp.prefill_context_parallel_size > 1
                else ""
            )
        )
    start = 0
    for i, n in enumerate(parts):
        specs = stage_specs(inp, (start, start + n), kv_b, model_b, hybrid_mgr, draft_arch if i == pp - 1 else None)
        start += n
        lay = build_layout(
            specs, hybrid_block_size(inp, specs), hybrid_manager=hybrid_mgr, context_parallel=context_parallel(inp)
        )
        layouts.append(lay)
        terms, anotes = _activation(inp, i, pp, n)
        act = terms.total
        if engine == "V0" and tp > 1 and i == pp - 1:
            other_act = _activation(inp, i, pp, n, driver=False)[0].total
        if i == 0:
            assumptions.extend(anotes)
        graphs = _cuda_graph(inp, n)
        nt_s = nt * GIB
        if inp.kv_cache_memory_bytes:
            avail = float(inp.kv_cache_memory_bytes)
        else:
            avail = budget - weights[i] - nt_s - act - (graphs if est_graphs else 0.0)
        nb = int(avail // lay.bytes_per_block) if lay.bytes_per_block > 0 and avail > 0 else 0
        stages.append(
            StageEstimate(i, n, weights[i] / GIB, act / GIB, nt, graphs / GIB, avail / GIB, nb, lay.bytes_per_block)
        )
    if inp.kv_cache_memory_bytes:
        notes.append("kv_cache_memory_bytes set: KV size fixed, gpu_memory_utilization ignored for KV sizing")
    tight = min(range(len(stages)), key=lambda j: stages[j].num_blocks if layouts[j].bytes_per_block else 1 << 62)
    lay = layouts[tight]
    num_blocks = stages[tight].num_blocks
    if inp.num_gpu_blocks_override is not None:
        num_blocks = int(inp.num_gpu_blocks_override)
        notes.append(f"num_gpu_blocks_override={num_blocks} replaces the profiled block count")
    inflight = _in_flight_tokens(inp, sw)
    mml = int(inp.max_model_len)
    tokens = kv_tokens(lay, num_blocks, mml, inflight, group_aware=bool(sw.get("kv_tokens_group_aware")), engine=engine)
    conc = (tokens / mml if engine == "V0" else max_concurrency(lay, num_blocks, mml, inflight)) if mml else 0.0
    by_kind = layouts[0].per_token_by_kind()
    per_tok = layouts[0].per_token_bytes()
    if not layouts[0].uniform:
        assumptions.append(
            f"hybrid KV: {lay.num_groups} groups of {lay.group_size} layers, block {lay.block_size} tokens"
            + (f", {lay.padding_layers} padding layers" if lay.padding_layers else "")
            + (_state_note(inp) if a.has_state_layers and engine == "V1" else "")
        )
    if a.is_mla:
        notes.append("MLA latent cache is replicated on every TP rank (not divided by TP)")

    # ---- verdicts ---------------------------------------------------------------------
    pre = constants("pre_snapshot_gib", ver)
    ctx = pre["tp1"] + (pre["multi_gpu_extra"] if tp * pp > 1 else 0.0)
    # V0 reads its baseline free memory in init_device after the CUDA context and before NCCL ([0.5.5]
    # vllm/worker/worker.py:170-175; [0.6.5] :143-148): only the context is outside its budget, and in 0.6.4
    # not even that (memory_constants.json switches v0_context_in_budget)
    ctx_outside = (0.0 if sw.get("v0_context_in_budget") else pre["tp1"]) if engine == "V0" else ctx
    others = inp.other_gpu_usage_gib + sum(g * gpu.total_gib for g in inp.other_instances_gmu)
    free_start = gpu.total_gib - ctx - others
    max_gmu_free = max(0.0, free_start / gpu.total_gib)
    failure: str | None = None
    stage_fail: str | None = None
    est_len: int | None = None
    s0 = stages[tight]
    avail_min = s0.available_kv_gib * GIB
    needed = request_bytes(lay, mml, inflight) if lay.bytes_per_block else 0.0
    if engine == "V1" and sw.get("startup_free_memory_check") and free_start < gpu.total_gib * gmu:
        # as vLLM prints it: str(round(GiB, 2)), the device named from 0.14.0 (memory_constants.json switches)
        device = "cuda:0 " if sw.get("startup_check_names_device") else ""
        failure = (
            f"ValueError: Free memory on device {device}"
            f"({round(free_start, 2)}/{round(gpu.total_gib, 2)} GiB) on startup is "
            f"less than desired GPU memory utilization ({gmu}, {round(gpu.total_gib * gmu, 2)} GiB). Decrease GPU "
            "memory utilization or reduce GPU memory used by other processes."
        )
        stage_fail = "startup_free_memory"
    elif max(weights) / GIB > free_start:
        failure = (
            f"torch.OutOfMemoryError: CUDA out of memory while loading weights ({max(weights) / GIB:.2f} GiB "
            f"per GPU, {free_start:.2f} GiB free). Failed to load model "
            "- not enough GPU memory. Try lowering "
            "--gpu-memory-utilization to free memory for weights, "
            "increasing --tensor-parallel-size, or using "
            "--quantization."
        )
        stage_fail = "weights"
    elif engine == "V0":
        if num_blocks <= 0:
            failure = (
                "ValueError: No available memory for the cache blocks. "
                "Try increasing `gpu_memory_utilization` "
                "when initializing the engine."
            )
            stage_fail = "no_kv_memory"
        elif mml > tokens:
            failure = (
                f"ValueError: The model's max seq len ({mml}) is larger "
                "than the maximum number of tokens that "
                f"can be stored in KV cache ({tokens}). Try increasing "
                "`gpu_memory_utilization` or decreasing "
                "`max_model_len` when initializing the engine."
            )
            stage_fail = "kv_cache_check"
            est_len = tokens
    else:
        if avail_min <= 0 and not inp.num_gpu_blocks_override:
            failure = (
                "ValueError: No available memory for the cache blocks. "
                "Try increasing `gpu_memory_utilization` "
                "when initializing the engine. See https://docs.vllm.ai/en/latest/configuration/"
                "conserving_memory/ for more details."
            )
            stage_fail = "no_kv_memory"
        else:
            cap = avail_min if not inp.num_gpu_blocks_override else num_blocks * lay.bytes_per_block
            if sw.get("null_block_reserved"):
                cap -= lay.bytes_per_block
            if needed > cap and inp.auto_fit_max_model_len and ver >= V("0.19.0"):
                # _auto_fit_max_model_len ([0.19.1] vllm/v1/core/kv_cache_utils.py): shrink to what fits
                est_len = estimate_max_model_len(lay, cap, mml, inflight)
                if est_len <= 0:
                    failure = (
                        "ValueError: Cannot auto-fit max_model_len: not enough GPU memory available to serve "
                        "even a single token. Try increasing `gpu_memory_utilization`."
                    )
                    stage_fail = "kv_cache_check"
                else:
                    notes.append(f"Auto-fit max_model_len: reduced from {mml} to {est_len}")
                    mml = est_len
                    needed = request_bytes(lay, mml, inflight)
                    tokens = kv_tokens(
                        lay,
                        num_blocks,
                        mml,
                        inflight,
                        group_aware=bool(sw.get("kv_tokens_group_aware")),
                        engine=engine,
                    )
                    conc = max_concurrency(lay, num_blocks, mml, inflight)
            elif needed > cap:
                est_len = estimate_max_model_len(lay, cap, mml, inflight)
                est_msg = (
                    f"Based on the available memory, the estimated maximum model length is {est_len}. "
                    if est_len > 0
                    else ""
                )
                failure = (
                    f"ValueError: To serve at least one request with the models's max seq len ({mml}), "
                    f"({needed / GIB:.2f} GiB KV cache is needed, which is "
                    "larger than the available KV cache "
                    f"memory ({cap / GIB:.2f} GiB). {est_msg}Try increasing `gpu_memory_utilization` or "
                    "decreasing `max_model_len` when initializing the engine."
                )
                stage_fail = "kv_cache_check"
    # a pinned KV size: allocated as given after the profile run, never checked against free memory
    pinned = _pinned_kv(inp, stages, terms, free_start) if inp.kv_cache_memory_bytes and engine == "V1" else None
    if pinned is not None and failure is None:
        if pinned.verdict == "fails_at_allocation":
            failure = (
                "torch.OutOfMemoryError: CUDA out of memory allocating the KV cache: kv_cache_memory_bytes "
                f"reserves {pinned.pinned_gib:.2f} GiB and about {pinned.alloc_room_gib:.2f} GiB is free after the "
                "weights and non-torch memory (vLLM does not check kv_cache_memory_bytes against free memory). "
                "Lower --kv-cache-memory-bytes or drop it."
            )
            stage_fail = "kv_cache_allocation"
        elif pinned.verdict == "fails_at_capture":
            failure = (
                "torch.OutOfMemoryError: CUDA out of memory during CUDA graph capture: the KV cache pinned by "
                f"kv_cache_memory_bytes ({pinned.pinned_gib:.2f} GiB) leaves about "
                f"{pinned.alloc_room_gib - pinned.pinned_gib:.2f} GiB, and the graphs need "
                f"~{pinned.alloc_room_gib - pinned.capture_room_gib:.2f} GiB. Lower "
                "--kv-cache-memory-bytes or use --enforce-eager."
            )
            stage_fail = "cuda_graph_capture"
    # post-allocation risks
    outside = gpu.total_gib * (1 - gmu) * GIB - ctx_outside * GIB - others * GIB
    graphs_actual = _cuda_graph(inp, s0.layers, actual=True)
    head_after = outside - (0.0 if est_graphs else graphs_actual)
    if pinned is not None:
        # no budget: what the pinned KV cache and the graphs leave of the free memory (the sampler warms up
        # in it); the graph-capture check is the pinned one above
        p_last = stages[-1]
        room_last = free_start * GIB - weights[-1] - nt * GIB
        head_after = room_last - pinned.pinned_gib * GIB - _cuda_graph(inp, p_last.layers, actual=True)
        graphs_actual = 0.0
    # graphs are captured after the KV cache, outside the budget (V0; V1 until the estimate is
    # subtracted, 0.20.0): past the graphs' own uncertainty it is an OOM at capture, inside a risk
    # the profile's activation peak is inside the budget but handed back before the KV cache is allocated
    # (memory_profiling ends with gc.collect(); empty_cache(), [0.19.0] vllm/utils/mem_utils.py:265-267; V0
    # determine_num_available_blocks likewise, [0.5.5] vllm/worker/worker.py:247-248): the capture can use it
    # (as the sampler warm-up below does)
    capture_room = outside + (0.0 if pinned is not None else s0.activation_gib * GIB)
    capture_left = capture_room - graphs_actual
    late_close = False
    uc = constants("uncertainty", ver, engine)
    if not inp.enforce_eager and not est_graphs and graphs_actual > 0:
        g_band = 2 * float(uc.get("graphs_rel", 0.5)) * graphs_actual
        if failure is None and capture_left < -g_band:
            failure = (
                f"torch.OutOfMemoryError: CUDA out of memory during CUDA graph capture: {engine} captures graphs "
                f"(~{graphs_actual / GIB:.2f} GiB) after the KV cache, "
                "outside the gpu_memory_utilization budget, "
                f"and only {capture_room / GIB:.2f} GiB is free then ({outside / GIB:.2f} GiB outside the budget "
                "and the profile's activation, handed back). Lower gpu_memory_utilization or use --enforce-eager."
            )
            stage_fail = "cuda_graph_capture"
        elif capture_left < g_band + 0.25 * GIB:
            late_close = failure is None and capture_left < g_band
            risks.append(
                f"{engine} CUDA graphs (~{graphs_actual / GIB:.2f} GiB) leave only {capture_left / GIB:.2f} GiB "
                "of the memory free after the KV cache (estimate)"
            )
    if failure is None and pinned is None and not est_graphs and graphs_actual > 0 and graphs_capture_nccl(inp):
        # captured after the KV cache, outside the budget, with NCCL memory the estimate leaves out: vlint
        # cannot say how much, so the capture is a risk whatever the margin (h207: 3.65 GiB logged estimate,
        # FULL decode capture OOM at TP 4 on RTX 3090s)
        risks.append(
            f"TP={inp.tensor_parallel_size} on {gpu.name} without NVLink: vLLM turns its custom all-reduce off "
            "(more than two PCIe-only GPUs) and every CUDA graph captures NCCL all-reduces, memory the graph "
            f"estimate (~{graphs_actual / GIB:.2f} GiB) leaves out; the graphs are captured after the KV cache, "
            f"outside the budget, with {capture_left / GIB:.2f} GiB left (estimate): CUDA graph capture may run "
            "out of memory (--enforce-eager, a lower --gpu-memory-utilization or fewer cudagraph_capture_sizes)"
        )
    # the sampler warm-up after the KV cache and the graphs (vlint.memory.warmup): a risk, never an error
    last = stages[-1]
    warm = sampler_warmup(  # with the last stage's activation terms, from the loop above
        inp,
        sampler_bytes=terms.sampler,
        path=terms.sampler_path,
        rows=terms.rows,
        room_bytes=(0.0 if pinned is not None else last.activation_gib * GIB) + head_after,
        activation_gib=0.0 if pinned is not None else last.activation_gib,
        graphs_outside_gib=0.0 if est_graphs else graphs_actual / GIB,
        extra_band_gib=pinned.uncertainty_gib if pinned is not None else 0.0,
    )
    if failure is None and warm is not None and last.num_blocks > 0 and warm.at_risk:
        late_close = True
        risks.append(warm.risk())
    if mamba_blocks_checked(inp) and a.has_state_layers and failure is None and 0 < num_blocks < inp.max_num_seqs:
        failure = (
            f"ValueError: max_num_seqs ({inp.max_num_seqs}) exceeds available Mamba cache blocks "
            f"({num_blocks}). Each decode sequence requires one Mamba cache block, so CUDA graph capture "
            f"cannot proceed. Please lower max_num_seqs to at most {num_blocks} or increase "
            "gpu_memory_utilization."
        )
        stage_fail = "mamba_blocks"
        risks.append(
            "the Mamba-block check runs while vLLM sets up full CUDA graphs, before capture: "
            "--enforce-eager skips it (vLLM then serves fewer concurrent sequences than max_num_seqs)"
        )

    # ---- how sure: the margin of the deciding check against the model's own uncertainty ----------
    z = kv_uncertainty_gib(inp, s0, est_graphs)
    per_tok_tight = lay.per_token_bytes() if lay.bytes_per_block else 0.0
    need_g = needed / GIB
    cap_final = _kv_cap(inp, sw, lay, avail_min, num_blocks)
    left_g = (cap_final if cap_final is not None else avail_min) / GIB
    z_m = z
    startup_check = True
    if stage_fail == "startup_free_memory":
        need_g, left_g, z_m = gpu.total_gib * gmu, free_start, 0.05
    elif stage_fail == "weights":
        need_g, left_g = max(weights) / GIB, free_start
        z_m = 2 * float(uc.get("weights_rel", 0.02)) * need_g
    elif stage_fail == "no_kv_memory":
        need_g, left_g = lay.bytes_per_block / GIB, avail_min / GIB
    elif stage_fail == "kv_cache_allocation" and pinned is not None:
        need_g, left_g, z_m = pinned.pinned_gib, pinned.alloc_room_gib, pinned.uncertainty_gib
    elif stage_fail == "cuda_graph_capture" and pinned is not None:
        startup_check = False
        need_g = pinned.pinned_gib + pinned.alloc_room_gib - pinned.capture_room_gib
        left_g, z_m = pinned.alloc_room_gib, pinned.uncertainty_gib
    elif stage_fail == "cuda_graph_capture":
        startup_check = False
        need_g, left_g = graphs_actual / GIB, capture_room / GIB
        z_m = 2 * float(uc.get("graphs_rel", 0.5)) * need_g
    elif stage_fail == "mamba_blocks":
        need_g, left_g = inp.max_num_seqs * lay.bytes_per_block / GIB, num_blocks * lay.bytes_per_block / GIB
    elif engine == "V0":
        need_g, left_g = mml * per_tok_tight / GIB, max(0, tokens) * per_tok_tight / GIB
    exact_kv = bool(inp.kv_cache_memory_bytes or inp.num_gpu_blocks_override)
    close = startup_check and abs(left_g - need_g) <= z_m and not exact_kv

    return MemoryEstimate(
        engine=engine,
        total_gib=gpu.total_gib,
        budget_gib=budget / GIB,
        weights_gib=stages[0].weights_gib,
        activation_gib=stages[0].activation_gib,
        non_torch_gib=nt,
        cuda_graph_gib=stages[0].cuda_graph_gib,
        cuda_graph_in_budget=est_graphs,
        kv_cache_gib=stages[0].available_kv_gib,
        kv_cache_gib_min=min(s.available_kv_gib for s in stages),
        kv_bytes_per_token=per_tok,
        kv_bytes_per_token_by_kind=by_kind,
        block_size=lay.block_size,
        num_blocks=num_blocks,
        num_kv_groups=lay.num_groups,
        kv_cache_tokens=max(0, tokens),
        max_concurrency=max(0.0, conc),
        request_kv_gib=needed / GIB,
        starts=failure is None,
        failure=failure,
        failure_stage=stage_fail,
        estimated_max_model_len=est_len,
        free_at_start_gib=free_start,
        headroom_outside_budget_gib=head_after / GIB,
        stages=stages,
        assumptions=assumptions,
        notes=notes,
        risks=risks,
        max_gmu_free=max_gmu_free,
        other_ranks_activation_gib=None if other_act is None else other_act / GIB,
        other_ranks_kv_cache_gib=None
        if other_act is None
        else stages[-1].available_kv_gib + (stages[-1].activation_gib - other_act / GIB),
        need_gib=need_g,
        left_gib=left_g,
        uncertainty_gib=z_m,
        too_close_to_call=close,
        late_close_call=late_close,
        pinned_kv=pinned,
    )


def _pinned_kv(
    inp: MemoryInputs, stages: list[StageEstimate], warm_terms: ActivationTerms, free_start_gib: float
) -> PinnedKV:
    """``--kv-cache-memory-bytes`` against the memory each rank has left for it (see :class:`PinnedKV`).

    vLLM runs the profile pass (compilation) and returns the pinned size without looking at free memory
    ([0.33.0] vllm/v1/worker/gpu_worker.py:656-682); the KV cache is then allocated, CUDA graphs are captured
    after it (the engine core allocates, then compiles and captures: [0.33.0] vllm/v1/engine/core.py:251-417),
    and every busy step needs the activation peak the profile pass measured. vLLM's own
    suggestion for the flag is ``free − (weights + non-torch) − activation peak − CUDA graphs − 150 MiB``
    ([0.33.0] vllm/v1/worker/gpu_worker.py:1012-1037). The band is the memory model's uncertainty of the
    terms subtracted (:func:`kv_uncertainty_gib`, graphs counted)."""
    pinned = float(inp.kv_cache_memory_bytes or 0) / GIB
    warm = sampler_warmup(
        inp,
        sampler_bytes=warm_terms.sampler,
        path=warm_terms.sampler_path,
        rows=warm_terms.rows,
        room_bytes=0.0,
        activation_gib=0.0,
        graphs_outside_gib=0.0,
    )
    # what the fit leaves the sampler warm-up: its need and its margin (vlint.memory.warmup)
    sampler = warm.need_gib + warm.margin_gib if warm is not None else 0.0
    cands: list[PinnedKV] = []
    for st in stages:
        graphs = _cuda_graph(inp, st.layers, actual=True) / GIB
        alloc = free_start_gib - st.weights_gib - st.non_torch_gib
        capture = alloc - graphs
        load = capture - st.activation_gib
        z = kv_uncertainty_gib(inp, replace(st, cuda_graph_gib=graphs), True)
        if pinned - alloc > z:
            verdict = "fails_at_allocation"
        elif graphs > 0 and pinned - capture > z:
            verdict = "fails_at_capture"
        elif pinned - load > z:
            verdict = "oom_under_load"
        elif pinned > load - z:
            verdict = "close"
        else:
            verdict = "fits"
        # the size to suggest clears the uncertainty and also leaves the sampler warm-up its room (after the
        # graphs, at startup, with that check's own band), so the fixed launch lints clean
        fit_room = min(load - z, capture - sampler - z) * GIB - PINNED_KV_BUFFER_BYTES
        fit = max(0, int(fit_room // (1 << 20)) * (1 << 20))
        cands.append(PinnedKV(pinned, alloc, capture, load, fit, z, verdict, st.stage))
    # the rank with the worst verdict, then the least room (every rank allocates the same pinned size)
    worst = max(cands, key=lambda c: (_PINNED_ORDER.index(c.verdict), -c.load_room_gib))
    return replace(worst, fit_bytes=min(c.fit_bytes for c in cands))


_PINNED_ORDER = ("fits", "close", "oom_under_load", "fails_at_capture", "fails_at_allocation")


def _kv_cap(inp: MemoryInputs, sw: Mapping[str, Any], lay: KVLayout, avail: float, num_blocks: int) -> float | None:
    """KV memory the V1 feasibility check compares one request with (None for V0)."""
    if inp.engine != "V1":
        return None
    cap = avail if not inp.num_gpu_blocks_override else num_blocks * lay.bytes_per_block
    if sw.get("null_block_reserved"):
        cap -= lay.bytes_per_block
    return cap


def kv_uncertainty_gib(inp: MemoryInputs, stage: StageEstimate, graphs_in_budget: bool) -> float:
    """About 2σ of the available-KV estimate: the per-term leave-one-out errors measured on real
    logs (``uncertainty`` constants, written by ``bench/accuracy.py --write-uncertainty``) applied to
    this deployment's terms and added in quadrature."""
    uc = constants("uncertainty", inp.version, inp.engine)
    k = float(uc.get("k", 2.0)) * float(uc.get("scale", 1.0))
    a = inp.arch
    exact = bool(a.weight_bytes) and a.quant is None and not a.is_multimodal and not inp.quantization
    w_rel = float(uc.get("weights_exact_rel", 0.002) if exact else uc.get("weights_rel", 0.02))
    terms = [
        w_rel * stage.weights_gib,
        float(uc.get("activation_rel", 0.1)) * stage.activation_gib,
        float(uc.get("non_torch_abs_gib", 0.2)),
        float(uc.get("graphs_rel", 0.2)) * stage.cuda_graph_gib if graphs_in_budget else 0.0,
    ]
    return k * math.sqrt(sum(t * t for t in terms))


def max_model_len_that_fits(inp: MemoryInputs, *, upper: int | None = None) -> int:
    """Largest max_model_len whose one-request KV fits the predicted available memory
    (vLLM's binary search, also what ``--max-model-len auto`` picks)."""
    est = estimate_memory(replace(inp, max_model_len=upper or inp.max_model_len))
    a = inp.arch
    pp = max(1, inp.pipeline_parallel_size)
    parts = pp_partition(a.num_layers, pp)
    sw = switches(inp.version)
    hybrid = bool(sw.get("hybrid_kv_manager")) and inp.engine == "V1" and not inp.disable_hybrid_kv_cache_manager
    model_b = dtype_bytes(_serving_dtype(inp))
    best = upper or inp.max_model_len
    start = 0
    for i, n in enumerate(parts):
        draft = draft_estimate(inp) if i == len(parts) - 1 else None
        specs = stage_specs(
            inp,
            (start, start + n),
            kv_elem_bytes(inp.kv_cache_dtype, model_b),
            model_b,
            hybrid,
            draft_kv_arch(draft) if draft is not None else None,
        )
        start += n
        lay = build_layout(
            specs, hybrid_block_size(inp, specs), hybrid_manager=hybrid, context_parallel=context_parallel(inp)
        )
        avail = est.stages[i].available_kv_gib * GIB
        if not lay.bytes_per_block:
            continue
        best = min(best, estimate_max_model_len(lay, avail, best, _in_flight_tokens(inp, sw)))
    return best


def inputs_from_resolved(
    arch: ModelArch, gpu: GpuSpec, version: Version, resolved: Mapping[str, Any], **extra: Any
) -> MemoryInputs:
    """MemoryInputs from ``resolve_defaults`` output (values or ResolvedValue objects)."""

    def val(k: str, d: Any = None) -> Any:
        v = resolved.get(k, d)
        return getattr(v, "value", v) if v is not None else d

    env = val("env", {}) or {}
    sizes = val("cudagraph_capture_sizes")
    spec = val("speculative_config")
    raw = spec.get("num_speculative_tokens") if isinstance(spec, Mapping) else None
    # a value that is not a number is VL111's finding, not the memory model's crash ("2" is 2, as pydantic has it)
    try:
        nspec = max(0, int(raw.strip() if isinstance(raw, str) else raw)) if raw is not None and raw is not True else 0
    except (TypeError, ValueError):
        nspec = 0
    kw: dict[str, Any] = dict(
        arch=arch,
        gpu=gpu,
        version=version,
        engine=val("engine", "V1"),
        max_model_len=int(val("max_model_len") or 2048),
        tensor_parallel_size=int(val("tensor_parallel_size", 1) or 1),
        pipeline_parallel_size=int(val("pipeline_parallel_size", 1) or 1),
        data_parallel_size=int(val("data_parallel_size", 1) or 1),
        prefill_context_parallel_size=int(val("prefill_context_parallel_size", 1) or 1),
        decode_context_parallel_size=int(val("decode_context_parallel_size", 1) or 1),
        expert_parallel=bool(val("enable_expert_parallel", False)),
        all2all_backend=val("all2all_backend"),
        gpu_memory_utilization=float(val("gpu_memory_utilization", 0.9)),
        max_num_seqs=int(val("max_num_seqs", 256)),
        max_num_batched_tokens=int(val("max_num_batched_tokens", 2048)),
        enable_chunked_prefill=bool(val("enable_chunked_prefill", True)),
        enable_prefix_caching=bool(val("enable_prefix_caching", True)),
        mamba_cache_mode=val("mamba_cache_mode"),
        mamba_block_size=int(val("mamba_block_size") or 0) or None,
        kv_cache_dtype=str(val("kv_cache_dtype", "auto") or "auto"),
        block_size=int(val("block_size", 16) or 16),
        enforce_eager=bool(val("enforce_eager", False)),
        dtype=val("dtype"),
        quantization=val("quantization"),
        cpu_offload_gb=float(val("cpu_offload_gb", 0) or 0),
        kv_cache_memory_bytes=val("kv_cache_memory_bytes"),
        num_gpu_blocks_override=val("num_gpu_blocks_override"),
        cudagraph_capture_sizes=tuple(sizes) if isinstance(sizes, (list, tuple)) else None,
        cudagraph_mode=val("cudagraph_mode"),
        estimate_cudagraphs=val("estimate_cudagraphs"),
        async_scheduling=bool(val("async_scheduling", True)),
        disable_hybrid_kv_cache_manager=bool(val("disable_hybrid_kv_cache_manager", False)),
        num_speculative_tokens=nspec,
        auto_fit_max_model_len=str(getattr(resolved.get("max_model_len"), "why", "")).find("-1/auto") >= 0,
        env=dict(env),
    )
    kw.update(extra)
    if kw.get("spec_method") is None and nspec and isinstance(spec, Mapping):
        kw["spec_method"] = spec.get("method")
    return MemoryInputs(**kw)


__all__ = [
    "MLA",
    "MemoryEstimate",
    "MemoryInputs",
    "StageEstimate",
    "context_parallel",
    "estimate_memory",
    "inputs_from_resolved",
    "max_model_len_that_fits",
]
