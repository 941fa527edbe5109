"""Reach of the memory model (issue 12): reference GPUs when none is named (gpu_fit, VL230/VL231), bare
config files as launches, model facts from the mapping and --model-config through the CLI, and the
"memory model: N of M launches; not checked: …" line — never silent."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main
from vlint.launch.gpu_fit import DEFAULT_REFERENCE_GPUS, reference_gpus


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    return tmp_path


def run(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return r.exit_code, r.stdout


def explain_json(*args: str) -> list[dict]:
    code, out = run("explain", "--format", "json", *args)
    assert code == 0, out
    return json.loads(out)["deployments"]


def lint_json(*args: str) -> dict:
    code, out = run("--format", "json", *args)
    assert code in (0, 1), out
    return json.loads(out)


def by_gpu(fits: list[dict]) -> dict[str, dict]:
    return {f["gpu"]: f for f in fits}


# -- gpu_fit ------------------------------------------------------------------------------------------
def test_reference_gpus_are_the_issue_list_smallest_first() -> None:
    names = [n for n, _ in reference_gpus()]
    assert set(names) == set(DEFAULT_REFERENCE_GPUS) and len(names) == 11
    sizes = [g.total_gib for _, g in reference_gpus()]
    assert sizes == sorted(sizes)


def test_fits_only_on_80gb_gpus(work: Path) -> None:
    (work / "start.sh").write_text("vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 8192\n")
    (dep,) = explain_json("start.sh")
    assert dep["memory"] is None and "reference GPUs" in dep["memory_unavailable"]
    fits = by_gpu(dep["gpu_fit"])
    assert list(fits) == [n for n, _ in reference_gpus()]
    for small in ("T4", "L4", "A10G", "RTX-4090", "A100-40GB", "L40S"):
        assert fits[small]["starts"] is False and fits[small]["failure"], small
        assert fits[small]["kv_cache_tokens"] == 0
    for big in ("A100-80GB", "H100", "H200", "B200", "MI300X"):
        f = fits[big]
        assert f["starts"] is True and f["failure"] is None and f["kv_cache_tokens"] > 8192, big
        assert f["max_concurrency"] > 1 and f["count"] == 1
    assert 45 < fits["H100"]["gpu_memory_needed_gib"] < 79.19
    findings = lint_json("start.sh")["findings"]
    (info,) = [f for f in findings if f["code"] == "VL230"]
    assert info["severity"] == "info"
    assert "starts on A100-80GB, H100, H200, B200, MI300X" in info["message"]
    assert "not on T4, L4, A10G, RTX-4090, A100-40GB, L40S" in info["message"]
    assert info["data"]["starts_on"][0] == "A100-80GB" and info["data"]["gpu_memory_needed_gib"] > 45
    assert not [f for f in findings if f["code"] == "VL231"]


def test_fits_nowhere_is_an_error_worded_like_vl210(work: Path) -> None:
    (work / "start.sh").write_text("vllm serve meta-llama/Llama-3.1-405B --max-model-len 4096\n")
    (dep,) = explain_json("start.sh")
    assert dep["gpu_fit"] and not any(f["starts"] for f in dep["gpu_fit"])
    code, out = run("-q", "--no-color", "start.sh")
    assert code == 1
    line = next(x for x in out.splitlines() if "VL231" in x)
    assert "VL231 [error] vLLM will not start (on any reference GPU up to MI300X, 191.98 GiB each" in line
    assert "out of memory while loading weights" in line
    assert "VL230" not in out


def test_tensor_parallel_layout_is_kept(work: Path) -> None:
    (work / "start.sh").write_text("vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 8192 -tp 2\n")
    (dep,) = explain_json("start.sh")
    fits = by_gpu(dep["gpu_fit"])
    assert all(f["count"] == 2 for f in fits.values())
    assert fits["L40S"]["starts"] is True  # 2 × 48 GB hold what one 48 GB cannot


def test_named_gpu_gets_the_full_model_not_gpu_fit(work: Path) -> None:
    (work / "start.sh").write_text("vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 8192\n")
    (dep,) = explain_json("--gpu", "H100", "start.sh")
    assert dep["memory"] is not None and dep["gpu_fit"] is None and dep["memory_unavailable"] is None
    assert "VL230" not in {f["code"] for f in lint_json("--gpu", "H100", "start.sh")["findings"]}


def test_reference_gpus_from_the_config(work: Path) -> None:
    (work / ".vlint.toml").write_text('reference-gpus = ["L40S", "H100"]\n')
    (work / "start.sh").write_text("vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 8192\n")
    (dep,) = explain_json("start.sh")
    assert [f["gpu"] for f in dep["gpu_fit"]] == ["L40S", "H100"]
    (work / ".vlint.toml").write_text('reference-gpus = ["L40S", "Z9000"]\n')
    code, _ = run("start.sh")
    assert code == 2


def test_other_platforms_and_unknown_gpus_get_a_reason_not_a_guess(work: Path) -> None:
    # the CPU backend: a space vLLM 0.33 takes from the host (unknown) is answered over reference hosts;
    # a space the launch states is the full estimate (tests/memory/test_platforms.py for the arithmetic)
    (work / "cpu.sh").write_text(
        "VLLM_TARGET_DEVICE=cpu vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096\n"
        "VLLM_CPU_KVCACHE_SPACE=4 vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096\n"
    )
    host, fixed = explain_json("cpu.sh")
    assert host["memory"] is None and {f["kind"] for f in host["gpu_fit"]} == {"CPU host"}
    assert host["memory_unavailable"].startswith("VLLM_CPU_KVCACHE_SPACE is not set, so vLLM 0.33.0 takes half")
    assert fixed["gpu_fit"] is None and fixed["memory"]["platform"] == "cpu"
    assert fixed["memory"]["kv_cache_gib"] == 4.0
    # a TPU whose type no label names: the reference TPUs
    (work / "tpu.sh").write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096 --device tpu\n")
    (dep,) = explain_json("--vllm-version", "0.8.5", "tpu.sh")  # --device exists up to 0.9
    assert [f["gpu"] for f in dep["gpu_fit"]] == ["TPU-v5e", "TPU-v6e", "TPU-v5p"]
    assert dep["memory_unavailable"].startswith("the TPU type is not named")
    # a platform the memory model does not reproduce: a reason, no guess
    (work / "neuron.sh").write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096 --device neuron\n")
    (dep,) = explain_json("--vllm-version", "0.8.5", "neuron.sh")
    assert dep["memory"] is None and dep["gpu_fit"] is None
    assert "runs on AWS Neuron" in dep["memory_unavailable"]
    (work / "k8s.yaml").write_text(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: m}\nspec:\n  template:\n    spec:\n"
        "      nodeSelector: {cloud.google.com/gke-accelerator: nvidia-rtx-9999}\n"
        "      containers:\n      - name: vllm\n        image: vllm/vllm-openai:v0.10.2\n"
        "        args: [--model, Qwen/Qwen2.5-7B-Instruct, --max-model-len, '4096']\n"
    )
    (dep,) = explain_json("k8s.yaml")
    # a GPU type vlint does not know: answered over the reference GPUs, and worded as such
    assert dep["gpu_fit"], dep
    why = dep["memory_unavailable"]
    assert "nvidia-rtx-9999 is not in vlint's GPU catalog: answered over the reference GPUs" in why, why
    _, out = run("--format", "json", "k8s.yaml")
    (vl230,) = [f for f in json.loads(out)["findings"] if f["code"] == "VL230"]
    assert vl230["message"].startswith("the GPU type nvidia-rtx-9999 is not in vlint's GPU catalog; on the ")
    assert "--gpu-memory-gib" in vl230["message"] and vl230["data"]["stated_gpu"] == "nvidia-rtx-9999"
    _, text = run("k8s.yaml")
    assert "memory model: 1 of 1 launch (1 on the reference GPUs: 1 with a GPU type vlint does not know" in text


# -- never silent ---------------------------------------------------------------------------------
SUMMARY_FILES = {
    "a.sh": "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 4096\n",
    "b.sh": "vllm serve /models/x --max-model-len 4096\n",
    "c.sh": "vllm serve $MODEL --max-model-len 4096\n",
}


def test_summary_line_names_what_was_not_checked(work: Path) -> None:
    for name, text in SUMMARY_FILES.items():
        (work / name).write_text(text)
    (work / ".git").mkdir()  # the lint root: /models/x lies outside
    _, out = run("-q", "--no-color", "--gpu", "L4", ".")
    line = next(x for x in out.splitlines() if x.startswith("memory model:"))
    assert line == (
        "memory model: 1 of 3 launches; not checked: 2 — "
        "1 model folder not read: /models/x (map it in [tool.vlint] models, or pass --model-config); "
        "1 model not resolved (pass --model-config PATH)."
    )
    assert out.splitlines()[-1].startswith("No problems found in what was checked.")
    _, out = run("-q", "--no-color", "b.sh")
    line = next(x for x in out.splitlines() if x.startswith("memory model:"))
    assert line == (
        "memory model: 0 of 1 launch; not checked: 1 — b.sh:1: model folder /models/x lies outside the lint "
        "root, so its config.json is not read (map it in [tool.vlint] models, or pass --model-config)."
    )
    assert "No problems found in what was checked." in out


def test_json_and_sarif_carry_memory_unavailable(work: Path) -> None:
    for name, text in SUMMARY_FILES.items():
        (work / name).write_text(text)
    (work / ".git").mkdir()
    doc = lint_json(".")
    deps = {f["path"]: f["deployments"] for f in doc["files"]}
    assert deps["a.sh"][0]["memory_answer"] == "gpu_fit"
    assert deps["b.sh"][0]["memory_answer"] is None
    assert deps["b.sh"][0]["memory_unavailable_kind"] == "model_not_read"
    assert "[tool.vlint] models" in deps["b.sh"][0]["memory_unavailable"]
    assert deps["c.sh"][0]["memory_unavailable_kind"] == "model_unresolved"
    assert doc["summary"]["memory"] == {"checked": 0, "gpu_fit": 1, "unavailable": 2}
    _, out = run("--format", "sarif", ".")
    sarif = json.loads(out)["runs"][0]
    notes = [n for n in sarif["invocations"][0]["toolExecutionNotifications"] if n["level"] == "note"]
    assert {n["properties"]["kind"] for n in notes} == {"model_not_read", "model_unresolved"}
    assert sarif["invocations"][0]["executionSuccessful"] is True
    assert sarif["properties"]["memory"]["unavailable"] == 2


def test_summary_is_the_same_with_worker_processes(work: Path) -> None:
    for i in range(60):  # enough files for -j 2 to use workers
        (work / f"s{i:02}.sh").write_text(SUMMARY_FILES["a.sh"] if i % 2 else SUMMARY_FILES["c.sh"])
    one = run("-q", "--no-color", "-j", "1", ".")[1]
    two = run("-q", "--no-color", "-j", "2", ".")[1]
    assert one == two and "memory model: 30 of 60 launches" in one


# -- bare config files ----------------------------------------------------------------------------
def test_a_serve_yaml_with_only_the_model_is_a_launch(work: Path) -> None:
    (work / "serve.yaml").write_text("model: meta-llama/Llama-3.1-8B-Instruct\n")
    codes = {f["code"] for f in lint_json("serve.yaml")["findings"]}
    assert {"VL203", "VL230"} <= codes
    (dep,) = explain_json("serve.yaml")
    assert dep["model"] == "meta-llama/Llama-3.1-8B-Instruct" and dep["gpu_fit"]
    # found by a walk, `model:` alone is any application's config: not a launch
    (work / "sub").mkdir()
    (work / "sub" / "app.yaml").write_text("model: gpt-4o\n")
    assert lint_json("sub")["summary"]["launches"] == 0


def test_a_bare_config_completed_by_a_launch_is_linted_merged(work: Path) -> None:
    (work / "serve.yaml").write_text("model: meta-llama/Llama-3.1-8B-Instruct\n")
    (work / "start.sh").write_text("vllm serve --config serve.yaml --max-model-len 8192\n")
    doc = lint_json("serve.yaml", "start.sh")
    assert doc["summary"]["launches"] == 1
    files = {f["path"]: f for f in doc["files"]}
    assert files["serve.yaml"]["used_by"] == ["start.sh"]
    assert files["start.sh"]["deployments"][0]["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert "VL203" not in {f["code"] for f in doc["findings"]}


# -- model facts through the CLI ------------------------------------------------------------------------
def test_models_mapping_in_the_config(work: Path, tiny_config: dict) -> None:
    (work / "pyproject.toml").write_text(
        '[tool.vlint.models]\n"/models/llama" = "meta-llama/Llama-3.1-8B-Instruct"\n"/mnt/ft" = "./ckpt"\n'
    )
    (work / "ckpt").mkdir()
    (work / "ckpt" / "config.json").write_text(json.dumps(tiny_config))
    (work / "start.sh").write_text(
        "vllm serve /models/llama --max-model-len 8192\nvllm serve /mnt/ft --max-model-len 2048\n"
    )
    a, b = explain_json("--gpu", "L4", "start.sh")
    assert a["memory"] is not None and a["model_facts"]["origin"] == "mapping"
    assert "meta-llama/Llama-3.1-8B-Instruct (catalog)" in a["model_facts"]["via"]
    assert b["memory"] is not None and b["model_facts"]["origin"] == "mapping"
    assert b["model_facts"]["source"].endswith(str(work / "ckpt" / "config.json"))


def test_model_config_option(work: Path, tiny_config: dict) -> None:
    cfg = work / "my-config.json"
    cfg.write_text(json.dumps(tiny_config))
    (work / "start.sh").write_text("vllm serve $MODEL --max-model-len 2048\n")
    (dep,) = explain_json("--gpu", "L4", "--model-config", str(cfg), "start.sh")
    assert dep["memory"] is not None and dep["model_facts"]["origin"] == "--model-config"
    code, out = run("-q", "--no-color", "--gpu", "L4", "--model-config", str(cfg), "start.sh")
    assert "memory model: 1 of 1 launch." in out
    (dep,) = explain_json("--gpu", "L4", "--model-config", f"other/model={cfg}", "start.sh")
    assert dep["memory"] is None
    code, _ = run("--model-config", str(work / "missing.json"), "start.sh")
    assert code == 2


def test_hf_cache_through_the_cli(work: Path, monkeypatch: pytest.MonkeyPatch, tiny_config: dict) -> None:
    snap = work / "hub" / "models--acme--tiny" / "snapshots" / ("a" * 40)
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(json.dumps(tiny_config))
    (work / "hub" / "models--acme--tiny" / "refs").mkdir()
    (work / "hub" / "models--acme--tiny" / "refs" / "main").write_text("a" * 40)
    monkeypatch.setenv("HF_HUB_CACHE", str(work / "hub"))
    (work / "start.sh").write_text("vllm serve acme/tiny --max-model-len 2048\n")
    (dep,) = explain_json("--gpu", "L4", "start.sh")
    assert dep["memory"] is not None and dep["model_facts"]["origin"] == "HF cache"
    _, out = run("explain", "--gpu", "L4", "start.sh")
    assert "model facts: HF cache (Hugging Face cache " in out


def test_size_without_gpu_considers_the_reference_gpus(work: Path) -> None:
    code, out = run(
        "size", "--model", "Qwen/Qwen2.5-7B-Instruct", "--prompt-p99", "2000", "--max-tokens", "500", "--format", "json"
    )
    assert code == 0
    gpus = {r["gpu"] for r in json.loads(out)["rows"]}
    assert gpus == set(DEFAULT_REFERENCE_GPUS)


def test_cache_ids_never_lead_out(work: Path, monkeypatch: pytest.MonkeyPatch, tiny_config: dict) -> None:
    """A model name from a linted file never builds a path out of the cache."""
    hub = work / "hub"
    hub.mkdir()
    (work / "secret").mkdir()
    (work / "secret" / "config.json").write_text(json.dumps(tiny_config))
    monkeypatch.setenv("HF_HUB_CACHE", str(hub))
    os.symlink(work / "secret", hub / "models--evil--x")
    (work / "start.sh").write_text(
        "vllm serve ../secret --max-model-len 2048\nvllm serve evil/x --max-model-len 2048\n"
    )
    (work / ".git").mkdir()
    deps = explain_json("--gpu", "L4", "start.sh")
    assert deps[1]["memory"] is None  # the symlinked cache folder is read only inside itself: no snapshot


def test_skypilot_accelerator_options_each_get_an_answer(work: Path) -> None:
    """``accelerators: {L4:1, A100:4}`` with ``--tensor-parallel-size $SKYPILOT_NUM_GPUS_PER_NODE``: SkyPilot
    picks one; the memory model answers for each, the tensor-parallel size being that option's count."""
    (work / "task.yaml").write_text(
        "resources:\n  accelerators: {L4:1, A100:4}\n"
        "run: |\n  vllm serve Qwen/Qwen2.5-32B-Instruct --max-model-len 8192 \\\n"
        "    --tensor-parallel-size $SKYPILOT_NUM_GPUS_PER_NODE\n"
    )
    (dep,) = explain_json("task.yaml")
    fits = {(f["gpu"], f["count"]): f for f in dep["gpu_fit"]}
    assert set(fits) == {("L4", 1), ("A100", 4)} and {f["kind"] for f in fits.values()} == {"accelerator option"}
    assert not fits[("L4", 1)]["starts"] and fits[("A100", 4)]["starts"]  # 61 GiB of weights on one L4
    assert dep["memory_unavailable"].startswith("SkyPilot launches the task on one of its resources.accelerators")
    (vl230,) = [f for f in lint_json("task.yaml")["findings"] if f["code"] == "VL230"]
    assert "starts on 4 × A100; not on L4" in vl230["message"]


def test_an_architecture_the_memory_model_does_not_reproduce_says_so(work: Path) -> None:
    """DeepSeek-V4's compressed sparse attention keeps KV state the memory model does not size: no numbers
    (a wrong number is worse than none), a reason of its own kind, on a GPU and over the reference GPUs."""
    (work / "ds.sh").write_text("vllm serve deepseek-ai/DeepSeek-V4-Flash --tensor-parallel-size 8\n")
    for args in (("--gpu", "H200"), ()):
        (dep,) = explain_json(*args, "ds.sh")
        assert dep["memory"] is None and dep["gpu_fit"] is None
        assert dep["memory_unavailable"].startswith("the memory model does not reproduce deepseek_v4 models' KV cache")
    _, text = run("--gpu", "H200", "ds.sh")
    assert "does not reproduce deepseek_v4" in text and "VL210" not in text
