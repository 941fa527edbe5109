"""Findings on model facts inferred from a name (vlint.resolve.model_names): an error must mean vLLM
refuses, so every error that rests on such facts is a warning that says what was inferred; errors that do
not rest on them (an unknown flag) stay errors; the same launch with the model's real id keeps its errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return tmp_path


def findings(*args: str) -> list[dict]:
    r = CliRunner().invoke(main, ["--format", "json", *args], catch_exceptions=False)
    assert r.exit_code in (0, 1), r.output
    return json.loads(r.stdout)["findings"]


def test_errors_on_inferred_facts_are_warnings(work: Path) -> None:
    (work / "s.sh").write_text(
        "vllm serve /models/Qwen3-8B --max-model-len 100000 --gpu-memroy-utilization 0.9\n"
        "vllm serve Qwen/Qwen3-8B --max-model-len 100000\n"
    )
    got = {(f["line"], f["code"]): f for f in findings("--gpu", "T4", "s.sh")}
    # line 1: the folder's facts are Qwen/Qwen3-8B's by its name only
    for code in ("VL204", "VL210"):
        f = got[(1, code)]
        assert f["severity"] == "warning", f
        assert "rests on model facts inferred from the name: Qwen3-8B taken for Qwen/Qwen3-8B" in f["message"]
        assert f["data"]["model_facts"] == "inferred from the name"
    assert got[(1, "VL001")]["severity"] == "error"  # the parser's refusal needs no model fact
    # line 2: the catalog id itself, so vLLM's refusals stay errors
    assert got[(2, "VL204")]["severity"] == "error" and got[(2, "VL210")]["severity"] == "error"


def test_a_severity_the_user_sets_stands(work: Path) -> None:
    (work / "s.sh").write_text("vllm serve /models/Qwen3-8B --max-model-len 100000\n")
    (work / ".vlint.toml").write_text('[severity]\nVL204 = "error"\n')
    (vl204,) = [f for f in findings("--gpu", "L4", "s.sh") if f["code"] == "VL204"]
    assert vl204["severity"] == "error"


def test_the_summary_counts_inferred_launches(work: Path) -> None:
    (work / "s.sh").write_text("vllm serve /models/Qwen3-8B --max-model-len 8192\n")
    r = CliRunner().invoke(main, ["--gpu", "H100", "s.sh"], catch_exceptions=False)
    assert "(1 with model facts inferred from its name: map the model in [tool.vlint] models" in r.stdout
    r = CliRunner().invoke(main, ["explain", "s.sh"], catch_exceptions=False)
    assert "model facts: inferred from the name, low confidence — Qwen3-8B taken for Qwen/Qwen3-8B" in r.stdout
