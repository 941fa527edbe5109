"""A failure the memory model predicts from catalog facts of low confidence (partly inferred, see
docs/models.md) is an error only when no inference could explain it (the launch fails with every size
its facts give halved); otherwise a warning that says why. explain says the facts are of low confidence.
The rule takes the launch's whole need, so a larger GPU never gets a worse verdict from it."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from vlint.cli import main
from vlint.resolve.model_sources import find_model

LOW = "RedHatAI/Llama-3.3-70B-Instruct-quantized.w8a8"
SURE = "meta-llama/Llama-3.3-70B-Instruct"


def _vl210(tmp_path: Path, max_model_len: int, gpu: str = "L40S:2", model: str = LOW) -> dict:
    f = tmp_path / "serve.sh"
    f.write_text(f"vllm serve {model} --tensor-parallel-size 2 --max-model-len {max_model_len}\n")
    r = CliRunner().invoke(
        main, ["check", "--isolated", "--gpu", gpu, "--vllm-version", "0.19.1", "--format", "json", str(f)]
    )
    return next(x for x in json.loads(r.output)["findings"] if x["code"] == "VL210")


def test_the_catalog_record_is_of_low_confidence() -> None:
    found = find_model(LOW)
    assert found.arch is not None and found.arch.confidence == "low"


def test_a_shortfall_inferred_facts_could_explain_is_a_warning(tmp_path: Path) -> None:
    f = _vl210(tmp_path, 65536)  # 10 GiB of KV needed, about 5.3 left: under twice
    assert f["severity"] == "warning" and "low confidence" in f["message"], f
    assert f["data"]["model_facts_confidence"] == "low"


def test_a_wide_kv_shortfall_halved_facts_would_fit_is_a_warning(tmp_path: Path) -> None:
    """20 GiB of KV needed and about 5.3 left (3.8x, an error under a rule that reads the KV stage's
    ratio alone), but 33.9 GiB of weights + 20 GiB of KV halved fit the 40 GiB budget."""
    f = _vl210(tmp_path, 131072)
    assert f["severity"] == "warning" and "low confidence" in f["message"], f


def test_a_shortfall_no_inference_explains_stays_an_error(tmp_path: Path) -> None:
    """On 2 x L4 the 33.9 GiB of weights miss the 21.1 GiB free by 1.6x only (a warning under a rule
    that reads the weights stage alone), but weights and the 20 GiB of KV halved (27 GiB) still exceed
    the 19.8 GiB budget: no inference explains it."""
    f = _vl210(tmp_path, 131072, gpu="L4:2")
    assert f["data"]["stage"] == "weights", f
    assert f["severity"] == "error" and "low confidence" not in f["message"], f


def test_facts_of_normal_confidence_are_never_softened(tmp_path: Path) -> None:
    """The same shortfall with a catalog model of normal confidence stays an error (must not fire)."""
    assert find_model(SURE).arch is not None and find_model(SURE).arch.confidence != "low"
    f = _vl210(tmp_path, 131072, model=SURE)
    assert f["severity"] == "error" and "low confidence" not in f["message"], f


def test_explain_says_the_facts_are_of_low_confidence() -> None:
    r = CliRunner().invoke(main, ["explain", "--model", LOW, "--gpu", "H100", "--format", "json"])
    facts = json.loads(r.output)["deployments"][0]["model_facts"]
    assert facts["origin"] == "catalog" and facts["confidence"] == "low"


def test_a_check_that_uses_no_model_fact_is_not_softened(tmp_path: Path) -> None:
    """gpu_memory_utilization 1.0 asks for more than the GPU has free at startup, whatever the model."""
    f = tmp_path / "serve.sh"
    f.write_text(f"vllm serve {LOW} --tensor-parallel-size 2 --max-model-len 4096 --gpu-memory-utilization 1.0\n")
    r = CliRunner().invoke(
        main, ["check", "--isolated", "--gpu", "H100:2", "--vllm-version", "0.19.1", "--format", "json", str(f)]
    )
    found = [x for x in json.loads(r.output)["findings"] if x["code"] == "VL210"]
    assert found and found[0]["severity"] == "error" and found[0]["data"]["stage"] == "startup_free_memory", found


def test_the_reference_gpu_answer_follows_the_same_verdict() -> None:
    """gpu_fit (VL230/VL231) reads the estimate's verdict: a shortfall low-confidence facts could
    explain is too close to call there too, one they could not is a failure."""
    fits = {g["gpu"]: g for g in _fits(65536)}
    assert fits["L40S"]["too_close_to_call"] and not fits["L40S"]["starts"]
    assert not fits["T4"]["too_close_to_call"] and not fits["T4"]["starts"]  # 33.9 GiB of weights on a 15 GiB GPU


def _fits(max_model_len: int) -> list[dict]:
    r = CliRunner().invoke(
        main,
        [
            "explain",
            "--isolated",
            "--model",
            LOW,
            "--set",
            "tensor_parallel_size=2",
            "--set",
            f"max_model_len={max_model_len}",
            "--vllm-version",
            "0.19.1",
            "--format",
            "json",
        ],
    )
    return json.loads(r.output)["deployments"][0]["gpu_fit"]


def test_a_larger_gpu_never_gets_a_worse_verdict() -> None:
    """The reference-GPU list is monotonic: ordered by memory, start < too close < will not start never
    goes back up (L4 fails at the weights, L40S and A100-40GB at the KV cache; the rule that read each
    stage's ratio alone gave L4 "too close", A100-40GB "not", L40S "too close" at 64k)."""
    for mml in (65536, 131072):
        fits = sorted(_fits(mml), key=lambda g: g["total_gib"])
        rank = [0 if g["starts"] else 1 if g["too_close_to_call"] else 2 for g in fits]
        assert rank == sorted(rank, reverse=True), [(g["gpu"], r) for g, r in zip(fits, rank, strict=True)]
        by = {g["gpu"]: r for g, r in zip(fits, rank, strict=True)}
        assert by["L4"] == 2 and by["A100-40GB"] == 1 and by["L40S"] == 1, by
