"""--gpu-free-gib / gpu-free-gib: memory other processes hold makes vLLM's startup free-memory check refuse
(vllm/v1/worker/gpu_worker.py "Free memory on device ... is less than desired GPU memory utilization")."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from vlint.cli import main

LAUNCH = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n"
BASE = ["check", "--isolated", "--gpu", "RTX4090", "--vllm-version", "0.19.1"]


def test_too_little_free_refuses(tmp_path: Path) -> None:
    f = tmp_path / "start.sh"
    f.write_text(LAUNCH)
    r = CliRunner().invoke(main, [*BASE, "--gpu-free-gib", "20", str(f)])
    assert "VL210" in r.output and "less than desired GPU memory utilization" in r.output
    assert "at most 0.82" in r.output


def test_enough_free_starts(tmp_path: Path) -> None:
    f = tmp_path / "start.sh"
    f.write_text(LAUNCH)
    r = CliRunner().invoke(main, [*BASE, "--gpu-free-gib", "23.9", str(f)])
    assert "VL210" not in r.output, r.output


def test_config_key(tmp_path: Path) -> None:
    (tmp_path / ".vlint.toml").write_text("gpu-free-gib = 20\n")
    f = tmp_path / "start.sh"
    f.write_text(LAUNCH)
    r = CliRunner().invoke(main, ["check", "--gpu", "RTX4090", "--vllm-version", "0.19.1", str(f)])
    assert "VL210" in r.output, r.output


def test_negative_free_is_a_usage_error(tmp_path: Path) -> None:
    f = tmp_path / "start.sh"
    f.write_text(LAUNCH)
    r = CliRunner().invoke(main, [*BASE, "--gpu-free-gib", "-1", str(f)])
    assert r.exit_code == 2 and "--gpu-free-gib" in r.output, r.output
