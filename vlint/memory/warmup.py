"""The sampler warm-up V1 runs after the KV cache and the CUDA graphs, outside the profile's accounting.

What vLLM's code does (0.19.0; the same shape through 0.33):

- ``compile_or_warm_up_model`` captures the CUDA graphs, then, on the last PP rank, runs one eager forward
  of ``min(max_num_seqs, max_num_batched_tokens)`` tokens and ``_dummy_sampler_run`` over that many rows
  ([0.19.0] vllm/v1/worker/gpu_worker.py:586-588 capture, :666-686 the warm-up; "called after
  ``capture_model`` on purpose", :670-671). The KV cache is allocated before it, so the warm-up runs in
  what the KV cache and the graphs left free.
- The profile run calls the same ``_dummy_sampler_run`` with the same number of rows (``_dummy_run``
  makes ``min(num_tokens, max_num_seqs)`` dummy requests, [0.19.0] vllm/v1/worker/gpu_model_runner.py:
  5285-5289; ``profile_run`` samples their last hidden states, :5783-5790), so the activation peak the
  KV budget subtracts already holds the sampler pass: its bytes are
  :func:`vlint.memory.estimate.activation_terms` ``.sampler`` (per release and sampler path, from vLLM's
  sampler code: model-dtype logits, their float32 copy ([0.19.0] vllm/v1/sample/sampler.py:90), the
  softmax probs ([0.19.0] vllm/v1/sample/ops/topk_topp_sampler.py:112) and the exponential noise ``q``
  (:334) on the Triton top-k/top-p path, which masks in place, [0.19.0] topk_topp_triton.py:965-1050).
- ``memory_profiling`` ends with ``gc.collect(); empty_cache()`` ([0.19.0] vllm/utils/mem_utils.py:266-267),
  handing the peak back before the KV cache is allocated: the warm-up has the memory outside the budget,
  plus the activation peak, minus the CUDA-graph pool when the budget did not deduct it (0.19 and older
  by default; [0.19.0] gpu_worker.py:395-421).

What the code does not give: ``empty_cache`` releases only whole free segments of PyTorch's caching
allocator. A block of the profile pass that a tensor which outlives it shares a segment with stays
reserved (the Triton top-k/top-p scratch of [num SMs x vocab] float32 stays in a module cache,
topk_topp_triton.py:1013-1019), and how much depends on the allocation history. vLLM 0.19 logs it at
DEBUG ("Free memory after profiling"): 0.2-2.4 GiB kept on the v0.19 H100 sweep, 0.25 and 1.2 GiB for two
runs of the same Llama-3.1-8B launch; r100 (gpt-oss-20b, 0.95) died allocating the warm-up's last
[1024 x 201,088] float32 block with "1.78 GiB reserved by PyTorch but unallocated". That amount is not
predicted: the warm-up is a risk (a warning, never an error) when the memory left after it is less
than one such float32 block plus the room's own uncertainty.
"""

from __future__ import annotations

import math

from vlint.core.record import record
from vlint.core.version import V
from vlint.memory.constants import constants
from vlint.memory.inputs import MemoryInputs

GIB = float(2**30)

#: the release from which V1 warms the sampler up after the KV cache (the check vlint had before;
#: [0.19.0] vllm/v1/worker/gpu_worker.py:666-686)
SAMPLER_WARMUP_SINCE = "0.9.0"

#: bytes per element of the largest single [rows x vocab] tensor the warm-up allocates, per sampler path
#: (:func:`vlint.memory.estimate.sampler_bytes_per_element`): the block a fragmented free memory must still
#: hold. The sort path's int64 indices ([0.10.2] vllm/v1/sample/ops/topk_topp_sampler.py:138-165,
#: ``logits.sort`` returns values and int64 indices; [0.19.0] :279 for fewer than 8 rows); otherwise a
#: float32 tensor: the logits' float32 copy, the probs and the noise ``q`` ([0.19.0] vllm/v1/sample/
#: sampler.py:90, topk_topp_sampler.py:112, :334)
LARGEST_BLOCK_BYTES = {"pytorch_sort": 8, "triton_inplace": 4, "flashinfer": 4}


@record(frozen=True)
class SamplerWarmup:
    """The warm-up's own need against what is free when it runs (GiB, the last PP stage)."""

    rows: int
    vocab: int
    #: the sampler pass's tensors at their peak: the profile's sampler term, same code and rows
    need_gib: float
    #: the largest single [rows x vocab] tensor the warm-up asks for (:data:`LARGEST_BLOCK_BYTES`)
    block_gib: float
    #: free when it runs: outside the budget + the activation peak handed back − graphs not deducted
    room_gib: float
    #: the room's uncertainty: the measured per-term errors of the terms it is made of (2σ)
    band_gib: float
    #: the CUDA-graph pool captured before it outside the budget (taken from the room), 0 when deducted
    graphs_gib: float = 0.0

    @property
    def slack_gib(self) -> float:
        return self.room_gib - self.need_gib

    @property
    def margin_gib(self) -> float:
        """The slack it needs to be safe: its largest block (fragmentation) plus the room's band."""
        return self.block_gib + self.band_gib

    @property
    def at_risk(self) -> bool:
        return self.slack_gib < self.margin_gib

    def risk(self) -> str:
        return (
            f"may fail at sampler warm-up: {self.rows} dummy requests × {self.vocab:,} vocab need "
            f"~{self.need_gib:.2f} GiB after the KV cache and CUDA graphs, ~{self.room_gib:.2f} GiB is free then, "
            f"and the {self.slack_gib:.2f} GiB left is less than its largest [{self.rows} × vocab] block "
            f"({self.block_gib:.2f} GiB) plus the estimate's ±{self.band_gib:.2f} GiB (what PyTorch keeps reserved "
            "from the profile pass is not counted); lower --gpu-memory-utilization or --max-num-seqs"
            + (
                f", or capture fewer CUDA graphs (smaller cudagraph_capture_sizes, or --enforce-eager: the "
                f"~{self.graphs_gib:.2f} GiB graph pool is taken from this room)"
                if self.graphs_gib > 0
                else ""
            )
        )


def warmup_applies(inp: MemoryInputs) -> bool:
    """V1 GPU launches from 0.9.0 that sample (a pooling runner warms its pooler instead)."""
    return inp.engine == "V1" and inp.version >= V(SAMPLER_WARMUP_SINCE) and inp.runner != "pooling"


def room_band_gib(inp: MemoryInputs, activation_gib: float, graphs_outside_gib: float) -> float:
    """2σ of the room: the leave-one-out errors of the activation peak, the CUDA graphs outside the
    budget and the non-torch/context memory (``uncertainty`` constants), added in quadrature."""
    uc = constants("uncertainty", inp.version, inp.engine)
    k = float(uc.get("k", 2.0)) * float(uc.get("scale", 1.0))
    terms = (
        float(uc.get("activation_rel", 0.1)) * activation_gib,
        float(uc.get("graphs_rel", 0.2)) * graphs_outside_gib,
        float(uc.get("non_torch_abs_gib", 0.2)),
    )
    return k * math.sqrt(sum(t * t for t in terms))


def sampler_warmup(
    inp: MemoryInputs,
    *,
    sampler_bytes: float,
    path: str,
    rows: int,
    room_bytes: float,
    activation_gib: float,
    graphs_outside_gib: float,
    extra_band_gib: float = 0.0,
) -> SamplerWarmup | None:
    """The warm-up of one launch: ``sampler_bytes`` is the profile's sampler term (the same pass),
    ``path`` the sampler path it took, ``room_bytes`` what is free when it runs. None when the launch does
    not warm a sampler up."""
    if not warmup_applies(inp) or sampler_bytes <= 0 or rows <= 0:
        return None
    vocab = int(inp.arch.vocab_size)
    block = rows * vocab * LARGEST_BLOCK_BYTES.get(path, 4) / GIB
    band = room_band_gib(inp, activation_gib, graphs_outside_gib) + extra_band_gib
    return SamplerWarmup(rows, vocab, sampler_bytes / GIB, block, room_bytes / GIB, band, graphs_outside_gib)


__all__ = [
    "LARGEST_BLOCK_BYTES",
    "SAMPLER_WARMUP_SINCE",
    "SamplerWarmup",
    "room_band_gib",
    "sampler_warmup",
    "warmup_applies",
]
