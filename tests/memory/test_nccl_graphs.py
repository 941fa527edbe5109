"""CUDA graphs that capture NCCL all-reduces: vLLM turns its custom all-reduce off on more than two GPUs
without NVLink ([0.19.0] vllm/distributed/device_communicators/custom_all_reduce.py:152-158), every graph
then records PyNCCL collectives whose memory the graph estimate leaves out. Before 0.20 the graphs are
captured after the KV cache, outside the budget: the capture is a risk (h207, Qwen3.5-9B at TP 4 on RTX
3090s, OOM while capturing FULL decode graphs with a 3.65 GiB logged estimate against vlint's ~0.7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.memory.helpers import inputs
from vlint.cli import main
from vlint.core.record import replace
from vlint.memory import estimate_memory
from vlint.memory.estimate import graphs_capture_nccl

MODEL = "Qwen/Qwen2.5-7B-Instruct"


def _nccl_risks(**kw: object) -> list[str]:
    e = estimate_memory(inputs(MODEL, **{"gpu": "L40S", "tensor_parallel_size": 4, **kw}))  # type: ignore[arg-type]
    assert e.starts
    return [r for r in e.risks if "NCCL all-reduces" in r]


def test_tp4_on_pcie_gpus_is_a_graph_capture_risk() -> None:
    (risk,) = _nccl_risks()
    assert "TP=4 on L40S without NVLink" in risk and "CUDA graph capture may run out of memory" in risk
    assert "--enforce-eager" in risk


def test_the_verdict_is_left_as_it_is() -> None:
    """A risk (VL214), not a failure nor a close call: how much NCCL holds is not known."""
    e = estimate_memory(inputs(MODEL, gpu="L40S", tensor_parallel_size=4))
    assert e.starts and not e.too_close_to_call and not e.late_close_call


def test_must_not_fire_where_the_custom_all_reduce_runs() -> None:
    assert _nccl_risks(tensor_parallel_size=2) == []  # two PCIe GPUs: the custom all-reduce is kept
    assert _nccl_risks(gpu="H100", tensor_parallel_size=4) == []  # NVLink, fully connected
    assert _nccl_risks(tensor_parallel_size=1) == []


def test_must_not_fire_without_graphs_or_with_the_estimate_in_the_budget() -> None:
    assert _nccl_risks(enforce_eager=True) == []
    # 0.20+: vLLM profiles the graphs (NCCL included) and takes them from the budget before the KV cache
    assert _nccl_risks(version="0.20.0") == []
    assert _nccl_risks(engine="V0", version="0.6.4") == []


def test_rocm_is_not_this_path() -> None:
    i = inputs(MODEL, gpu="MI300X", tensor_parallel_size=4)
    assert not graphs_capture_nccl(i)
    assert graphs_capture_nccl(replace(i, gpu=inputs(MODEL, gpu="L4").gpu))


def test_vl214_says_it_on_a_launch(tmp_path: Path) -> None:
    f = tmp_path / "serve.sh"
    f.write_text(f"vllm serve {MODEL} --tensor-parallel-size 4\n")

    def vl214(gpu: str) -> list[dict]:
        r = CliRunner().invoke(
            main, ["check", "--isolated", "--gpu", gpu, "--vllm-version", "0.19.0", "--format", "json", str(f)]
        )
        return [x for x in json.loads(r.output)["findings"] if x["code"] == "VL214"]

    (hit,) = vl214("L40S:4")
    assert "NCCL all-reduces" in hit["data"]["risk"] and hit["severity"] == "warning"
    assert not [x for x in vl214("H100:4") if "NCCL" in x["data"]["risk"]]  # must not: NVLink


def test_vl214_offers_no_lower_utilization_for_a_risk_no_room_clears(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The NCCL risk is still there at the lowest utilization the fix would try: VL214 says so without
    a gpu_memory_utilization to lower to, and without sizing the launch at 49 of them first."""
    from vlint.checks import memory_fixes

    calls: list[float] = []
    real = memory_fixes.estimate
    monkeypatch.setattr(
        memory_fixes,
        "estimate",
        lambda base, **kw: calls.append(kw.get("gpu_memory_utilization", 0)) or real(base, **kw),
    )
    f = tmp_path / "serve.sh"
    f.write_text(f"vllm serve {MODEL} --tensor-parallel-size 4\n")
    r = CliRunner().invoke(
        main, ["check", "--isolated", "--gpu", "L40S:4", "--vllm-version", "0.19.0", "--format", "json", str(f)]
    )
    (hit,) = [x for x in json.loads(r.output)["findings"] if x["code"] == "VL214"]
    assert "NCCL all-reduces" in hit["data"]["risk"]
    assert "lower --gpu-memory-utilization to" not in json.dumps(hit.get("fix"))
    assert len([c for c in calls if c]) <= 2  # the floor, not the whole ladder
