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
  instanceType: "Standard_NC24ads_A100_v4"
inference:
  preset:
    name: falcon-40b-instruct
  config: "params"
"""


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
