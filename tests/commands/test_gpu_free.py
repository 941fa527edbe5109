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


# -- never silent (issue 28 item 4): what vlint assumed about the GPU's free memory is said ------------------


def test_free_without_a_gpu_is_a_note_not_a_verdict(tmp_path: Path) -> None:
    """No GPU named: the figure applies to nothing. It is said, with the fix, and the reference GPUs are
    not charged it (before, every reference GPU "would not start": 10 GiB free on a 192 GiB MI300X)."""
    f = tmp_path / "start.sh"
    f.write_text(LAUNCH)
    r = CliRunner().invoke(main, ["check", "--isolated", "--vllm-version", "0.19.1", "--gpu-free-gib", "10", str(f)])
    notes = [line for line in r.output.splitlines() if line.startswith("note:")]
    assert len(notes) == 1, r.output
    assert "--gpu-free-gib 10 is not applied" in notes[0] and "GPU is not known" in notes[0]
    assert "--gpu" in notes[0] and "node selector" in notes[0]
    assert "VL231" not in r.output and "VL230" in r.output, r.output


def test_free_config_key_without_a_gpu_names_the_file(tmp_path: Path) -> None:
    (tmp_path / ".vlint.toml").write_text("gpu-free-gib = 10\n")
    f = tmp_path / "start.sh"
    f.write_text(LAUNCH)
    r = CliRunner().invoke(main, ["check", "--vllm-version", "0.19.1", str(f)])
    assert "note:" in r.output and "gpu-free-gib 10 in" in r.output and ".vlint.toml is not applied" in r.output


def test_free_above_the_total_is_capped_and_said(tmp_path: Path) -> None:
    f = tmp_path / "start.sh"
    f.write_text(LAUNCH)
    r = CliRunner().invoke(main, [*BASE, "--gpu-free-gib", "30", str(f)])
    notes = [line for line in r.output.splitlines() if line.startswith("note:")]
    assert notes == [f"note: {f}:1: --gpu-free-gib 30 is above the RTX-4090's 23.64 GiB: capped at it."], r.output
    assert "VL210" not in r.output
    # at or below the total: nothing to say (and no consumer-GPU note either: the figure is stated)
    r = CliRunner().invoke(main, [*BASE, "--gpu-free-gib", "23.64", str(f)])
    assert "note:" not in r.output, r.output


def test_consumer_gpu_without_free_says_a_desktop_may_hold_memory(tmp_path: Path) -> None:
    f = tmp_path / "start.sh"
    f.write_text(LAUNCH)
    r = CliRunner().invoke(main, [*BASE, str(f)])
    notes = [line for line in r.output.splitlines() if line.startswith("note:")]
    assert len(notes) == 1, r.output
    assert "RTX-4090 is a consumer GPU" in notes[0] and "desktop" in notes[0] and "--gpu-free-gib" in notes[0]
    # one line for many launches on consumer GPUs
    g = tmp_path / "more.sh"
    g.write_text(LAUNCH + LAUNCH.replace("8192", "4096"))
    r = CliRunner().invoke(main, [*BASE, str(f), str(g)])
    notes = [line for line in r.output.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and notes[0].startswith("note: 3 launches on a consumer GPU (RTX-4090:"), r.output


def test_no_consumer_note_on_datacenter_gpus_or_unchecked_memory(tmp_path: Path) -> None:
    f = tmp_path / "start.sh"
    f.write_text(LAUNCH)
    r = CliRunner().invoke(main, ["check", "--isolated", "--gpu", "L4", "--vllm-version", "0.19.1", str(f)])
    assert "note:" not in r.output, r.output
    # memory not checked (the model is unknown): no note about what a desktop holds
    f.write_text("vllm serve /models/unknown-model\n")
    r = CliRunner().invoke(main, [*BASE, str(f)])
    assert "note:" not in r.output and "not checked" in r.output, r.output


def test_vl210_names_where_the_free_figure_came_from(tmp_path: Path) -> None:
    f = tmp_path / "start.sh"
    f.write_text(LAUNCH)
    r = CliRunner().invoke(main, [*BASE, "--gpu-free-gib", "20", str(f)])
    assert "free memory: --gpu-free-gib 20)" in r.output, r.output
    (tmp_path / ".vlint.toml").write_text("gpu-free-gib = 20\n")
    r = CliRunner().invoke(main, ["check", "--gpu", "RTX4090", "--vllm-version", "0.19.1", str(f)])
    assert "free memory: gpu-free-gib 20 in " in r.output and ".vlint.toml)" in r.output, r.output
    f.write_text(LAUNCH.replace("\n", " --gpu-memory-utilization 0.99\n"))
    r = CliRunner().invoke(main, ["check", "--isolated", "--gpu", "L4", "--vllm-version", "0.19.1", str(f)])
    assert "VL210" in r.output
    assert "free memory: the GPU total, assuming nothing else holds memory)" in r.output, r.output


def test_notes_in_json_and_explain(tmp_path: Path) -> None:
    import json

    f = tmp_path / "start.sh"
    f.write_text(LAUNCH)
    r = CliRunner().invoke(main, [*BASE, "--format", "json", str(f)])
    dep = json.loads(r.output)["files"][0]["deployments"][0]
    assert [n["kind"] for n in dep["notes"]] == ["consumer_gpu"], dep
    r = CliRunner().invoke(main, [*BASE, "--format", "sarif", str(f)])
    told = json.loads(r.output)["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    assert [n["properties"]["kind"] for n in told if n["descriptor"]["id"] == "memory-environment"] == ["consumer_gpu"]
    r = CliRunner().invoke(
        main, ["explain", "--isolated", "--gpu", "RTX4090", "--vllm-version", "0.19.1", "--gpu-free-gib", "20", str(f)]
    )
    assert "free before vLLM starts" in r.output and "--gpu-free-gib 20" in r.output, r.output


def test_startup_message_as_each_release_prints_it(tmp_path: Path) -> None:
    """'Free memory on device cuda:0 (…)' from 0.14.0 ([0.14.0] vllm/v1/worker/utils.py:262-271), 'Free memory
    on device (…)' before ([0.13.0] vllm/v1/worker/gpu_worker.py:245-255, [0.10.2] :175-188)."""
    f = tmp_path / "start.sh"
    f.write_text(LAUNCH)
    args = ["check", "--isolated", "--gpu", "RTX4090", "--gpu-free-gib", "20"]
    old = CliRunner().invoke(main, [*args, "--vllm-version", "0.10.2", str(f)]).output
    new = CliRunner().invoke(main, [*args, "--vllm-version", "0.19.1", str(f)]).output
    assert "ValueError: Free memory on device (19.49/23.64 GiB) on startup" in old, old
    assert "ValueError: Free memory on device cuda:0 (19.49/23.64 GiB) on startup" in new, new
