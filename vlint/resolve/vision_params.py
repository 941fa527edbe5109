"""Parameters of a multimodal checkpoint's vision tower, counted from its ``vision_config`` as vLLM
builds the encoder (for catalog records that state no vision parameter count). Pure arithmetic."""

from __future__ import annotations

from collections.abc import Mapping

from vlint.core.typing_names import Any

#: outer model types whose vision tower is vLLM's Qwen3_VisionTransformer ([0.24.0] vllm/model_executor/
#: models/qwen3_vl.py:520-625; Qwen3.5/3.6 use the same class, qwen3_5.py:588)
QWEN3_VISION_MODELS = ("qwen3_vl", "qwen3_vl_moe", "qwen3_5", "qwen3_5_moe")


def _int(v: Any) -> int | None:
    try:
        return int(v) if v is not None and not isinstance(v, bool) else None
    except (TypeError, ValueError):
        return None


def qwen3_vision_params(vc: Mapping[str, Any]) -> int | None:
    """Qwen3_VisionTransformer ([0.24.0] qwen3_vl.py): a biased Conv3d patch embedding (in_channels x
    temporal_patch_size x patch_size^2 -> hidden, :348-368), a learned position table (num_position_embeddings
    x hidden, :563), ``depth`` blocks of two LayerNorms, a biased qkv and proj (qwen2_5_vl.py:346-390) and a
    biased fc1/fc2 MLP (:377-405, :430-450), the patch merger (LayerNorm(hidden), fc1 and fc2 of width
    hidden x spatial_merge_size^2, biased, :468-505) and one post-shuffle merger per deepstack index
    (:590-600). None when a size is missing."""
    h, inter, depth = _int(vc.get("hidden_size")), _int(vc.get("intermediate_size")), _int(vc.get("depth"))
    patch, out = _int(vc.get("patch_size")), _int(vc.get("out_hidden_size"))
    npos = _int(vc.get("num_position_embeddings"))
    if not (h and inter and depth and patch and out and npos):
        return None
    in_ch = _int(vc.get("in_channels")) or 3
    tps = _int(vc.get("temporal_patch_size")) or 2
    merge = _int(vc.get("spatial_merge_size")) or 2
    deepstack = len(vc.get("deepstack_visual_indexes") or [])
    embed = in_ch * tps * patch * patch * h + h + npos * h
    block = 2 * (2 * h) + (3 * h * h + 3 * h) + (h * h + h) + (h * inter + inter) + (inter * h + h)
    wide = h * merge * merge
    merger = 2 * h + (wide * wide + wide) + (wide * out + out)
    post = 2 * wide + (wide * wide + wide) + (wide * out + out)
    return embed + depth * block + merger + deepstack * post


def qwen2_5_vision_params(vc: Mapping[str, Any]) -> int | None:
    """Qwen2_5_VisionTransformer ([0.19.0] vllm/model_executor/models/qwen2_5_vl.py:574-640): a Conv3d
    patch embedding without bias (:492-512), ``depth`` blocks of two RMSNorms (weight only, :605), a biased
    qkv and proj (:334-350), a gated MLP gate_up/down with bias (:271-300, bias=True at :459), and the
    patch merger (RMSNorm(hidden), then biased Linear(W, W) and Linear(W, out_hidden_size), W = hidden x
    spatial_merge_size^2, :528-565); rotary positions, no learned table. None when a size is missing."""
    h, inter, depth = _int(vc.get("hidden_size")), _int(vc.get("intermediate_size")), _int(vc.get("depth"))
    patch, out = _int(vc.get("patch_size")), _int(vc.get("out_hidden_size"))
    if not (h and inter and depth and patch and out):
        return None
    in_ch = _int(vc.get("in_channels")) or _int(vc.get("in_chans")) or 3
    tps = _int(vc.get("temporal_patch_size")) or 2
    merge = _int(vc.get("spatial_merge_size")) or 2
    embed = in_ch * tps * patch * patch * h
    block = 2 * h + (3 * h * h + 3 * h) + (h * h + h) + (h * 2 * inter + 2 * inter) + (inter * h + h)
    wide = h * merge * merge
    merger = h + (wide * wide + wide) + (wide * out + out)
    return embed + depth * block + merger


def qwen2_vision_params(vc: Mapping[str, Any]) -> int | None:
    """Qwen2VisionTransformer ([0.19.0] vllm/model_executor/models/qwen2_vl.py:524-590): a Conv3d patch
    embedding of width ``embed_dim`` without bias (:446-466), ``depth`` blocks of two LayerNorms (weight and
    bias, :406-408), a biased qkv and proj (:302-314), an fc1/fc2 MLP of ``embed_dim x mlp_ratio`` with bias
    (:254-268, :409), and the patch merger (LayerNorm(embed_dim), biased Linear(W, W) and Linear(W,
    hidden_size), W = embed_dim x spatial_merge_size^2, :475-510). None when a size is missing."""
    e, depth, d = _int(vc.get("embed_dim")), _int(vc.get("depth")), _int(vc.get("hidden_size"))
    patch = _int(vc.get("patch_size"))
    ratio = vc.get("mlp_ratio")
    if not (e and depth and d and patch) or not isinstance(ratio, (int, float)) or isinstance(ratio, bool):
        return None
    m = int(e * ratio)
    in_ch = _int(vc.get("in_channels")) or _int(vc.get("in_chans")) or 3
    tps = _int(vc.get("temporal_patch_size")) or 2
    merge = _int(vc.get("spatial_merge_size")) or 2
    embed = in_ch * tps * patch * patch * e
    block = 2 * (2 * e) + (3 * e * e + 3 * e) + (e * e + e) + (e * m + m) + (m * e + e)
    wide = e * merge * merge
    merger = 2 * e + (wide * wide + wide) + (wide * d + d)
    return embed + depth * block + merger


def gemma4_vision_params(vc: Mapping[str, Any], text_hidden: int | None) -> int | None:
    """Gemma-4's vision tower, built by vLLM with transformers' AutoModel ([0.19.0] vllm/model_executor/
    models/gemma4_mm.py:888-895; transformers 5.19.0 models/gemma4/modeling_gemma4.py): a patch embedder
    (input_proj 3 x patch^2 -> hidden and a 2 x position_embedding_size x hidden table, :587-596), layers of
    q/k/v/o without bias with q/k norms (:905-925), a gated MLP (:699-707) and four RMSNorms (:974-985), the
    standardize bias/scale buffers (:1992-1994), and embed_vision's projection to the text width without
    bias (gemma4_mm.py:792-830). None when a size is missing."""
    h, inter, layers = _int(vc.get("hidden_size")), _int(vc.get("intermediate_size")), _int(vc.get("num_hidden_layers"))
    heads, patch, pos = (
        _int(vc.get("num_attention_heads")),
        _int(vc.get("patch_size")),
        _int(vc.get("position_embedding_size")),
    )
    if not (h and inter and layers and heads and patch and pos and text_hidden):
        return None
    kv = _int(vc.get("num_key_value_heads")) or heads
    hd = _int(vc.get("head_dim")) or h // heads
    embed = 3 * patch * patch * h + 2 * pos * h
    layer = h * heads * hd + 2 * h * kv * hd + heads * hd * h + 2 * hd + 3 * h * inter + 4 * h
    standardize = 2 * h if vc.get("standardize") else 0
    return embed + layers * layer + standardize + h * text_hidden


def vision_tower_params(config: Mapping[str, Any]) -> int | None:
    """The vision tower's parameters, when vLLM's encoder for this model type is modelled here."""
    vc = config.get("vision_config")
    if not isinstance(vc, Mapping):
        return None
    model_type = str(config.get("model_type") or "")
    if model_type in QWEN3_VISION_MODELS:
        return qwen3_vision_params(vc)
    if model_type == "qwen2_5_vl":
        return qwen2_5_vision_params(vc)
    if model_type == "qwen2_vl":
        return qwen2_vision_params(vc)
    if model_type == "gemma4":
        text = config.get("text_config") if isinstance(config.get("text_config"), Mapping) else config
        return gemma4_vision_params(vc, _int(text.get("hidden_size")))
    return None


__all__ = [
    "gemma4_vision_params",
    "qwen2_5_vision_params",
    "qwen2_vision_params",
    "qwen3_vision_params",
    "vision_tower_params",
]
