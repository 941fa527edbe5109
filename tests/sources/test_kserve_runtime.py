"""A KServe ServingRuntime and the InferenceService of the same file that names it are one launch, as
KServe merges them (the runtime's container, the predictor's fields over it, its args after the
runtime's, storageUri hf:// as the model the runtime reads from /mnt/models); a runtime no
InferenceService here uses is still linted on its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sources.render.helpers import lint, lint_notes, write

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


# -- the InferenceService and its ServingRuntime in files side by side -------------------------------
RUNTIME, SERVICE, UNUSED = FIXTURE.split("---\n")


def test_runtime_and_an_inference_service_of_a_file_beside_it_are_one_launch(tmp_path: Path) -> None:
    """KServe applies the two together: the runtime's launch gets the predictor's GPUs, node selection,
    storage and args, each pointing into the InferenceService's file; that file says where it is checked."""
    write(tmp_path, {"kserve/serving-runtime.yaml": RUNTIME, "kserve/inference-service.yaml": SERVICE})
    findings, notes = lint_notes(tmp_path, "kserve/serving-runtime.yaml", "kserve/inference-service.yaml")
    vl601 = [f for f in findings if f.code == "VL601"]
    # tensor 4 (the predictor's args) on the 2 GPUs the InferenceService asks for, not the runtime's own 1
    assert [(f.span.path, f.span.line) for f in vl601] == [("kserve/inference-service.yaml", 15)]
    assert "but gets 2 (predictor.model.resources" in vl601[0].message
    assert notes == [
        "kserve/inference-service.yaml: InferenceService/llama-70b runs with ServingRuntime/vllm-runtime of "
        "kserve/serving-runtime.yaml: the launch KServe makes of the two is checked there"
    ]


def test_storage_of_an_inference_service_beside_names_the_model(tmp_path: Path) -> None:
    from vlint.sources.base import SourceText
    from vlint.sources.kube import kubernetes

    write(tmp_path, {"k/runtime.yaml": RUNTIME, "k/isvc.yaml": SERVICE})
    path = tmp_path / "k/runtime.yaml"

    def read(p: Path) -> SourceText:
        return SourceText(p.relative_to(tmp_path).as_posix(), p, p.read_text())

    (inv,) = kubernetes.extract(SourceText("k/runtime.yaml", path, path.read_text()), read).invocations
    assert "--model=meta-llama/Llama-3.1-70B-Instruct" in [t.text for t in inv.args]  # hf:// storage
    assert inv.args[-2:][0].text == "--tensor-parallel-size=4" and inv.args[-1].span.path == "k/isvc.yaml"
    assert inv.label.endswith("with InferenceService/llama-70b of k/isvc.yaml") and not inv.opaque_args


def test_no_link_to_another_runtime_another_folder_or_a_huggingface_predictor(tmp_path: Path) -> None:
    """Must not: an InferenceService naming another runtime, one in another folder, or none at all leaves
    the runtime on its own (KServe appends arguments vlint does not see: open-ended), with no note."""
    other = SERVICE.replace("runtime: vllm-runtime", "runtime: other-runtime")
    write(tmp_path, {"a/serving-runtime.yaml": RUNTIME, "a/isvc.yaml": other, "b/isvc.yaml": SERVICE})
    findings, notes = lint_notes(tmp_path, "a/serving-runtime.yaml", "a/isvc.yaml", "b/isvc.yaml")
    assert not [f for f in findings if "with InferenceService" in f.context]
    assert notes == []
    elsewhere = SERVICE.replace("  name: llama-70b\n", "  name: llama-70b\n  namespace: a\n")
    write(
        tmp_path,
        {"d/serving-runtime.yaml": RUNTIME.replace("  name: vllm-runtime\n", "  name: vllm-runtime\n  namespace: b\n")},
    )
    write(tmp_path, {"d/isvc.yaml": elsewhere})
    findings, notes = lint_notes(tmp_path, "d/serving-runtime.yaml", "d/isvc.yaml")
    assert not [f for f in findings if "with InferenceService" in f.context] and notes == []  # other namespaces
    hf = SERVICE.replace("name: vLLM", "name: huggingface")
    write(tmp_path, {"c/serving-runtime.yaml": RUNTIME, "c/isvc.yaml": hf})
    assert lint_notes(tmp_path, "c/isvc.yaml")[1] == []


# -- an InferenceService that names no runtime: KServe auto-selects one for its model format ------------
AUTO = FIXTURE.replace("      runtime: vllm-runtime\n", "")


def test_the_one_runtime_that_auto_selects_the_format_is_an_inference(tmp_path: Path) -> None:
    """No ``runtime:``: KServe takes a runtime whose supportedModelFormats has the predictor's format with
    autoSelect. The one such runtime of the files is taken for it — an inference (the cluster may hold
    others), so the launch's errors are warnings that say so."""
    write(tmp_path, {"kserve/llama.yaml": AUTO})
    (vl601,) = [f for f in lint(tmp_path, "kserve/llama.yaml") if f.code == "VL601"]
    assert vl601.context.startswith("predictor of InferenceService/llama-70b with ServingRuntime/vllm-runtime")
    assert vl601.severity == "warning" and "auto-selects for modelFormat vLLM" in vl601.message


@pytest.mark.parametrize(
    "change",
    [
        ("autoSelect: true", "autoSelect: false"),  # the runtime does not auto-select
        (
            "    - name: vLLM\n      autoSelect: true\n",
            '    - name: vLLM\n      version: "2"\n      autoSelect: true\n',
        ),
        (
            "kind: ServingRuntime\nmetadata:\n  name: unused-runtime\nspec:\n",
            (
                "kind: ServingRuntime\nmetadata:\n  name: unused-runtime\nspec:\n"
                "  supportedModelFormats:\n    - name: vLLM\n      autoSelect: true\n"
            ),
        ),  # two runtimes qualify: KServe's choice is not in the files
    ],
)
def test_no_auto_selected_runtime_when_none_or_several_qualify(tmp_path: Path, change: tuple[str, str]) -> None:
    text = AUTO.replace(*change)
    if "version" in change[1]:
        text = text.replace("        name: vLLM\n", '        name: vLLM\n        version: "1"\n')
    write(tmp_path, {"kserve/llama.yaml": text})
    assert not [f for f in lint(tmp_path, "kserve/llama.yaml") if "with ServingRuntime" in f.context]


def test_an_auto_selected_runtime_in_a_file_beside(tmp_path: Path) -> None:
    service = SERVICE.replace("      runtime: vllm-runtime\n", "")
    write(tmp_path, {"k/serving-runtime.yaml": RUNTIME, "k/isvc.yaml": service})
    findings, notes = lint_notes(tmp_path, "k/serving-runtime.yaml", "k/isvc.yaml")
    (vl601,) = [f for f in findings if f.code == "VL601"]
    assert "with InferenceService/llama-70b of k/isvc.yaml" in vl601.context and vl601.severity == "warning"
    assert notes == [
        "k/isvc.yaml: InferenceService/llama-70b runs with ServingRuntime/vllm-runtime (auto-selected for its "
        "modelFormat) of k/serving-runtime.yaml: the launch KServe makes of the two is checked there"
    ]


# -- storage vlint does not read: a modelcar image, object storage -------------------------------------
def _memory(tmp_path: Path, *names: str, models: dict[str, str] | None = None):
    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine
    from vlint.launch.memory_status import memory_status
    from vlint.launch.resolver import ResolveOptions
    from vlint.run.lint import LintOptions, lint_paths
    from vlint.security.lint_root import LintRoot

    resolve = ResolveOptions(models=models or {})
    opts = LintOptions(root=tmp_path, lint_root=LintRoot(tmp_path.resolve()), resolve=resolve)
    report = lint_paths([tmp_path / n for n in names], Engine(load_catalog()), opts)
    return [memory_status(d) for fr in report.files for d in fr.deployments]


MODELCAR = "oci://quay.io/example/modelcar-catalog:some-private-model"


def test_a_modelcar_the_tag_does_not_name_says_the_image_is_not_read(tmp_path: Path) -> None:
    """KServe mounts a modelcar image's /models at /mnt/models: vlint cannot look into the image, and says
    so (with the fix) instead of calling /mnt/models a folder outside the lint root."""
    service = SERVICE.replace("hf://meta-llama/Llama-3.1-70B-Instruct", MODELCAR)
    write(tmp_path, {"k/serving-runtime.yaml": RUNTIME, "k/isvc.yaml": service})
    (status,) = _memory(tmp_path, "k/serving-runtime.yaml", "k/isvc.yaml")
    assert (status.answer, status.kind) == (None, "model_not_read")
    assert status.reason == (
        f"the model at /mnt/models comes from storageUri {MODELCAR}, an OCI image (a KServe modelcar), "
        "which vlint does not read"
    )
    # the storageUri is a key of [tool.vlint] models
    (mapped,) = _memory(
        tmp_path, "k/serving-runtime.yaml", "k/isvc.yaml", models={MODELCAR: "meta-llama/Llama-3.1-8B-Instruct"}
    )
    assert mapped.answer is not None


def test_a_modelcar_tag_that_names_a_model_is_answered(tmp_path: Path) -> None:
    """Must not: a tag naming a catalog model (llama-3.2-1b-instruct) gives its facts (an inference)."""
    tagged = SERVICE.replace("hf://meta-llama/Llama-3.1-70B-Instruct", "oci://quay.io/x/modelcar:llama-3.2-1b-instruct")
    write(tmp_path, {"k/serving-runtime.yaml": RUNTIME, "k/isvc.yaml": tagged})
    (status,) = _memory(tmp_path, "k/serving-runtime.yaml", "k/isvc.yaml")
    assert status.answer is not None


def test_a_model_in_object_storage_is_not_read(tmp_path: Path) -> None:
    write(tmp_path, {"a.sh": "vllm serve s3://bucket/models/private --max-model-len 4096\n"})
    (status,) = _memory(tmp_path, "a.sh")
    assert status.kind == "model_not_read"
    assert status.reason == "the model s3://bucket/models/private is in S3 object storage, which vlint does not read"
    write(tmp_path, {"b.sh": "vllm serve /models/private --max-model-len 4096\n"})
    (folder,) = _memory(tmp_path, "b.sh")
    assert "comes from" not in (folder.reason or "")  # no storage: the folder's own reason


# -- the InferenceService's file linted without its runtime's: it checks the launch itself --------------
def test_an_inference_service_linted_alone_checks_the_launch_with_the_runtime_beside(tmp_path: Path) -> None:
    """pre-commit passes the changed file only: the InferenceService's file then builds the launch of the
    two itself (the runtime's container, the predictor's GPUs and args), anchored at predictor.model, and
    says nothing about being checked elsewhere."""
    write(tmp_path, {"kserve/serving-runtime.yaml": RUNTIME, "kserve/inference-service.yaml": SERVICE})
    findings, notes = lint_notes(tmp_path, "kserve/inference-service.yaml")
    assert notes == []
    (vl601,) = [f for f in findings if f.code == "VL601"]
    assert vl601.context.startswith(
        "predictor of InferenceService/llama-70b with ServingRuntime/vllm-runtime of kserve/serving-runtime.yaml"
    )
    assert (vl601.span.path, vl601.span.line) == ("kserve/inference-service.yaml", 15)


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_launch_of_the_pair_is_checked_once_when_both_files_are_linted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    """In one process and in worker processes (where each file is checked before the links are known)."""
    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine
    from vlint.run import lint as run_lint
    from vlint.run.lint import LintOptions, lint_paths
    from vlint.security.lint_root import LintRoot

    monkeypatch.setattr(run_lint, "PARALLEL_MIN_FILES", 2)
    write(tmp_path, {"kserve/serving-runtime.yaml": RUNTIME, "kserve/inference-service.yaml": SERVICE})
    opts = LintOptions(root=tmp_path, lint_root=LintRoot(tmp_path.resolve()), jobs=jobs)
    report = lint_paths([tmp_path / "kserve"], Engine(load_catalog()), opts)
    launches = {fr.path: len(fr.deployments) for fr in report.files}
    assert launches == {"kserve/inference-service.yaml": 0, "kserve/serving-runtime.yaml": 1}
    assert [f.code for f in report.findings].count("VL601") == 1


def test_the_inference_service_copy_is_anchored_at_its_model(tmp_path: Path) -> None:
    from vlint.sources.base import SourceText
    from vlint.sources.kube import kubernetes

    write(tmp_path, {"k/runtime.yaml": RUNTIME, "k/isvc.yaml": SERVICE})

    def read(p: Path) -> SourceText:
        return SourceText(p.relative_to(tmp_path).as_posix(), p, p.read_text())

    path = tmp_path / "k/isvc.yaml"
    result = kubernetes.extract(SourceText("k/isvc.yaml", path, path.read_text()), read)
    (inv,) = result.invocations
    assert (inv.span.path, inv.span.line) == ("k/isvc.yaml", SERVICE.splitlines().index("    model:") + 1)
    assert inv.also_in == str(tmp_path / "k/runtime.yaml") and "checked there" in inv.elsewhere_note
    assert "--model=meta-llama/Llama-3.1-70B-Instruct" in [t.text for t in inv.args]
    assert result.notes == []  # the note is the run's to give, when it lints the runtime's file too
