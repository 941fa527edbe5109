"""Weights of quantized (and other catalog-addition) checkpoints against real vLLM logs.

Each case is one public vLLM startup log that states "Model loading took X GiB" for a checkpoint whose
config.json is not in any public copy found (``tools/catalog_additions.json`` builds it from its base
checkpoint and its model card). The weight memory vlint computes for that deployment (serving dtype
and tensor-parallel size as logged) must match the logged figure: this is the test that the added
records and the format sizing are right, not only self-consistent.
"""

from __future__ import annotations

import pytest

from vlint.core.version import Version
from vlint.memory.weights import loaded_weights
from vlint.resolve.catalog import lookup_catalog

GIB = float(2**30)
SWEEP = "https://github.com/jgchn/llm-d-planner/blob/d3121e059da88662db39a926a3ead964be97359b/accuracy/results/v0.19.0/logs/"

#: (model, vLLM, serving dtype, tensor parallel, logged GiB, log)
CASES = (
    (
        "RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w8a8",
        "0.19.0",
        "float16",
        1,
        8.49,
        SWEEP + "w8a8-redhatai-llam--h100-80gb--tp1pp1dp1--8192-dtf16.log",
    ),
    (
        "RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16",
        "0.19.0",
        "float16",
        1,
        5.38,
        SWEEP + "w4a16-redhatai-lla--h100-80gb--tp1pp1dp1--8192-dtf16.log",
    ),
    (
        "RedHatAI/Qwen2.5-7B-Instruct-quantized.w8a8",
        "0.19.0",
        "bfloat16",
        1,
        8.14,
        SWEEP + "w8a8-redhatai-qwen2-5-7b--h100-80gb--tp1pp1dp1--8192.log",
    ),
    (
        "RedHatAI/Qwen2.5-7B-Instruct-fp8-dynamic",
        "0.19.0",
        "bfloat16",
        1,
        8.14,
        SWEEP + "fp8dyn-redhatai-qwen2-5---h100-80gb--tp1pp1dp1--8192.log",
    ),
    (
        "redhatai/Llama-3.3-70B-Instruct-quantized.w8a8",
        "0.19.0",
        "bfloat16",
        2,
        33.88,
        SWEEP + "redhatai-llama-3-3-70b-i--h100-80gb--tp2pp1dp1--8192.log",
    ),
    (
        "neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w8a8",
        "0.7.1",
        "bfloat16",
        1,
        67.7229,
        "https://github.com/vllm-project/vllm/pull/12569",
    ),
    (
        "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
        "0.19.0",
        "bfloat16",
        1,
        44.76,
        SWEEP + "mistralai-mistral-small---h100-80gb--tp1pp1dp1--8192.log",
    ),
    (
        "RedHatAI/Mistral-Small-3.1-24B-Instruct-2503-quantized.w8a8",
        "0.19.0",
        "bfloat16",
        1,
        24.07,
        SWEEP + "w8a8-mistral-small-24b--h100-80gb--tp1pp1dp1--8192.log",
    ),
)
#: the logs print two decimals; the layouts leave out only norms and biases
TOLERANCE = 0.005


@pytest.mark.parametrize("model,version,dtype,tp,logged,log", CASES, ids=[c[0] for c in CASES])
def test_weights_match_the_logged_model_loading(model, version, dtype, tp, logged, log):
    arch = lookup_catalog(model)
    assert arch is not None, f"{model} is not in the bundled catalog"
    w = loaded_weights(
        arch, serving_dtype=dtype, version=Version.parse(version), gpu=None, tp=tp, parts=[arch.num_layers]
    )
    got = w.per_stage[0] / GIB
    assert abs(got - logged) / logged < TOLERANCE, f"{model}: {got:.2f} GiB vs {logged} GiB logged in {log}"


def test_the_quantized_ones_are_sized_from_their_format():
    for model, *_ in CASES:
        arch = lookup_catalog(model)
        assert arch is not None
        if "quantized" in model or "fp8" in model:
            assert arch.quant is not None and arch.weight_bytes is None, model  # laid out, not scaled to a size
