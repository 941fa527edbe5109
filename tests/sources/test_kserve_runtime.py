"""A KServe ServingRuntime and the InferenceService of the same file that names it are one launch, as
KServe merges them (the runtime's container, the predictor's fields over it, its args after the
runtime's, storageUri hf:// as the model the runtime reads from /mnt/models); a runtime no
InferenceService here uses is still linted on its own."""

from __future__ import annotations

from pathlib import Path

from tests.sources.render.helpers import lint, write

FIXTURE = (Path(__file__).parent / "kserve_runtime_isvc.yaml").read_text()


def test_runtime_and_inference_service_are_one_launch(tmp_path: Path) -> None:
    write(tmp_path, {"kserve/llama.yaml": FIXTURE})
    from vlint.sources.base import SourceText
    from vlint.sources.kube import kubernetes

    path = tmp_path / "kserve/llama.yaml"
    result = kubernetes.extract(SourceText("kserve/llama.yaml", path, FIXTURE), lambda p: None)  # type: ignore[arg-type,return-value]
    merged, unused = result.invocations
    assert merged.label == "predictor of InferenceService/llama-70b with ServingRuntime/vllm-runtime"
    words = [t.text for t in merged.args]
    # the runtime's args, then the predictor's; the model is the storageUri's
    assert words == [
        "--port=8080",
        "--model=meta-llama/Llama-3.1-70B-Instruct",
        "--served-model-name={{.Name}}",
        "--tensor-parallel-size=4",
        "--max-model-len=8192",
    ]
    assert merged.facts["gpu_count"].value == 2  # the predictor's resources over the runtime's 1
    assert merged.facts["gpu_type"].value.lower().endswith("l4")  # the predictor's nodeSelector
    assert unused.label.startswith("container kserve-container in ServingRuntime/unused-runtime")


def test_findings_of_the_merged_launch(tmp_path: Path) -> None:
    write(tmp_path, {"kserve/llama.yaml": FIXTURE})
    found = {(f.code, f.span.line) for f in lint(tmp_path, "kserve/llama.yaml")}
    assert ("VL601", 38) in found  # tensor 4 on the 2 GPUs the InferenceService asks for
    assert ("VL001", 53) in found  # the unused runtime alone
    assert not any(code == "VL601" and line < 24 for code, line in found)  # not the runtime's own 1 GPU
