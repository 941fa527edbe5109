"""gpt-oss's model config raises the default CUDA-graph capture sizes (GptOssForCausalLMConfig in
vllm/model_executor/models/config.py): 83 sizes up to 1024 on 0.10.1-0.10.2 and from 0.11.1, 81 up to 992
on 0.11.0; never when the launch sets the sizes. Logged: r100 (0.19.0) "Overriding max cuda graph capture
size to 1024 for performance." with 83 capture sizes, "Profiling CUDA graph memory: PIECEWISE=83
(largest=1024), FULL=83 (largest=1024)"."""

from __future__ import annotations

import pytest

from tests.memory.helpers import inputs
from vlint.core.version import V
from vlint.memory.estimate import graph_counts
from vlint.resolve.defaults import cudagraph_sizes

GPT_OSS = ("GptOssForCausalLM",)


def _sizes(version: str, archs: tuple[str, ...] = GPT_OSS, **kw) -> list[int]:
    args = {"max_num_seqs": 1024, "max_num_batched_tokens": 8192, "gpu": None, **kw}
    return cudagraph_sizes(V(version), engine="V1", architectures=archs, **args)[0]


@pytest.mark.parametrize(
    ("version", "count", "top"),
    [
        ("0.10.1.1", 83, 1024),
        ("0.10.2", 83, 1024),
        ("0.11.0", 81, 992),
        ("0.11.1", 83, 1024),
        ("0.19.0", 83, 1024),
        ("0.33.0", 83, 1024),
    ],
)
def test_gpt_oss_raises_the_max_capture_size(version: str, count: int, top: int) -> None:
    s = _sizes(version)
    assert len(s) == count and max(s) == top
    assert s[:4] == [1, 2, 4, 8] and 256 in s and 272 in s and 264 not in s


def test_other_models_keep_the_default() -> None:
    assert max(_sizes("0.19.0", archs=("LlamaForCausalLM",))) == 512
    assert len(_sizes("0.19.0", archs=())) == 51
    assert max(_sizes("0.10.2", archs=())) == 512  # 67 sizes, the "from 67 to 83" of vLLM's comment
    assert len(_sizes("0.10.2", archs=())) == 67
    assert _sizes("0.10.0") == _sizes("0.10.0", archs=())  # applied from 0.10.1 (0.10.0 not checked)


def test_from_0_11_1_not_capped_by_max_num_seqs_only_by_the_token_budget() -> None:
    # [0.19.0] vllm/config/vllm.py:1389-1403: a set max_cudagraph_capture_size is capped at max_num_batched_tokens
    assert max(_sizes("0.19.0", max_num_seqs=256, max_num_batched_tokens=8192)) == 1024
    assert max(_sizes("0.19.0", max_num_seqs=256, max_num_batched_tokens=2048)) == 1024
    assert max(_sizes("0.19.0", max_num_seqs=256, max_num_batched_tokens=512)) == 512


def test_the_launchs_own_sizes_win() -> None:
    assert _sizes("0.19.0", user_sizes=[1, 2, 4, 8]) == [1, 2, 4, 8]
    assert max(_sizes("0.19.0", user_max=256)) == 256
    # 0.10: a single cuda_graph_sizes value of 1024 or more is kept; below, replaced
    assert max(_sizes("0.10.2", cuda_graph_sizes=[2048])) == 2048
    assert max(_sizes("0.10.2", cuda_graph_sizes=[64])) == 1024
    assert _sizes("0.10.2", cuda_graph_sizes=[8, 16]) == [8, 16]


def test_the_memory_model_captures_83_plus_83_graphs() -> None:
    inp = inputs("openai/gpt-oss-20b", max_num_seqs=1024, max_num_batched_tokens=8192)
    assert graph_counts(inp) == (83, 83)
