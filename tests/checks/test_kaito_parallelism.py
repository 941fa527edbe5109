"""KAITO picks the launch's tensor/pipeline parallelism itself (pkg/model/interface.go:543-570): a memory
failure at the TP 1 vlint assumes is a warning that says so; a parallelism the config sets stays certain."""

from __future__ import annotations

from pathlib import Path

from vlint.engine.catalog import load_catalog
from vlint.engine.runner import Engine
from vlint.run.lint import LintOptions, lint_paths

WORKSPACE = """apiVersion: v1
kind: ConfigMap
metadata:
  name: params
data:
  inference_config.yaml: |
    vllm:
      max-model-len: 4096{extra}
---
apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: ws
resource:
  instanceType: "Standard_NC4as_T4_v3"
inference:
  preset:
    name: falcon-40b-instruct
  config: "params"
"""
# one T4: the 78 GiB of falcon-40b's weights miss the GPU even at half the size its catalog facts (of
# low confidence) give, so the failure is vlint's error, then KAITO's parallelism makes it a warning
# (on one A100-80GB the weights alone fit and halved facts would leave room: too close, whoever picks TP)


def _vl210(tmp_path: Path, extra: str = ""):
    (tmp_path / "ws.yaml").write_text(WORKSPACE.format(extra=extra))
    report = lint_paths([tmp_path / "ws.yaml"], Engine(load_catalog()), LintOptions(root=tmp_path))
    return [f for f in report.findings if f.code == "VL210"]


def test_kaito_chosen_parallelism_makes_the_failure_a_warning(tmp_path: Path) -> None:
    (f,) = _vl210(tmp_path)
    assert f.severity == "warning" and "KAITO sets --tensor-parallel-size" in f.message


def test_a_parallelism_the_config_sets_stays_an_error(tmp_path: Path) -> None:
    (f,) = _vl210(tmp_path, "\n      tensor-parallel-size: 1")
    assert f.severity == "error"


PRESET_ONLY = """apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: ws
resource:
  instanceType: "{sku}"
inference:
  preset:
    name: {preset}
"""


def _findings(tmp_path: Path, text: str):
    (tmp_path / "ws.yaml").write_text(text)
    report = lint_paths([tmp_path / "ws.yaml"], Engine(load_catalog()), LintOptions(root=tmp_path))
    return report.findings, report.files[0].deployments


def test_a_preset_kaito_runs_alone_has_no_finding_on_defaults_kaito_replaces(tmp_path: Path) -> None:
    """KAITO writes the whole command of a preset run without a config: TP from the node's GPUs (TP 2 on
    two A100s for a 70B model), the GPU memory utilization and the longest context that fits; vLLM's
    defaults at TP 1 are not this launch's, so their will-not-start is no finding. The memory model still
    answers (at the defaults, for explain)."""
    text = PRESET_ONLY.format(sku="Standard_NC48ads_A100_v4", preset="llama-3.3-70b-instruct")
    findings, (dep,) = _findings(tmp_path, text)
    assert [f.code for f in findings] == []
    assert dep.memory is not None and not dep.memory.starts  # at TP 1: what KAITO would not run


def test_a_config_launch_keeps_its_warning(tmp_path: Path) -> None:
    """Must not: a launch whose settings a ConfigMap writes (KAITO picks only the parallelism) keeps the
    will-not-start warning; a plain launch its error."""
    (f,) = _vl210(tmp_path)
    assert f.severity == "warning"
    (tmp_path / "start.sh").write_text("vllm serve meta-llama/Llama-3.3-70B-Instruct\n")
    report = lint_paths([tmp_path / "start.sh"], Engine(load_catalog()), LintOptions(root=tmp_path, resolve=_a100()))
    assert [x.severity for x in report.findings if x.code == "VL210"] == ["error"]


def _a100():
    from vlint.launch.resolver import ResolveOptions

    return ResolveOptions(gpu="A100-80GB")
