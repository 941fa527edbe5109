"""vLLM's float16 refusals per release, read from each bundled release's _FLOAT16_NOT_SUPPORTED_MODELS."""

from __future__ import annotations

import pytest

from vlint.core.version import V
from vlint.resolve.dtypes import float16_refusal, refuses_float16


@pytest.mark.parametrize(
    ("model_type", "version", "refused"),
    [
        ("gemma3", "0.8.5.post1", False),  # no check before 0.9
        ("gemma3", "0.9.2", True),
        ("gemma3", "0.33.0", True),
        ("gemma2", "0.19.1", True),
        ("glm4", "0.10.2", True),
        ("gemma3_text", "0.10.0", False),  # vllm/config.py of 0.10.0 lists gemma2, gemma3, glm4, plamo2
        ("gemma3_text", "0.10.2", True),
        ("plamo2", "0.25.1", True),
        ("plamo2", "0.28.0", False),  # dropped from the list
        ("chatglm", "0.33.0", False),  # GLM-4-9B-chat's model type is not glm4
        ("llama", "0.33.0", False),
        (None, "0.33.0", False),
    ],
)
def test_refuses_float16(model_type: str | None, version: str, refused: bool) -> None:
    assert refuses_float16(model_type, V(version)) is refused


def test_message_is_vllms() -> None:
    assert float16_refusal("gemma3") == (
        "ValueError: The model type 'gemma3' does not support float16. Reason: Numerical instability. "
        "Please use bfloat16 or float32 instead."
    )
