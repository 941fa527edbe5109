"""Shared fixtures. Tests that read ../shared (corpus, calibration) skip with a reason when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def shared_dir() -> Path | None:
    """The shared data folder (corpus, calibration): $VLINT_SHARED or ../shared next to the repo."""
    env = os.environ.get("VLINT_SHARED")
    for cand in ([Path(env)] if env else []) + [ROOT.parent / "shared", Path("/work/shared")]:
        if (cand / "corpus").is_dir():
            return cand
    return None


@pytest.fixture
def shared() -> Path:
    d = shared_dir()
    if d is None:
        pytest.skip("shared data (../shared with corpus/ and calibration/) is not present in this checkout")
    return d


@pytest.fixture(autouse=True)
def _no_user_hf_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Model look-ups read the local Hugging Face cache: the developer's own must not change results
    (tests that need one build a fake cache and point HF_HUB_CACHE at it)."""
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path_factory.getbasetemp() / "no-hf-cache"))


@pytest.fixture
def tiny_config() -> dict:
    """A small Llama-shaped config.json, for tests that need a model vlint does not bundle."""
    return {
        "architectures": ["LlamaForCausalLM"],
        "model_type": "llama",
        "hidden_size": 1024,
        "intermediate_size": 2816,
        "num_attention_heads": 16,
        "num_key_value_heads": 4,
        "num_hidden_layers": 8,
        "vocab_size": 32000,
        "max_position_embeddings": 4096,
        "torch_dtype": "bfloat16",
    }
