"""A chart that is not rendered (no helm on PATH, ``--no-render``): its templates read with the chart's
values substituted where the template actions are plain, every word of a launch pointing at the line
that set it, everything else unresolved and said; and the cases where nothing may be read."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from vlint.engine.catalog import load_catalog
from vlint.engine.runner import Engine
from vlint.run.lint import LintOptions, LintReport, lint_paths
from vlint.security.lint_root import LintRoot
from vlint.sources import sniffing
from vlint.sources.base import SourceText

from .helpers import where, write

#: a generic chart: the launch is a `sh -c` string built from values, extra args by `range`
SHELL_CHART = {
    "chart/Chart.yaml": """\
        apiVersion: v2
        name: vllm
        version: 0.1.0
        appVersion: v0.8.5
        """,
    "chart/values.yaml": """\
        model:
          name: Qwen/Qwen2.5-7B-Instruct
        image:
          name: vllm/vllm-openai
          tag: ""
        args: ["--max-model-len 8192", "--max-num-seqs 64"]
        hfToken: ""
        """,
    "chart/templates/deployment.yaml": """\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {{ .Release.Name }}
          labels:
            {{- include "vllm.labels" . | nindent 4 }}
        spec:
          template:
            spec:
              containers:
              - name: {{ .Chart.Name }}
                {{- if .Values.hfToken }}
                env:
                - name: HF_TOKEN
                  value: {{ .Values.hfToken | quote }}
                {{- end }}
                image: "{{ .Values.image.name }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
                command: ["/bin/sh", "-c"]
                args: ["vllm serve {{ .Values.model.name }} --bogus-flag{{ range .Values.args }} {{ . }}{{ end }}"]
        """,
}

#: the args as a list from values (toYaml), GPU count from values
LIST_CHART = {
    "c/Chart.yaml": "apiVersion: v2\nname: llm\nversion: 1.0.0\n",
    "c/values.yaml": """\
        image: vllm/vllm-openai:v0.9.2
        gpus: 1
        args:
          - --model
          - Qwen/Qwen2.5-7B-Instruct
          - --max-model-len
          - 1000000
        """,
    "c/templates/deployment.yaml": """\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: llm
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  image: {{ .Values.image | quote }}
                  command: ["vllm", "serve"]
                  args:
                    {{- toYaml .Values.args | nindent 12 }}
                  resources:
                    limits:
                      nvidia.com/gpu: {{ .Values.gpus }}
        """,
}


def run(root: Path, *names: str, render: bool = True) -> LintReport:
    opts = LintOptions(root=root, lint_root=LintRoot(root.resolve()), render=render)
    return lint_paths([root / n for n in names], Engine(load_catalog()), opts)


@pytest.fixture(autouse=True)
def _no_helm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "no-tools"))


def _launches(report: LintReport) -> list:
    return [d for fr in report.files for d in fr.deployments]


def test_a_shell_string_launch_is_read_with_the_values(tmp_path: Path) -> None:
    write(tmp_path, SHELL_CHART)
    report = run(tmp_path, ".")
    (dep,) = _launches(report)
    inv = dep.invocation
    assert inv.span.path == "chart/templates/deployment.yaml"
    assert "read without rendering: helm is not on PATH" in inv.label
    words = {t.text: (t.span.path, t.span.line) for t in inv.args}
    assert words["Qwen/Qwen2.5-7B-Instruct"] == ("chart/values.yaml", 2)  # the values line that set it
    assert words["8192"] == ("chart/values.yaml", 6)
    assert words["--bogus-flag"] == ("chart/templates/deployment.yaml", 19)  # the template writes it
    assert words["64"] == ("chart/values.yaml", 6)  # from `range .Values.args`
    assert str(dep.version).startswith("0.8.5")  # tag "" defaults to Chart appVersion
    assert "HF_TOKEN" not in inv.env  # `if .Values.hfToken` is false for ""
    found = [where(f) for f in report.findings]
    assert any(f.startswith("VL001 chart/templates/deployment.yaml:19:") for f in found), found
    # an error on a launch read without rendering is a warning that says so (the template's other logic
    # is not known): an error must mean vLLM refuses
    (bogus,) = [f for f in report.findings if f.code == "VL001"]
    assert bogus.severity == "warning" and "without rendering it" in bogus.message
    # helm is not installed: a note of the run (with the fix), never a finding
    assert not [f for f in report.findings if f.code == "VL630"]
    (note,) = [n for fr in report.files if fr.path == "chart/Chart.yaml" for n in fr.notes]
    assert "helm is not on PATH" in note and "1 vLLM launch of its templates was read without rendering" in note


def test_to_yaml_lists_and_go_numbers(tmp_path: Path) -> None:
    write(tmp_path, LIST_CHART)
    (dep,) = _launches(run(tmp_path, "."))
    inv = dep.invocation
    spans = {t.text: (t.span.path, t.span.line) for t in inv.args}
    assert spans["Qwen/Qwen2.5-7B-Instruct"] == ("c/values.yaml", 5)
    # toYaml writes a float64 as JSON does (1000000); only a printed value is Go's %v (1e+06)
    assert spans["1000000"] == ("c/values.yaml", 7)
    assert inv.facts["gpu_count"].value == 1
    assert not inv.opaque_args


def test_a_printed_number_is_gos_float() -> None:
    from vlint.sources.render import unrendered

    tpl = SourceText("t.yaml", Path("t.yaml"), "args: [--max-model-len, '{{ .Values.len }}']\n")
    values = SourceText("values.yaml", Path("values.yaml"), "len: 1000000\n")
    reading = unrendered.read_template(tpl, [values], {})
    assert reading is not None and reading.text == "args: [--max-model-len, '1e+06']\n"  # helm/helm#12195


def test_no_render_reads_too_and_says_why(tmp_path: Path) -> None:
    write(tmp_path, LIST_CHART)
    (dep,) = _launches(run(tmp_path, ".", render=False))
    assert "read without rendering: rendering is off (--no-render)" in dep.invocation.label


def test_an_action_vlint_does_not_follow_stays_unresolved(tmp_path: Path) -> None:
    chart = dict(LIST_CHART)
    chart["c/templates/deployment.yaml"] = LIST_CHART["c/templates/deployment.yaml"].replace(
        "{{- toYaml .Values.args | nindent 12 }}",
        '- {{ .Values.args | first }}\n            {{- include "llm.extraArgs" . | nindent 12 }}',
    )
    write(tmp_path, chart)
    (dep,) = _launches(run(tmp_path, "."))
    inv = dep.invocation
    assert [t.unresolved for t in inv.args] == [True]  # kept as its {{ … }} text, never guessed
    assert inv.opaque_args  # the include left out may add words: absence rules stay silent
    assert "template actions among its words left unresolved at line(s) 13, 14" in inv.label


def test_an_unknown_condition_is_left_out_not_guessed(tmp_path: Path) -> None:
    chart = dict(LIST_CHART)
    chart["c/templates/deployment.yaml"] = LIST_CHART["c/templates/deployment.yaml"].replace(
        "{{- toYaml .Values.args | nindent 12 }}",
        "{{- toYaml .Values.args | nindent 12 }}\n"
        '            {{- if semverCompare ">=1.0" .Capabilities.KubeVersion.Version }}\n'
        "            - --enforce-eager\n"
        "            {{- end }}",
    )
    write(tmp_path, chart)
    (dep,) = _launches(run(tmp_path, "."))
    assert "--enforce-eager" not in [t.text for t in dep.invocation.args]
    assert dep.invocation.opaque_args


def test_where_helm_renders_the_template_is_not_read_on_its_own(tmp_path: Path, monkeypatch) -> None:
    from vlint.sources.render import helm, tools

    write(tmp_path, LIST_CHART)
    monkeypatch.setattr(tools, "find_tool", lambda name: "/usr/bin/helm")
    path = tmp_path / "c/templates/deployment.yaml"
    src = SourceText("c/templates/deployment.yaml", path, path.read_text())
    assert helm.template_unrendered(src, lambda p: SourceText(str(p), p, p.read_text())).invocations == []


# -- must not ------------------------------------------------------------------------------------------
def test_a_chart_of_something_else_gives_nothing(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "web/Chart.yaml": "apiVersion: v2\nname: web\nversion: 1.0.0\n",
            "web/values.yaml": "image:\n  repository: nginx\nlivenessProbe:\n  exec:\n    command: [true]\n",
            "web/templates/deployment.yaml": (
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n"
                "      containers:\n        - name: web\n"
                '          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"\n'
            ),
        },
    )
    report = run(tmp_path, ".")
    assert _launches(report) == [] and report.findings == []


def test_a_template_without_a_vllm_command_in_a_vllm_chart_gives_no_launch(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "c/Chart.yaml": "apiVersion: v2\nname: router\nversion: 1.0.0\ndescription: router in front of vLLM\n",
            "c/values.yaml": "image: ghcr.io/example/router:1.0\nbackend: http://vllm:8000\n",
            "c/templates/deployment.yaml": (
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: router\nspec:\n  template:\n    spec:\n"
                "      containers:\n        - name: router\n          image: {{ .Values.image }}\n"
                '          args: ["--backend", {{ .Values.backend | quote }}]\n'
            ),
        },
    )
    report = run(tmp_path, ".")
    assert _launches(report) == []
    assert report.findings == []
    # the chart mentions vLLM: it says it is not rendered (helm is not here: a note, not a finding)
    (note,) = [n for fr in report.files for n in fr.notes]
    assert "its vLLM launches are not checked" in note


def test_a_kustomize_base_is_not_a_chart(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "base/kustomization.yaml": "resources: [templates/deployment.yaml]\n",
            "base/templates/deployment.yaml": (
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: vllm\nspec:\n  template:\n    spec:\n"
                "      containers:\n        - name: vllm\n          image: vllm/vllm-openai:v0.9.2\n"
                '          args: ["--model", "Qwen/Qwen2.5-7B-Instruct"]\n'
            ),
        },
    )
    report = run(tmp_path, ".")
    assert all("read without rendering" not in d.invocation.label for d in _launches(report))


def test_only_a_command_right_under_image_is_the_vllm_example_chart() -> None:
    def values(text: str) -> SourceText:
        return SourceText("values.yaml", Path("values.yaml"), text)

    example = "image:\n  repository: vllm/vllm-openai\n  command: [vllm, serve, /data/]\n"
    generic = (
        "image:\n  repository: vllm/vllm-openai\n  tag: v0.9.2\nprobe:\n  exec:\n    command: [curl, localhost:8000]\n"
    )
    nested = "image:\n  repository: vllm/vllm-openai\n  pull:\n    command: [x]\n"
    assert sniffing.helm(values(example))
    assert not sniffing.helm(values(generic))
    assert not sniffing.helm(values(nested))


def test_each_values_file_beside_values_yaml_is_an_install_of_its_own(tmp_path: Path) -> None:
    chart = dict(LIST_CHART)
    chart["c/values-l4.yaml"] = "gpus: 2\nargs: [--model, Qwen/Qwen2.5-7B-Instruct, --tensor-parallel-size, '2']\n"
    chart["c/values-empty.yaml"] = "args: null\n"  # a null removes the key, as Helm's merge does
    write(tmp_path, chart)
    launches = {
        d.invocation.label.split("(read without rendering")[1].split(":")[0]: d for d in _launches(run(tmp_path, "."))
    }
    assert sorted(launches) == ["", " with values-empty.yaml", " with values-l4.yaml"]
    l4 = launches[" with values-l4.yaml"].invocation
    assert l4.facts["gpu_count"].value == 2 and l4.facts["gpu_count"].span.path == "c/templates/deployment.yaml"
    assert {t.text: t.span.path for t in l4.args}["2"] == "c/values-l4.yaml"
    assert [t.text for t in launches[" with values-empty.yaml"].invocation.args] == []


def test_a_mapping_two_values_files_merge_is_not_guessed(tmp_path: Path) -> None:
    chart = dict(LIST_CHART)
    chart["c/values.yaml"] = textwrap.dedent(LIST_CHART["c/values.yaml"]) + "extra:\n  A: '1'\n"
    chart["c/values-x.yaml"] = "extra:\n  B: '2'\n"
    chart["c/templates/deployment.yaml"] = textwrap.dedent(LIST_CHART["c/templates/deployment.yaml"]) + (
        "          env:\n"
        "            {{- range .Values.extra }}\n"
        "            - {name: X, value: {{ . | quote }}}\n"
        "            {{- end }}\n"
    )
    write(tmp_path, chart)
    labels = [d.invocation.label for d in _launches(run(tmp_path, "."))]
    assert any(
        "with values-x.yaml" in lb and "1 other template action(s) of the file left unresolved" in lb for lb in labels
    ), labels


def test_a_generic_chart_with_a_nested_command_is_not_taken_for_the_example_chart(tmp_path: Path) -> None:
    """Issue 29: top-level ``image`` plus a ``command`` nested elsewhere was read as vLLM's example chart
    (``image.command``), so the chart got neither a rendering nor its note."""
    chart = dict(LIST_CHART)
    chart["c/values.yaml"] = textwrap.dedent(LIST_CHART["c/values.yaml"]) + (
        "livenessProbe:\n  exec:\n    command: [curl, -f, http://localhost:8000/health]\n"
    )
    write(tmp_path, chart)
    report = run(tmp_path, ".")
    assert [fr.path for fr in report.files if fr.notes] == ["c/Chart.yaml"]
    (dep,) = _launches(report)
    assert dep.invocation.span.path == "c/templates/deployment.yaml"


def test_nested_ranges_stay_bounded() -> None:
    from vlint.sources.render import unrendered

    values = SourceText("values.yaml", Path("values.yaml"), "l: [" + ",".join(["1"] * 2000) + "]\n")
    tpl = "{{ range .Values.l }}{{ range $.Values.l }}{{ range $.Values.l }}{{ end }}{{ end }}{{ end }}"
    # 8e9 empty iterations: given up (the chart keeps its VL630 note), not hung
    assert unrendered.read_template(SourceText("t.yaml", Path("t.yaml"), tpl), [values], {}) is None


def test_a_subchart_reads_its_parents_values_first(tmp_path: Path) -> None:
    chart = {k.replace("c/", "app/charts/c/", 1): v for k, v in LIST_CHART.items()}
    chart["app/Chart.yaml"] = "apiVersion: v2\nname: app\nversion: 1.0.0\n"
    chart["app/values.yaml"] = "c:\n  gpus: 4\n"
    write(tmp_path, chart)
    deps = [d for d in _launches(run(tmp_path, ".")) if d.invocation.span.path.startswith("app/charts/c/")]
    (dep,) = deps
    assert dep.invocation.facts["gpu_count"].value == 4


def test_set_and_f_of_a_helm_install_in_a_script_beside_the_chart(tmp_path: Path) -> None:
    chart = dict(LIST_CHART)
    chart["deploy.sh"] = (
        "#!/bin/sh\n"
        "helm upgrade --install llm ./c \\\n"
        "  --namespace ai \\\n"
        "  --set gpus=2,image=vllm/vllm-openai:v0.10.1 \\\n"
        "  -f c/prod.yaml\n"
        "helm install other ./elsewhere --set gpus=9\n"  # another chart
        "helm install dyn ./c --set gpus=$GPUS\n"  # a shell variable: not guessed
    )
    chart["c/prod.yaml"] = "args: [Qwen/Qwen2.5-7B-Instruct, --tensor-parallel-size, '2']\n"
    write(tmp_path, chart)
    deps = {d.invocation.label: d for d in _launches(run(tmp_path, "."))}
    (label,) = [lb for lb in deps if "with the values of deploy.sh:2" in lb]
    assert len(deps) == 2
    inv = deps[label].invocation
    assert inv.facts["gpu_count"].value == 2
    assert str(deps[label].version).startswith("0.10.1")
    image = inv.facts["image"]
    assert (image.span.path, image.span.line) == ("deploy.sh", 4)  # the --set that gave it
    assert {t.text: t.span.path for t in inv.args}["--tensor-parallel-size"] == "c/prod.yaml"


def test_shell_words_and_set_types() -> None:
    from vlint.sources.render import helm_set

    words = [w.text for w in helm_set._commands("helm install x ./c --set 'a=b c' \\\n --set-string n=1 # note\n")[0]]
    assert words == ["helm", "install", "x", "./c", "--set", "a=b c", "--set-string", "n=1"]
    lines = helm_set.LineIndex("s.sh", "--set a.b=true,c=null,d=8192")
    word = helm_set._Word("a.b=true,c=null,d=8192", 6, 28)
    sv = helm_set._set_values([(word, False)], lines, "s.sh:1")
    assert sv is not None
    (a, b), (c, null), (d, n) = [(k.value, v) for k, v in sv.root.value]
    assert (a, c, d) == ("a", "c", "d") and null.tag.endswith("null") and n.value == "8192"
    assert b.value[0][1].tag.endswith("bool")
    assert helm_set._set_values([(helm_set._Word("a[0]=x", 0, 6), False)], lines, "") is None
    from vlint.sources.render import unrendered

    zero = helm_set._set_values([(helm_set._Word("g=0,n=1000000", 6, 19), False)], lines, "s.sh:1")
    assert zero is not None
    tpl = SourceText("t.yaml", Path("t.yaml"), "a: '{{ if .Values.g }}on{{ end }}'\nb: '{{ .Values.n }}'\n")
    reading = unrendered.read_template(tpl, [zero], {})
    assert reading is not None and reading.text == "a: ''\nb: '1000000'\n"  # 0 is false; an int64 prints as written


#: a name built from the release (`{{ .Release.Name }}-vllm`): an unresolved action that starts a plain value
#: the line goes on with; the value is kept as one unresolved word, not read as a flow mapping
RELEASE_NAME_CHART = {
    "r/Chart.yaml": "apiVersion: v2\nname: r\nversion: 0.1.0\n",
    "r/values.yaml": "model: Qwen/Qwen2.5-7B-Instruct\ntag: v0.19.1\n",
    "r/templates/deployment.yaml": """\
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: {{ .Release.Name }}-vllm
        spec:
          template:
            spec:
              containers:
                - name: vllm
                  image: "vllm/vllm-openai:{{ .Values.tag }}"
                  args: ["--model", "{{ .Values.model }}", "--gpu-memory-utilization", "0.97"]
        """,
}


def test_an_action_that_starts_a_plain_value_keeps_the_document_yaml(tmp_path: Path) -> None:
    write(tmp_path, RELEASE_NAME_CHART)
    (dep,) = _launches(run(tmp_path, "."))
    assert dep.model == "Qwen/Qwen2.5-7B-Instruct"
    assert str(dep.version) == "0.19.1"


#: the same template with no chart around it: every .Values is unknown (not empty)
LONE_TEMPLATE = {"docs/deployment.yaml": RELEASE_NAME_CHART["r/templates/deployment.yaml"]}


def test_a_template_outside_any_chart_is_read_with_its_values_unknown(tmp_path: Path) -> None:
    write(tmp_path, LONE_TEMPLATE)
    report = run(tmp_path, ".")
    (dep,) = _launches(report)
    assert dep.model is None and dep.setting("model").unresolved  # unknown, not ""
    codes = {f.code: f.severity for f in report.findings}
    assert codes.get("VL201") == "warning"  # the literal 0.97 is read
    assert "VL603" not in codes  # the tag is unknown, not missing
    assert "VL604" not in codes  # read: no "not linted" notice
    assert "in no chart" in dep.invocation.label


def test_a_template_outside_any_chart_without_vllm_is_not_a_launch(tmp_path: Path) -> None:
    text = RELEASE_NAME_CHART["r/templates/deployment.yaml"].replace("vllm/vllm-openai", "nginx").replace("vllm", "web")
    write(tmp_path, {"docs/deployment.yaml": text})
    assert _launches(run(tmp_path, ".")) == []
