"""Helm charts rendered with ``helm template`` where helm is on PATH (those tests skip with the reason
where it is not: no registry package ships the official Linux helm binary, so this project's CI
renders no chart), and everything that needs no helm: the one VL630 note per chart without the tool or
with ``--no-render``, dependencies that are not vendored, files outside the lint root, the chart's
templates not reported one by one in a folder walk."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path

import pytest

from vlint.engine.catalog import load_catalog
from vlint.engine.runner import Engine
from vlint.run.lint import LintOptions
from vlint.security.lint_root import LintRoot

from .helpers import lint, lint_notes, where, write

HELM = shutil.which("helm")
needs_helm = pytest.mark.skipif(HELM is None, reason="helm is not on PATH (no registry package ships it)")

#: a generic chart in the style of the ones found in repositories (values + one Deployment template)
CHART = {
    "charts/llm/Chart.yaml": """\
        apiVersion: v2
        name: llm
        description: vLLM OpenAI-compatible server
        type: application
        version: 0.3.1
        appVersion: "v0.10.2"
        """,
    "charts/llm/values.yaml": """\
        image:
          repository: vllm/vllm-openai
          tag: v0.10.2
        model:
          name: meta-llama/Llama-4-Scout-17B-16E-Instruct
          maxModelLen: 8192
        tensorParallelSize: 8
        resources:
          gpu: 8
        nodeSelector:
          cloud.google.com/gke-accelerator: nvidia-l4
        """,
    "charts/llm/values-small.yaml": """\
        model:
          name: Qwen/Qwen2.5-7B-Instruct
          maxModelLen: 300000
        tensorParallelSize: 1
        resources:
          gpu: 1
        """,
    "charts/llm/templates/_helpers.tpl": """\
        {{- define "llm.fullname" -}}
        {{- printf "%s-%s" .Release.Name .Chart.Name | trunc 63 | trimSuffix "-" }}
        {{- end }}
        """,
    "charts/llm/templates/deployment.yaml": """\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {{ include "llm.fullname" . }}
        spec:
          replicas: 1
          selector:
            matchLabels: {app: llm}
          template:
            metadata:
              labels: {app: llm}
            spec:
              {{- with .Values.nodeSelector }}
              nodeSelector:
                {{- toYaml . | nindent 8 }}
              {{- end }}
              containers:
                - name: vllm
                  image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
                  command: ["vllm", "serve"]
                  args:
                    - {{ .Values.model.name | quote }}
                    - --max-model-len={{ .Values.model.maxModelLen }}
                    - --tensor-parallel-size
                    - {{ .Values.tensorParallelSize | quote }}
                  resources:
                    limits:
                      nvidia.com/gpu: {{ .Values.resources.gpu }}
        """,
}


def test_without_helm_one_note_per_chart_in_a_folder_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path, CHART)
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))
    found, notes = lint_notes(tmp_path, ".")
    # helm not installed: one run note per chart with the fix, no finding (not one VL604 per template either)
    assert [where(f) for f in found if f.code in ("VL630", "VL604")] == []
    (msg,) = notes
    assert msg.startswith("charts/llm/Chart.yaml: the Helm chart charts/llm is not rendered: helm is not on PATH")
    assert "helm template charts/llm | vlint -, and with -f for charts/llm/values-small.yaml" in msg


def test_no_render_is_said(tmp_path: Path) -> None:
    write(tmp_path, CHART)
    found = lint(tmp_path, "charts/llm/Chart.yaml", render=False)
    assert [where(f) for f in found] == ["VL630 charts/llm/Chart.yaml:1:1"]
    assert "rendering is off (--no-render)" in found[0].message


def test_a_template_named_on_its_own_points_at_its_chart(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the chart is rendered (helm on PATH) the template alone is only a pointer to its chart."""
    from vlint.sources.render import tools

    monkeypatch.setattr(tools, "find_tool", lambda name: "/usr/bin/helm-that-must-not-run")
    write(tmp_path, CHART)
    found = lint(tmp_path, "charts/llm/templates/deployment.yaml")
    assert [f.code for f in found] == ["VL604"]
    assert "template of the Helm chart charts/llm" in found[0].message


def test_a_template_named_on_its_own_without_helm_is_read_without_rendering(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))
    write(tmp_path, CHART)
    found = lint(tmp_path, "charts/llm/templates/deployment.yaml")
    assert "VL604" not in [f.code for f in found]
    assert "VL210" in [f.code for f in found]  # Llama-4-Scout over 8 L4s, with the values of values.yaml


def test_dependencies_that_are_not_vendored_are_not_fetched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from vlint.sources.render import tools

    monkeypatch.setattr(tools, "find_tool", lambda name: "/usr/bin/helm-that-must-not-run")
    monkeypatch.setattr(tools, "run_tool", lambda argv, **kw: pytest.fail("helm ran"))
    chart = dict(CHART)
    chart["charts/llm/Chart.yaml"] = textwrap.dedent(chart["charts/llm/Chart.yaml"]) + textwrap.dedent("""\
        dependencies:
          - name: redis
            version: 18.x.x
            repository: oci://registry-1.docker.io/bitnamicharts
          - name: common
            version: 1.0.0
            repository: file://../common
        """)
    write(tmp_path, chart)
    found = lint(tmp_path, "charts/llm/Chart.yaml")
    assert sorted(where(f) for f in found) == ["VL631 charts/llm/Chart.yaml:11:5", "VL631 charts/llm/Chart.yaml:8:5"]
    assert "not in charts/llm/charts/" in found[0].message and "never runs helm dependency" in found[0].message


def test_a_chart_file_linked_outside_the_root_stops_the_render(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from vlint.sources.render import tools

    monkeypatch.setattr(tools, "find_tool", lambda name: "/usr/bin/helm-that-must-not-run")
    monkeypatch.setattr(tools, "run_tool", lambda argv, **kw: pytest.fail("helm ran"))
    repo = tmp_path / "repo"
    write(repo, CHART)
    (tmp_path / "secret.txt").write_text("token\n")
    (repo / "charts/llm/files").mkdir()
    (repo / "charts/llm/files/key.txt").symlink_to(tmp_path / "secret.txt")
    found = lint(repo, "charts/llm/Chart.yaml")
    assert [f.code for f in found] == ["VL060"] and "files/key.txt" in found[0].message


def test_charts_vlint_reads_from_their_values_are_left_to_that(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "stack/Chart.yaml": "apiVersion: v2\nname: vllm-stack\nversion: 0.1.0\n",
            "stack/templates/deployment-vllm-multi.yaml": "{{- range .Values.servingEngineSpec.modelSpec }}\n"
            "kind: Deployment  # vllm\n{{- end }}\n",
            "stack/values.yaml": "servingEngineSpec:\n  modelSpec: []\n",
        },
    )
    assert lint(tmp_path, "stack/Chart.yaml", render=False) == []


def test_charts_that_are_not_about_vllm_are_left_alone(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 0.1.0\n",
            "web/templates/svc.yaml": "kind: Service\nmetadata: {name: {{ .Release.Name }}}\n",
            "web/values.yaml": "port: 80\n",
        },
    )
    assert lint(tmp_path, "web/Chart.yaml", render=False) == []


@needs_helm
def test_rendered_findings_point_at_the_values_line(tmp_path: Path) -> None:
    write(tmp_path, CHART)
    found = lint(tmp_path, "charts/llm/Chart.yaml")
    got = {where(f) for f in found}
    values = "charts/llm/values.yaml"
    # Llama-4-Scout (~203 GiB of weights) on 8 x L4: the model and GPU count are the values file's
    assert any(w.startswith("VL2") and values in w for w in got), got
    small = "charts/llm/values-small.yaml"
    assert f"VL204 {small}:3:16" in got, got  # --max-model-len=300000 over Qwen2.5-7B's 32768
    assert not any(f.span.path.startswith("\x00") for f in found)


@needs_helm
def test_a_template_that_fails_is_reported_with_helms_error(tmp_path: Path) -> None:
    chart = dict(CHART)
    chart["charts/llm/templates/broken.yaml"] = '{{ required "model.revision is required" .Values.model.revision }}\n'
    write(tmp_path, chart)
    found = lint(tmp_path, "charts/llm/Chart.yaml")
    assert any(f.code == "VL631" and "model.revision is required" in f.message for f in found), found


#: what ``helm template charts/llm -f charts/llm/values-small.yaml`` prints for CHART (helm 3: a ``---``
#: and a ``# Source:`` line per template, values rendered in place, toYaml's sorted keys)
RENDERED_SMALL = """\
---
# Source: llm/templates/deployment.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: release-name-llm
spec:
  replicas: 1
  selector:
    matchLabels: {app: llm}
  template:
    metadata:
      labels: {app: llm}
    spec:
      nodeSelector:
        cloud.google.com/gke-accelerator: nvidia-l4
      containers:
        - name: vllm
          image: "vllm/vllm-openai:v0.10.2"
          command: ["vllm", "serve"]
          args:
            - "Qwen/Qwen2.5-7B-Instruct"
            - --max-model-len=300000
            - --tensor-parallel-size
            - "1"
          resources:
            limits:
              nvidia.com/gpu: 1
"""


def test_helm_output_maps_to_values_and_template_lines(tmp_path: Path) -> None:
    """The mapping alone, on the text helm prints (no helm needed): each rendered value points at the
    values line it came from, a value built in the template (``--max-model-len={{ … }}``) at the
    template's flag and the values file's number."""
    from vlint.core.span import Span
    from vlint.sources.base import SourceResult
    from vlint.sources.render import configured
    from vlint.sources.render.helm import _Chart, _collect, _origins
    from vlint.sources.render.output import lint_rendered

    write(tmp_path, CHART)
    from vlint.run.lint import Reader

    opts = LintOptions(root=tmp_path, lint_root=LintRoot(tmp_path.resolve()))
    reader = Reader(opts)
    src = reader.read(tmp_path / "charts/llm/Chart.yaml")
    with configured(True, LintRoot(tmp_path.resolve())):
        chart = _Chart(src.abspath.parent, "charts/llm", "llm")
        _collect(chart, src, reader.read_linked, SourceResult())
        found = lint_rendered(
            RENDERED_SMALL,
            src,
            reader.read_linked,
            _origins(chart, "values-small.yaml"),
            Span(src.path, 1, 1, 1, 1),
            "helm",
        )
    (inv,) = found.invocations
    at = {t.text: (t.span.path, t.span.line, t.span.column) for t in inv.args}
    small, tpl = "charts/llm/values-small.yaml", "charts/llm/templates/deployment.yaml"
    assert at["Qwen/Qwen2.5-7B-Instruct"] == (small, 2, 9)
    assert at["1"] == (small, 4, 21)  # "1" under tensorParallelSize (not resources.gpu's 1)
    assert at["--tensor-parallel-size"] == (tpl, 24, 15)
    # --max-model-len={{ .Values.model.maxModelLen }}: the word points at the value that was set
    flag = next(t for t in inv.args if t.text.startswith("--max-model-len"))
    assert (flag.span.path, flag.span.line, flag.span.column) == (small, 3, 16)
    from vlint.launch.resolver import ResolveOptions, resolve

    got = {where(f) for f in Engine(load_catalog()).run_deployment(resolve(inv, ResolveOptions()))}
    assert f"VL204 {small}:3:16" in got, got  # 300000 over Qwen2.5-7B's 32768
