"""vlint explain --set: each launch as written and with the changes, memory bars side by side."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from vlint.cli import main

MODEL = "meta-llama/Llama-3.1-8B-Instruct"


def explain(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(main, ["explain", *args])
    return r.exit_code, r.stdout


def test_text_shows_both_bars_on_one_line_and_the_numbers_that_move(tmp_path: Path) -> None:
    f = tmp_path / "start.sh"
    f.write_text(f"vllm serve {MODEL} --max-model-len 131072\n")
    code, out = explain(
        str(f), "--gpu", "L4", "--set", "max_model_len=16384", "--set", "kv_cache_dtype=fp8", "--no-color"
    )
    assert code == 0
    lines = out.splitlines()
    title = next(i for i, line in enumerate(lines) if "before (as written)" in line)
    assert "after (--set max_model_len=16384, kv_cache_dtype=fp8)" in lines[title]
    assert lines[title + 1].count("[") == 2 and lines[title + 1].count("]") == 2  # the two bars, side by side
    assert "max_model_len: 131072 → 16384" in out and "kv_cache_dtype: auto → fp8" in out
    verdict = next(line for line in lines if line.strip().startswith("verdict"))
    assert verdict.split()[1:] == ["will", "not", "start", "starts"]
    kv = next(line for line in lines if line.strip().startswith("GPU KV cache size"))
    assert kv.split()[-2].startswith("+")  # the change column


def test_json_has_before_after_and_the_set() -> None:
    code, out = explain("--model", MODEL, "--gpu", "L4", "--set", "max_model_len=16384", "--format", "json")
    assert code == 0
    (d,) = json.loads(out)["deployments"]
    assert d["set"] == {"max_model_len": "16384"}
    assert d["before"]["settings"]["max_model_len"] == 131072 and d["settings"]["max_model_len"] == 16384
    assert d["before"]["memory"]["starts"] is False and d["memory"]["starts"] is True
    # "before" is exactly what explaining the launch without --set gives
    code, direct = explain("--model", MODEL, "--gpu", "L4", "--format", "json")
    assert json.loads(direct)["deployments"][0]["memory"] == d["before"]["memory"]


def test_set_that_changes_gpu_memory_utilization_moves_the_budget() -> None:
    code, out = explain(
        "--model", MODEL, "--gpu", "H100", "--set", "max_model_len=8192", "--set", "gpu_memory_utilization=0.8",
        "--format", "json",
    )  # fmt: skip
    assert code == 0
    (d,) = json.loads(out)["deployments"]
    before, after = d["before"]["memory"], d["memory"]
    assert after["budget_gib"] < before["budget_gib"]
    assert round(before["kv_cache_gib"] - after["kv_cache_gib"], 1) == round(
        before["budget_gib"] - after["budget_gib"], 1
    )


def test_without_set_nothing_changes() -> None:
    code, out = explain("--model", MODEL, "--gpu", "H100", "--format", "json")
    assert code == 0
    (d,) = json.loads(out)["deployments"]
    assert "before" not in d and "set" not in d
    code, out = explain("--model", MODEL, "--gpu", "H100", "--no-color")
    assert code == 0 and "before (as written)" not in out and "available KV cache memory" in out


def test_every_memory_input_that_moves_is_listed() -> None:
    """--set dtype=float32 doubles the weights: it is a change, not "no setting changes"."""
    code, out = explain("--model", MODEL, "--gpu", "H100", "--set", "dtype=float32", "--set", "max_model_len=8192")
    assert code == 0
    assert "dtype: bfloat16 → float32" in out and "no setting changes" not in out
    weights = next(line for line in out.splitlines() if line.strip().startswith("model weights"))
    assert weights.split()[-2].startswith("+")
