"""Whether tensor parallelism can split a model evenly, as vLLM decides it.

Three checks, in the order vLLM makes them, the same in every bundled release (0.6.6 → 0.33.0):

* ``ModelConfig.verify_with_parallel_config`` raises ``ValueError: Total number of attention heads
  (H) must be divisible by tensor parallel size (T).`` before anything is loaded
  (``vllm/config/model.py:1558-1565`` in 0.33.0, ``vllm/config.py:672-678`` in 0.6.6.post1);
* the vocabulary embedding is built first (an assertion, while the model is built):
  ``VocabParallelEmbedding`` pads the vocabulary to a multiple of 64 and asserts
  ``divide(padded, T)`` (``vllm/model_executor/layers/vocab_parallel_embedding.py:75-77,289-291``
  in 0.19.1; Qwen3-14B at TP5: "151936 is not divisible by 5", calibration README §8);
* ``QKVParallelLinear`` then splits the KV heads: with ``T >= KV`` each head is replicated
  ``divide(T, KV)`` times, else each rank holds ``divide(KV, T)`` heads, and ``divide`` asserts
  ``AssertionError: A is not divisible by B`` while the model is built
  (``vllm/model_executor/layers/linear.py:1064-1071`` and ``vllm/distributed/utils.py:51-55``,
  0.33.0). MLA models keep one latent KV vector that is not split this way.
"""

from __future__ import annotations

from vlint.core.record import record
from vlint.resolve.model_arch import ModelArch

#: the tensor-parallel sizes vlint proposes (fixes, what-ifs, `vlint size`): one node's GPU counts
TP_SIZES = (1, 2, 4, 8, 16)
#: DEFAULT_VOCAB_PADDING_SIZE (vllm/model_executor/layers/vocab_parallel_embedding.py:28, 0.19.1)
VOCAB_PADDING = 64


@record(frozen=True, slots=True)
class SplitError:
    """vLLM's error for a tensor-parallel size that cannot split the heads."""

    message: str  # as vLLM prints it
    stage: str  # when vLLM raises it
    heads: int
    kv_heads: int | None  # set when the KV heads are the problem


def tp_split_error(arch: ModelArch, tp: int) -> SplitError | None:
    if tp <= 1:
        return None
    heads = arch.num_attention_heads
    if heads % tp:
        return SplitError(
            f"ValueError: Total number of attention heads ({heads}) must be divisible by tensor parallel size ({tp}).",
            "when the engine configuration is checked",
            heads,
            None,
        )
    padded = -(-arch.vocab_size // VOCAB_PADDING) * VOCAB_PADDING
    if arch.vocab_size > 0 and padded % tp:
        return SplitError(
            f"AssertionError: {padded} is not divisible by {tp}",
            f"while the model is built (VocabParallelEmbedding splits the vocabulary, padded to {padded}, "
            f"across {tp} ranks)",
            heads,
            None,
        )
    kv = arch.num_kv_heads
    if arch.is_mla or kv <= 0 or (arch.full_num_kv_heads and arch.full_num_kv_heads != kv):
        return None
    a, b = (tp, kv) if tp >= kv else (kv, tp)
    if a % b:
        return SplitError(
            f"AssertionError: {a} is not divisible by {b}",
            f"while the model is built (QKVParallelLinear splits {kv} KV heads across {tp} ranks)",
            heads,
            kv,
        )
    return None


def tp_splits(arch: ModelArch, tp: int) -> bool:
    """vLLM can run the model with tensor-parallel size ``tp``."""
    return tp_split_error(arch, tp) is None
