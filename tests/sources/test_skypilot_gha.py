"""SkyPilot task YAML and GitHub Actions: launches in ``run:``/``setup:`` scripts, with the variables
each platform provides, facts from ``resources:``, unresolved ``${{ }}`` expressions, spans.

Spans are ``line:col`` (1-based) and are checked against the file text they point at.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from vlint.core.invocation import Invocation, Token
from vlint.run.lint import LintOptions, Reader
from vlint.sources import github_actions, skypilot
from vlint.sources.base import SourceResult
from vlint.sources.registry import sources_for


def extract(tmp_path: Path, module: object, text: str, name: str) -> SourceResult:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    reader = Reader(LintOptions(root=tmp_path))
    src = reader.read(path)
    assert module.sniff(src), name  # type: ignore[attr-defined]
    result = module.extract(src, reader.read)  # type: ignore[attr-defined]
    assert result.error is None, result.error
    return result


def argv(inv: Invocation) -> list[str]:
    return [("?" if t.unresolved else "") + t.text for t in inv.args]


def where(path: Path, tok: Token) -> tuple[str, str]:
    line = path.read_text().split("\n")[tok.span.line - 1]
    return f"{tok.span.line}:{tok.span.column}", line[tok.span.column - 1 : tok.span.end_column - 1]


# -- SkyPilot ------------------------------------------------------------------------------------
SKY = """\
envs:
  MODEL_NAME: meta-llama/Llama-3.1-8B-Instruct
  MAX_MODEL_LEN: 4096
  HF_TOKEN: # passed with --env
resources:
  accelerators: {accelerators}
  ports: 8000
num_nodes: {nodes}
setup: |
  pip install "vllm==0.10.1+gptoss" ray>=2.48.0
run: |
  echo 'Starting vllm'
  vllm serve $MODEL_NAME \\
    --tensor-parallel-size $SKYPILOT_NUM_GPUS_PER_NODE \\
    --pipeline-parallel-size $SKYPILOT_NUM_NODES \\
    --max-model-len $MAX_MODEL_LEN \\

  # --enforce-eager is not part of the command: the blank line ended it
"""


def sky(tmp_path: Path, accelerators: str, nodes: int = 1) -> Invocation:
    text = SKY.replace("{accelerators}", accelerators).replace("{nodes}", str(nodes))
    (inv,) = extract(tmp_path, skypilot, text, "task.sky.yaml").invocations
    return inv


def test_skypilot_run_with_envs_and_skypilot_variables(tmp_path: Path) -> None:
    inv = sky(tmp_path, "H100:8", nodes=2)
    assert inv.source == "skypilot" and inv.program == "vllm serve" and inv.label == "run: script"
    assert argv(inv) == [
        "meta-llama/Llama-3.1-8B-Instruct",
        "--tensor-parallel-size",
        "8",
        "--pipeline-parallel-size",
        "2",
        "--max-model-len",
        "4096",
    ]
    path = tmp_path / "task.sky.yaml"
    assert where(path, inv.args[1]) == ("14:5", "--tensor-parallel-size")
    assert where(path, inv.args[0]) == ("13:14", "$MODEL_NAME")
    facts = {k: f.value for k, f in inv.facts.items()}
    assert facts["gpu_count"] == 8 and facts["gpu_type"] == "H100" and facts["num_nodes"] == 2
    assert facts["cluster_gpu_count"] == 16
    assert facts["vllm_version"] == "0.10.1"  # the quoted pin; the unquoted ray>=2.48.0 is a redirect
    assert inv.env["HF_TOKEN"].unresolved and inv.env["MODEL_NAME"].span.line == 2


@pytest.mark.parametrize(
    ("accelerators", "tp", "gpu_type"),
    [
        ("H100", "1", "H100"),
        ("{H100: 8}", "8", "H100"),
        ("{L4:1, A10G:1, A100-80GB:1}", "1", None),
        ("{L4:8, A100:4}", "?$SKYPILOT_NUM_GPUS_PER_NODE", None),
        ("[H100:8, H200:8]", "8", None),
    ],
)
def test_skypilot_accelerator_spellings(tmp_path: Path, accelerators: str, tp: str, gpu_type: str | None) -> None:
    inv = sky(tmp_path, accelerators)
    assert argv(inv)[2] == tp
    assert (inv.facts["gpu_type"].value if "gpu_type" in inv.facts else None) == gpu_type


def test_skypilot_image_id_and_secrets(tmp_path: Path) -> None:
    (inv,) = extract(
        tmp_path,
        skypilot,
        """\
        secrets:
          HF_TOKEN: null
          AUTH_TOKEN: null
        resources:
          image_id: docker:vllm/vllm-openai:v0.10.0
          accelerators: A100:1
        run: |
          python -m vllm.entrypoints.openai.api_server --model m --api-key $AUTH_TOKEN
        """,
        "serve.yaml",
    ).invocations
    assert inv.program == "api_server" and argv(inv) == ["--model", "m", "--api-key", "?$AUTH_TOKEN"]
    assert inv.facts["vllm_version"].value == "0.10.0" and inv.facts["shm_size"].value == "auto"


def test_skypilot_sglang_is_not_vllm(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        skypilot,
        """\
        envs:
          MODEL_NAME: Qwen/Qwen3-235B-A22B-FP8
        resources:
          accelerators: {H100:8}
        run: |
          python3 -m sglang.launch_server --model $MODEL_NAME --tp 4 --reasoning-parser qwen3
        """,
        "qwen.yaml",
    )
    assert res.invocations == []


def test_skypilot_sniff(tmp_path: Path) -> None:
    reader = Reader(LintOptions(root=tmp_path))
    for name, text, ok in (
        ("a.yaml", "resources:\n  accelerators: H100\nrun: echo\n", True),
        ("b.yaml", "envs: {}\nsetup: pip install vllm\n", True),
        ("c.yaml", "run: echo\n", False),
        ("d.yaml", "apiVersion: v1\nkind: Pod\n", False),
    ):
        (tmp_path / name).write_text(text)
        assert skypilot.sniff(reader.read(tmp_path / name)) is ok, name


# -- GitHub Actions ------------------------------------------------------------------------------
WORKFLOW = """\
name: e2e
on:
  workflow_call:
    inputs:
      max-model-len:
        type: string
        default: "2048"
env:
  VLLM_MODEL: Qwen/Qwen3-0.6B
  PORT: "8000"
jobs:
  serve:
    runs-on: ubuntu-latest
    env:
      PORT: "8100"
    steps:
      - uses: actions/checkout@v4
      - name: Start
        env:
          GPU_UTIL: "0.5"
        run: |
          nohup hatch run -- vllm serve ${{ env.VLLM_MODEL }} \\
            --port $PORT --max-model-len ${{ inputs.max-model-len }} \\
            --gpu-memory-utilization $GPU_UTIL --seed ${{ matrix.seed }} &
          CUDA_VISIBLE_DEVICES=1 vllm serve ${{ secrets.PRIVATE_MODEL }} --port 8001 &
      - name: Python
        shell: python
        run: |
          import subprocess; subprocess.run(["vllm", "serve", "x"])
      - name: Same script again
        run: &script vllm serve again/model
      - run: *script
"""


def test_workflow_steps_env_and_expressions(tmp_path: Path) -> None:
    path = tmp_path / ".github" / "workflows" / "e2e.yml"
    res = extract(tmp_path, github_actions, WORKFLOW, ".github/workflows/e2e.yml")
    first, second, third = res.invocations
    assert first.source == "github-actions" and first.label == "job serve, step Start"
    assert argv(first) == [
        "Qwen/Qwen3-0.6B",
        "--port",
        "8100",
        "--max-model-len",
        "2048",
        "--gpu-memory-utilization",
        "0.5",
        "--seed",
        "?${{ matrix.seed }}",
    ]
    assert where(path, first.args[0]) == ("22:41", "${{ env.VLLM_MODEL }}")
    assert where(path, first.args[8]) == ("24:55", "${{ matrix.seed }}")
    assert first.env["PORT"].text == "8100" and first.env["PORT"].span.line == 15
    assert argv(second) == ["?${{ secrets.PRIVATE_MODEL }}", "--port", "8001"]
    assert second.env["CUDA_VISIBLE_DEVICES"].text == "1"
    assert argv(third) == ["again/model"]  # the aliased step is the same script: read once


def test_composite_action_with_docker_run(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        github_actions,
        """\
        name: Setup vLLM
        inputs:
          model:
            default: meta-llama/Llama-3.2-1B-Instruct
        runs:
          using: "composite"
          steps:
            - shell: bash
              run: |
                docker run -d --privileged \\
                  vllm/vllm-openai:v0.10.2 \\
                  --model ${{ inputs.model }} --max-model-len 4096
        """,
        "action.yml",
    )
    (inv,) = res.invocations
    assert inv.program == "image" and argv(inv) == [  # a 0.10.x image: either entrypoint
        "--model",
        "meta-llama/Llama-3.2-1B-Instruct",
        "--max-model-len",
        "4096",
    ]
    assert inv.label == "composite action, step line 9"
    assert inv.facts["image"].value == "vllm/vllm-openai:v0.10.2" and inv.facts["privileged"].value is True


def test_gha_sniff(tmp_path: Path) -> None:
    reader = Reader(LintOptions(root=tmp_path))
    (tmp_path / "ci.yml").write_text("on: push\njobs:\n  a:\n    steps: []\n")
    (tmp_path / "action.yml").write_text("runs:\n  using: node20\n  main: index.js\n")
    (tmp_path / "other.yml").write_text("jobs: 3\n")
    assert github_actions.sniff(reader.read(tmp_path / "ci.yml"))
    assert not github_actions.sniff(reader.read(tmp_path / "action.yml"))
    assert not github_actions.sniff(reader.read(tmp_path / "other.yml"))
    assert [s.name for s in sources_for(reader.read(tmp_path / "ci.yml"))] == ["github-actions"]


def test_workflow_without_launches(tmp_path: Path) -> None:
    res = extract(
        tmp_path,
        github_actions,
        """\
        on: [push]
        jobs:
          build:
            runs-on: ubuntu-latest
            env:
              MAX_MODEL_LEN: ${{ inputs.max-model-len }}
            steps:
              - run: bash ./runners/launch_${RUNNER_NAME%%_*}.sh
        """,
        "wf.yml",
    )
    assert res.invocations == []
