"""Model architecture facts that vLLM's memory accounting needs, from a HF ``config.json``.

:class:`ModelArch` is a frozen, flat summary of a checkpoint: shapes, per-layer attention kinds,
MoE layout, quantization and (when known) the exact checkpoint weight bytes. It is built from a
``config.json`` dict (:func:`model_arch_from_config`) and looked up by the name a launch uses
(:mod:`vlint.resolve.model_sources` finds that config for the name a launch uses).

Everything here is pure data handling, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property

from vlint.core.record import field, record, replace
from vlint.core.typing_names import Any
from vlint.core.version import V, Version
from vlint.resolve.quant_scheme import QuantScheme, scheme_from_config
from vlint.resolve.vision_params import vision_tower_params

# --------------------------------------------------------------------------------------------
# dtypes

DTYPE_BYTES: dict[str, float] = {
    "float32": 4,
    "float": 4,
    "fp32": 4,
    "float16": 2,
    "half": 2,
    "fp16": 2,
    "bfloat16": 2,
    "bf16": 2,
    "float8": 1,
    "fp8": 1,
    "float8_e4m3fn": 1,
    "float8_e5m2": 1,
    "int8": 1,
    "uint8": 1,
}


def dtype_bytes(dtype: str | None, default: float = 2) -> float:
    """Bytes per element of a torch/HF dtype name (``torch.bfloat16``, ``bfloat16``, ``half``)."""
    if not dtype:
        return default
    name = str(dtype).lower().removeprefix("torch.")
    return DTYPE_BYTES.get(name, default)


def normalize_dtype(dtype: str | None) -> str | None:
    if not dtype:
        return None
    name = str(dtype).lower().removeprefix("torch.")
    return {
        "half": "float16",
        "fp16": "float16",
        "float": "float32",
        "fp32": "float32",
        "bf16": "bfloat16",
    }.get(name, name)


# layer kinds used in ModelArch.layer_types
FULL = "full_attention"
SLIDING = "sliding_attention"
CHUNKED = "chunked_attention"
MAMBA = "mamba"
LINEAR = "linear_attention"
KV_SHARED = "kv_shared"  # reuses another layer's KV cache (Gemma-3n/Gemma-4 style): no own KV
NO_KV = "no_kv"  # MLP-only / MoE-only blocks of hybrid models (Nemotron-H '-', 'E')
ENCODER = "encoder_attention"  # attention of an encoder-only model: weights, no KV cache
#: attention layers that hold no KV cache of their own
CACHELESS_ATTENTION = frozenset({KV_SHARED, ENCODER})

STATE_KINDS = frozenset({MAMBA, LINEAR})
ATTENTION_KINDS = frozenset({FULL, SLIDING, CHUNKED})


# --------------------------------------------------------------------------------------------
# the dataclass


@record(frozen=True)
class ModelArch:
    """Architecture facts of one checkpoint (text decoder plus what the memory model needs)."""

    name: str
    model_type: str
    architectures: tuple[str, ...]
    num_layers: int
    hidden_size: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    dtype: str = "bfloat16"  # checkpoint dtype (config torch_dtype / dtype)
    tie_word_embeddings: bool = False
    text_model_type: str | None = None
    # per-layer attention kinds: FULL / SLIDING / CHUNKED / MAMBA / LINEAR / KV_SHARED / NO_KV
    layer_types: tuple[str, ...] = ()
    sliding_window: int | None = None
    attention_chunk_size: int | None = None
    # attention dims of full-attention layers when they differ from the sliding ones (Gemma-4)
    full_num_kv_heads: int | None = None
    full_head_dim: int | None = None
    head_dim_v: int | None = None  # value head size when it differs from head_dim
    # MLA (DeepSeek-V2/V3, Kimi): latent cache of kv_lora_rank + qk_rope_head_dim per token
    kv_lora_rank: int | None = None
    qk_rope_head_dim: int | None = None
    q_lora_rank: int | None = None
    qk_nope_head_dim: int | None = None
    v_head_dim: int | None = None
    # DeepSeek sparse attention (V3.2, GLM-5): a lightning-indexer key cache beside the latent cache
    index_head_dim: int | None = None  # set when the config has index_topk
    index_topk_freq: int = 1  # IndexCache: layers that reuse another layer's top-k (and, later, skip the indexer)
    index_skip_topk_offset: int = 2
    index_topk_pattern: str | None = None  # "F"/"S" per layer, when given
    kv_not_counted: str | None = None  # a KV-cache part vLLM allocates that the memory model leaves out
    # Mamba / linear-attention state per layer (elements, whole model i.e. before TP split)
    state_conv_elems: int = 0
    state_ssm_elems: int = 0
    state_ssm_dtype_bytes: float | None = None  # None = model dtype
    #: elements one more conv position adds (the conv width, whole model): the conv state of a Gated
    #: DeltaNet or Mamba2 layer keeps ``kernel - 1 + num_speculative_tokens`` positions
    #: ([0.25.1] vllm/model_executor/layers/mamba/mamba_utils.py:171-234)
    state_conv_width: int = 0
    #: which state layer the model has: "gdn" (Gated DeltaNet), "mamba2", "mamba1" or ""
    state_family: str = ""
    #: the Mamba2 SSD kernel's chunk (``mamba_chunk_size`` or ``chunk_size``; vLLM's
    #: ModelConfig.get_mamba_chunk_size, [0.19.0] vllm/config/model.py:1329-1345), None when not given
    mamba_chunk_size: int | None = None
    # MoE
    num_experts: int = 0
    num_experts_per_tok: int = 0
    moe_intermediate_size: int | None = None
    num_shared_experts: int = 0
    num_moe_layers: int = 0
    shared_expert_intermediate_size: int | None = None
    moe_layer_indices: tuple[int, ...] = ()  # which decoder layers are MoE
    dense_intermediate_size: int | None = None  # dense-layer MLP width when it differs (Llama-4)
    gated_mlp: bool = True  # gate/up/down (SwiGLU/GeGLU); False: fc1/fc2 (Phi-2, GPT-2, OPT, Falcon…)
    moe_latent_size: int | None = None  # experts run in a smaller latent width (Nemotron-3 Super/Ultra)
    # Nemotron-H: every decoder layer holds exactly one block, "M" Mamba2 / "*" attention / "-" MLP /
    # "E" MoE (hybrid_override_pattern or layers_block_type); "" = attention/state + MLP in every layer
    block_pattern: str = ""
    # Mamba2 mixer shapes (intermediate, heads, groups, d_state, conv kernel), for its weights
    mamba2_dims: tuple[int, int, int, int, int] | None = None
    # Gated DeltaNet layers (Qwen3-Next, Qwen3.5/3.6): key heads, key head dim, value heads, value head
    # dim, conv kernel, and whether q/k/v/z (and b/a) are one fused checkpoint tensor (Qwen3-Next)
    gdn_dims: tuple[int, int, int, int, int, bool] | None = None
    # quantization of the checkpoint
    quant_method: str | None = None
    quant_bits: float | None = None
    quant_group_size: int | None = None
    kv_cache_quant_algo: str | None = None
    quant_skips_attention: bool = False  # only MLP/experts quantized (gpt-oss mxfp4)
    quant: QuantScheme | None = None  # how the weights are stored (sizes them)
    # sizes
    weight_bytes: int | None = None  # exact checkpoint bytes (safetensors total_size) if known
    weight_bytes_source: str | None = None
    params: int | None = None
    params_estimated: bool = False
    vision_params: int = 0  # multimodal encoder + projector params (part of params)
    #: Gemma-3n / Gemma-4 per-layer embeddings (PLE): a second token embedding of num_layers ×
    #: hidden_size_per_layer_input per token, its projection from the hidden state, and each layer's gate
    #: and projection (:func:`per_layer_input_params`; part of params)
    per_layer_input_params: int = 0
    # context length
    max_position_embeddings: int | None = None
    max_len_keys: tuple[tuple[str, int], ...] = ()  # every derivation key found in the text config
    model_max_length: int | None = None
    rope_scaling: Mapping[str, Any] | None = field(default=None, hash=False, compare=False)
    rotary_dim: int | None = None
    # kinds
    is_multimodal: bool = False
    # largest multimodal item the processor makes: LM tokens it becomes and dummy input elements
    # (pixels × channels) vLLM profiles with; None = not derivable from config.json
    mm_tokens_per_item: int | None = None
    mm_item_elems: int | None = None
    is_encoder_decoder: bool = False
    num_nextn_predict_layers: int = 0
    source: str = ""
    confidence: str | None = None
    #: the facts are another model's, taken for this one by its name (:mod:`vlint.resolve.model_names`):
    #: how ("/models/Qwen3-8B taken for Qwen/Qwen3-8B (inferred from the folder name)"); "" otherwise
    inferred_from_name: str = ""
    aliases: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    # ---- derived views -----------------------------------------------------------------
    def has_indexer(self, layer: int, *, skipped_layers_drop_it: bool) -> bool:
        """Whether decoder layer ``layer`` holds a sparse-attention indexer (and its key cache). IndexCache
        configs (``index_topk_freq`` / ``index_topk_pattern``) let layers reuse another layer's top-k; from
        the release where such layers build no indexer (``skipped_layers_drop_it``) they hold no cache
        ([0.25.1] vllm/model_executor/models/deepseek_v2.py:1078-1108); MTP layers always do."""
        if not self.index_head_dim:
            return False
        if not skipped_layers_drop_it or layer >= self.num_layers:
            return True
        if self.index_topk_pattern is not None:
            return not (layer < len(self.index_topk_pattern) and self.index_topk_pattern[layer] == "S")
        return max(layer - self.index_skip_topk_offset + 1, 0) % max(1, self.index_topk_freq) == 0

    @property
    def is_mla(self) -> bool:
        return self.kv_lora_rank is not None and self.kv_lora_rank > 0

    @property
    def is_moe(self) -> bool:
        return self.num_experts > 0

    @property
    def is_hybrid(self) -> bool:
        """More than one KV-holding layer kind (sliding+full, attention+Mamba …)."""
        kinds = {t for t in self.layer_types if t not in (NO_KV, *CACHELESS_ATTENTION)}
        return len(kinds) > 1

    @cached_property
    def has_kv_cache(self) -> bool:
        """Some layer keeps a KV cache or state (not an encoder-only model)."""
        return any(t != NO_KV and t not in CACHELESS_ATTENTION for t in self.layer_types)

    @cached_property
    def has_state_layers(self) -> bool:
        return any(t in STATE_KINDS for t in self.layer_types)

    @cached_property
    def is_dense_full_attention(self) -> bool:
        """Every layer is plain full attention (no SW/chunked/state layers, not MLA)."""
        return all(t == FULL for t in self.layer_types) and not self.is_mla

    def layer_counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for t in self.layer_types:
            out[t] = out.get(t, 0) + 1
        return out

    def kv_heads_for(self, kind: str) -> int:
        if kind == FULL and self.full_num_kv_heads:
            return self.full_num_kv_heads
        return self.num_kv_heads

    def head_dim_for(self, kind: str) -> int:
        if kind == FULL and self.full_head_dim:
            return self.full_head_dim
        return self.head_dim

    @property
    def serving_dtype_default(self) -> str:
        """What ``--dtype auto`` picks: the checkpoint dtype, fp32 checkpoints served as bf16."""
        d = normalize_dtype(self.dtype) or "bfloat16"
        if d == "float32":
            return "bfloat16"
        return d


# --------------------------------------------------------------------------------------------
# config helpers

_TEXT_CONFIG_KEYS = ("text_config", "llm_config", "language_config", "thinker_config", "text_model")
_MAX_LEN_KEYS = (
    # vllm/transformers_utils/model_arch_config_convertor.py:374-407 (0.33.0); same list in
    # [0.6.6.post1] vllm/config.py _get_and_verify_max_len
    "max_position_embeddings",
    "n_positions",
    "max_seq_len",
    "seq_length",
    "model_max_length",
    "max_target_positions",
    "max_sequence_length",
    "max_seq_length",
    "seq_len",
)


#: model types whose config omits tie_word_embeddings and whose transformers config class defaults it to
#: True (GemmaConfig, Gemma2Config, Gemma3TextConfig: ``tie_word_embeddings=True``)
_TIED_BY_DEFAULT = frozenset({"gemma", "gemma2", "gemma3_text", "gemma3"})
#: dense MLPs with two matrices (up, down) instead of gate/up/down: PhiForCausalLM fc1/fc2, GPT-2 c_fc/
#: c_proj, OPT fc1/fc2, GPT-NeoX/Falcon dense_h_to_4h/dense_4h_to_h, BLOOM, GPT-BigCode, Starcoder2, MPT;
#: Nemotron-H up_proj/down_proj (relu2) in its MLP, shared-expert and expert blocks ([0.33.0]
#: vllm/model_executor/models/nemotron_h.py:109-124 NemotronHMLP, :237 experts ckpt_names up/down only);
#: BERT-style encoders (an intermediate and an output dense per layer: [0.19.1]
#: vllm/model_executor/models/bert.py BertIntermediate/BertOutput, roberta.py builds on them)
#: BERT-style encoders (pooling models: embeddings, rerankers): attention without a KV cache and no LM
#: head ([0.19.1] vllm/model_executor/models/bert.py: EncoderOnlyAttention, no lm_head)
ENCODER_ONLY = frozenset({"bert", "roberta", "xlm-roberta", "mpnet", "distilbert", "electra", "camembert"})

_UNGATED_MLP = frozenset(
    {
        "bert",
        "roberta",
        "xlm-roberta",
        "mpnet",
        "distilbert",
        "electra",
        "camembert",
        "phi",
        "phi-msft",
        "gpt2",
        "gpt_neox",
        "gptj",
        "opt",
        "falcon",
        "bloom",
        "gpt_bigcode",
        "starcoder2",
        "mpt",
        "nemotron_h",
    }
)


def _text_config(config: Mapping[str, Any]) -> tuple[dict[str, Any], bool]:
    """The text-decoder part of a (possibly multimodal) config, and whether it was nested."""
    for key in _TEXT_CONFIG_KEYS:
        sub = config.get(key)
        if isinstance(sub, Mapping):
            inner = dict(sub)
            if key == "thinker_config" and isinstance(sub.get("text_config"), Mapping):
                inner = dict(sub["text_config"])
            # fields missing from the nested config fall back to the outer ones (gemma-3 omits
            # most text fields; transformers fills its defaults)
            merged = {k: v for k, v in config.items() if k not in _TEXT_CONFIG_KEYS}
            merged.update(inner)
            merged["_outer_model_type"] = config.get("model_type")
            return merged, True
    return dict(config), False


def _get(cfg: Mapping[str, Any], *names: str, default: Any = None) -> Any:
    for n in names:
        v = cfg.get(n)
        if v is not None:
            return v
    return default


def _int(v: Any, default: int = 0) -> int:
    try:
        return int(v)
    except (TypeError, ValueError):
        return default


# transformers defaults for configs that omit text fields (Gemma3TextConfig, documented in the
# shared model catalog README "Known gaps")
_GEMMA3_TEXT_DEFAULTS = {
    "vocab_size": 262208,
    "max_position_embeddings": 131072,
    "sliding_window": 4096,
    "sliding_window_pattern": 6,
    "num_key_value_heads": 4,
    "head_dim": 256,
}


#: Nemotron-H block names → pattern characters: the transformers NemotronHConfig names (mamba /
#: linear_attention, attention / full_attention, mlp, moe; transformers 5.20 configuration_nemotron_h.py
#: _pattern_to_list, remap_legacy_layer_types) and the characters vLLM builds layers from ([0.33.0]
#: vllm/model_executor/models/nemotron_h.py:548-553 ALL_DECODER_LAYER_TYPES)
_NEMOTRON_BLOCKS = {
    "mamba": "M",
    "linear_attention": "M",
    "attention": "*",
    "full_attention": "*",
    "mlp": "-",
    "moe": "E",
}


def nemotron_h_pattern(cfg: Mapping[str, Any], model_type: str) -> str | None:
    """The one-block-per-layer pattern of a Nemotron-H config (``hybrid_override_pattern``, or
    ``layers_block_type`` as newer configs write it), or None for other models."""
    pat = cfg.get("hybrid_override_pattern")
    if isinstance(pat, str) and pat and set(pat) <= set("M*-E"):
        return pat
    if model_type != "nemotron_h":
        return None
    lbt = cfg.get("layers_block_type") or cfg.get("layer_types")
    if isinstance(lbt, list) and lbt and all(str(t).lower() in _NEMOTRON_BLOCKS for t in lbt):
        return "".join(_NEMOTRON_BLOCKS[str(t).lower()] for t in lbt)
    return None


def _layer_types(cfg: Mapping[str, Any], n: int, model_type: str) -> tuple[list[str], list[str]]:
    """Per-layer KV kinds (FULL/SLIDING/…) and notes on how they were found."""
    notes: list[str] = []
    sw = cfg.get("sliding_window")
    lt = cfg.get("layer_types")
    if isinstance(lt, list) and len(lt) == n:
        out = []
        for t in lt:
            t = str(t).lower()
            if t in ("full_attention", "attention", "global", "full"):
                out.append(FULL)
            elif t in ("sliding_attention", "sliding", "local", "sliding_window"):
                out.append(SLIDING)
            elif t in ("chunked_attention",):
                out.append(CHUNKED)
            elif t in ("linear_attention", "gated_deltanet", "linear"):
                out.append(LINEAR)
            elif t in ("mamba", "mamba2", "ssm"):
                out.append(MAMBA)
            else:
                out.append(FULL)
                notes.append(f"unknown layer type {t!r} counted as full attention")
        return out, ["layer kinds from config layer_types"]
    if model_type.startswith("qwen3_next") and lt is None:
        # Qwen3NextConfig without layer_types: every full_attention_interval-th layer full attention, the others
        # Gated DeltaNet (huggingface/transformers@249ef816
        # src/transformers/models/qwen3_next/configuration_qwen3_next.py, Qwen3NextConfig.__init__)
        interval = _int(cfg.get("full_attention_interval"), 4) or 4
        return (
            [LINEAR if (i + 1) % interval else FULL for i in range(n)],
            [f"Qwen3-Next: every {interval}th layer full attention, the others Gated DeltaNet (Qwen3NextConfig)"],
        )
    pat = nemotron_h_pattern(cfg, model_type)
    if pat is not None and len(pat) == n:
        m = {"M": MAMBA, "*": FULL, "-": NO_KV, "E": NO_KV}
        return [m.get(c, NO_KV) for c in pat], ["Nemotron-H block pattern (one block per layer)"]
    # Jamba-style block types
    lbt = cfg.get("layers_block_type")
    if isinstance(lbt, list) and len(lbt) == n:
        return [MAMBA if str(t).lower() == "mamba" else FULL for t in lbt], ["layers_block_type"]
    if "attn_layer_period" in cfg and "attn_layer_offset" in cfg:  # Jamba
        per, off = _int(cfg["attn_layer_period"], 8), _int(cfg["attn_layer_offset"], 4)
        return [FULL if i % per == off else MAMBA for i in range(n)], ["attn_layer_period/offset"]
    if model_type in ("mamba", "mamba2", "falcon_mamba"):
        return [MAMBA] * n, ["attention-free Mamba"]
    # Llama-4: chunked local attention on RoPE layers, global NoPE every 4th layer
    chunk = cfg.get("attention_chunk_size")
    if chunk:
        nrl = cfg.get("no_rope_layers")
        if isinstance(nrl, list) and len(nrl) == n:
            return [CHUNKED if int(x) else FULL for x in nrl], ["no_rope_layers + attention_chunk_size"]
        interval = _int(cfg.get("no_rope_layer_interval"), 4) or 4
        return (
            [FULL if (i + 1) % interval == 0 else CHUNKED for i in range(n)],
            [f"every {interval}th layer global (NoPE), others chunked-local (transformers default)"],
        )
    if not sw:
        return [FULL] * n, []
    # Gemma-2: alternating, even layers local
    if model_type in ("gemma2",):
        return [SLIDING if i % 2 == 0 else FULL for i in range(n)], ["Gemma-2 alternating local/global"]
    pattern = cfg.get("sliding_window_pattern") or cfg.get("_sliding_window_pattern")
    if model_type in ("gemma3", "gemma3_text", "cohere2") and not pattern:
        pattern = 6 if model_type.startswith("gemma3") else 4
    if isinstance(pattern, int) and pattern > 1:
        return (
            [FULL if (i + 1) % pattern == 0 else SLIDING for i in range(n)],
            [f"sliding_window_pattern {pattern}: every {pattern}th layer full"],
        )
    # Qwen2/Qwen3 MoE: use_sliding_window gates it; layers >= max_window_layers slide
    if "use_sliding_window" in cfg:
        if not cfg.get("use_sliding_window"):
            return [FULL] * n, ["use_sliding_window false"]
        mwl = _int(cfg.get("max_window_layers"), n)
        return [SLIDING if i >= mwl else FULL for i in range(n)], ["use_sliding_window + max_window_layers"]
    mpe = _int(cfg.get("max_position_embeddings"), 0)
    if mpe and int(sw) >= mpe:
        return [FULL] * n, [f"sliding_window {sw} ≥ context {mpe}: no effect"]
    return [SLIDING] * n, [f"sliding_window {sw} on every layer"]


def modelopt_kv_algo(q: Mapping[str, Any]) -> str | None:
    """The KV-cache dtype a ModelOpt quantization config declares, as vLLM reads it: ``kv_cache_scheme``
    (a dict: static 8-bit float → fp8) before ``kv_cache_quant_algo``, in the config or its nested
    ``quantization`` ([0.14.0] / [0.25.1] vllm/utils/torch_utils.py ``get_kv_cache_quant_algo_string``)."""
    inner = q.get("quantization")
    inner = inner if isinstance(inner, Mapping) else q
    algo = (
        inner.get("kv_cache_scheme")
        or q.get("kv_cache_scheme")
        or inner.get("kv_cache_quant_algo")
        or q.get("kv_cache_quant_algo")
    )
    if isinstance(algo, Mapping):
        if algo.get("dynamic") is False and algo.get("num_bits") == 8 and algo.get("type") == "float":
            return "fp8"
        return None  # nvfp4 (0.25+) or an unknown scheme: vLLM falls back to auto
    return str(algo) if algo else None


#: first release whose ``--kv-cache-dtype auto`` takes the KV-cache dtype a ModelOpt checkpoint declares
#: ([0.14.0] vllm/engine/arg_utils.py:1397-1400 resolve_kv_cache_dtype_string; absent in 0.13.0)
MODELOPT_KV_SINCE = "0.14.0"
#: first release whose attention layers switch the cache to fp8 for a compressed-tensors (llm-compressor)
#: ``kv_cache_scheme`` ([0.15.0] vllm/attention/layer.py:198-203; absent in 0.14.0)
COMPRESSED_TENSORS_KV_SINCE = "0.15.0"


def checkpoint_kv_cache_dtype(arch: ModelArch, version: Version) -> str | None:
    """The KV-cache dtype ``--kv-cache-dtype auto`` resolves to because the checkpoint declares one
    (``fp8``), or None (the model dtype)."""
    algo = (arch.kv_cache_quant_algo or "").lower()
    method = arch.quant_method or ""
    if not algo:
        return None
    if method.startswith("modelopt"):
        # MODELOPT_TO_VLLM_KV_CACHE_DTYPE_MAP has fp8 only; anything else falls back to auto
        return "fp8" if algo == "fp8" and version >= V(MODELOPT_KV_SINCE) else None
    if method == "compressed-tensors":
        return "fp8" if version >= V(COMPRESSED_TENSORS_KV_SINCE) else None
    return None


def _quant(cfg: Mapping[str, Any]) -> dict[str, Any]:
    q = cfg.get("quantization_config") or cfg.get("compression_config")
    out: dict[str, Any] = {}
    if not isinstance(q, Mapping):
        return out
    method = str(q.get("quant_method") or q.get("quant_algo") or "").lower() or None
    bits: float | None = None
    group: int | None = None
    if q.get("bits") is not None:
        bits = float(q["bits"])
    if q.get("group_size") is not None:
        group = _int(q["group_size"], 0) or None
    if method in ("bitsandbytes",):
        bits = 4.0 if q.get("load_in_4bit") or q.get("_load_in_4bit") else 8.0
    if method in ("fp8", "fbgemm_fp8", "ptpc_fp8"):
        bits = 8.0
    if method in ("mxfp4", "gpt_oss_mxfp4"):
        bits, group = 4.0, 32
    kv_algo = q.get("kv_cache_quant_algo")
    if method is not None and method.startswith("modelopt"):
        kv_algo = modelopt_kv_algo(q)
    if method == "modelopt":
        algo = str(q.get("quant_algo") or "").upper()
        if "FP4" in algo:
            method, bits, group = "modelopt_fp4", 4.0, 16
        else:
            bits = 8.0
    if method == "compressed-tensors":
        groups = q.get("config_groups") or {}
        for g in groups.values() if isinstance(groups, Mapping) else []:
            w = g.get("weights") if isinstance(g, Mapping) else None
            if isinstance(w, Mapping) and w.get("num_bits"):
                bits = float(w["num_bits"])
                if w.get("group_size"):
                    group = _int(w["group_size"], 0) or None
                if w.get("type") == "float" and bits == 4:
                    group = group or 16  # nvfp4 in compressed-tensors
                break
        ks = q.get("kv_cache_scheme")
        if isinstance(ks, Mapping) and ks.get("num_bits") == 8:
            kv_algo = kv_algo or "fp8"
    out["quant_method"] = method
    out["quant_bits"] = bits
    out["quant_group_size"] = group
    out["kv_cache_quant_algo"] = str(kv_algo).lower() if kv_algo else None
    skips = q.get("modules_to_not_convert") or q.get("ignore") or q.get("exclude_modules") or []
    if isinstance(skips, str):
        skips = [skips]
    out["quant_skips_attention"] = any("self_attn" in str(s) or str(s) == "attn" for s in skips)
    return out


def _mm_item(config: Mapping[str, Any], model_type: str) -> tuple[int | None, int | None]:
    """(LM tokens, input elements) of the largest image the processor makes, for the families whose
    count follows from config.json alone. Gemma-3: ``mm_tokens_per_image`` (256) tokens for one
    ``image_size``² crop (Gemma3ProcessingInfo, [0.19.0] vllm/model_executor/models/gemma3_mm.py);
    Pixtral/Mistral-3: (image_size / patch / spatial_merge)² tokens plus one break token per row
    (mistral3.py / pixtral.py get_num_image_tokens). Others (dynamic resolution, tiling) → None."""
    vc = config.get("vision_config")
    if not isinstance(vc, Mapping):
        return None, None
    size = _int(vc.get("image_size"), 0)
    patch = _int(vc.get("patch_size"), 0)
    chans = _int(vc.get("num_channels"), 3) or 3
    if not size:
        return None, None
    elems = chans * size * size
    if model_type == "gemma3":
        return _int(config.get("mm_tokens_per_image"), 256) or 256, elems
    if model_type in ("mistral3", "pixtral", "llava") and patch and vc.get("model_type") == "pixtral":
        merge = _int(config.get("spatial_merge_size"), 1) or 1
        side = size // patch // merge
        return side * side + side, elems
    return None, None


#: architectures whose release sets the SSM-state cache dtype from the text config's ``mamba_ssm_dtype``
#: when --mamba-ssm-cache-dtype is auto: [0.17.0] vllm/model_executor/models/config.py:625-650 and
#: [0.26.0] :744-768 (Qwen3_5ForConditionalGenerationConfig, registered for both at :863-864; ColQwen3_5
#: inherits it); the first release that registers the architectures (0.17.0) already has it
SSM_DTYPE_FROM_CONFIG = (
    "Qwen3_5ForConditionalGeneration",
    "Qwen3_5MoeForConditionalGeneration",
    "ColQwen3_5",
)


def _config_ssm_state_bytes(cfg: Mapping[str, Any], config: Mapping[str, Any], state_elems: int) -> float | None:
    """Bytes per SSM-state element the checkpoint's config pins (None: the model dtype, vLLM's ``auto``)."""
    archs = tuple(config.get("architectures") or cfg.get("architectures") or ())
    dt = cfg.get("mamba_ssm_dtype")
    if not state_elems or not isinstance(dt, str) or not any(a in SSM_DTYPE_FROM_CONFIG for a in archs):
        return None
    return dtype_bytes(dt)


def _mamba_state(cfg: Mapping[str, Any], hidden: int, model_type: str) -> tuple[int, int, int, str, list[str]]:
    """(conv elems, ssm elems, conv width, family, notes) per layer for Mamba/linear-attention layers,
    before TP split: the conv state holds ``kernel - 1`` positions of ``conv width`` elements."""
    # Gated DeltaNet (Qwen3-Next, Qwen3.5/3.6): vllm/model_executor/layers/mamba/
    # mamba_utils.py gated_delta_net_state_shape
    if cfg.get("linear_num_value_heads"):
        nk = _int(cfg.get("linear_num_key_heads"), 16)
        nv = _int(cfg.get("linear_num_value_heads"), 32)
        dk = _int(cfg.get("linear_key_head_dim"), 128)
        dv = _int(cfg.get("linear_value_head_dim"), 128)
        kern = _int(cfg.get("linear_conv_kernel_dim"), 4)
        conv_dim = nk * dk * 2 + nv * dv
        return (kern - 1) * conv_dim, nv * dk * dv, conv_dim, "gdn", ["gated-delta-net state (conv + recurrent)"]
    # Mamba2 (Nemotron-H, Granite-4.0-H, Bamba, Falcon-H1): mamba2_state_shape
    n_heads = _get(cfg, "mamba_n_heads", "mamba_num_heads")
    if n_heads:
        hd = _int(_get(cfg, "mamba_d_head", "mamba_head_dim"), 64)
        n_groups = _int(_get(cfg, "mamba_n_groups", "n_groups"), 1)
        d_state = _int(_get(cfg, "mamba_d_state", "ssm_state_size", "state_size"), 128)
        d_conv = _int(_get(cfg, "mamba_d_conv", "conv_kernel"), 4)
        inter = _int(n_heads) * hd
        width = inter + 2 * n_groups * d_state
        return (d_conv - 1) * width, _int(n_heads) * hd * d_state, width, "mamba2", ["Mamba2 state (conv + ssm)"]
    # Mamba1 (Jamba, falcon_mamba)
    d_state = _get(cfg, "mamba_d_state", "state_size")
    if d_state or model_type in ("jamba", "mamba", "falcon_mamba"):
        expand = _int(_get(cfg, "mamba_expand", "expand"), 2)
        inter = _int(cfg.get("intermediate_size"), 0) if model_type in ("mamba", "falcon_mamba") else 0
        inter = inter or expand * hidden
        d_conv = _int(_get(cfg, "mamba_d_conv", "conv_kernel"), 4)
        return (d_conv - 1) * inter, inter * _int(d_state, 16), inter, "mamba1", ["Mamba1 state (conv + ssm)"]
    return 0, 0, 0, "", []


# --------------------------------------------------------------------------------------------
# parameter counting (standard decoder layout; exact for Llama/Qwen/Mistral-style models)


def mamba2_params(dims: tuple[int, int, int, int, int], hidden: int) -> tuple[int, int, int]:
    """(in_proj, out_proj, other) parameters of one Mamba2 mixer: ``in_proj`` hidden → 2·inner +
    2·groups·d_state + heads, ``out_proj`` inner → hidden, and the conv1d weight and bias (conv_dim ×
    kernel + conv_dim), A, D, dt_bias (one per head) and the gated norm (inner) ([0.33.0]
    vllm/model_executor/layers/mamba/mamba_mixer2.py:344 conv_dim, :359-371 in_proj, :481-488 A/D/dt_bias,
    :498-507 out_proj and norm)."""
    inner, heads, groups, d_state, kernel = dims
    conv_dim = inner + 2 * groups * d_state
    return hidden * (inner + conv_dim + heads), inner * hidden, conv_dim * kernel + conv_dim + 3 * heads + inner


def gdn_params(dims: tuple[int, int, int, int, int, bool], hidden: int) -> tuple[int, int]:
    """(linear, other) parameters of one Gated DeltaNet layer: in_proj_qkv(z) hidden → 2·key_dim + 2·value_dim,
    in_proj_b/a hidden → 2·value heads, out_proj value_dim → hidden, all without bias; conv1d conv_dim ×
    kernel (conv_dim = 2·key_dim + value_dim), dt_bias and A_log per value head and the gated norm of one
    value head dim ([0.24.0] vllm/model_executor/layers/mamba/gdn/qwen_gdn_linear_attn.py:448-610)."""
    nk, dk, nv, dv, kernel, _ = dims
    key_dim, value_dim = nk * dk, nv * dv
    linear = hidden * (2 * key_dim + 2 * value_dim) + hidden * 2 * nv + value_dim * hidden
    return linear, (2 * key_dim + value_dim) * kernel + 2 * nv + dv


def _count_params(a: dict[str, Any]) -> tuple[int, int, int, int]:
    """(total, embedding+lm_head, attention, mlp incl. experts) parameters of the text decoder."""
    h, n, v = a["hidden"], a["layers"], a["vocab"]
    heads, kvh, hd = a["heads"], a["kv_heads"], a["head_dim"]
    emb = v * h * (1 if a["tied"] else 2) + a.get("ple", 0)
    if a.get("kv_lora_rank"):
        r, rope = a["kv_lora_rank"], a["qk_rope_head_dim"] or 64
        nope, vd = a.get("qk_nope_head_dim") or 128, a.get("v_head_dim") or 128
        qlr = a.get("q_lora_rank")
        q = (h * qlr + qlr * heads * (nope + rope)) if qlr else h * heads * (nope + rope)
        attn_layer = q + h * (r + rope) + r * heads * (nope + vd) + heads * vd * h
    else:
        attn_layer = h * heads * hd + 2 * h * kvh * hd + heads * hd * h
    inter = a["inter"]
    mats = 3 if a.get("gated", True) else 2
    dense_mlp = mats * h * inter
    n_moe = a["moe_layers"]
    if a["experts"]:
        mi = a["moe_inter"] or inter
        latent = a.get("latent") or 0
        moe = a["experts"] * mats * (latent or h) * mi + a["experts"] * h + 2 * h * latent
        if a["shared"]:
            moe += mats * h * (a.get("shared_inter") or mi * a["shared"])
    else:
        moe = 0
    n_attn = a.get("attn_layers", n)
    attn = attn_layer * n_attn
    dense_layers = a.get("dense_layers", n - n_moe)
    mlp = dense_mlp * dense_layers + moe * n_moe
    norms = n * a.get("norms_per_layer", 2) * h + h
    return emb + attn + mlp + norms + a.get("mamba", 0), emb, attn, mlp


def per_layer_input_params(cfg: Mapping[str, Any], hidden: int, n_layers: int, vocab: int) -> int:
    """Parameters of Gemma-3n / Gemma-4 per-layer embeddings, as vLLM builds them ([0.20.2]
    vllm/model_executor/models/gemma4.py:980-1016 and :661-689): ``embed_tokens_per_layer``
    (vocab_size_per_layer_input × num_layers·hidden_size_per_layer_input, a VocabParallelEmbedding),
    ``per_layer_model_projection`` (hidden → num_layers·hidden_size_per_layer_input) and, in every layer,
    ``per_layer_input_gate`` (hidden → per-layer size) and ``per_layer_projection`` (back); norms left out.
    0 for a model without them."""
    per = _int(cfg.get("hidden_size_per_layer_input"), 0)
    if per <= 0 or n_layers <= 0:
        return 0
    ple_vocab = _int(cfg.get("vocab_size_per_layer_input"), 0) or vocab
    width = per * n_layers
    return ple_vocab * width + hidden * width + n_layers * 2 * hidden * per


def _param_counts(arch: ModelArch) -> dict[str, Any]:
    """The shape numbers :func:`_count_params` needs, from a :class:`ModelArch`."""
    counts: dict[str, Any] = {
        "hidden": arch.hidden_size,
        "layers": arch.num_layers,
        "vocab": arch.vocab_size,
        "heads": arch.num_attention_heads,
        "kv_heads": arch.num_kv_heads,
        "head_dim": arch.head_dim,
        "tied": arch.tie_word_embeddings,
        "gated": arch.gated_mlp,
        "inter": arch.dense_intermediate_size or arch.intermediate_size,
        "experts": arch.num_experts,
        "moe_inter": arch.moe_intermediate_size,
        "shared": arch.num_shared_experts,
        "shared_inter": arch.shared_expert_intermediate_size,
        "moe_layers": arch.num_moe_layers,
        "latent": arch.moe_latent_size or 0,
        "kv_lora_rank": arch.kv_lora_rank,
        "qk_rope_head_dim": arch.qk_rope_head_dim,
        "q_lora_rank": arch.q_lora_rank,
        "qk_nope_head_dim": arch.qk_nope_head_dim,
        "v_head_dim": arch.v_head_dim,
        "attn_layers": sum(1 for t in arch.layer_types if t in ATTENTION_KINDS or t in CACHELESS_ATTENTION),
        "ple": arch.per_layer_input_params,
    }
    if arch.gdn_dims:
        counts["mamba"] = sum(1 for t in arch.layer_types if t == LINEAR) * sum(
            gdn_params(arch.gdn_dims, arch.hidden_size)
        )
    if arch.is_moe and (arch.text_model_type or arch.model_type or "").startswith("gemma4"):
        # Gemma-4 MoE layers keep their dense MLP beside the experts ([0.19.0] gemma4.py:600-625)
        counts["dense_layers"] = arch.num_layers
    if arch.block_pattern:  # Nemotron-H: one block and one norm per layer
        counts["dense_layers"] = arch.block_pattern.count("-")
        counts["norms_per_layer"] = 1
        if arch.mamba2_dims:
            counts["mamba"] = arch.block_pattern.count("M") * sum(mamba2_params(arch.mamba2_dims, arch.hidden_size))
    return counts


# --------------------------------------------------------------------------------------------
# public: from config


def model_arch_from_config(
    config: Mapping[str, Any],
    *,
    name: str,
    weight_bytes: int | None = None,
    source: str,
) -> ModelArch:
    """Build a :class:`ModelArch` from a HF ``config.json`` dict (multimodal configs included)."""
    cfg, nested = _text_config(config)
    outer_type = str(config.get("model_type") or cfg.get("model_type") or "")
    model_type = str(cfg.get("model_type") or outer_type)
    if config.get("text_model_type"):  # flat catalog records
        model_type = str(config["text_model_type"])
    notes: list[str] = []
    if model_type in ("gemma3", "gemma3_text"):
        for k, v in _GEMMA3_TEXT_DEFAULTS.items():
            if cfg.get(k) is None:
                cfg[k] = v
                notes.append(f"{k}={v} from the transformers Gemma3TextConfig default")
    if model_type == "chatglm" or "multi_query_group_num" in cfg:
        cfg.setdefault("num_hidden_layers", cfg.get("num_layers"))
        cfg.setdefault("num_key_value_heads", cfg.get("multi_query_group_num"))
        cfg.setdefault("intermediate_size", cfg.get("ffn_hidden_size"))
        cfg.setdefault("vocab_size", cfg.get("padded_vocab_size"))
        if cfg.get("kv_channels") and not cfg.get("head_dim"):
            cfg["head_dim"] = cfg["kv_channels"]
    hidden = _int(_get(cfg, "hidden_size", "d_model", "n_embd", "dim"))
    n_layers = _int(_get(cfg, "num_hidden_layers", "n_layer", "num_layers", "n_layers"))
    heads = _int(_get(cfg, "num_attention_heads", "n_head", "num_heads", "n_heads"), 1) or 1
    # vllm/transformers_utils/config.py:56-63: n_head_kv | num_kv_heads | num_key_value_heads |
    # multi_query_group_num | num_attention_groups, default num_attention_heads
    kv_heads = (
        _int(
            _get(
                cfg,
                "n_head_kv",
                "num_kv_heads",
                "num_key_value_heads",
                "multi_query_group_num",
                "num_attention_groups",
            ),
            heads,
        )
        or heads
    )
    if cfg.get("multi_query") and not cfg.get("num_key_value_heads"):
        kv_heads = 1
    # head_dim: explicit (>0) else hidden_size_per_head else hidden // heads (model_arch_config_
    # convertor.py:91-118)
    hd_explicit = _int(cfg.get("head_dim"), 0)
    head_dim = hd_explicit or _int(cfg.get("hidden_size_per_head"), 0) or (hidden // heads if heads else 0)
    inter = _int(_get(cfg, "intermediate_size", "ffn_dim", "n_inner", "ffn_hidden_size"), 4 * hidden)
    vocab = _int(_get(cfg, "vocab_size", "padded_vocab_size"), 32000)
    raw_dtype = _get(cfg, "torch_dtype", "dtype") or _get(config, "torch_dtype", "dtype")
    dtype = normalize_dtype(raw_dtype) or "bfloat16"
    tied_default = model_type in _TIED_BY_DEFAULT or outer_type in _TIED_BY_DEFAULT
    tied = bool(_get(cfg, "tie_word_embeddings", default=config.get("tie_word_embeddings", tied_default)))
    gated = model_type not in _UNGATED_MLP
    encoder = model_type in ENCODER_ONLY
    if encoder:
        # no LM head: the token embedding is the only vocab × hidden tensor, as with tied embeddings
        tied = True

    # MLA
    kv_lora = _int(cfg.get("kv_lora_rank"), 0) or None
    rope_hd = _int(cfg.get("qk_rope_head_dim"), 0) or None
    if kv_lora:
        notes.append("MLA: one latent KV vector (kv_lora_rank + qk_rope_head_dim) per token per layer")
    index_hd = (_int(cfg.get("index_head_dim"), 0) or 128) if kv_lora and "index_topk" in cfg else None
    sparse_cfg = cfg.get("sparse_attention_config")
    kv_not_counted = None
    if isinstance(sparse_cfg, dict) and sparse_cfg.get("use_sparse_attention") and not index_hd:
        kv_not_counted = (
            "the sparse-attention index-key cache of its sparse layers (MiniMax-M3 style, "
            "[0.33.0] vllm/models/minimax_m3/common/indexer.py:102-150) is not counted: KV bytes per token "
            "are underestimated"
        )
    pattern_cfg = cfg.get("index_topk_pattern")

    # layers
    pattern = nemotron_h_pattern(cfg, model_type)
    if pattern and not n_layers:
        n_layers = len(pattern)  # NemotronHConfig.num_hidden_layers is len(layers_block_type)
    if pattern and len(pattern) != n_layers:
        notes.append(f"block pattern of {len(pattern)} layers ignored: the config has {n_layers}")
        pattern = None
    ltypes, lnotes = _layer_types(cfg, n_layers, model_type)
    notes.extend(lnotes)
    if encoder:
        ltypes = [ENCODER] * n_layers
        notes.append(
            "encoder-only (BERT-style): no KV cache, vLLM's encoder-only attention needs none (from 0.10.2: "
            "[0.19.1] vllm/v1/kv_cache_interface.py EncoderOnlyAttentionSpec.max_memory_usage_bytes returns 0)"
        )
    ple = per_layer_input_params(cfg, hidden, n_layers, vocab)
    if ple:
        notes.append(f"per-layer embeddings (hidden_size_per_layer_input): {ple / 1e9:.2f}B parameters")
    n_shared_kv = _int(cfg.get("num_kv_shared_layers"), 0)
    if n_shared_kv and n_shared_kv < n_layers:
        for i in range(n_layers - n_shared_kv, n_layers):
            ltypes[i] = KV_SHARED
        notes.append(f"last {n_shared_kv} layers reuse earlier layers' KV (num_kv_shared_layers)")
    conv, ssm, conv_width, family, snotes = (0, 0, 0, "", [])
    if any(t in STATE_KINDS for t in ltypes):
        conv, ssm, conv_width, family, snotes = _mamba_state(cfg, hidden, model_type)
        notes.extend(snotes)
    gdn = None
    if cfg.get("linear_num_value_heads") and any(t == LINEAR for t in ltypes):
        gdn = (
            _int(cfg.get("linear_num_key_heads"), 16),
            _int(cfg.get("linear_key_head_dim"), 128),
            _int(cfg.get("linear_num_value_heads"), 32),
            _int(cfg.get("linear_value_head_dim"), 128),
            _int(cfg.get("linear_conv_kernel_dim"), 4),
            model_type.startswith("qwen3_next"),
        )
    mamba2 = None
    if pattern and "M" in pattern and cfg.get("mamba_num_heads"):
        # NemotronHMambaDecoderLayer: MambaMixer2 with intermediate mamba_num_heads × mamba_head_dim
        # ([0.33.0] vllm/model_executor/models/nemotron_h.py:390-404)
        mh, mhd = _int(cfg["mamba_num_heads"]), _int(cfg.get("mamba_head_dim"), 64)
        mamba2 = (
            mh * mhd,
            mh,
            _int(cfg.get("n_groups"), 1),
            _int(cfg.get("ssm_state_size"), 128),
            _int(cfg.get("conv_kernel"), 4),
        )

    # MoE
    experts = _int(_get(cfg, "num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts"), 0)
    topk = _int(_get(cfg, "num_experts_per_tok", "moe_topk", "top_k"), 0)
    moe_inter = _int(_get(cfg, "moe_intermediate_size", "expert_intermediate_size"), 0) or None
    if experts and not moe_inter:
        moe_inter = inter  # Mixtral / gpt-oss / Llama-4: intermediate_size is per expert
    shared = _int(_get(cfg, "n_shared_experts", "num_shared_experts"), 0)
    shared_inter = _int(cfg.get("shared_expert_intermediate_size"), 0) or None
    if shared_inter and not shared:
        shared = 1
    if pattern and shared and cfg.get("moe_shared_expert_intermediate_size"):
        # Nemotron-H: one shared MLP of moe_shared_expert_intermediate_size × n_shared_experts
        # ([0.33.0] vllm/model_executor/models/nemotron_h.py:178-193)
        shared_inter = _int(cfg["moe_shared_expert_intermediate_size"]) * shared
    latent = _int(cfg.get("moe_latent_size"), 0) or None  # nemotron_h.py:152-156, :198-213, :233
    if model_type.startswith("llama4") and experts:
        shared = shared or 1
    n_moe = 0
    moe_idx: list[int] = []
    if experts and pattern:  # Nemotron-H: the "E" blocks are the MoE layers, nothing else has an MLP
        moe_idx = [i for i, c in enumerate(pattern) if c == "E"]
        n_moe = len(moe_idx)
    elif experts:
        first_dense = _int(cfg.get("first_k_dense_replace"), 0)
        step = _int(_get(cfg, "decoder_sparse_step", "moe_layer_freq", "interleave_moe_layer_step"), 1) or 1
        mlp_only = set(cfg.get("mlp_only_layers") or [])
        for i in range(n_layers):
            if i < first_dense or i in mlp_only:
                continue
            if (i + 1) % step == 0:
                n_moe += 1
                moe_idx.append(i)
    dense_inter = inter
    if model_type.startswith("llama4") and cfg.get("intermediate_size_mlp"):
        dense_inter = _int(cfg["intermediate_size_mlp"])

    qsrc = cfg if cfg.get("quantization_config") or cfg.get("compression_config") else config
    q = _quant(qsrc)
    scheme = scheme_from_config(qsrc.get("quantization_config") or qsrc.get("compression_config"), dtype_bytes(dtype))

    # params: exact when given (catalog), else counted from the layout below
    params = _int(config.get("params"), 0) or None
    vision = _int(config.get("vision_params"), 0)
    if not vision and config.get("params_text_only_derived") and config.get("params"):
        vision = max(0, _int(config["params"]) - _int(config["params_text_only_derived"]))
    if not vision:
        vision = vision_tower_params(config) or 0  # counted from vision_config as vLLM builds the encoder

    # context
    keys = tuple(
        (k, _int(cfg[k]))
        for k in _MAX_LEN_KEYS
        if isinstance(cfg.get(k), (int, float)) and not isinstance(cfg.get(k), bool)
    )
    mpe = _int(cfg.get("max_position_embeddings"), 0) or None
    rope = cfg.get("rope_scaling") or cfg.get("rope_parameters")
    if isinstance(rope, Mapping) and not (rope.get("rope_type") or rope.get("type")):
        rope = None
    if (
        isinstance(rope, Mapping)
        and "original_max_position_embeddings" not in rope
        and cfg.get("original_max_position_embeddings")
    ):
        rope = dict(rope)
        rope["original_max_position_embeddings"] = cfg["original_max_position_embeddings"]
    prf = cfg.get("partial_rotary_factor")
    rotary_dim = int(head_dim * float(prf)) if prf else (rope_hd or head_dim)

    is_mm = (
        nested
        or bool(config.get("vision_config"))
        or any("ConditionalGeneration" in a or "VL" in a or "Vision" in a for a in config.get("architectures") or [])
    )
    if model_type.startswith("gemma3") and outer_type == "gemma3":
        is_mm = True
    mm_tokens, mm_elems = _mm_item(config, outer_type) if is_mm else (None, None)

    sw = _int(cfg.get("sliding_window"), 0) or None
    if sw is None and SLIDING in ltypes:
        sw = 4096
    arch = ModelArch(
        name=name,
        model_type=outer_type or model_type,
        text_model_type=model_type if model_type != outer_type else None,
        architectures=tuple(config.get("architectures") or cfg.get("architectures") or ()),
        num_layers=n_layers,
        hidden_size=hidden,
        num_attention_heads=heads,
        num_kv_heads=kv_heads,
        head_dim=head_dim,
        intermediate_size=inter,
        vocab_size=vocab,
        dtype=dtype,
        tie_word_embeddings=tied,
        layer_types=tuple(ltypes),
        sliding_window=sw if SLIDING in ltypes else None,
        attention_chunk_size=_int(cfg.get("attention_chunk_size"), 0) or None,
        full_num_kv_heads=_int(_get(cfg, "num_global_key_value_heads"), 0) or None,
        full_head_dim=_int(_get(cfg, "global_head_dim"), 0) or None,
        head_dim_v=_int(cfg.get("v_head_dim"), 0) or None if not kv_lora else None,
        kv_lora_rank=kv_lora,
        qk_rope_head_dim=rope_hd,
        q_lora_rank=_int(cfg.get("q_lora_rank"), 0) or None,
        qk_nope_head_dim=_int(cfg.get("qk_nope_head_dim"), 0) or None if kv_lora else None,
        v_head_dim=_int(cfg.get("v_head_dim"), 0) or None if kv_lora else None,
        index_head_dim=index_hd,
        index_topk_freq=_int(cfg.get("index_topk_freq"), 1) or 1,
        index_skip_topk_offset=_int(cfg.get("index_skip_topk_offset"), 2),
        index_topk_pattern=pattern_cfg if isinstance(pattern_cfg, str) else None,
        kv_not_counted=kv_not_counted,
        state_conv_elems=conv,
        state_ssm_elems=ssm,
        state_ssm_dtype_bytes=_config_ssm_state_bytes(cfg, config, conv + ssm),
        state_conv_width=conv_width,
        state_family=family,
        mamba_chunk_size=_int(_get(cfg, "mamba_chunk_size", "chunk_size"), 0) or None,
        num_experts=experts,
        num_experts_per_tok=topk,
        moe_intermediate_size=moe_inter,
        num_shared_experts=shared,
        num_moe_layers=n_moe,
        shared_expert_intermediate_size=shared_inter,
        moe_layer_indices=tuple(moe_idx),
        gated_mlp=gated,
        dense_intermediate_size=dense_inter if dense_inter != inter else None,
        quant=scheme,
        quant_method=q.get("quant_method"),
        quant_bits=q.get("quant_bits"),
        quant_group_size=q.get("quant_group_size"),
        kv_cache_quant_algo=q.get("kv_cache_quant_algo"),
        quant_skips_attention=bool(q.get("quant_skips_attention")),
        weight_bytes=weight_bytes,
        weight_bytes_source=None if weight_bytes is None else "given",
        params=params,
        moe_latent_size=latent,
        block_pattern=pattern or "",
        mamba2_dims=mamba2,
        gdn_dims=gdn,
        vision_params=vision,
        per_layer_input_params=ple,
        max_position_embeddings=mpe,
        max_len_keys=keys,
        model_max_length=_int(cfg.get("model_max_length"), 0) or None,
        rope_scaling=dict(rope) if isinstance(rope, Mapping) else None,
        rotary_dim=rotary_dim,
        is_multimodal=is_mm,
        mm_tokens_per_item=mm_tokens,
        mm_item_elems=mm_elems,
        is_encoder_decoder=bool(config.get("is_encoder_decoder") or cfg.get("is_encoder_decoder")),
        num_nextn_predict_layers=_int(cfg.get("num_nextn_predict_layers"), 0),
        source=source,
        notes=tuple(notes),
    )
    if params is None:
        arch = replace(arch, params=param_breakdown(arch)["total"], params_estimated=True)
    return arch


def param_breakdown(arch: ModelArch) -> dict[str, int]:
    """Parameter split of the text decoder: ``embed`` (incl. lm_head), ``attn``, ``mlp``, ``total``,
    ``per_layer`` (average non-embedding params per layer), ``vision``."""
    total, emb, attn, mlp = _count_params(_param_counts(arch))
    return {
        "total": total,
        "embed": emb,
        "attn": attn,
        "mlp": mlp,
        "per_layer": (total - emb) // max(1, arch.num_layers),
        "vision": arch.vision_params,
    }


# --------------------------------------------------------------------------------------------
# derived max_model_len (vllm/config/model.py _get_and_verify_max_len)

_NO_SCALE_ROPE = ("su", "longrope", "llama3")
_YARN = ("yarn", "deepseek_yarn", "deepseek_llama_scaling")


def derived_max_model_len(
    arch: ModelArch, version: Version | None, *, hf_overrides: Mapping[str, Any] | None = None
) -> tuple[int, str]:
    """The max_model_len vLLM derives from the config, and the key it came from.

    ``min`` over the length keys (``model_max_length`` overrides), then RoPE scaling: ``factor``
    multiplies for rope types other than su/longrope/llama3/yarn-family (never for gemma3); YaRN
    variants were rescaled from ``original_max_position_embeddings`` × factor up to 0.29.x and are
    left alone from 0.30.0 (vLLM PR #56446; [0.29.0] vllm/config/model.py:2458). No key → 2048.
    """
    keys = dict(arch.max_len_keys)
    rope = dict(arch.rope_scaling or {})
    if hf_overrides:
        for k in _MAX_LEN_KEYS:
            if k in hf_overrides and isinstance(hf_overrides[k], int):
                keys[k] = int(hf_overrides[k])
        if isinstance(hf_overrides.get("rope_scaling"), Mapping):
            rope = dict(hf_overrides["rope_scaling"])
    candidates = {k: v for k, v in keys.items() if k != "model_max_length" and v > 0}
    if candidates:
        key = min(candidates, key=lambda k: candidates[k])
        derived = candidates[key]
    elif "model_max_length" in keys:
        key, derived = "model_max_length", keys["model_max_length"]
    else:
        return 2048, "default (no length key in config.json)"
    if "model_max_length" in keys and keys["model_max_length"] > 0:
        key, derived = "model_max_length", keys["model_max_length"]
    mt = (arch.text_model_type or arch.model_type or "").lower()
    rtype = str(rope.get("rope_type") or rope.get("type") or "").lower()
    if rope and "gemma3" not in mt and rtype:
        factor = rope.get("factor", 1.0)
        if factor is None:
            factor = 1.0  # vLLM warns about a null factor and uses 1.0
        new_yarn = version is not None and version >= V("0.30.0")
        if rtype in _YARN and new_yarn:
            pass  # 0.30.0+: YaRN variants leave max_position_embeddings as it is
        elif rtype == "yarn":
            orig = rope.get("original_max_position_embeddings")
            if orig:
                derived = int(int(orig) * float(factor))
                key = "rope_scaling.original_max_position_embeddings × factor (yarn)"
        elif rtype not in _NO_SCALE_ROPE and float(factor) != 1.0:
            derived = int(derived * float(factor))
            key = f"{key} × rope_scaling.factor ({rtype})"
    return derived, key


def default_max_model_len(
    arch: ModelArch, version: Version | None, *, hf_overrides: Mapping[str, Any] | None = None
) -> tuple[int, str]:
    """What an unset ``--max-model-len`` becomes: the derived length, except LongRoPE models,
    which default to ``original_max_position_embeddings`` in newer releases
    ([0.19.1] vllm/config/model.py:2139-2150; absent in [0.10.2] vllm/config/__init__.py)."""
    derived, key = derived_max_model_len(arch, version, hf_overrides=hf_overrides)
    rope = arch.rope_scaling or {}
    rtype = str(rope.get("rope_type") or rope.get("type") or "").lower()
    if rtype == "longrope" and (version is None or version >= V("0.11.0")):
        orig = rope.get("original_max_position_embeddings")
        if orig:
            return int(orig), "original_max_position_embeddings (LongRoPE default)"
    return derived, key


def gib(x: float) -> float:
    return x / 2**30


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


__all__ = [
    "ATTENTION_KINDS",
    "CACHELESS_ATTENTION",
    "CHUNKED",
    "ENCODER",
    "FULL",
    "KV_SHARED",
    "LINEAR",
    "MAMBA",
    "NO_KV",
    "SLIDING",
    "ModelArch",
    "default_max_model_len",
    "derived_max_model_len",
    "dtype_bytes",
    "model_arch_from_config",
    "param_breakdown",
]
