"""vlint fix: structured fixes applied by span, per file format; the fixed finding is gone on re-lint,
comments and layout stay, the result parses (no VL0xx), unsafe fixes are gated, broken files untouched."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main
from vlint.core import record as records

GOOD_SHELL = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n"


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.stdout, r.stderr


def findings(*args: str) -> list[dict]:
    # VL230 (no GPU named: the launch on the reference GPUs) is an info with nothing to fix
    code, out, err = run("check", "--format", "json", "--isolated", "--ignore", "VL230", *args)
    assert code in (0, 1), out + err
    return json.loads(out)["findings"]


def codes(*args: str) -> list[str]:
    return sorted(f["code"] for f in findings(*args))


def assert_parses(*args: str) -> None:
    """What vLLM's parser (the bundled schema) would reject shows up as VL0xx findings: none allowed."""
    bad = [f for f in findings(*args) if f["code"].startswith("VL0") and f["code"] != "VL009"]
    assert not bad, bad


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


# -- shell -------------------------------------------------------------------------------------
SCRIPT = """\
#!/usr/bin/env bash
# Serve Qwen on one GPU.
MODEL=Qwen/Qwen2.5-7B-Instruct

# the flags, one per line
vllm serve "$MODEL" \\
  --max-model-len 32768 \\
  --no-enable-chunked-prefill \\
  --max-num-seq 64 \\
  --gpu-memory-utilization 0.97 \\
  > vllm.log 2>&1 &
echo started  # done
"""


def test_shell_safe_fixes_keep_comments_and_continuations(work: Path) -> None:
    (work / "start.sh").write_text(SCRIPT)
    assert {"VL101", "VL005", "VL201"} <= set(codes("start.sh"))
    code, out, _ = run("fix", "--isolated", "start.sh")
    assert code == 1  # VL101 and VL201 (unsafe) remain
    # removing --no-enable-chunked-prefill turns chunked prefill back on: not a safe fix
    assert "VL101 fixed" not in out and "VL005 fixed" in out and "2 more with --unsafe-fixes" in out
    assert (work / "start.sh").read_text() == SCRIPT.replace("--max-num-seq 64", "--max-num-seqs 64")
    left = codes("start.sh")
    assert "VL101" in left and "VL005" not in left and "VL201" in left
    assert_parses("start.sh")
    run("fix", "--isolated", "--unsafe-fixes", "--select", "VL101", "start.sh")
    assert (work / "start.sh").read_text() == SCRIPT.replace("  --no-enable-chunked-prefill \\\n", "").replace(
        "--max-num-seq 64", "--max-num-seqs 64"
    )


def test_shell_unsafe_fixes_only_with_the_flag(work: Path) -> None:
    (work / "start.sh").write_text(SCRIPT)
    code, out, _ = run("fix", "--isolated", "--unsafe-fixes", "start.sh")
    text = (work / "start.sh").read_text()
    assert "--gpu-memory-utilization 0.9 \\\n" in text and "0.97" not in text
    assert "# the flags, one per line" in text and "echo started  # done" in text
    assert "VL201" not in codes("start.sh")
    assert code == 0, out


def test_removing_the_last_continued_line_drops_its_backslash(work: Path) -> None:
    head = "vllm serve Qwen/Qwen2.5-7B-Instruct \\\n  --max-model-len 32768"
    (work / "run.sh").write_text(head + " \\\n  --no-enable-chunked-prefill\necho next\n")
    assert run("fix", "--isolated", "--unsafe-fixes", "run.sh")[0] == 0
    assert (work / "run.sh").read_text() == head + "\necho next\n"
    assert codes("run.sh") == []


def test_add_a_setting_on_a_continuation_line(work: Path) -> None:
    """VL210 (unsafe): --max-model-len is added, with the largest value the memory model fits."""
    (work / "run.sh").write_text("vllm serve meta-llama/Llama-3.1-8B-Instruct \\\n  --port 8000 \\\n  > log &\n")
    assert "VL210" in codes("run.sh", "--gpu", "L4")
    assert run("fix", "--isolated", "--gpu", "L4", "--select", "VL210", "run.sh")[0] == 1  # unsafe: not applied
    assert "max-model-len" not in (work / "run.sh").read_text()
    run("fix", "--isolated", "--gpu", "L4", "--select", "VL210", "--unsafe-fixes", "run.sh")
    lines = (work / "run.sh").read_text().splitlines()
    assert lines[0:2] == ["vllm serve meta-llama/Llama-3.1-8B-Instruct \\", "  --port 8000 \\"]
    assert lines[2].startswith("  --max-model-len ") and lines[2].endswith(" \\") and lines[3] == "  > log &"
    assert "VL210" not in codes("run.sh", "--gpu", "L4")


# -- vLLM --config YAML ----------------------------------------------------------------------------
CONFIG = """\
# vLLM config for the chat service
model: Qwen/Qwen2.5-7B-Instruct
max-model-len: 32768   # long prompts
max-num-seq: 64
gpu-memory-utilization: 0.97
enable-prefix-caching: false
"""


def test_vllm_config_yaml(work: Path) -> None:
    (work / "serve.yaml").write_text(CONFIG)
    assert {"VL005", "VL201", "VL011"} <= set(codes("serve.yaml"))
    run("fix", "--isolated", "serve.yaml")
    assert (work / "serve.yaml").read_text() == CONFIG.replace("max-num-seq:", "max-num-seqs:")
    run("fix", "--isolated", "--unsafe-fixes", "serve.yaml")
    assert (work / "serve.yaml").read_text() == (
        "# vLLM config for the chat service\n"
        "model: Qwen/Qwen2.5-7B-Instruct\n"
        "max-model-len: 32768   # long prompts\n"
        "max-num-seqs: 64\n"
        "gpu-memory-utilization: 0.9\n"
    )
    assert codes("serve.yaml") == []


def test_config_false_key_moves_to_the_command_line(work: Path) -> None:
    """VL011 with a launch script: the ignored key goes, its --no- flag is added where vLLM reads it."""
    (work / "cfg.yaml").write_text("max-model-len: 8192\nenable-prefix-caching: false\n")
    (work / "run.sh").write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --config cfg.yaml --port 8000\n")
    assert "VL011" in codes("run.sh")
    run("fix", "--isolated", "--unsafe-fixes", "run.sh")
    assert (work / "cfg.yaml").read_text() == "max-model-len: 8192\n"
    assert (work / "run.sh").read_text().rstrip().endswith("--port 8000 --no-enable-prefix-caching")
    assert codes("run.sh") == ["VL610"]  # prefix caching is now really off, which VL610 reports (advice only)


# -- Kubernetes ---------------------------------------------------------------------------------
K8S = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.19.1
          # the server flags
          args:
            - "Qwen/Qwen2.5-7B-Instruct"
            - "--max-num-seq"   # abbreviated
            - "64"
            - --no-enable-chunked-prefill
            - --max-model-len
            - "32768"
          resources:
            limits:
              nvidia.com/gpu: 1
---
apiVersion: v1
kind: Pod
metadata:
  name: flow
spec:
  containers:
    - name: vllm
      image: vllm/vllm-openai:v0.19.1
      command: ["vllm", "serve", "Qwen/Qwen2.5-7B-Instruct", "--no-enable-chunked-prefill", "--max-num-seq", "64",
                "--max-model-len", "32768"]
"""


def test_kubernetes_args_lists_block_and_flow(work: Path) -> None:
    (work / "deploy.yaml").write_text(K8S)
    before = codes("deploy.yaml")
    assert before.count("VL101") == 2 and before.count("VL005") == 2
    code, out, err = run("fix", "--isolated", "--unsafe-fixes", "--diff", "deploy.yaml")
    assert code == 1 and (work / "deploy.yaml").read_text() == K8S  # --diff writes nothing
    assert '-            - "--max-num-seq"   # abbreviated\n+            - "--max-num-seqs"   # abbreviated\n' in out
    assert "-            - --no-enable-chunked-prefill\n" in out
    assert '"Qwen/Qwen2.5-7B-Instruct", "--max-num-seqs", "64",\n' in out
    assert "Would fix 4 problems in 1 file." in err
    run("fix", "--isolated", "--unsafe-fixes", "deploy.yaml")
    assert codes("deploy.yaml") == []
    text = (work / "deploy.yaml").read_text()
    assert "# the server flags" in text and "# abbreviated" in text and "nvidia.com/gpu: 1" in text


def test_kubernetes_shell_block_scalar(work: Path) -> None:
    src = K8S.split("---")[0].replace(
        '          args:\n            - "Qwen/Qwen2.5-7B-Instruct"\n            - "--max-num-seq"   # abbreviated\n'
        '            - "64"\n            - --no-enable-chunked-prefill\n            - --max-model-len\n'
        '            - "32768"\n',
        "          command: [sh, -c]\n          args:\n            - |\n"
        "              vllm serve Qwen/Qwen2.5-7B-Instruct \\\n                --max-model-len 32768 \\\n"
        "                --no-enable-chunked-prefill \\\n                --port 8000\n",
    )
    (work / "deploy.yaml").write_text(src)
    assert codes("deploy.yaml") == ["VL101"]
    run("fix", "--isolated", "--unsafe-fixes", "deploy.yaml")
    assert (work / "deploy.yaml").read_text() == src.replace("                --no-enable-chunked-prefill \\\n", "")
    assert codes("deploy.yaml") == []


# -- compose, Helm, Dockerfile ------------------------------------------------------------------------
COMPOSE = """\
services:
  vllm:
    image: vllm/vllm-openai:v0.19.1
    # one flag per line
    command: >
      Qwen/Qwen2.5-7B-Instruct
      --max-model-len 32768
      --no-enable-chunked-prefill
      --max-num-seq 64
  listed:
    image: vllm/vllm-openai:v0.19.1
    command:
      - Qwen/Qwen2.5-7B-Instruct
      - --max-num-seq
      - "64"
      - --no-enable-chunked-prefill  # why not
      - --max-model-len
      - "32768"
"""

HELM = """\
servingEngineSpec:
  modelSpec:
  - name: "qwen"
    repository: "vllm/vllm-openai"
    tag: "v0.19.1"
    modelURL: "Qwen/Qwen2.5-7B-Instruct"
    requestGPU: 1
    vllmConfig:
      # keep prefill unchunked (why?)
      enableChunkedPrefill: false
      maxModelLen: 32768
      extraArgs: ["--max-num-seq", "64"]
"""

DOCKERFILE = """\
FROM vllm/vllm-openai:v0.19.1
# serve Qwen
CMD ["Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "32768", "--no-enable-chunked-prefill"]
"""


@pytest.mark.parametrize(
    ("name", "src", "expected"),
    [
        (
            "docker-compose.yml",
            COMPOSE,
            COMPOSE.replace("      --no-enable-chunked-prefill\n", "")
            .replace("      - --no-enable-chunked-prefill  # why not\n", "")
            .replace("--max-num-seq 64", "--max-num-seqs 64")
            .replace("- --max-num-seq\n", "- --max-num-seqs\n"),
        ),
        (
            "values.yaml",
            HELM,
            HELM.replace("      enableChunkedPrefill: false\n", "").replace('"--max-num-seq"', '"--max-num-seqs"'),
        ),
        ("Dockerfile", DOCKERFILE, DOCKERFILE.replace(', "--no-enable-chunked-prefill"', "")),
    ],
    ids=["compose", "helm-production-stack", "dockerfile"],
)
def test_compose_helm_dockerfile(work: Path, name: str, src: str, expected: str) -> None:
    (work / name).write_text(src)
    assert "VL101" in codes(name)
    code, out, _ = run("fix", "--isolated", "--unsafe-fixes", "--diff", name)
    assert code == 1 and out.startswith(f"--- a/{name}\n+++ b/{name}\n")
    run("fix", "--isolated", "--unsafe-fixes", name)
    assert (work / name).read_text() == expected
    # the production-stack chart renders --no-enable-prefix-caching without enablePrefixCaching: VL610 stays
    assert codes(name) == (["VL610"] if name == "values.yaml" else [])


# -- safety -----------------------------------------------------------------------------------------
def test_a_file_that_failed_to_parse_is_not_touched(work: Path) -> None:
    src = 'vllm serve Qwen/Qwen2.5-7B-Instruct --max-num-seq 64\necho "unterminated\n'
    (work / "broken.sh").write_text(src)
    (work / "ok.sh").write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --max-num-seq 64\n")
    code, out, err = run("fix", "--isolated", ".")
    assert code == 2 and "broken.sh" in err
    assert (work / "broken.sh").read_text() == src
    assert "broken.sh:1:37: VL005 not fixed: broken.sh failed to parse" in out
    assert "--max-num-seqs 64" in (work / "ok.sh").read_text()


def test_values_from_variables_are_not_rewritten(work: Path) -> None:
    src = "GMU=0.97\nvllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --gpu-memory-utilization $GMU\n"
    (work / "run.sh").write_text(src)
    assert "VL201" in codes("run.sh")
    out = run("fix", "--isolated", "--unsafe-fixes", "run.sh")[1]
    assert (work / "run.sh").read_text() == src
    assert "VL201 not fixed" in out and "variable" in out


def test_crlf_and_bom_are_kept(work: Path) -> None:
    src = "\ufeffvllm serve Qwen/Qwen2.5-7B-Instruct \\\r\n  --max-model-len 32768 \\\r\n  --max-num-seq 64\r\n"
    (work / "run.sh").write_bytes(src.encode("utf-8"))
    run("fix", "--isolated", "run.sh")
    assert (work / "run.sh").read_bytes() == src.replace("--max-num-seq 64", "--max-num-seqs 64").encode("utf-8")


def test_select_chooses_fixes_but_every_rule_checks_them(work: Path) -> None:
    """Lowering gpu_memory_utilization (VL201) would make this launch fail to start (VL210): even
    with --select VL201 the fix is checked against every rule and left out."""
    src = (
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 38000 --gpu-memory-utilization 0.97 "
        "--max-num-seqs 64\n"
    )
    (work / "run.sh").write_text(src)
    assert "VL210" not in codes("run.sh", "--gpu", "L4") and "VL201" in codes("run.sh", "--gpu", "L4")
    code, out, _ = run("fix", "--isolated", "--gpu", "L4", "--unsafe-fixes", "--select", "VL201", "run.sh")
    assert (work / "run.sh").read_text() == src
    assert "VL201 not fixed: the result has a new error (VL210 in run.sh)" in out and code == 1
    (work / "run.sh").write_text(src.replace("38000", "8192"))
    # VL214 (thin headroom after the KV cache) would lower it too
    run("fix", "--isolated", "--gpu", "L4", "--unsafe-fixes", "--ignore", "VL201,VL214", "run.sh")
    assert "0.97" in (work / "run.sh").read_text()
    run("fix", "--isolated", "--gpu", "L4", "--unsafe-fixes", "--select", "VL201", "run.sh")
    assert "--gpu-memory-utilization 0.9 " in (work / "run.sh").read_text()


def test_budget_fix_comes_before_the_fixes_computed_from_it(work: Path) -> None:
    """VL201 (lower gpu_memory_utilization) and VL210 (the largest max-model-len that fits) in one run:
    the max-model-len must be the one that fits at the lowered budget, not at 0.97 — so nothing is
    left over, and no stale "not fixed" note about the first VL210 value is printed."""
    src = "vllm serve meta-llama/Llama-3.1-8B-Instruct --gpu-memory-utilization 0.97 --max-num-seqs 64 --swap-space 8\n"
    (work / "run.sh").write_text(src)
    # 0.33: CUDA graphs inside the budget (on 0.19 at 0.97 they no longer fit outside it: VL210's own fix
    # then lowers the budget)
    at_097 = {f["code"]: f for f in findings("run.sh", "--gpu", "L4", "--vllm-version", "0.33.0")}
    assert {"VL201", "VL210", "VL002"} <= set(at_097)
    first = at_097["VL210"]["fix"]["changes"][0]["value"]
    code, out, _ = run("fix", "--isolated", "--gpu", "L4", "--vllm-version", "0.33.0", "--unsafe-fixes", "run.sh")
    text = (work / "run.sh").read_text()
    assert "--gpu-memory-utilization 0.9 " in text and "--swap-space" not in text
    n = int(text.split("--max-model-len ")[1].split()[0])
    assert n < first  # computed again at 0.9
    assert "not fixed" not in out and code == 0, out
    left = codes("run.sh", "--gpu", "L4", "--vllm-version", "0.33.0")
    assert not [c for c in left if c in ("VL201", "VL210", "VL002", "VL203")], left


L4_097 = ["--gpu", "L4", "--vllm-version", "0.19.1"]


def test_no_length_fits_at_this_budget_lowers_it_too(work: Path) -> None:
    """At 0.97 on an L4 (vLLM 0.19: CUDA graphs outside the budget, sampler warm-up of 256 requests) no
    max-model-len starts: VL210's fix lowers the utilization to the highest that starts cleanly and
    sets the longest length that fits there — not "the weights leave no room"."""
    src = "vllm serve meta-llama/Llama-3.1-8B-Instruct --gpu-memory-utilization 0.97\n"
    (work / "run.sh").write_text(src)
    (f,) = [f for f in findings("run.sh", *L4_097) if f["code"] == "VL210"]
    assert "weights leave no room" not in f["fix"]["description"]
    changes = {c["dest"]: c["value"] for c in f["fix"]["changes"]}
    assert set(changes) == {"gpu_memory_utilization", "max_model_len"} and changes["gpu_memory_utilization"] < 0.97
    run("fix", "--isolated", "--unsafe-fixes", "--select", "VL210", *L4_097, "run.sh")
    assert (work / "run.sh").read_text() == (
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --gpu-memory-utilization "
        f"{changes['gpu_memory_utilization']} --max-model-len {changes['max_model_len']}\n"
    )
    left = codes("run.sh", *L4_097)
    assert "VL210" not in left and "VL214" not in left, left
    # one point higher no longer starts cleanly, and a longer length does not fit at the chosen one
    gmu, n = changes["gpu_memory_utilization"], changes["max_model_len"]
    (work / "up.sh").write_text(
        f"vllm serve meta-llama/Llama-3.1-8B-Instruct --gpu-memory-utilization {gmu + 0.01:.2f} --max-model-len 256\n"
    )
    assert {"VL210", "VL214"} & set(codes("up.sh", *L4_097))
    (work / "long.sh").write_text(
        f"vllm serve meta-llama/Llama-3.1-8B-Instruct --gpu-memory-utilization {gmu} --max-model-len {n + 1}\n"
    )
    # n is the longest that starts with nothing else to report: one more token and VL211 (fewer than 2
    # requests fit) or VL210 says so
    assert {"VL210", "VL211"} & set(codes("long.sh", *L4_097))


def test_vl214_fix_is_the_highest_utilization_with_room_after_the_kv_cache(work: Path) -> None:
    src = (
        # 0.97: the graphs then fit only within their uncertainty in what is outside the budget plus the
        # activation the profile hands back
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --gpu-memory-utilization 0.97 --max-num-seqs 64 "
        "--max-model-len 46992 --kv-cache-dtype fp8\n"
    )
    (work / "run.sh").write_text(src)
    (f,) = [f for f in findings("run.sh", *L4_097) if f["code"] == "VL214"]
    (change,) = f["fix"]["changes"]
    assert change["dest"] == "gpu_memory_utilization" and change["value"] < 0.97 and f["fix"]["unsafe"]
    run("fix", "--isolated", "--unsafe-fixes", "--select", "VL214", *L4_097, "run.sh")
    assert f"--gpu-memory-utilization {change['value']} " in (work / "run.sh").read_text()
    left = codes("run.sh", *L4_097)
    assert "VL214" not in left and "VL210" not in left, left


def test_nothing_to_fix(work: Path) -> None:
    (work / "run.sh").write_text(GOOD_SHELL)
    assert run("fix", "--isolated", "--gpu", "H100", "--diff", "run.sh") == (
        0,
        "",
        "Would fix 0 problems in 0 files.\n",
    )
    code, out, _ = run("fix", "--isolated", "--gpu", "H100", "run.sh")
    assert code == 0 and "Fixed 0 problems in 0 files; 0 remain." in out


def test_suppressed_findings_are_not_fixed(work: Path) -> None:
    src = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --max-num-seq 64  # vlint: disable=VL005 -- ok\n"
    (work / "run.sh").write_text(src)
    run("fix", "--isolated", "run.sh")
    assert (work / "run.sh").read_text() == src


# -- fixes computed by the memory model ----------------------------------------------------------
def test_vl210_fix_relints_clean_and_names_the_largest_that_starts(work: Path) -> None:
    """VL210's fix is the longest max_model_len that starts with nothing else to report (room for two
    requests: no VL211); the largest that starts at all is offered as another way, not applied."""
    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine
    from vlint.launch.resolver import ResolveOptions
    from vlint.memory import estimate_memory, inputs_from_resolved
    from vlint.run.lint import LintOptions, lint_paths

    (work / "run.sh").write_text("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 131072\n")
    (f,) = [f for f in findings("run.sh", "--gpu", "L4") if f["code"] == "VL210"]
    (change,) = f["fix"]["changes"]
    assert change["action"] == "set" and change["dest"] == "max_model_len" and f["fix"]["unsafe"]
    assert change["spans"][0] == {"path": "run.sh", "line": 1, "column": 61, "end_line": 1, "end_column": 67}
    n = change["value"]
    assert 0 < n <= f["data"]["estimated_max_model_len"]
    assert "; or --max-model-len " in f["fix"]["description"] and "(the largest that starts" in f["fix"]["description"]
    code, out, _ = run("fix", "--isolated", "--gpu", "L4", "--unsafe-fixes", "run.sh")
    assert (work / "run.sh").read_text() == f"vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len {n}\n"
    assert "not applied, another way: --max-model-len " in out
    # re-lints clean: no VL211 (or anything else) brought by the fix
    assert codes("run.sh", "--gpu", "L4") == [] and code == 0
    report = lint_paths([Path("run.sh")], Engine(load_catalog()), LintOptions(resolve=ResolveOptions(gpu="L4")))
    (dep,) = report.files[0].deployments
    assert dep.arch is not None and dep.gpu is not None and dep.memory is not None
    base = inputs_from_resolved(dep.arch, dep.gpu, dep.version, dep.resolved, gpu_count=dep.gpu_count, env={})
    at_n = estimate_memory(records.replace(base, max_model_len=n))
    above = estimate_memory(records.replace(base, max_model_len=n + 1))
    assert at_n.starts and not at_n.too_close_to_call and at_n.max_concurrency >= 2
    assert not above.starts or above.too_close_to_call or above.max_concurrency < 2 or above.risks


def test_vl211_fix_names_the_fp8_factor_and_applies_it(work: Path) -> None:
    (work / "run.sh").write_text("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 24000\n")
    (f,) = [f for f in findings("run.sh", "--gpu", "L4") if f["code"] == "VL211"]
    assert "--kv-cache-dtype fp8 to fit 2.0× the tokens" in f["fix"]["description"]
    assert [(c["action"], c["dest"], c["value"]) for c in f["fix"]["changes"]] == [("add", "kv_cache_dtype", "fp8")]
    run("fix", "--isolated", "--gpu", "L4", "--unsafe-fixes", "run.sh")
    assert (work / "run.sh").read_text().rstrip().endswith("--max-model-len 24000 --kv-cache-dtype fp8")
    assert codes("run.sh", "--gpu", "L4") == []


def test_vl213_fix_is_the_default_chunk_with_its_activation_peak(work: Path) -> None:
    (work / "run.sh").write_text(
        "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 65536 --max-num-batched-tokens 65536\n"
    )
    (f,) = [f for f in findings("run.sh", "--gpu", "H100") if f["code"] == "VL213"]
    assert f["fix"]["description"].startswith("--max-num-batched-tokens 8192 (vLLM 0.33.0's default chunk")
    assert "keeps the prefill activation peak at" in f["fix"]["description"]
    run("fix", "--isolated", "--gpu", "H100", "--unsafe-fixes", "run.sh")
    assert "--max-num-batched-tokens 8192\n" in (work / "run.sh").read_text()
    assert "VL213" not in codes("run.sh", "--gpu", "H100")


# -- VL002 / VL005 fixes from the parser -----------------------------------------------------------
def test_removed_flag_is_removed_as_an_unsafe_fix(work: Path) -> None:
    (work / "run.sh").write_text(
        "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --disable-frontend-multiprocessing --port 8000\n"
    )
    (f,) = [f for f in findings("run.sh", "--vllm-version", "0.33.0") if f["code"] == "VL002"]
    assert f["fix"]["unsafe"] and f["fix"]["changes"][0]["action"] == "remove"
    run("fix", "--isolated", "--vllm-version", "0.33.0", "--unsafe-fixes", "run.sh")
    assert (work / "run.sh").read_text() == "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --port 8000\n"


def test_removed_flag_fix_rules() -> None:
    """Mechanical renames keep the value; a "nothing replaces it" flag is removed safely; else unsafe."""
    from vlint.argspec.fixes import removed_flag_fix
    from vlint.argspec.spec import load_spec
    from vlint.core.span import Span
    from vlint.core.version import V

    spec = load_spec(V("0.33.0"))
    flag, value = Span("a.sh", 1, 10, 1, 36), Span("a.sh", 1, 37, 1, 38)
    base = {"option": "--max-num-partial-prefills", "last_in": "0.25.1", "removed_in": "0.28.0"}
    fix = removed_flag_fix({**base, "replacement": "--max-num-seqs"}, flag, origin="cli", value_span=value, spec=spec)
    assert not fix.unsafe and [(c.action, c.option, c.spans) for c in fix.changes] == [
        ("rename", "--max-num-seqs", (flag,))
    ]
    fix = removed_flag_fix(
        {**base, "replacement": "nothing: delete it"}, flag, origin="cli", value_span=value, spec=spec
    )
    assert not fix.unsafe and fix.changes[0].action == "remove" and fix.changes[0].spans == (flag, value)
    fix = removed_flag_fix({**base, "replacement": None}, flag, origin="cli", value_span=value, spec=spec)
    assert fix.unsafe and "nothing replaces it" in fix.description
    # a flag that took no value becoming an option with a fixed value (--disable-x → --opt 0)
    no_value = {"option": "--disable-frontend-multiprocessing", "last_in": "0.18.1", "removed_in": "0.19.1"}
    fix = removed_flag_fix(
        {**no_value, "replacement": "--max-num-seqs 0"}, flag, origin="cli", value_span=None, spec=spec
    )
    assert [(c.action, c.option, c.value) for c in fix.changes] == [("rename", "--max-num-seqs", "0")]


def test_json_report_carries_the_changes(work: Path) -> None:
    (work / "run.sh").write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --max-num-seq 64\n")
    (f,) = findings("run.sh")
    assert f["code"] == "VL005"
    assert f["fix"]["changes"] == [
        {
            "dest": "max_num_seqs",
            "action": "rename",
            "option": "--max-num-seqs",
            "value": None,
            "target": "cli",
            "spans": [{"path": "run.sh", "line": 1, "column": 58, "end_line": 1, "end_column": 71}],
            "anchor": None,
        }
    ]


# -- the corpus ----------------------------------------------------------------------------------
def test_corpus_fixes_parse_and_clear_their_findings(
    shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every corpus file with a fixable finding: after `vlint fix --unsafe-fixes`, vLLM's parser (the
    bundled schema) accepts the file (no new VL0xx, no parse error) and the fixed findings are gone."""
    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine
    from vlint.fix.apply import fix_paths
    from vlint.run.lint import LintOptions, lint_paths

    corpus = tmp_path / "corpus"
    shutil.copytree(shared / "corpus" / "real", corpus)
    monkeypatch.chdir(corpus)
    engine = Engine(load_catalog())
    outcome = fix_paths([Path(".")], engine, LintOptions(), unsafe=True)
    assert len(outcome.applied) >= 100 and len(outcome.changed) >= 30
    for p, (_, _, new) in outcome.changed.items():
        p.write_text(new)
    after = lint_paths([Path(".")], engine, LintOptions())
    before_errors = {fr.path for fr in outcome.before.files if fr.error}
    assert {fr.path for fr in after.files if fr.error} == before_errors
    from collections import Counter

    def count(report: object, pred: object) -> Counter:
        return Counter((f.code, f.span.path) for f in report.findings if pred(f))  # type: ignore[attr-defined,operator]

    parse_before = count(outcome.before, lambda f: f.code.startswith("VL0"))
    for key, n in count(after, lambda f: f.code.startswith("VL0")).items():
        assert n <= parse_before[key], key
    fixed = Counter((r.code, r.path) for r in outcome.applied)
    # a fix the fixer tried and gave up on (its finding would stay) leaves that finding in place, so a
    # path with both an applied and a skipped fix of one rule need not lose a finding of that rule
    gave_up = {(r.code, r.path) for r in outcome.skipped}
    all_before, all_after = count(outcome.before, lambda f: True), count(after, lambda f: True)
    for key in fixed:
        if key in gave_up:
            assert all_after[key] <= all_before[key], key
        elif all_before[key]:
            assert all_after[key] < all_before[key], key
        else:  # raised by an earlier round's fix (VL214 after a lower max-model-len), fixed in a later one
            assert all_after[key] == 0, key
    # nothing in the untouched files changed
    for p in corpus.rglob("*"):
        if p.is_file() and p.resolve() not in {q.resolve() for q in outcome.changed}:
            rel = p.relative_to(corpus)
            assert p.read_bytes() == (shared / "corpus" / "real" / rel).read_bytes(), rel


def test_vl206_fix_is_float16_or_float32_for_models_vllm_keeps_off_float16(work: Path) -> None:
    (work / "run.sh").write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --dtype bfloat16 --max-model-len 4096\n")
    (f,) = [f for f in findings("run.sh", "--gpu", "T4") if f["code"] == "VL206"]
    assert f["fix"]["changes"][0]["value"] == "half" and f["fix"]["unsafe"]
    run("fix", "--isolated", "--unsafe-fixes", "--select", "VL206", "--gpu", "T4", "run.sh")
    assert "--dtype half " in (work / "run.sh").read_text()
    assert "VL206" not in codes("run.sh", "--gpu", "T4")
    (work / "g.sh").write_text("vllm serve google/gemma-2-9b-it --dtype bfloat16 --max-model-len 4096\n")
    (g,) = [f for f in findings("g.sh", "--gpu", "T4") if f["code"] == "VL206"]
    assert g["fix"]["changes"][0]["value"] == "float32" and "gemma2" in g["fix"]["description"]


def test_vl207_fix_is_bfloat16_or_float32_without_bfloat16(work: Path) -> None:
    (work / "run.sh").write_text("vllm serve google/gemma-3-27b-it --dtype half --max-model-len 8192\n")
    (f,) = [f for f in findings("run.sh", "--gpu", "H100") if f["code"] == "VL207"]
    assert f["fix"]["changes"][0]["value"] == "bfloat16"
    (t4,) = [f for f in findings("run.sh", "--gpu", "T4") if f["code"] == "VL207"]
    assert t4["fix"]["changes"][0]["value"] == "float32"
    run("fix", "--isolated", "--unsafe-fixes", "--select", "VL207", "--gpu", "H100", "run.sh")
    assert "--dtype bfloat16 " in (work / "run.sh").read_text()
    assert "VL207" not in codes("run.sh", "--gpu", "H100")


def test_vl208_fix_removes_the_flag_as_an_unsafe_fix(work: Path) -> None:
    """The launch then runs the checkpoint's method, not the one it asked for: a change of behaviour."""
    src = "vllm serve Qwen/Qwen2.5-7B-Instruct-AWQ \\\n  --quantization gptq \\\n  --max-model-len 8192\n"
    (work / "run.sh").write_text(src)
    (f,) = [f for f in findings("run.sh") if f["code"] == "VL208"]
    assert f["fix"]["unsafe"] and f["fix"]["changes"][0]["action"] == "remove"
    run("fix", "--isolated", "run.sh")
    assert (work / "run.sh").read_text() == src
    run("fix", "--isolated", "--unsafe-fixes", "run.sh")
    assert (work / "run.sh").read_text() == "vllm serve Qwen/Qwen2.5-7B-Instruct-AWQ \\\n  --max-model-len 8192\n"
    assert_parses("run.sh")
    assert "VL208" not in codes("run.sh")
