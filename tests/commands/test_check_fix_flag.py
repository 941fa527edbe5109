"""`vlint --fix` / `vlint --fix --diff` go through the same fixer as `vlint fix`."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from vlint.cli import main

SCRIPT = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --max-num-seq 64 --no-enable-chunked-prefill\n"


def test_diff_writes_nothing(tmp_path: Path) -> None:
    f = tmp_path / "start.sh"
    f.write_text(SCRIPT)
    r = CliRunner().invoke(main, ["--fix", "--diff", str(f)])
    assert "+vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --max-num-seqs 64" in r.output
    assert f.read_text() == SCRIPT


def test_fix_writes_and_relints_clean(tmp_path: Path) -> None:
    f = tmp_path / "start.sh"
    f.write_text(SCRIPT)
    CliRunner().invoke(main, ["check", "--fix", str(f)])
    # the safe fix only: removing --no-enable-chunked-prefill would turn chunked prefill on
    assert f.read_text() == SCRIPT.replace("--max-num-seq 64", "--max-num-seqs 64")
    CliRunner().invoke(main, ["check", "--fix", "--unsafe-fixes", str(f)])
    assert f.read_text() == "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --max-num-seqs 64\n"
    r = CliRunner().invoke(main, [str(f), "--format", "json"])
    assert '"VL005"' not in r.output and '"VL101"' not in r.output
