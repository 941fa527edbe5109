"""The memory model on vLLM's CPU backend, TPUs (tpu-inference) and Intel Gaudi (vllm-gaudi)
(vlint.memory.platforms): the KV space each platform takes, per release, and the verdicts that follow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main
from vlint.core.version import Version
from vlint.hardware.accelerators import lookup_accelerator, reference_accelerators
from vlint.memory.platforms import HPU_UNAVAILABLE_GIB, cpu_kv_space, hpu_kv_space, tpu_kv_space

GIB = 2**30


@pytest.mark.parametrize(
    ("version", "value", "gib", "refused"),
    [
        # up to 0.9.x the variable defaults to 0, which means 4 GiB; a negative value is refused
        ("0.8.5", None, 4, False),
        ("0.8.5", "0", 4, False),
        ("0.9.2", "16", 16, False),
        ("0.9.2", "-1", 0, True),
        # 0.10.0-0.12.x: unset means 4 GiB, a value is that many GiB (0 is no KV cache at all)
        ("0.10.2", None, 4, False),
        ("0.10.2", "0", 0, False),
        ("0.12.0", None, 4, False),
        # 0.13.0+: unset means half the host's memory per NUMA node: unknown to vlint
        ("0.13.0", None, None, False),
        ("0.33.0", "8", 8, False),
        ("0.33.0", "lots", None, False),
    ],
)
def test_cpu_kv_space_per_release(version: str, value: str | None, gib: int | None, refused: bool) -> None:
    space = cpu_kv_space(Version.parse(version), value)
    assert (space.bytes if space.bytes is None else space.bytes // GIB) == gib
    assert (space.refusal is not None) == refused
    assert space.uncertainty_gib == 0.0  # a stated space is exact


def test_tpu_and_gaudi_spaces_follow_the_plugins() -> None:
    v6e = lookup_accelerator("tpu-v6e-slice", "TPU")
    gaudi2 = lookup_accelerator("Gaudi2")
    assert v6e is not None and gaudi2 is not None
    ver = Version.parse("0.33.0")
    tpu = tpu_kv_space(v6e, 0.9, 10 * GIB, ver)
    assert tpu.bytes == int((31.25 * 0.9 - 10) * GIB) and tpu.refusal is None and tpu.uncertainty_gib > 0
    over = tpu_kv_space(v6e, 0.9, 30 * GIB, ver)
    assert over.refusal is not None and over.refusal.startswith("ValueError: total_hbm_used_gb=30.00GiB exceeds")
    hpu = hpu_kv_space(gaudi2, 0.9, 15 * GIB, ver, 0.1)
    assert hpu.bytes == int((96 - HPU_UNAVAILABLE_GIB - 15) * 0.9 * 0.9 * GIB) and hpu.reserved_blocks == 1
    assert [a.name for a in reference_accelerators("HPU")] == ["Gaudi2", "Gaudi3"]
    assert lookup_accelerator("google-tpu-v5e-2x2", "TPU").name == "TPU-v5e"  # a KubeAI resource profile
    assert lookup_accelerator("nvidia-l4", "TPU") is None


def _explain(tmp_path: Path, name: str, text: str, *args: str) -> dict:
    (tmp_path / name).write_text(text)
    r = CliRunner().invoke(main, ["explain", "--format", "json", *args, str(tmp_path / name)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    (dep,) = json.loads(r.stdout)["deployments"]
    return dep


def _lint(tmp_path: Path, name: str, *args: str) -> list[dict]:
    r = CliRunner().invoke(main, ["--format", "json", *args, str(tmp_path / name)], catch_exceptions=False)
    return json.loads(r.stdout)["findings"]


def test_cpu_space_exact_tokens_and_vllms_check(tmp_path: Path) -> None:
    """Llama-3.1-8B: 128 KiB of KV per token, so 4 GiB hold exactly 32,768 tokens. vLLM 0.33 keeps one
    block back as the null block in its startup check ([0.33.0] vllm/v1/core/kv_cache_planning.py:1532-1544):
    a 32,768-token request no longer fits; 0.19.1 has no such reserve and starts."""
    text = "VLLM_CPU_KVCACHE_SPACE=4 vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 32768\n"
    new = _explain(tmp_path, "cpu.sh", text, "--vllm-version", "0.33.0")["memory"]
    assert new["platform"] == "cpu" and new["kv_bytes_per_token"] == 131072 and new["block_size"] == 128
    assert not new["starts"] and new["estimated_max_model_len"] == 32640
    old = _explain(tmp_path, "cpu.sh", text, "--vllm-version", "0.19.1")["memory"]
    assert old["starts"] and old["kv_cache_tokens"] == 32768 and old["max_concurrency"] == 1.0
    (vl210,) = [f for f in _lint(tmp_path, "cpu.sh", "--vllm-version", "0.33.0") if f["code"] == "VL210"]
    assert vl210["severity"] == "error" and "CPU backend" in vl210["message"]
    assert "VLLM_CPU_KVCACHE_SPACE" in vl210["fix"]["description"]
    # V0 (0.8.x): the CPU worker's own refusal, in its words
    v0 = _explain(tmp_path, "cpu.sh", text.replace("32768", "40000"), "--vllm-version", "0.8.5")["memory"]
    assert v0["engine"] == "V0" and not v0["starts"]
    assert "Try increasing `VLLM_CPU_KVCACHE_SPACE`" in v0["failure"]


def test_cpu_host_sizes_when_vllm_takes_half_the_host(tmp_path: Path) -> None:
    dep = _explain(
        tmp_path, "cpu.sh", "VLLM_TARGET_DEVICE=cpu vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 65536\n"
    )
    fits = {f["gpu"]: f for f in dep["gpu_fit"]}
    # one request of 65,536 tokens needs 8 GiB: half of a 16 GiB node is 8 GiB less the null block
    assert not fits["16 GiB host"]["starts"] and fits["32 GiB host"]["starts"]
    assert fits["32 GiB host"]["gpu_memory_needed_gib"] == 16.0


def test_tpu_named_by_its_node_label(tmp_path: Path) -> None:
    manifest = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: t}\nspec:\n  template:\n    spec:\n"
        "      nodeSelector: {cloud.google.com/gke-tpu-accelerator: tpu-v6e-slice, "
        "cloud.google.com/gke-tpu-topology: 2x4}\n"
        "      containers:\n      - name: vllm\n        image: vllm/vllm-tpu:latest\n"
        "        args: [--model=meta-llama/Llama-3.1-70B, --tensor-parallel-size=8, --max-model-len=4096]\n"
        "        resources: {limits: {google.com/tpu: 8}}\n"
    )
    m = _explain(tmp_path, "tpu.yaml", manifest)["memory"]
    assert m["platform"] == "tpu" and m["starts"]
    # 141,107,412,992 bytes of weights over 8 chips; 31.25 GiB × 0.92 less those
    assert abs(m["weights_gib"] - 141107412992 / 8 / GIB) < 0.05
    assert abs(m["kv_cache_gib"] - (31.25 * 0.92 - m["weights_gib"])) < 0.01
    # on v5e the same launch does not fit its weights: tpu-inference refuses, far outside the band
    (tmp_path / "tpu.yaml").write_text(manifest.replace("tpu-v6e-slice", "tpu-v5-lite-podslice"))
    (vl210,) = [f for f in _lint(tmp_path, "tpu.yaml") if f["code"] == "VL210"]
    assert vl210["severity"] == "error" and "total_hbm_used_gb" in vl210["message"]


def test_gaudi_without_a_type_and_close_calls(tmp_path: Path) -> None:
    """A Gaudi launch that names no type is answered over Gaudi2 and Gaudi3. No TPU or Gaudi log
    calibrates the model: a margin inside its wide band is too close to call, a warning."""
    text = "vllm serve meta-llama/Llama-3.1-8B-Instruct --device hpu --max-model-len 4096\n"
    dep = _explain(tmp_path, "hpu.sh", text, "--vllm-version", "0.8.5")
    assert [f["gpu"] for f in dep["gpu_fit"]] == ["Gaudi2", "Gaudi3"] and all(f["starts"] for f in dep["gpu_fit"])
    assert dep["memory_unavailable"].startswith("the Gaudi type is not named")
    # Llama-3.1-8B on one TPU v5e: 14.96 GiB of weights against 15.75 × 0.92 = 14.49 GiB, inside the band
    manifest = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: t}\nspec:\n"
        "  nodeSelector: {cloud.google.com/gke-tpu-accelerator: tpu-v5-lite-podslice}\n"
        "  containers:\n  - name: vllm\n    image: vllm/vllm-tpu:latest\n"
        "    args: [--model=meta-llama/Llama-3.1-8B-Instruct, --max-model-len=4096]\n"
    )
    m = _explain(tmp_path, "tpu.yaml", manifest)["memory"]
    assert m["platform"] == "tpu" and not m["starts"]
    (vl210,) = [f for f in _lint(tmp_path, "tpu.yaml") if f["code"] == "VL210"]
    assert vl210["severity"] == "warning" and "too close to call" in vl210["message"]
