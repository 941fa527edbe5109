"""Memory that comes with optional features: speculative-decoding drafters and LoRA slots.

Both are allocated while the model loads, so vLLM counts them in "Model loading took"; a drafter's
attention layers also get KV-cache pages next to the target's.

Speculative decoding ([0.19.0] vllm/v1/spec_decode/eagle.py load_model, vllm/v1/worker/
gpu_model_runner.py get_kv_cache_spec): ``ngram``/``suffix`` allocate nothing; EAGLE has one decoder
layer plus an ``fc`` of 2·hidden → hidden, EAGLE-3 one layer whose q/k/v read 2·hidden, an ``fc`` of
3·hidden → hidden and its own lm_head over ``draft_vocab_size`` (32k); both share the target's
embeddings. MTP re-runs the checkpoint's ``num_nextn_predict_layers`` extra decoder layers (with
``eh_proj`` 2·hidden → hidden), which vLLM loads only when MTP is on. A separate draft model brings
all of its weights and layers. The drafter's layers use the target's attention shape unless its
config is known (``draft_arch``).

LoRA ([0.19.0] vllm/lora/layers/base_linear.py:35-88, fused_moe.py:357-410): every LoRA-wrapped
linear preallocates ``lora_a`` [max_loras, rank, in] and ``lora_b`` [max_loras, out, rank] per slice,
column-parallel layers split ``out`` and row-parallel ones ``in`` over TP; MoE experts get the same
per expert from 0.11.2 (lora/layers/fused_moe.py).
"""

from __future__ import annotations

from vlint.core.memo import BoundedMemo
from vlint.core.record import field, record, replace
from vlint.core.typing_names import TYPE_CHECKING
from vlint.core.version import V
from vlint.memory.weights import moe_split
from vlint.resolve.model_arch import FULL, ModelArch, dtype_bytes
from vlint.resolve.weight_sizes import checkpoint_layout, layer_kind_key, layer_linears

if TYPE_CHECKING:
    from vlint.memory.inputs import MemoryInputs

NO_MEMORY_METHODS = ("ngram", "suffix", "ngram_gpu", "[ngram]")
EAGLE_METHODS = ("eagle", "eagle3", "eagle-3", "eagle_3")
MTP_METHODS = ("mtp", "deepseek_mtp", "qwen3_next_mtp", "glm4_moe_mtp", "ernie_mtp", "mimo_mtp", "longcat_flash_mtp")


@record
class DraftEstimate:
    method: str
    weights_bytes: float = 0.0  # per TP rank
    layers: int = 0  # drafter attention layers that get KV pages
    arch: ModelArch | None = None  # shape of those layers
    #: the drafter's layers are full-attention layers of ``arch``'s attention shape (an MTP module or an EAGLE
    #: head built on the target's shape), whatever kinds the target's own layers have
    full_attention: bool = False
    notes: list[str] = field(default_factory=list)


def _layer_bytes(arch: ModelArch, layer: int, b: float) -> float:
    return sum(m.out_f * m.in_f * m.count for m in layer_linears(arch, layer)) * b + 2 * arch.hidden_size * b


#: model types whose MTP modules vLLM builds under the ``mtp.`` prefix ([0.25.1]
#: vllm/model_executor/models/qwen3_5_mtp.py:105-111, 216-218; qwen3_next_mtp.py likewise); the others
#: (DeepSeek-style) number them after the decoder layers (``model.layers.{num_hidden_layers}``)
MTP_PREFIX_TYPES = ("qwen3_next", "qwen3_5", "qwen3_5_moe", "qwen3_5_text", "qwen3_5_moe_text")


def _mtp_probe(a: ModelArch) -> str:
    """A linear of the first MTP layer, named as the checkpoint's quantization config names it."""
    kind = a.text_model_type or a.model_type or ""
    base = "mtp.layers.0" if kind in MTP_PREFIX_TYPES else f"model.layers.{a.num_layers}"
    return f"{base}.mlp.experts.0.down_proj" if a.is_moe else f"{base}.mlp.down_proj"


def draft_estimate(inp: MemoryInputs) -> DraftEstimate | None:
    """Weights and KV layers of the speculative drafter, or None without speculative decoding."""
    method = (inp.spec_method or "").lower()
    if not method and inp.num_speculative_tokens and inp.draft_arch is not None:
        method = "draft_model"
    if not method or method in NO_MEMORY_METHODS:
        return None
    a = inp.arch
    b = dtype_bytes(inp.dtype if inp.dtype and inp.dtype != "auto" else a.serving_dtype_default)
    tp = max(1, inp.tensor_parallel_size)
    h = a.hidden_size
    est = DraftEstimate(method=method)
    d = inp.draft_arch
    if method in EAGLE_METHODS:
        shape = d or a
        last = shape.num_layers - 1 if d is not None else a.num_layers - 1
        n_layers = d.num_layers if d is not None else 1
        w = sum(_layer_bytes(shape, min(i, last), b) for i in range(n_layers))
        if method == "eagle":
            w += 2 * h * h * b
        else:
            heads_dim = shape.num_attention_heads * shape.head_dim + 2 * shape.num_kv_heads * shape.head_dim
            w += h * heads_dim * b  # q/k/v read [embeds, hidden]: one more hidden of inputs
            w += 3 * h * h * b  # fc over three target hidden states
            draft_vocab = 32000
            w += draft_vocab * h * b
        est.weights_bytes = w / tp
        est.layers = n_layers
        est.arch = shape
        # EAGLE heads are Llama decoder layers: full attention ([0.25.1] vllm/model_executor/models/llama_eagle.py)
        est.full_attention = d is None
        est.notes.append(
            f"{method} drafter: {n_layers} decoder layer(s) of {'its config' if d else 'the target shape'} "
            f"{w / 2**30:.2f} GiB, shares the target's embeddings"
        )
        return est
    if method in MTP_METHODS or method.endswith("_mtp"):
        n = max(1, a.num_nextn_predict_layers or 1)
        per = _layer_bytes(a, a.num_layers - 1, b) + 2 * h * h * b
        lay = checkpoint_layout(a)
        if lay.mtp:
            per = lay.mtp / n  # the checkpoint's stored MTP modules
        elif a.quant is not None and lay.layers and a.quant.quantizes(_mtp_probe(a), expert=a.is_moe):
            # MTP layers are stored like the other decoder layers of a quantized checkpoint, unless its
            # quantization config leaves them out (nvidia's Qwen3.5/3.6 NVFP4 exports ignore "mtp*"): then
            # the unquantized layer above, in the serving dtype
            per = lay.layers[-1] + 2 * h * h * b
        # an MoE MTP layer's routed experts are split like the target's (over DP too)
        routed = per * (lay.layers_expert[-1] / lay.layers[-1]) if lay.layers_expert and lay.layers[-1] else 0.0
        share = moe_split(inp).expert_share(a.num_experts) if a.is_moe else 1.0 / tp
        est.weights_bytes = n * ((per - routed) / tp + routed * share)
        est.layers = n
        est.arch = a
        # an MTP module's decoder layer is full attention even on a hybrid target (Qwen3.5/3.6:
        # layer_type="full_attention", [0.25.1] vllm/model_executor/models/qwen3_5_mtp.py:105-111; Qwen3-Next
        # likewise, qwen3_next_mtp.py), so its KV joins the full-attention group
        est.full_attention = True
        est.notes.append(
            f"MTP: {n} extra decoder layer(s) of the checkpoint loaded ({n * per / 2**30:.2f} GiB), "
            "sharing embeddings and lm_head"
        )
        return est
    if d is not None:
        lay = checkpoint_layout(d)
        est.weights_bytes = lay.total / tp
        est.layers = sum(1 for t in d.layer_types if t != "no_kv")
        est.arch = d
        est.notes.append(f"draft model {d.name}: {lay.total / 2**30:.2f} GiB of weights and {est.layers} KV layers")
        return est
    est.notes.append(f"speculative method {method!r}: drafter size unknown (not counted)")
    return est


def draft_kv_arch(est: DraftEstimate) -> ModelArch | None:
    """A ModelArch whose layers are the drafter's KV layers (full attention, the drafter's shape)."""
    if est.arch is None or est.layers <= 0:
        return None
    src = est.arch
    kinds = () if est.full_attention else tuple(t for t in src.layer_types if t not in ("no_kv",))[: est.layers]
    if len(kinds) < est.layers:
        kinds = kinds + (FULL,) * (est.layers - len(kinds))
    return replace(src, num_layers=est.layers, layer_types=kinds, name=f"{src.name} (drafter)")


#: LoRA slot bytes per stage by (model, dtype bytes, TP, rank, slots, MoE LoRA, stages): the same for a
#: launch on every reference GPU
_LORA: BoundedMemo[list[float]] = BoundedMemo(128)


def _stage_lora_bytes(a: ModelArch, b: float, tp: int, r: int, n: int, moe_lora: bool, parts: list[int]) -> list[float]:
    by_kind: dict[tuple[str, bool], float] = {}
    per_layer: list[float] = []
    for i in range(a.num_layers):
        kind = layer_kind_key(a, i)
        tot = by_kind.get(kind) if kind is not None else None
        if tot is None:
            tot = 0.0
            for m in layer_linears(a, i):
                if m.expert and not moe_lora:
                    continue
                if m.name.endswith((".gate", ".router")):
                    continue  # routers are replicated linears vLLM does not wrap by default
                row_parallel = m.name.endswith(("o_proj", "down_proj", "w2", "fc2"))
                # row-parallel: lora_a splits the input; column-parallel: lora_b splits the output
                elems = r * (m.in_f / tp) + m.out_f * r if row_parallel else r * m.in_f + (m.out_f / tp) * r
                tot += elems * m.count * n * b
            if kind is not None:
                by_kind[kind] = tot
        per_layer.append(tot)
    out, start = [], 0
    for k in parts:
        out.append(sum(per_layer[start : start + k]))
        start += k
    return out


def lora_bytes(inp: MemoryInputs, parts: list[int]) -> tuple[list[float], list[str]]:
    """Preallocated LoRA weight slots per TP rank of each PP stage."""
    if not inp.max_loras or inp.max_loras <= 0:
        return [0.0] * len(parts), []
    a = inp.arch
    b = dtype_bytes(inp.lora_dtype or (inp.dtype if inp.dtype and inp.dtype != "auto" else a.serving_dtype_default))
    tp = max(1, inp.tensor_parallel_size)
    r, n = int(inp.max_lora_rank or 16), int(inp.max_loras)
    moe_lora = inp.version >= V("0.11.2")
    key = (a, b, tp, r, n, moe_lora, tuple(parts))
    out = _LORA.get(key, lambda: _stage_lora_bytes(a, b, tp, r, n, moe_lora, parts))
    total = sum(out)
    note = (
        f"LoRA: {n} slot(s) of rank {r} preallocated on every linear layer"
        + (" incl. MoE experts" if a.is_moe and moe_lora else "")
        + f": {total / 2**30:.2f} GiB per rank (counted with the weights)"
    )
    return list(out), [note]


__all__ = ["DraftEstimate", "draft_estimate", "draft_kv_arch", "lora_bytes"]
