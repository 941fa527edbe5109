"""``eval $CMD`` with a command string built up in parts, one of them unknown (a command substitution):
eval splits it into words and parses each again, so a word that is one plain quoted string (``'0.0.0.0'``)
loses its quotes and the launch is still read, the unknown words kept unknown. Real shell syntax in a
known word (a pipe, a partly quoted word) still makes vlint give up on the string, as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main

HEAD = """NUM_SHARD=${NUM_SHARD:-$(nvidia-smi --list-gpus | wc -l)}
CMD="vllm serve Qwen/Qwen3-8B --host '0.0.0.0' --port \\"80\\" --tensor-parallel-size '$NUM_SHARD'"
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return tmp_path


def lint(work: Path, text: str) -> tuple[list[dict], list[dict]]:
    (work / "e.sh").write_text(text)
    r = CliRunner().invoke(main, ["--format", "json", "--isolated", "e.sh"], catch_exceptions=False)
    assert r.exit_code in (0, 1), r.output
    doc = json.loads(r.stdout)
    return doc["files"][0]["deployments"], [f for f in doc["findings"] if f["code"] != "VL230"]


def test_plain_quoted_words_of_an_eval_string_are_read(work: Path) -> None:
    deps, findings = lint(work, HEAD + 'CMD="$CMD --gpu-memory-utilization 0.97 --max-model-len 8192"\neval $CMD\n')
    (dep,) = deps
    assert dep["model"] == "Qwen/Qwen3-8B"
    assert [f["code"] for f in findings] == ["VL201"]  # the unknown tensor-parallel size is no error


@pytest.mark.parametrize("tail", ["| tee log.txt", "--api-key='sk'x"])
def test_shell_syntax_in_a_known_word_still_stops_it(work: Path, tail: str) -> None:
    deps, _ = lint(work, HEAD + f'CMD="$CMD {tail}"\neval $CMD\n')
    assert deps == []
