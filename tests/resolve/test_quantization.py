"""--quantization against the checkpoint's method: only cross-family pairs are vLLM's mismatch error."""

from __future__ import annotations

import pytest

from vlint.resolve.quantization import quantization_mismatch


@pytest.mark.parametrize(
    ("checkpoint", "flag", "error"),
    [
        ("gptq", "awq", True),
        ("awq", "gptq_marlin", True),
        ("awq", "fp8", True),
        ("compressed-tensors", "fp8", True),
        ("fp8", "awq", True),
        ("gptq", "gptq_marlin", False),  # the override vLLM makes itself
        ("awq", "awq_marlin", False),
        ("gptq", "marlin", False),
        ("GPTQ", "Gptq", False),
        ("gptq", "moe_wna16", False),  # can claim GPTQ/AWQ MoE checkpoints: not judged
        ("modelopt", "fp8", False),  # modelopt methods claim other formats: not judged
        (None, "fp8", False),  # unquantized: fp8 quantizes at load time
        (None, "awq", False),  # unquantized + awq fails later, at weight loading: not this check
        ("awq", None, False),
    ],
)
def test_mismatch(checkpoint: str | None, flag: str | None, error: bool) -> None:
    assert (quantization_mismatch(checkpoint, flag) is not None) is error


def test_message_is_vllms() -> None:
    assert quantization_mismatch("gptq", "awq") == (
        "ValueError: Quantization method specified in the model config (gptq) does not match the "
        "quantization method specified in the `quantization` argument (awq)."
    )
