"""V0's CUDA-graph capture sizes, computed without the candidate list, equal vLLM's definition."""

from __future__ import annotations

from vlint.resolve.defaults import _v0_sizes


def _as_vllm(max_num_seqs: int) -> list[int]:
    # [0.6.6.post1] vllm/config.py VllmConfig._set_cudagraph_sizes (V0)
    possible = [1, 2, 4] + [8 * i for i in range(1, 1025)]
    larger = [x for x in possible if x >= max_num_seqs]
    top = larger[0] if larger else possible[-1]
    return [x for x in possible if x <= top]


def test_every_max_num_seqs_gives_vllms_sizes() -> None:
    for n in [-1, 0, *range(1, 300), 511, 512, 513, 1000, 8184, 8185, 8192, 8193, 10**6]:
        assert _v0_sizes(n) == _as_vllm(n), n
