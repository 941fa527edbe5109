"""Findings about a setting's value point where the value is written: the variable's assignment when the
launch takes it from one in the same file (``GMU=0.97`` … ``--gpu-memory-utilization $GMU``)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from vlint.cli import main


def _findings(tmp_path: Path, text: str) -> dict[str, int]:
    f = tmp_path / "serve.sh"
    f.write_text(text)
    r = CliRunner().invoke(main, ["check", "--isolated", "--vllm-version", "0.19.1", "--format", "json", str(f)])
    return {x["code"]: x["line"] for x in json.loads(r.output)["findings"]}


def test_value_from_a_variable(tmp_path: Path) -> None:
    lines = _findings(
        tmp_path,
        "GMU=0.97\nMML=900000\nvllm serve Qwen/Qwen2.5-7B-Instruct \\\n"
        "  --gpu-memory-utilization $GMU \\\n  --max-model-len $MML\n",
    )
    assert lines["VL201"] == 1 and lines["VL204"] == 2


def test_value_written_at_the_flag(tmp_path: Path) -> None:
    launch = "vllm serve Qwen/Qwen2.5-7B-Instruct \\\n  --gpu-memory-utilization 0.97 \\\n"
    lines = _findings(tmp_path, launch + "  --max-model-len 900000\n")
    assert lines["VL201"] == 2 and lines["VL204"] == 3


def test_value_from_a_dockerfile_env(tmp_path: Path) -> None:
    f = tmp_path / "Dockerfile"
    f.write_text(
        "FROM vllm/vllm-openai:v0.19.1\nENV GMU=0.97\n"
        "CMD vllm serve Qwen/Qwen2.5-7B-Instruct --gpu-memory-utilization $GMU\n"
    )
    r = CliRunner().invoke(main, ["check", "--isolated", "--format", "json", str(f)])
    assert {x["code"]: x["line"] for x in json.loads(r.output)["findings"]}["VL201"] == 2
