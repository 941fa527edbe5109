"""Kustomize overlays rendered with the real tool (``kubectl kustomize`` / ``kustomize build`` on PATH;
skipped with the reason where neither is installed), findings mapped back to the patch or base line
that set the value, and the checks before the tool runs (remote bases, plugins, Helm inflation,
references outside the lint root), which need no tool."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .helpers import lint, lint_notes, where, write

KUBECTL = shutil.which("kustomize") or shutil.which("kubectl")
needs_tool = pytest.mark.skipif(KUBECTL is None, reason="neither kustomize nor kubectl is on PATH")

BASE = {
    "k8s/base/kustomization.yaml": """\
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        resources:
          - deployment.yaml
        """,
    "k8s/base/deployment.yaml": """\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: vllm
          labels: {app: vllm}
        spec:
          replicas: 1
          selector:
            matchLabels: {app: vllm}
          template:
            metadata:
              labels: {app: vllm}
            spec:
              containers:
                - name: vllm
                  image: vllm/vllm-openai:v0.10.2
                  command: ["vllm", "serve"]
                  args:
                    - meta-llama/Llama-3.1-8B-Instruct
                    - --max-model-len
                    - "8192"
                    - --enforce-eager
                  resources:
                    limits:
                      nvidia.com/gpu: 1
        """,
}
OVERLAY = {
    "k8s/overlays/l4/kustomization.yaml": """\
        apiVersion: kustomize.config.k8s.io/v1beta1
        kind: Kustomization
        namePrefix: l4-
        resources:
          - ../../base
        patches:
          - path: gpu-patch.yaml
          - target: {kind: Deployment, name: vllm}
            patch: |-
              - op: add
                path: /spec/template/spec/nodeSelector
                value:
                  cloud.google.com/gke-accelerator: nvidia-l4
        """,
    "k8s/overlays/l4/gpu-patch.yaml": """\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: vllm
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  args:
                    - meta-llama/Llama-3.1-70B-Instruct
                    - --max-model-len
                    - "200000"
                    - --tensor-parallel-size
                    - "3"
                    - --enforce-eager
                  resources:
                    limits:
                      nvidia.com/gpu: 2
        """,
}


@needs_tool
def test_overlay_findings_point_at_the_patch_that_set_the_value(tmp_path: Path) -> None:
    write(tmp_path, {**BASE, **OVERLAY})
    found = lint(tmp_path, "k8s/overlays/l4/kustomization.yaml")
    got = {where(f) for f in found}
    patch = "k8s/overlays/l4/gpu-patch.yaml"
    assert f"VL204 {patch}:12:15" in got  # --max-model-len 200000: the patch's line, not the base's 8192
    assert f"VL205 {patch}:14:15" in got  # tensor 3 cannot split the 70B model
    assert f"VL601 {patch}:14:15" in got  # 3 GPUs needed, the patch's limit gives 2
    # the flag the patch keeps from the base's list is the patch's own (kustomize replaces the list)
    assert any(w.startswith(f"VL105 {patch}:16:") for w in got), got
    assert not any(f.span.path.startswith("\x00") for f in found)  # never the scratch path


@needs_tool
def test_base_values_map_to_the_base(tmp_path: Path) -> None:
    write(tmp_path, BASE)
    found = lint(tmp_path, "k8s/base/kustomization.yaml")
    assert {where(f) for f in found if f.code == "VL105"} == {"VL105 k8s/base/deployment.yaml:22:15"}


@needs_tool
def test_overlay_output_and_the_base_file_alone_agree(tmp_path: Path) -> None:
    write(tmp_path, BASE)
    alone = {where(f) for f in lint(tmp_path, "k8s/base/deployment.yaml")}
    rendered = {where(f) for f in lint(tmp_path, "k8s/base/kustomization.yaml")}
    assert alone == rendered


def test_without_rendering_one_note_says_what_was_not_checked(tmp_path: Path) -> None:
    write(tmp_path, {**BASE, **OVERLAY})
    found = lint(tmp_path, "k8s/overlays/l4/kustomization.yaml", render=False)
    assert [where(f) for f in found] == ["VL630 k8s/overlays/l4/kustomization.yaml:1:1"]
    assert "--no-render" in found[0].message and "kubectl kustomize k8s/overlays/l4 | vlint -" in found[0].message


def test_tool_missing_is_a_note(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, {**BASE, **OVERLAY})
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))
    found, notes = lint_notes(tmp_path, "k8s/overlays/l4/kustomization.yaml")
    # a tool that is not installed is a fact of the run, not a problem of the overlay: one note, no finding
    assert found == []
    (note,) = notes
    assert note.startswith("k8s/overlays/l4/kustomization.yaml: the kustomize overlay k8s/overlays/l4 is not rendered")
    assert "neither kubectl nor kustomize is on PATH" in note and "kubectl kustomize k8s/overlays/l4 | vlint -" in note


def test_a_reference_not_given_is_not_checked_not_called_missing(tmp_path: Path) -> None:
    """A file the overlay names that is not among the files vlint was given (inside the lint root, not
    there) may well be in the repository: one note says the overlay is not checked, no VL631."""
    overlay = {
        "k8s/kustomization.yaml": """\
            resources:
              - namespace.yaml
              - deployment.yaml
              - service.yaml
        """,
        "k8s/deployment.yaml": BASE["k8s/base/deployment.yaml"],
    }
    write(tmp_path, overlay)
    found, notes = lint_notes(tmp_path, "k8s/kustomization.yaml")
    assert [f.code for f in found if f.code in ("VL630", "VL631")] == []
    (note,) = notes
    assert "namespace.yaml (line 2), service.yaml (line 4) are not among the files vlint was given" in note
    assert "its vLLM launches are not checked" in note


def test_a_reference_that_cannot_be_read_for_another_reason_is_still_vl631(tmp_path: Path) -> None:
    """Not a case of a file not given: a folder without a kustomization stays a VL631 finding."""
    write(
        tmp_path,
        {
            "k8s/kustomization.yaml": "resources:\n  - deployment.yaml\n  - empty\n",
            "k8s/deployment.yaml": BASE["k8s/base/deployment.yaml"],
            "k8s/empty/README.md": "x\n",
        },
    )
    found, notes = lint_notes(tmp_path, "k8s/kustomization.yaml")
    assert [where(f) for f in found if f.code == "VL631"] == ["VL631 k8s/kustomization.yaml:3:5"]
    assert notes == []


def test_remote_bases_plugins_and_helm_are_not_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []
    from vlint.sources.render import tools

    monkeypatch.setattr(tools, "run_tool", lambda argv, **kw: calls.append(argv))  # must never be reached
    write(tmp_path, BASE)
    write(
        tmp_path,
        {
            "k8s/remote/kustomization.yaml": """\
                resources:
                  - ../base
                  - https://raw.githubusercontent.com/example/llm/main/vllm.yaml
                  - github.com/example/llm-stack//base?ref=v1
                transformers:
                  - labels.yaml
                helmCharts:
                  - name: vllm
                    repo: https://example.com/charts
                """
        },
    )
    found = lint(tmp_path, "k8s/remote/kustomization.yaml")
    assert calls == []
    assert sorted(where(f) for f in found) == [
        "VL631 k8s/remote/kustomization.yaml:3:5",
        "VL631 k8s/remote/kustomization.yaml:4:5",
        "VL631 k8s/remote/kustomization.yaml:5:1",
        "VL631 k8s/remote/kustomization.yaml:7:1",
    ]


def test_references_outside_the_lint_root_are_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from vlint.sources.render import tools

    monkeypatch.setattr(tools, "run_tool", lambda argv, **kw: pytest.fail("the tool ran"))
    outside = tmp_path / "outside"
    write(outside, {"deployment.yaml": BASE["k8s/base/deployment.yaml"]})
    repo = tmp_path / "repo"
    write(repo, {"deploy/kustomization.yaml": "resources:\n  - ../../outside/deployment.yaml\n"})
    (repo / "deploy" / "link.yaml").symlink_to(outside / "deployment.yaml")
    write(repo, {"deploy2/kustomization.yaml": "resources:\n  - ../deploy/link.yaml\n"})
    found = lint(repo, "deploy/kustomization.yaml", "deploy2/kustomization.yaml")
    assert sorted(where(f) for f in found) == [
        "VL060 deploy/kustomization.yaml:2:5",
        "VL060 deploy2/kustomization.yaml:2:5",
    ]


def test_overlays_that_are_not_about_vllm_are_left_alone(tmp_path: Path) -> None:
    write(tmp_path, {"web/kustomization.yaml": "resources: [svc.yaml]\n", "web/svc.yaml": "kind: Service\n"})
    assert lint(tmp_path, "web/kustomization.yaml", render=False) == []


def test_no_render_on_the_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from click.testing import CliRunner

    from vlint.cli import main

    write(tmp_path, {**BASE, **OVERLAY})
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(
        main, ["--no-color", "-q", "--root", ".", "--no-render", "k8s/overlays/l4/kustomization.yaml"]
    )
    assert "VL630" in r.output and "rendering is off (--no-render)" in r.output, r.output


def test_the_note_is_a_line_of_the_text_output_and_the_summary_says_what_was_checked(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from vlint.cli import main

    write(tmp_path, {"k8s/kustomization.yaml": "resources:\n  - deployment.yaml\n  - absent.yaml\n"})
    write(tmp_path, {"k8s/deployment.yaml": BASE["k8s/base/deployment.yaml"]})
    r = CliRunner().invoke(main, ["check", "--isolated", str(tmp_path / "k8s" / "kustomization.yaml")])
    assert "note: " in r.output and "absent.yaml (line 3) is not among the files vlint was given" in r.output
    assert "VL631" not in r.output and "No problems found." not in r.output
