"""Memory reach of the catalog additions (issue 29): checkpoints added to ``tools/catalog_additions.json``
for the models vLLM's docs and recipes serve get a memory estimate from the bundled catalog alone
(``--isolated``, an empty Hugging Face cache), sized from their own format; a name no source backs is
still reported as unknown, never guessed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main
from vlint.core.version import Version
from vlint.memory.weights import loaded_weights
from vlint.resolve.catalog import lookup_catalog

GIB = float(2**30)


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))
    return tmp_path


def explain(work: Path, model: str, *args: str) -> dict:
    (work / "start.sh").write_text(f"vllm serve {model} --max-model-len 4096\n")
    r = CliRunner().invoke(
        main, ["explain", "--isolated", "--format", "json", *args, "start.sh"], catch_exceptions=False
    )
    assert r.exit_code == 0, r.stdout
    (dep,) = json.loads(r.stdout)["deployments"]
    return dep


#: (model, weights GiB low, high, why): the bounds are the checkpoint's size worked out by hand
CASES = (
    # FP8 linears (6.98 B params, 1 byte) + BF16 embeddings and lm_head (2 x 0.525 B, 2 bytes): 9.08 GB
    ("nvidia/Llama-3.1-8B-Instruct-FP8", 8.2, 8.7, "ModelOpt FP8 from a recipe variant"),
    # ModelOpt FP8 of Llama-3.3-70B: FP8 linears (68.5 B params) + BF16 embeddings and lm_head (2 x 1.05 B)
    ("nvidia/Llama-3.3-70B-Instruct-FP8", 65.0, 68.0, "ModelOpt FP8 from a recipe variant"),
    # AWQ 4-bit linears (31.2 B params, half a byte, + scales and zeros per 128) + BF16 embeddings and head
    ("Qwen/Qwen3-32B-AWQ", 17.0, 19.0, "AutoAWQ GEMM"),
    # 303 M params served in BF16 (the config says float32; vLLM's auto dtype halves it)
    ("google/embeddinggemma-300m", 0.5, 0.65, "a verbatim config copy"),
    # from the NVFP4 checkpoint NVIDIA made of it, quantization dropped: ~31 B params x 2 bytes
    ("google/gemma-4-31B-it", 55.0, 62.0, "unquantized from its quantized derivative"),
)


@pytest.mark.parametrize("model,low,high,why", CASES, ids=[c[0] for c in CASES])
def test_added_checkpoints_get_a_memory_estimate(work: Path, model: str, low: float, high: float, why: str) -> None:
    dep = explain(work, model, "--gpu", "H100")
    assert dep["memory"] is not None, dep.get("memory_unavailable")
    assert low < dep["memory"]["weights_gib"] < high, (why, dep["memory"]["weights_gib"])
    facts = dep["model_facts"]
    assert facts["origin"] == "catalog" and facts["confidence"] in ("low", "medium")
    assert "bundled catalog" in facts["source"]


def total_weights_gb(model: str) -> float:
    arch = lookup_catalog(model)
    assert arch is not None, model
    w = loaded_weights(
        arch, serving_dtype="bfloat16", version=Version.parse("0.19.0"), gpu=None, tp=1, parts=[arch.num_layers]
    )
    return w.per_stage[0] / 1e9


@pytest.mark.parametrize("model", ["moonshotai/Kimi-K2.6", "moonshotai/Kimi-K2.7-Code"])
def test_natively_quantized_checkpoint_is_sized_from_its_own_format(model: str) -> None:
    # the vLLM recipes (vllm-project/recipes@8959cf6 models/moonshotai/Kimi-K2.6.yaml, Kimi-K2.7-Code.yaml): INT4
    # via compressed-tensors "(~595 GB on disk)"; before the records, the name took them for unquantized shapes (2 TB)
    assert 585 < total_weights_gb(model) < 605


def test_nvfp4_deepseek_is_smaller_than_its_fp8_base() -> None:
    # NVFP4 (4 bits + a scale per 16) against the base's block FP8: the name alone sized it above the FP8 model
    assert total_weights_gb("nvidia/DeepSeek-R1-FP4") < 0.7 * total_weights_gb("deepseek-ai/DeepSeek-R1")


def test_added_checkpoints_answer_over_the_reference_gpus_too(work: Path) -> None:
    dep = explain(work, "nvidia/DeepSeek-R1-FP4")
    assert dep["memory"] is None and dep["gpu_fit"], dep.get("memory_unavailable")


def test_case_of_the_name_does_not_matter(work: Path) -> None:
    a = explain(work, "nvidia/Llama-3.3-70B-Instruct-FP8", "--gpu", "H100")
    b = explain(work, "NVIDIA/llama-3.3-70b-instruct-fp8", "--gpu", "H100")
    assert a["memory"]["weights_gib"] == b["memory"]["weights_gib"]


@pytest.mark.parametrize(
    "model",
    [
        "acme-research/not-a-published-model",  # no source at all
        "speakleash/Bielik-4.5B-v3.0-Instruct",  # served in the shared corpus, but no config.json copy was found
    ],
)
def test_an_unsourced_name_stays_unknown_and_is_reported(work: Path, model: str) -> None:
    dep = explain(work, model)
    assert dep["memory"] is None and not dep["gpu_fit"]
    assert dep["memory_unavailable"].startswith(f"the model {model} is unknown to vlint")
    r = CliRunner().invoke(main, ["--isolated", "start.sh"], catch_exceptions=False)
    assert "memory model: 0 of 1 launch; not checked: 1" in r.stdout and "unknown to vlint" in r.stdout
