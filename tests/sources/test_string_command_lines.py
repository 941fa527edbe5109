"""A command kept in a variable and run by ``bash -c "$CMD"`` or ``eval "$CMD"`` is written where the
variable is assigned: the launch and its flags are placed on those lines (not on the line that runs it).
When the value cannot be read back character by character (an unknown part), the line that runs it is
used as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main

ASSIGN = """MODEL_PATH="Qwen/Qwen3-8B"
CMD="
    vllm serve \\
        ${MODEL_PATH} \\
        --max-model-len 8192 \\
        --gpu-memory-utilization 0.96
    "
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return tmp_path


def lint(work: Path, text: str) -> tuple[list[dict], dict[str, list[int]]]:
    (work / "run.sh").write_text(text)
    r = CliRunner().invoke(main, ["--format", "json", "--isolated", "run.sh"], catch_exceptions=False)
    assert r.exit_code in (0, 1), r.output
    doc = json.loads(r.stdout)
    lines: dict[str, list[int]] = {}
    for f in doc["findings"]:
        lines.setdefault(f["code"], []).append(f["line"])
    return doc["files"][0]["deployments"], lines


@pytest.mark.parametrize("run", ['bash -c "${CMD}" &', 'eval "$CMD"', 'sh -c "$CMD"'])
def test_the_launch_is_where_the_variable_is_assigned(work: Path, run: str) -> None:
    (dep,), lines = lint(work, ASSIGN + run + "\n")
    assert dep["model"] == "Qwen/Qwen3-8B" and dep["line"] == 3
    assert lines["VL201"] == [6]


def test_an_unknown_part_keeps_the_line_that_runs_it(work: Path) -> None:
    text = 'CMD="vllm serve Qwen/Qwen3-8B --max-model-len 8192 --gpu-memory-utilization 0.96 $(extra)"\n'
    (dep,), lines = lint(work, "\n" + text + 'eval "$CMD"\n')
    assert dep["model"] == "Qwen/Qwen3-8B" and dep["line"] == 3 and lines["VL201"] == [3]
