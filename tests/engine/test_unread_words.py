"""Words vlint cannot read in a launch's argv (``$EXTRA_ARGS``): errors resting on the defaults of options
the launch does not write become warnings that say so; errors on what it writes stand; the memory line
says what was assumed (never silent)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from vlint.cli import main

BASE = ["check", "--isolated", "--gpu", "L4", "--vllm-version", "0.19.1", "--format", "json"]


def _lint(tmp_path: Path, line: str) -> dict:
    f = tmp_path / "start.sh"
    f.write_text(line + "\n")
    r = CliRunner().invoke(main, [*BASE, str(f)])
    return json.loads(r.output)


def _codes(doc: dict) -> dict[str, str]:
    return {f["code"]: f["severity"] for f in doc["findings"]}


def test_memory_failure_resting_on_defaults_is_a_warning(tmp_path: Path) -> None:
    doc = _lint(tmp_path, "vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 8192 $EXTRA_ARGS")
    (f,) = [f for f in doc["findings"] if f["code"] == "VL210"]
    assert f["severity"] == "warning"
    assert "this assumes $EXTRA_ARGS sets none of the options" in f["message"]
    assert f["data"]["unread_words"] == ["$EXTRA_ARGS"]
    (dep,) = doc["files"][0]["deployments"]
    assert [n["kind"] for n in dep["notes"]] == ["unread_words"]


def test_without_unread_words_the_failure_is_an_error(tmp_path: Path) -> None:
    doc = _lint(tmp_path, "vllm serve meta-llama/Llama-3.1-70B-Instruct --max-model-len 8192")
    assert _codes(doc)["VL210"] == "error"
    assert doc["files"][0]["deployments"][0]["notes"] == []


def test_an_error_on_a_written_value_stands(tmp_path: Path) -> None:
    doc = _lint(tmp_path, "vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size 3 $EXTRA_ARGS")
    assert _codes(doc)["VL205"] == "error"  # heads 64 not divisible by 3, whatever $EXTRA_ARGS holds


def test_a_parser_refusal_stands(tmp_path: Path) -> None:
    doc = _lint(tmp_path, "vllm serve Qwen/Qwen2.5-7B-Instruct --no-such-flag 1 $EXTRA_ARGS")
    assert _codes(doc)["VL001"] == "error"


def test_a_config_file_not_read_is_no_unread_words_note(tmp_path: Path) -> None:
    doc = _lint(tmp_path, "vllm serve Qwen/Qwen2.5-7B-Instruct --config /etc/vllm/missing.yaml")
    (dep,) = doc["files"][0]["deployments"]
    assert "unread_words" not in [n["kind"] for n in dep["notes"]]  # its VL010 says the settings are not checked


def test_values_from_an_example_env_are_said_under_the_memory_line(tmp_path: Path) -> None:
    (tmp_path / ".env.example").write_text("MODEL=Qwen/Qwen2.5-7B-Instruct\n")
    (tmp_path / "docker-compose.yml").write_text(
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.19.1\n"
        "    command: --model ${MODEL:?set it} --max-model-len 8192\n"
    )
    r = CliRunner().invoke(main, ["check", "--isolated", "--gpu", "L4", str(tmp_path)])
    assert "rest on an inference" in r.output or "(an inference: check with the real file)" in r.output, r.output
    assert ".env.example, an example" in r.output
