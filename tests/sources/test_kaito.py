"""KAITO: the ``vllm:`` engine arguments of a ConfigMap's ``inference_config.yaml`` are a launch's
settings (spans in the manifest), labelled with the Workspace that uses them."""

from __future__ import annotations

from pathlib import Path

from tests.sources.render.helpers import lint, write
from vlint.sources.base import SourceText
from vlint.sources.kube import kubernetes

FIXTURE = (Path(__file__).parent / "kaito_workspace.yaml").read_text()


def test_kaito_inference_config_is_a_launch(tmp_path: Path) -> None:
    result = kubernetes.extract(SourceText("kaito.yaml", tmp_path / "kaito.yaml", FIXTURE), lambda p: None)  # type: ignore[arg-type,return-value]
    (inv,) = result.invocations
    assert inv.program == "config"
    assert inv.label == (
        "KAITO inference config ConfigMap/llama-inference-params of Workspace/workspace-llama-3-1-8b "
        "preset llama-3.1-8b-instruct (model meta-llama/Llama-3.1-8B-Instruct: KAITO's preset llama-3.1-8b-instruct)"
    )
    assert inv.config is not None
    keys = {e.key: (e.value, e.key_span.line, e.key_span.column) for e in inv.config.entries}
    assert keys["max-model-len"] == (131072, 12, 7)
    assert keys["gpu-memory-utilization"] == (0.95, 10, 7)


def test_kaito_findings_point_into_the_configmap(tmp_path: Path) -> None:
    write(tmp_path, {"kaito.yaml": FIXTURE})
    found = {(f.code, f.span.line) for f in lint(tmp_path, "kaito.yaml")}
    assert ("VL201", 10) in found  # gpu-memory-utilization 0.95
    assert ("VL002", 16) in found  # num-scheduler-steps: gone with the V0 engine


def test_the_preset_names_the_model_at_its_line(tmp_path: Path) -> None:
    """KAITO's supported_models.yaml gives each preset's checkpoint (vlint/data/kaito_presets.json)."""
    result = kubernetes.extract(SourceText("kaito.yaml", tmp_path / "kaito.yaml", FIXTURE), lambda p: None)  # type: ignore[arg-type,return-value]
    (inv,) = result.invocations
    assert inv.config is not None
    model = next(e for e in inv.config.entries if e.key == "model")
    preset_line = next(i for i, line in enumerate(FIXTURE.splitlines(), 1) if 'name: "llama-3.1-8b-instruct"' in line)
    assert (model.value, model.key_span.line) == ("meta-llama/Llama-3.1-8B-Instruct", preset_line)


def test_a_preset_kaito_table_does_not_list_leaves_the_model_unknown(tmp_path: Path) -> None:
    text = FIXTURE.replace("llama-3.1-8b-instruct", "some-new-preset")
    result = kubernetes.extract(SourceText("kaito.yaml", tmp_path / "kaito.yaml", text), lambda p: None)  # type: ignore[arg-type,return-value]
    (inv,) = result.invocations
    assert inv.config is not None and not any(e.key == "model" for e in inv.config.entries)
    assert kubernetes.kaito_preset_model("Phi-4-Mini-Instruct") == "microsoft/Phi-4-mini-instruct"


# -- a preset run without an inference config of the file: KAITO writes the whole command -----------
INFERENCESET = """apiVersion: kaito.sh/v1alpha1
kind: InferenceSet
metadata:
  name: phi-4-mini
spec:
  replicas: 3
  labelSelector:
    matchLabels:
      apps: phi-4-mini
  template:
    inference:
      preset:
        accessMode: public
        name: phi-4-mini-instruct
    resource:
      instanceType: Standard_NC24ads_A100_v4
"""

WORKSPACE = """apiVersion: kaito.sh/v1beta1
kind: Workspace
metadata:
  name: ws
resource:
  instanceType: "Standard_NC24ads_A100_v4"
inference:
  preset:
    name: llama-3.1-8b-instruct
"""


def _extract(tmp_path: Path, text: str):
    return kubernetes.extract(SourceText("k.yaml", tmp_path / "k.yaml", text), lambda p: None).invocations  # type: ignore[arg-type,return-value]


def test_an_inferenceset_preset_is_a_launch_at_the_preset(tmp_path: Path) -> None:
    """InferenceSet (api/v1alpha1/inferenceset_types.go): spec.template holds a Workspace's inference and
    resource, spec.replicas the Workspaces made of it."""
    (inv,) = _extract(tmp_path, INFERENCESET)
    assert inv.program == "vllm serve" and inv.opaque_args  # KAITO writes the command
    assert [t.text for t in inv.args] == ["microsoft/Phi-4-mini-instruct"]
    assert (inv.span.line, inv.span.column) == (14, 15)  # the preset's name
    assert inv.facts["replicas"].value == 3
    assert inv.facts["instance_gpu_count"].value == 1 and "A100" in inv.facts["gpu_type"].value
    assert inv.facts["parallelism_by_runtime"].value is True
    assert inv.label.startswith("KAITO InferenceSet/phi-4-mini (model microsoft/Phi-4-mini-instruct")


def test_a_workspace_preset_without_config_is_a_launch(tmp_path: Path) -> None:
    (inv,) = _extract(tmp_path, WORKSPACE)
    assert [t.text for t in inv.args] == ["meta-llama/Llama-3.1-8B-Instruct"] and inv.span.line == 9
    named = WORKSPACE + '  config: "elsewhere"\n'
    (inv,) = _extract(tmp_path, named)  # its ConfigMap is not in the file: still KAITO's launch, opaque
    assert inv.opaque_args and "ConfigMap/elsewhere: no vllm settings of it in this file" in inv.label


def test_an_inferenceset_with_its_configmap_is_the_config_launch(tmp_path: Path) -> None:
    configmap = FIXTURE.split("---\n")[0]
    preset = "        name: phi-4-mini-instruct\n"
    text = configmap + "---\n" + INFERENCESET.replace(preset, preset + "      config: llama-inference-params\n")
    (inv,) = _extract(tmp_path, text)
    assert inv.program == "config" and inv.config is not None
    assert inv.config.entries[0].key == "model" and inv.config.entries[0].value == "microsoft/Phi-4-mini-instruct"
    assert inv.facts["replicas"].value == 3 and "parallelism_by_runtime" in inv.facts


def test_a_preset_outside_the_table_stays_unknown(tmp_path: Path) -> None:
    (inv,) = _extract(tmp_path, INFERENCESET.replace("phi-4-mini-instruct", "some-new-preset"))
    assert inv.args[0].unresolved and "not in vlint's table" in inv.label


def test_no_preset_launch_for_transformers_tuning_or_other_groups(tmp_path: Path) -> None:
    """Must not: the transformers runtime (annotation kaito.sh/runtime), a tuning Workspace, a custom
    inference template without a preset, an InferenceSet of another API group."""
    transformers = INFERENCESET.replace(
        "  name: phi-4-mini\n", '  name: phi-4-mini\n  annotations:\n    kaito.sh/runtime: "transformers"\n'
    )
    assert _extract(tmp_path, transformers) == []
    tuning = "apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata: {name: t}\n"
    tuning += "tuning:\n  preset:\n    name: phi-3-mini-4k-instruct\n  method: qlora\n"
    assert _extract(tmp_path, tuning) == []
    custom = "apiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata: {name: c}\ninference:\n  template:\n"
    custom += "    spec:\n      containers: []\n"
    assert _extract(tmp_path, custom) == []
    assert _extract(tmp_path, INFERENCESET.replace("kaito.sh/v1alpha1", "example.com/v1")) == []


def test_kaito_preset_launch_has_no_argument_findings(tmp_path: Path) -> None:
    write(tmp_path, {"is.yaml": INFERENCESET})
    codes = {f.code for f in lint(tmp_path, "is.yaml")}
    assert not {c for c in codes if c.startswith("VL0")}
    assert "VL203" not in codes  # the argv is KAITO's: no finding about a flag's absence
