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
