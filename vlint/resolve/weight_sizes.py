"""Checkpoint weight bytes of a model, layer by layer, quantized or not.

:func:`weight_layout` lays a :class:`~vlint.resolve.model_arch.ModelArch` out as the linear modules
its decoder layers hold (HF module names, so a quantization config's ignore lists match them),
plus embeddings, ``lm_head``, the vision tower and whatever the parameter count says is left, and
sizes each with the checkpoint's :class:`~vlint.resolve.quant_scheme.QuantScheme` (or the
checkpoint dtype). Where the exact checkpoint size is known (safetensors ``total_size``), the
layout is scaled to it so that the split between parts stays and the total is exact.
"""

from __future__ import annotations

from functools import lru_cache

from vlint.core.record import field, record
from vlint.resolve.model_arch import (
    ATTENTION_KINDS,
    CACHELESS_ATTENTION,
    LINEAR,
    MAMBA,
    ModelArch,
    dtype_bytes,
    gdn_params,
    mamba2_params,
    param_breakdown,
)
from vlint.resolve.quant_scheme import QuantScheme


@record(frozen=True)
class Linear:
    name: str  # module name in layer 0 form, e.g. "self_attn.q_proj" (prefixed with model.layers.{i}.)
    out_f: int
    in_f: int
    count: int = 1  # identical copies (experts)
    expert: bool = False


@record
class WeightLayout:
    """Checkpoint bytes by part (whole model, before any TP/PP split)."""

    layers: list[float]  # per decoder layer
    layers_quantized: list[float]  # of which stored quantized (not converted by --dtype)
    embed: float
    lm_head: float
    vision: float
    other: float  # params the layer model does not place (hybrid/state layers, extras), checkpoint dtype
    total: float
    params_layout: int
    scheme: QuantScheme | None
    mtp: float = 0.0  # stored multi-token-prediction layers (num_nextn_predict_layers): loaded only for MTP
    skipped: float = 0.0  # other stored tensors vLLM does not load (GPTQ's placeholder biases)
    scaled_to: float | None = None  # exact checkpoint bytes the layout was scaled to
    notes: list[str] = field(default_factory=list)
    layers_expert: list[float] = field(default_factory=list)  # of ``layers``: routed-expert linears
    layers_expert_quantized: list[float] = field(default_factory=list)  # of those: stored quantized

    @property
    def unquantized(self) -> float:
        """Bytes stored in the checkpoint dtype (converted when --dtype differs)."""
        return self.total - sum(self.layers_quantized)


def _family(arch: ModelArch) -> str:
    mt = (arch.text_model_type or arch.model_type or "").lower()
    if mt.startswith("mixtral"):
        return "mixtral"
    if mt.startswith("llama4"):
        return "llama4"
    if mt.startswith("gpt_oss"):
        return "gpt_oss"
    if mt.startswith("gemma4"):
        return "gemma4"
    if arch.block_pattern:
        return "nemotron_h"
    return "default"


def layer_prefix(arch: ModelArch) -> str:
    """Checkpoint name of the decoder-layer list (``backbone.layers`` for Nemotron-H, whose vLLM
    loader maps ``backbone`` → ``model``: [0.33.0] vllm/model_executor/models/nemotron_h.py:735)."""
    return "backbone.layers" if _family(arch) == "nemotron_h" else "model.layers"


def layer_extra_params(arch: ModelArch, layer: int) -> int:
    """Parameters of decoder layer ``layer`` outside its linear modules: the norms (one per layer in
    Nemotron-H, [0.33.0] nemotron_h.py:316/359/408/529; two elsewhere) and a Mamba2 mixer's conv1d,
    A, D, dt_bias and gated norm."""
    h = arch.hidden_size
    kind = arch.layer_types[layer] if layer < len(arch.layer_types) else ""
    if not arch.block_pattern:
        if kind == LINEAR and arch.gdn_dims:
            return 2 * h + gdn_params(arch.gdn_dims, h)[1]
        return 2 * h
    extra = h
    if kind == MAMBA and arch.mamba2_dims:
        extra += mamba2_params(arch.mamba2_dims, h)[2]
    return extra


def _gdn_linears(dims: tuple[int, int, int, int, int, bool], h: int) -> list[Linear]:
    """Gated DeltaNet projections as the checkpoint names them: Qwen3.5/3.6 store in_proj_qkv, in_proj_z,
    in_proj_b, in_proj_a; Qwen3-Next the fused in_proj_qkvz and in_proj_ba ([0.24.0] vllm/model_executor/
    layers/mamba/gdn/qwen_gdn_linear_attn.py:570-610, models/qwen3_5.py:283-293)."""
    nk, dk, nv, dv, _, fused = dims
    key_dim, value_dim = nk * dk, nv * dv
    if fused:
        proj = [
            Linear("linear_attn.in_proj_qkvz", 2 * key_dim + 2 * value_dim, h),
            Linear("linear_attn.in_proj_ba", 2 * nv, h),
        ]
    else:
        proj = [
            Linear("linear_attn.in_proj_qkv", 2 * key_dim + value_dim, h),
            Linear("linear_attn.in_proj_z", value_dim, h),
            Linear("linear_attn.in_proj_b", nv, h),
            Linear("linear_attn.in_proj_a", nv, h),
        ]
    return [*proj, Linear("linear_attn.out_proj", h, value_dim)]


def layer_linears(arch: ModelArch, layer: int) -> list[Linear]:
    """The linear modules of decoder layer ``layer`` (names relative to ``model.layers.{layer}.``)."""
    h = arch.hidden_size
    kind = arch.layer_types[layer] if layer < len(arch.layer_types) else "full_attention"
    if arch.block_pattern:
        return _nemotron_h_linears(arch, layer, kind)
    out: list[Linear] = []
    if kind == LINEAR and arch.gdn_dims:
        out += _gdn_linears(arch.gdn_dims, h)
    if kind in ATTENTION_KINDS or kind in CACHELESS_ATTENTION:
        heads = arch.num_attention_heads
        if arch.is_mla:
            r = int(arch.kv_lora_rank or 0)
            rope = int(arch.qk_rope_head_dim or 64)
            nope = int(arch.qk_nope_head_dim or 128)
            vd = int(arch.v_head_dim or 128)
            if arch.q_lora_rank:
                out.append(Linear("self_attn.q_a_proj", int(arch.q_lora_rank), h))
                out.append(Linear("self_attn.q_b_proj", heads * (nope + rope), int(arch.q_lora_rank)))
            else:
                out.append(Linear("self_attn.q_proj", heads * (nope + rope), h))
            out.append(Linear("self_attn.kv_a_proj_with_mqa", r + rope, h))
            out.append(Linear("self_attn.kv_b_proj", heads * (nope + vd), r))
            out.append(Linear("self_attn.o_proj", h, heads * vd))
        else:
            kvh = arch.kv_heads_for(kind)
            hd = arch.head_dim_for(kind)
            hdv = arch.head_dim_v or hd
            out.append(Linear("self_attn.q_proj", heads * hd, h))
            out.append(Linear("self_attn.k_proj", kvh * hd, h))
            out.append(Linear("self_attn.v_proj", kvh * hdv, h))
            out.append(Linear("self_attn.o_proj", h, heads * hdv))
    fam = _family(arch)
    moe_layer = arch.is_moe and _is_moe_layer(arch, layer)
    if moe_layer and fam == "gemma4":
        # Gemma-4 MoE layers keep their dense MLP and add a router and experts beside it: the checkpoint's
        # layers.N.mlp / router.proj / experts ([0.19.0] vllm/model_executor/models/gemma4.py:600-625)
        e, mi, inter = (
            arch.num_experts,
            int(arch.moe_intermediate_size or arch.intermediate_size),
            arch.intermediate_size,
        )
        out += [Linear("mlp.gate_proj", inter, h), Linear("mlp.up_proj", inter, h), Linear("mlp.down_proj", h, inter)]
        out.append(Linear("router.proj", e, h))
        out.append(Linear("experts.0.gate_proj", mi, h, count=e, expert=True))
        out.append(Linear("experts.0.up_proj", mi, h, count=e, expert=True))
        out.append(Linear("experts.0.down_proj", h, mi, count=e, expert=True))
    elif moe_layer:
        e, mi = arch.num_experts, int(arch.moe_intermediate_size or arch.intermediate_size)
        if fam == "mixtral":
            base, w = "block_sparse_moe", ("w1", "w3", "w2")
        elif fam == "llama4":
            base, w = "feed_forward", ("gate_proj", "up_proj", "down_proj")
        else:
            base, w = "mlp", ("gate_proj", "up_proj", "down_proj")
        router = f"{base}.router" if fam in ("gpt_oss", "llama4") else f"{base}.gate"
        out.append(Linear(router, e, h))
        out.append(Linear(f"{base}.experts.0.{w[0]}", mi, h, count=e, expert=True))
        out.append(Linear(f"{base}.experts.0.{w[1]}", mi, h, count=e, expert=True))
        out.append(Linear(f"{base}.experts.0.{w[2]}", h, mi, count=e, expert=True))
        if arch.num_shared_experts:
            si = int(arch.shared_expert_intermediate_size or mi * arch.num_shared_experts)
            single = fam == "llama4" or arch.shared_expert_intermediate_size
            sname = f"{base}.shared_expert" if single else f"{base}.shared_experts"
            out.append(Linear(f"{sname}.gate_proj", si, h))
            out.append(Linear(f"{sname}.up_proj", si, h))
            out.append(Linear(f"{sname}.down_proj", h, si))
    elif kind not in ("no_kv",) or arch.intermediate_size:
        inter = arch.intermediate_size
        if _family(arch) == "llama4" and arch.dense_intermediate_size:
            inter = arch.dense_intermediate_size
        base = "feed_forward" if fam == "llama4" else "mlp"
        if not arch.gated_mlp:
            out.append(Linear(f"{base}.fc1", inter, h))
            out.append(Linear(f"{base}.fc2", h, inter))
            return out
        out.append(Linear(f"{base}.gate_proj", inter, h))
        out.append(Linear(f"{base}.up_proj", inter, h))
        out.append(Linear(f"{base}.down_proj", h, inter))
    return out


def _nemotron_h_linears(arch: ModelArch, layer: int, kind: str) -> list[Linear]:
    """Nemotron-H: one block per layer ([0.33.0] vllm/model_executor/models/nemotron_h.py:548-553),
    checkpoint names ``mixer.*``: attention q/k/v/o (:460-474), Mamba2 in_proj/out_proj (:390-404),
    MLP up/down (:109-124, :307-313), MoE router ``gate`` (:159-165), experts with up/down only in the
    latent width when ``moe_latent_size`` is set (:228-237) plus fc1/fc2 latent projections (:198-213),
    and one shared-expert MLP (:178-193)."""
    h = arch.hidden_size
    block = arch.block_pattern[layer] if layer < len(arch.block_pattern) else "-"
    if block == "*" or kind in ATTENTION_KINDS:
        heads, kvh, hd = arch.num_attention_heads, arch.num_kv_heads, arch.head_dim
        return [
            Linear("mixer.q_proj", heads * hd, h),
            Linear("mixer.k_proj", kvh * hd, h),
            Linear("mixer.v_proj", kvh * hd, h),
            Linear("mixer.o_proj", h, heads * hd),
        ]
    if block == "M":
        if not arch.mamba2_dims:
            return []
        inner, heads, groups, d_state, _ = arch.mamba2_dims
        return [
            Linear("mixer.in_proj", 2 * inner + 2 * groups * d_state + heads, h),
            Linear("mixer.out_proj", h, inner),
        ]
    if block == "E" and arch.num_experts:
        e, mi = arch.num_experts, int(arch.moe_intermediate_size or arch.intermediate_size)
        width = int(arch.moe_latent_size or h)
        out = [
            Linear("mixer.gate", e, h),
            Linear("mixer.experts.0.up_proj", mi, width, count=e, expert=True),
            Linear("mixer.experts.0.down_proj", width, mi, count=e, expert=True),
        ]
        if arch.moe_latent_size:
            out.append(Linear("mixer.fc1_latent_proj", width, h))
            out.append(Linear("mixer.fc2_latent_proj", h, width))
        if arch.num_shared_experts:
            si = int(arch.shared_expert_intermediate_size or mi * arch.num_shared_experts)
            out.append(Linear("mixer.shared_experts.up_proj", si, h))
            out.append(Linear("mixer.shared_experts.down_proj", h, si))
        return out
    inter = arch.intermediate_size
    return [Linear("mixer.up_proj", inter, h), Linear("mixer.down_proj", h, inter)]


def _is_moe_layer(arch: ModelArch, layer: int) -> bool:
    if arch.moe_layer_indices:
        return layer in arch.moe_layer_indices
    # without the exact indices: the last num_moe_layers layers (DeepSeek first_k_dense_replace style)
    return layer >= arch.num_layers - arch.num_moe_layers


def layer_kind_key(arch: ModelArch, layer: int) -> tuple[str, bool] | None:
    """What :func:`layer_linears` and :func:`layer_extra_params` of ``layer`` depend on besides the
    model: its kind and whether it is a MoE layer; None for a block-pattern model (Nemotron-H), whose
    layers are each their own."""
    if arch.block_pattern:
        return None
    kinds = arch.layer_types
    return (kinds[layer] if layer < len(kinds) else "", arch.is_moe and _is_moe_layer(arch, layer))


def _layer_bytes(
    arch: ModelArch, i: int, scheme: QuantScheme | None, b: float, prefix: str
) -> tuple[float, float, float, float, float, int, int]:
    """Decoder layer ``i``: (bytes, of them quantized, of them experts, experts quantized, stored GPTQ
    placeholder biases, parameters, parameters stored quantized)."""
    tot = q = e = eq = skipped = 0.0
    params = quantized_params = 0
    for lin in layer_linears(arch, i):
        n = lin.out_f * lin.in_f * lin.count
        params += n
        name = f"{prefix}.{i}.{lin.name}"
        if scheme is not None and scheme.quantizes(name, expert=lin.expert):
            by = scheme.for_module(name).linear_bytes(lin.out_f, lin.in_f) * lin.count
            quantized_params += n
            q += by
            eq += by if lin.expert else 0.0
            if scheme.stored_bias:
                skipped += lin.out_f * lin.count * 2.0
        else:
            by = n * b
        tot += by
        e += by if lin.expert else 0.0
    norms = layer_extra_params(arch, i)
    return tot + norms * b, q, e, eq, skipped, params + norms, quantized_params


@lru_cache(maxsize=256)
def weight_layout(arch: ModelArch) -> WeightLayout:
    """Checkpoint bytes of ``arch`` by part, sized with its quantization scheme."""
    scheme = arch.quant
    # a layer's sizes depend on its index only through its kind and MoE-ness, unless the block pattern
    # or the quantization scheme names layers: then every layer is sized on its own
    return layout_of(arch, by_kind=not arch.block_pattern and (scheme is None or scheme.layer_independent))


def layout_of(arch: ModelArch, *, by_kind: bool) -> WeightLayout:
    """:func:`weight_layout`; with ``by_kind``, each kind of layer sized once."""
    scheme = arch.quant
    b = dtype_bytes(arch.dtype)
    h, v = arch.hidden_size, arch.vocab_size
    notes: list[str] = []
    layers: list[float] = []
    layers_q: list[float] = []
    layers_e: list[float] = []
    layers_eq: list[float] = []
    params = 0
    quantized_params = 0  # of the layer linears stored quantized
    skipped = 0.0
    prefix = layer_prefix(arch)
    sized: dict[tuple[str, bool], tuple[float, float, float, float, float, int, int]] = {}
    for i in range(arch.num_layers):
        key = layer_kind_key(arch, i)
        one = sized.get(key) if by_kind and key is not None else None
        if one is None:
            one = _layer_bytes(arch, i, scheme, b, prefix)
            if by_kind and key is not None:
                sized[key] = one
        tot, q, e, eq, skip, n_params, n_quantized = one
        params += n_params
        quantized_params += n_quantized
        skipped += skip
        layers.append(tot)
        layers_q.append(q)
        layers_e.append(e)
        layers_eq.append(eq)
    # the token embedding, and Gemma-3n/Gemma-4's per-layer embeddings beside it (sharded like it)
    embed = float((v * h + arch.per_layer_input_params) * b)
    params += v * h + arch.per_layer_input_params
    lm = 0.0
    if not arch.tie_word_embeddings:
        params += v * h
        quantized = scheme is not None and scheme.quantizes("lm_head")
        lm = scheme.for_module("lm_head").linear_bytes(v, h) if scheme is not None and quantized else float(v * h * b)
    vision = float(arch.vision_params) * b
    params += h  # final norm
    total_params = arch.params or param_breakdown(arch)["total"]
    last_params = sum(m.out_f * m.in_f * m.count for m in layer_linears(arch, arch.num_layers - 1)) if layers else 0
    mtp_params = arch.num_nextn_predict_layers * (last_params + 2 * h * h) if layers else 0
    leftover = max(0, int(total_params) - params - arch.vision_params - mtp_params)
    other = leftover * b
    if scheme is not None and leftover > 0.02 * total_params:
        # hybrid/state-layer projections the layer model does not place: stored like the other linears
        q_layers = sum(layers_q)
        if quantized_params:
            other = leftover * q_layers / quantized_params
            notes.append(f"{leftover / 1e9:.2f}B parameters outside the layer model sized at the quantized rate")
    mtp = 0.0
    if arch.num_nextn_predict_layers and layers:
        # DeepSeek-V3-style MTP modules: a full decoder layer + eh_proj (2·hidden → hidden) + 2 norms
        mtp = arch.num_nextn_predict_layers * (layers[-1] + 2 * h * h * b + 2 * h * b)
    if skipped:
        notes.append(f"{skipped / 2**20:.1f} MiB of stored GPTQ placeholder biases, not loaded by vLLM")
    total = sum(layers) + embed + lm + vision + other + h * b + mtp + skipped
    return WeightLayout(
        layers=layers,
        layers_quantized=layers_q,
        embed=embed,
        lm_head=lm,
        vision=vision,
        other=other,
        total=total,
        params_layout=params,
        scheme=scheme,
        mtp=mtp,
        skipped=skipped,
        notes=notes,
        layers_expert=layers_e,
        layers_expert_quantized=layers_eq,
    )


def checkpoint_layout(arch: ModelArch) -> WeightLayout:
    """:func:`weight_layout`, scaled to the exact checkpoint size when it is known."""
    lay = weight_layout(arch)
    exact = arch.weight_bytes
    if not exact or lay.total <= 0:
        return lay
    f = float(exact) / lay.total
    return WeightLayout(
        layers=[x * f for x in lay.layers],
        layers_quantized=[x * f for x in lay.layers_quantized],
        embed=lay.embed * f,
        lm_head=lay.lm_head * f,
        vision=lay.vision * f,
        other=lay.other * f,
        total=float(exact),
        mtp=lay.mtp * f,
        skipped=lay.skipped * f,
        params_layout=lay.params_layout,
        scheme=lay.scheme,
        scaled_to=float(exact),
        notes=[*lay.notes, f"layout scaled by {f:.4f} to the exact checkpoint size"],
        layers_expert=[x * f for x in lay.layers_expert],
        layers_expert_quantized=[x * f for x in lay.layers_expert_quantized],
    )


__all__ = [
    "Linear",
    "WeightLayout",
    "checkpoint_layout",
    "layer_extra_params",
    "layer_linears",
    "layer_prefix",
    "weight_layout",
]


def estimated_checkpoint_bytes(arch: ModelArch) -> float:
    """Checkpoint bytes: the exact size when known, else the layer-by-layer layout sized with the
    checkpoint's quantization scheme (:func:`vlint.resolve.weight_sizes.weight_layout`)."""
    if arch.weight_bytes:
        return float(arch.weight_bytes)
    return weight_layout(arch).total
