"""Weights vLLM holds on one GPU rank after loading ("Model loading took X GiB").

From the checkpoint layout (:func:`vlint.resolve.weight_sizes.checkpoint_layout`): unquantized
parts converted to the serving dtype, online quantization of an unquantized checkpoint
(``--quantization fp8`` / ``bitsandbytes``), kernel padding of MXFP4 experts per backend and GPU,
the vision tower (skipped when every modality is limited to 0), the rotary cos/sin cache, and
the split over tensor- and pipeline-parallel ranks.
"""

from __future__ import annotations

from vlint.core.memo import BoundedMemo
from vlint.core.record import field, record
from vlint.core.typing_names import TYPE_CHECKING
from vlint.core.version import V, Version
from vlint.resolve.model_arch import ModelArch, dtype_bytes
from vlint.resolve.quant_scheme import FP8, NF4, QuantScheme
from vlint.resolve.weight_sizes import checkpoint_layout, layer_linears

if TYPE_CHECKING:
    from vlint.hardware.gpus import GpuSpec
    from vlint.memory.inputs import MemoryInputs

GIB = float(2**30)

#: --quantization methods that quantize an unquantized checkpoint while loading
ONLINE_FP8 = ("fp8", "fbgemm_fp8", "ptpc_fp8")
ONLINE_BNB = ("bitsandbytes",)


@record(frozen=True)
class MoeSplit:
    """How a FusedMoE layer splits the routed experts over the ranks.

    vLLM flattens tensor parallelism across the data-parallel (and prefill-context-parallel) group
    for the MoE layers: the experts are split over ``tp × dp × pcp`` ranks, by slicing every expert
    (``tp_size = dp × pcp × tp``) or, with ``--enable-expert-parallel``, by giving each rank whole
    experts (``ep_size = dp × pcp × tp``, ``tp_size = 1``); attention and dense layers stay split over
    ``tp`` only ([0.8.3] vllm/model_executor/layers/fused_moe/layer.py:439-467;
    [0.33.0] vllm/model_executor/layers/fused_moe/config.py:1106-1245)."""

    tp: int = 1  # the MoE layers' tensor-parallel size (1 with expert parallelism)
    ep: int = 1  # the expert-parallel size (1 without expert parallelism)
    redundant: int = 0  # EPLB's redundant experts (copies of hot experts, spread over the EP ranks)

    @staticmethod
    def of(tp: int, dp: int = 1, pcp: int = 1, expert_parallel: bool = False, redundant: int = 0) -> MoeSplit:
        ranks = max(1, tp) * max(1, dp) * max(1, pcp)
        if expert_parallel and ranks > 1:
            return MoeSplit(tp=1, ep=ranks, redundant=max(0, redundant))
        return MoeSplit(tp=ranks, ep=1)

    def local_experts(self, num_experts: int) -> int:
        """Experts on the fullest rank: ``num_experts + num_redundant_experts`` whole experts over the
        EP ranks ([0.33.0] vllm/model_executor/layers/fused_moe/layer.py:78-89, 254-280)."""
        return -(-(num_experts + self.redundant) // max(1, self.ep))

    def expert_share(self, num_experts: int) -> float:
        """The routed-expert bytes on the fullest rank, as a fraction of the checkpoint's."""
        if self.ep > 1 and num_experts > 0:
            return self.local_experts(num_experts) / float(num_experts)
        return 1.0 / max(1, self.tp)

    def note(self, num_experts: int) -> str:
        if self.ep > 1:
            spare = f" + {self.redundant} redundant for EPLB" if self.redundant else ""
            return (
                f"expert parallel: {self.local_experts(num_experts)} routed experts per rank "
                f"({num_experts}{spare} over EP size {self.ep})"
            )
        return f"routed experts sliced over {self.tp} ranks (MoE layers flatten TP across data parallelism)"


def moe_split(inp: MemoryInputs) -> MoeSplit:
    """How the launch's MoE layers split the routed experts over its ranks."""
    return MoeSplit.of(
        inp.tensor_parallel_size,
        inp.data_parallel_size,
        inp.prefill_context_parallel_size,
        inp.expert_parallel,
        inp.redundant_experts,
    )


@record
class WeightEstimate:
    per_stage: list[float]  # bytes on one TP rank of each PP stage
    total_checkpoint: float
    notes: list[str] = field(default_factory=list)
    vision_loaded: bool = True


def _online_scheme(method: str | None) -> QuantScheme | None:
    m = (method or "").lower()
    if m in ONLINE_FP8:
        # Fp8LinearMethod with is_checkpoint_fp8_serialized=False: weights quantized per tensor after
        # loading, fp32 weight_scale ([0.19.0] vllm/model_executor/layers/quantization/fp8.py
        # process_weights_after_loading)
        return QuantScheme(method=m, fmt=FP8, bits=8, scale_granularity="tensor", scale_bytes=4)
    if m in ONLINE_BNB:
        # in-flight bitsandbytes 4-bit (BitsAndBytesModelLoader): quantize_4bit(..., compress_statistics=True,
        # quant_type="nf4"), i.e. double-quantized absmax ([0.6.6.post1]
        # vllm/model_executor/model_loader/loader.py:965-969; [0.19.0] bitsandbytes_loader.py:434-438)
        return QuantScheme(method=m, fmt=NF4, bits=4, group_size=64, double_quant=True)
    return None


def mxfp4_padding(arch: ModelArch, gpu: GpuSpec | None, version: Version, tp: int) -> tuple[int, int, str]:
    """(hidden, intermediate per rank) the MXFP4 MoE backend pads expert weights to, and the backend.

    Backend choice ([0.19.0] vllm/model_executor/layers/fused_moe/oracle/mxfp4.py:169-372; [0.11.0]
    vllm/model_executor/layers/quantization/mxfp4.py:59-107): Blackwell (10.x) FlashInfer TRTLLM, Hopper
    Triton kernels when they are importable (vendored from 0.12.0, [0.12.0] vllm/third_party/
    triton_kernels), else Marlin. Padding (oracle/mxfp4.py:376-400): Marlin hidden→256,
    intermediate→128; TRTLLM both →256; Triton intermediate→64 (its Hopper swizzle pads further
    inside triton_kernels: taken as Marlin's, within 0.5 % of the v0.19 H100 log r100)."""
    h = arch.hidden_size
    inter = -(-int(arch.moe_intermediate_size or arch.intermediate_size) // max(1, tp))
    cc = gpu.cc_major_minor if gpu is not None else None
    major = cc[0] if cc else 9

    def up(x: int, m: int) -> int:
        return -(-x // m) * m

    if major >= 10:
        return up(h, 256), up(inter, 256), "FlashInfer TRTLLM"
    if major == 9 and version >= V("0.12.0"):
        return up(h, 256), up(inter, 128), "Triton (triton_kernels swizzle)"
    return up(h, 256), up(inter, 128), "Marlin"


def rotary_cache_bytes(arch: ModelArch, serving_bytes: float) -> float:
    """cos/sin cache built with the model: max_position_embeddings × rotary_dim in the model dtype
    (RotaryEmbedding._compute_cos_sin_cache); Gemma-3 keeps a second one for its local layers."""
    if not (arch.max_position_embeddings and arch.rotary_dim):
        return 0.0
    b = float(arch.max_position_embeddings) * arch.rotary_dim * serving_bytes
    if "gemma3" in (arch.text_model_type or arch.model_type or ""):
        b *= 2
    return b


#: loaded_weights' answers by their arguments: one launch is sized on ~11 reference GPUs, and only
#: MXFP4 MoE checkpoints depend on the GPU (their padding)
_WEIGHTS: BoundedMemo[WeightEstimate] = BoundedMemo()


def loaded_weights(
    arch: ModelArch,
    *,
    serving_dtype: str,
    version: Version,
    gpu: GpuSpec | None,
    tp: int,
    parts: list[int],
    quantization: str | None = None,
    cpu_offload_gb: float = 0.0,
    vision_loaded: bool = True,
    moe: MoeSplit | None = None,
    vision_replicated: bool = False,
    pooling: bool = False,
) -> WeightEstimate:
    """Bytes of weights on one TP rank of each pipeline stage (``parts`` = layers per stage).

    ``moe`` says how the routed experts are split when that differs from ``tp`` (data parallelism
    shards them over every rank of the DP group, see :class:`MoeSplit`). ``vision_replicated``: the
    multimodal encoder is whole on every TP rank (``--mm-encoder-tp-mode data``). ``pooling``: the
    pooling runner's model class deletes ``lm_head`` after building the model and skips its weights
    ([0.13.0] vllm/model_executor/models/adapters.py:159-208 ``_create_pooling_model_cls``). Pure: the answer
    for the same arguments is computed once (a fresh copy each time)."""
    on_gpu = gpu if _pads_on_gpu(arch) else None
    key = (arch, serving_dtype, version, on_gpu, tp, tuple(parts), quantization, cpu_offload_gb)
    key += (vision_loaded, moe, vision_replicated, pooling)
    hit = _WEIGHTS.get(
        key,
        lambda: _loaded_weights(
            arch,
            serving_dtype,
            version,
            gpu,
            tp,
            parts,
            quantization,
            cpu_offload_gb,
            vision_loaded,
            moe,
            vision_replicated,
            pooling,
        ),
    )
    return WeightEstimate(list(hit.per_stage), hit.total_checkpoint, list(hit.notes), hit.vision_loaded)


def _pads_on_gpu(arch: ModelArch) -> bool:
    """Whether the weights depend on the GPU: MXFP4 MoE experts, padded per backend."""
    return arch.quant is not None and arch.quant.method == "mxfp4" and arch.is_moe


def _loaded_weights(
    arch: ModelArch,
    serving_dtype: str,
    version: Version,
    gpu: GpuSpec | None,
    tp: int,
    parts: list[int],
    quantization: str | None,
    cpu_offload_gb: float,
    vision_loaded: bool,
    moe: MoeSplit | None,
    vision_replicated: bool,
    pooling: bool = False,
) -> WeightEstimate:
    notes: list[str] = []
    moe = moe if moe is not None and arch.is_moe else MoeSplit(tp=tp)
    lay = checkpoint_layout(arch)
    sb = dtype_bytes(serving_dtype)
    ck = dtype_bytes(arch.dtype)
    conv = sb / ck if ck else 1.0
    if lay.scaled_to:
        src = arch.weight_bytes_source or "given"
        notes.append(f"weights from exact checkpoint size {arch.weight_bytes} B ({src})")
    elif arch.quant is not None:
        notes.append(
            f"weights laid out from quantization_config ({arch.quant.source or arch.quant.method}; "
            f"{arch.quant.bytes_per_weight:.3f} B per quantized weight) (estimate)"
        )
    else:
        notes.append(
            "weights estimated from the parameter count"
            + (" (rounded model-card figure)" if not arch.params_estimated and arch.params else "")
            + " × storage bytes (estimate)"
        )
    if abs(conv - 1) > 1e-9:
        notes.append(f"checkpoint {arch.dtype} served as {serving_dtype}: unquantized weights scaled by {conv:g}")
    online = _online_scheme(quantization) if arch.quant is None else None
    scale = lay.total / weight_total_unscaled(arch) if lay.scaled_to else 1.0
    layers = []
    experts: list[float] = []  # of each layer's loaded bytes: the routed experts
    n_layers = len(lay.layers)
    lay_e = lay.layers_expert or [0.0] * n_layers
    lay_eq = lay.layers_expert_quantized or [0.0] * n_layers
    for i, (tot, q) in enumerate(zip(lay.layers, lay.layers_quantized, strict=True)):
        unq = tot - q
        eq, eu = lay_eq[i], lay_e[i] - lay_eq[i]
        if online is not None:
            mods = layer_linears(arch, i)
            unq = max(0.0, unq - sum(m.out_f * m.in_f * m.count for m in mods) * ck * scale)
            q = sum(online.linear_bytes(m.out_f, m.in_f) * m.count for m in mods)
            eq = sum(online.linear_bytes(m.out_f, m.in_f) * m.count for m in mods if m.expert)
            eu = 0.0
        layers.append(q + unq * conv)
        experts.append(eq + eu * conv)
    if online is not None:
        how = online.source or online.fmt
        notes.append(f"--quantization {quantization}: linear layers quantized while loading ({how})")
    # MXFP4 experts: the MoE kernels pad the expert matrices
    if _pads_on_gpu(arch):
        ph, pi, backend = mxfp4_padding(arch, gpu, version, moe.tp)
        h = arch.hidden_size
        inter = -(-int(arch.moe_intermediate_size or arch.intermediate_size) // max(1, moe.tp))
        f = (ph * pi) / float(h * inter)
        if f > 1.0:
            for i in range(len(layers)):
                expert_q = lay.layers_quantized[i]
                layers[i] += expert_q * (f - 1)
                experts[i] += expert_q * (f - 1)
            notes.append(f"mxfp4 experts padded to {ph}×{pi} per rank for the {backend} backend (×{f:.3f})")
    embed = lay.embed * conv
    lm = lay.lm_head if (arch.quant is not None and arch.quant.quantizes("lm_head")) else lay.lm_head * conv
    vision = lay.vision * conv if vision_loaded else 0.0
    other = lay.other * (conv if arch.quant is None else 1.0)
    if not vision_loaded and lay.vision:
        notes.append("vision tower not loaded (every modality limited to 0 per prompt)")
    elif vision_replicated and vision and tp > 1:
        notes.append(
            f"--mm-encoder-tp-mode data: the {vision / GIB:.2f} GiB encoder is whole on each of the {tp} TP ranks"
        )
    pp = len(parts)
    rope = rotary_cache_bytes(arch, sb)
    out: list[float] = []
    start = 0
    per_layer_other = other / max(1, arch.num_layers)
    share = moe.expert_share(arch.num_experts)
    if (share * max(1, tp) != 1.0 or moe.redundant) and any(experts):
        notes.append(moe.note(arch.num_experts))
    offload = max(0.0, cpu_offload_gb) * GIB
    offloaded: list[float] = []
    for s, n in enumerate(parts):
        routed = sum(experts[start : start + n])
        w = sum(layers[start : start + n]) - routed + per_layer_other * n
        # --cpu-offload-gb moves parameters of the decoder layers only (make_layers wraps each layer with
        # the offloader), parameter by parameter until the per-GPU budget is used; embeddings, lm_head,
        # the final norm and buffers (rotary cache) stay on the GPU ([0.9.1]
        # vllm/model_executor/models/utils.py:534-603 maybe_offload_to_cpu, 606-625 make_layers; [0.25.1]
        # vllm/model_executor/offloader/uva.py:51-110, models/utils.py:701-716)
        offloaded.append(min(offload, w / max(1, tp) + routed * share))
        start += n
        whole = 0.0  # bytes every TP rank holds in full
        if s == 0:
            w += embed
            if vision_replicated:
                whole += vision
            else:
                w += vision
        if s == pp - 1 and not pooling:
            w += lm if lm else (embed if pp > 1 else 0.0)
        out.append(w / max(1, tp) + routed * share + whole + rope)
    if pooling and (lm or pp > 1):
        notes.append("pooling runner: lm_head deleted after the model is built, its weights not loaded")
    if rope > 0.01 * GIB:
        notes.append(f"rotary cos/sin cache {rope / GIB:.2f} GiB per rank (max_position_embeddings × rotary_dim)")
    if cpu_offload_gb:
        out = [max(0.0, w - off) for w, off in zip(out, offloaded, strict=True)]
        notes.append(
            f"--cpu-offload-gb {cpu_offload_gb:g}: {max(offloaded) / GIB:.2f} GiB of decoder-layer weights per rank "
            "in CPU memory (embeddings, lm_head and norms stay on the GPU)"
        )
    if lay.mtp:
        notes.append(f"{lay.mtp / GIB:.2f} GiB of stored MTP layers not loaded (only with MTP speculative decoding)")
    return WeightEstimate(out, lay.total, notes + lay.notes, vision_loaded)


def weight_total_unscaled(arch: ModelArch) -> float:
    from vlint.resolve.weight_sizes import weight_layout

    return weight_layout(arch).total


__all__ = ["MoeSplit", "WeightEstimate", "loaded_weights", "moe_split", "mxfp4_padding", "rotary_cache_bytes"]
