"""What a new user reads in the first five minutes (issue 31): the memory line per launch in the text
report, "= help:" for advice against "= fix:" for what vlint fix applies, and the wording of VL601,
VL603, `vlint rules` and the target versions."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main

LAUNCH = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    for var in ("NO_COLOR", "FORCE_COLOR", "GITHUB_ACTIONS"):
        monkeypatch.delenv(var, raising=False)
    return tmp_path


def run(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(main, ["--isolated", "--no-color", *args], catch_exceptions=False)
    return r.exit_code, r.stdout


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def test_memory_line_per_launch_that_starts(project: Path) -> None:
    write(project, {"start.sh": LAUNCH})
    _, out = run("--gpu", "H100", "start.sh")
    (line,) = [x for x in out.splitlines() if ": memory: " in x]
    m = re.fullmatch(
        r"start\.sh:1: memory: Qwen/Qwen2\.5-7B-Instruct on H100\S*, vLLM 0\.33\.0 — starts: ([\d,]+) KV-cache tokens, "
        r"(\d+\.\d\d)x concurrency at 8,192 tokens, (\d+\.\d\d) GiB left outside the budget",
        line,
    )
    assert m, line
    # the numbers `vlint explain` gives for the same launch
    doc = CliRunner().invoke(main, ["explain", "--isolated", "start.sh", "--gpu", "H100", "--format", "json"]).stdout
    (dep,) = json.loads(doc)["deployments"]
    assert f"{dep['memory']['kv_cache_tokens']:,}" == m.group(1)
    assert f"{dep['memory']['max_concurrency']:.2f}" == m.group(2)
    assert f"{dep['memory']['headroom_outside_budget_gib']:.2f}" == m.group(3)
    # the line sits before the memory model's reach and the summary, and only in the full text report
    assert out.splitlines().index(line) == len(out.splitlines()) - 3
    assert ": memory: " not in run("--gpu", "H100", "-q", "start.sh")[1]
    github = CliRunner().invoke(main, ["--isolated", "--format", "github", "--gpu", "H100", "start.sh"]).stdout
    assert ": memory: " not in github


def test_memory_line_short_form_on_the_reference_gpus(project: Path) -> None:
    write(project, {"start.sh": LAUNCH})
    _, out = run("start.sh")
    (line,) = [x for x in out.splitlines() if ": memory: " in x]
    assert re.fullmatch(
        r"start\.sh:1: memory: Qwen/Qwen2\.5-7B-Instruct, vLLM 0\.33\.0 — starts on (\d+) of (\d+) reference GPUs"
        r"( \(not on [^)]+\))?, needs ≈ \d+\.\d GiB per GPU at gpu_memory_utilization [\d.]+",
        line,
    ), line


def test_no_memory_line_where_the_model_did_not_answer_or_the_launch_fails(project: Path) -> None:
    write(
        project,
        {
            "unknown.sh": "vllm serve acme/never-heard-of-it --max-model-len 8192\n",
            "fails.sh": "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 131072\n",
        },
    )
    _, out = run("--gpu", "L4", ".")
    assert ": memory: " not in out
    assert "VL210" in out  # the launch that fails has its finding
    assert "not checked: 1 — unknown.sh:1: the model acme/never-heard-of-it is unknown" in out  # the notice


def test_help_for_advice_fix_for_what_vlint_fix_applies(project: Path) -> None:
    write(project, {"run.sh": "docker run --gpus all --ipc=host vllm/vllm-openai --model Qwen/Qwen2.5-7B-Instruct\n"})
    _, out = run("--select", "VL603", "run.sh")
    assert "= help: pin the release this launch was checked against (vllm/vllm-openai:v0.33.0)" in out
    _, out = run("--select", "VL603", "--vllm-version", "0.19.1", "run.sh")
    assert "(vllm/vllm-openai:v0.19.1)" in out and "0.10.2" not in out
    write(project, {"typo.sh": "vllm serve Qwen/Qwen2.5-7B-Instruct --gpu-memory-utilisation 0.85\n"})
    _, out = run("--select", "VL001", "typo.sh")
    assert "= fix (unsafe): rename --gpu-memory-utilisation to --gpu-memory-utilization" in out
    _, doc = run("--select", "VL001,VL603", "--format", "json", "typo.sh", "run.sh")
    fixes = {f["code"]: f["fix"] for f in json.loads(doc)["findings"]}
    assert fixes["VL001"]["applicable"] and not fixes["VL603"]["applicable"]
    r = CliRunner().invoke(main, ["fix", "--isolated", "--unsafe-fixes", "typo.sh"], catch_exceptions=False)
    assert r.exit_code in (0, 1) and "--gpu-memory-utilization 0.85" in (project / "typo.sh").read_text()


def test_vl601_says_no_parallelism_once(project: Path) -> None:
    write(
        project,
        {
            "deploy.yaml": (
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: llm}\nspec:\n  template:\n    spec:\n"
                "      containers:\n        - name: vllm\n          image: vllm/vllm-openai:v0.19.1\n"
                '          args: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192"]\n'
                "          resources: {limits: {nvidia.com/gpu: 2}}\n"
            )
        },
    )
    _, out = run("--select", "VL601", "deploy.yaml")
    assert "but the launch uses 1 (no parallelism): 1 stay idle" in out, out
    assert "(1 (no parallelism))" not in out


def test_rules_say_off_by_default_once() -> None:
    out = CliRunner().invoke(main, ["rules"]).stdout
    off = [line for line in out.splitlines() if "off by default" in line]
    assert {line.split()[0] for line in off} >= {"VL902", "VL903"}
    assert all(line.count("off by default") == 1 for line in off), off


def test_target_versions_sorted_as_versions(project: Path) -> None:
    write(
        project,
        {
            f"{v}.sh": f"docker run --gpus all --ipc=host vllm/vllm-openai:v{v} --model Qwen/Qwen2.5-7B-Instruct\n"
            for v in ("0.11.0", "0.9.2", "0.33.0")
        },
    )
    _, out = run(".")
    assert "Target vLLM 0.9.2, 0.11.0, 0.33.0 (per launch)." in out, out
