"""Suppression comments (per-format comment scanner, line/next-line/continuation/file scope),
the vlint.dev/disable annotation fact, VL901 for unused or broken suppressions, --no-suppress."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main
from vlint.core.invocation import Fact
from vlint.core.span import Span
from vlint.engine.catalog import load_catalog
from vlint.engine.runner import Engine
from vlint.run.lint import LintOptions, lint_paths
from vlint.suppression.inline import parse_directives, scan_comments


def comments(text: str, path: str) -> list[tuple[int, int, str]]:
    return [(c.line, c.column, c.text) for c in scan_comments(text, path)]


@pytest.mark.parametrize(
    ("line", "path", "expected"),
    [
        ("vllm serve m  # vlint: disable=VL101", "a.sh", [(1, 15, "# vlint: disable=VL101")]),
        ('echo "# vlint: disable=VL101"', "a.sh", []),
        ("echo '# not' # yes", "a.sh", [(1, 14, "# yes")]),
        ("echo a#b ${#x} $# 'it''s' \\# done", "a.sh", []),
        ('echo "a \\" # still a string"', "a.sh", []),
        ("x=1;# c", "a.sh", [(1, 5, "# c")]),
        ("key: 'it''s # not a comment' # comment", "a.yaml", [(1, 30, "# comment")]),
        ('args: ["--x", "#no"]  # yes', "a.yaml", [(1, 23, "# yes")]),
        ("url: http://h/x#frag", "a.yaml", []),
        ("note: don't # comment", "a.yaml", [(1, 13, "# comment")]),
        ("  # own line", "a.yml", [(1, 3, "# own line")]),
        ("LLM('m#x', max_model_len=8)# c", "a.py", [(1, 28, "# c")]),
        ("HF_TOKEN=abc # comment", ".env", [(1, 14, "# comment")]),
        ("CMD vllm serve m # vlint: disable=VL203", "Dockerfile", [(1, 18, "# vlint: disable=VL203")]),
    ],
)
def test_comment_scanner(line: str, path: str, expected: list[tuple[int, int, str]]) -> None:
    assert comments(line + "\n", path) == expected


def test_python_comments_use_tokenize() -> None:
    text = 's = """\n# vlint: disable=VL101 inside a string\n"""\nLLM("m")  # vlint: disable=VL203\n'
    assert comments(text, "serve.py") == [(4, 11, "# vlint: disable=VL203")]
    broken = 's = """never closed\n# x\n'
    assert comments(broken, "serve.py") == [(2, 1, "# x")]  # falls back to the line scanner


def resolve(ref: str) -> str | None:
    rule = load_catalog().find(ref)
    return rule.code if rule else None


def test_directive_parsing_and_coverage() -> None:
    text = (
        "# vlint: disable=VL101, max-model-len-unset -- benchmark\n"  # 1
        "# a note\n"  # 2
        "vllm serve m \\\n"  # 3
        "  --no-enable-chunked-prefill \\\n"  # 4
        "  --gpu-memory-utilization 0.97  # vlint: disable=VL201\n"  # 5
        "# vlint: disable-file=VL501\n"  # 6
        "# vlint: disabel=VL101\n"  # 7
        "\n"
    )
    d = parse_directives(text, "s.sh", resolve)
    assert [x.kind for x in d] == ["disable", "disable", "disable-file", "malformed"]
    first = d[0]
    assert [(r.text, r.code, r.span.column) for r in first.refs] == [
        ("VL101", "VL101", 18),
        ("max-model-len-unset", "VL203", 25),
    ]
    assert first.reason == "benchmark"
    assert sorted(first.covers) == [3, 4, 5], "an own-line comment covers the whole continued command"
    assert sorted(d[1].covers) == [3, 4, 5], "a trailing comment covers its logical line"


def test_blank_line_ends_a_comment_block() -> None:
    (d,) = parse_directives("# vlint: disable=VL101\n\nvllm serve m\n", "s.sh", resolve)
    assert d.covers == frozenset()


def lint(tmp_path: Path, files: dict[str, str], *args: str) -> tuple[int, str]:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    res = CliRunner(env={"GITHUB_ACTIONS": None}).invoke(main, ["--isolated", "-q", "--no-color", *args, str(tmp_path)])
    return res.exit_code, res.stdout


SCRIPT = """#!/bin/sh
# vlint: disable=VL101 -- the benchmark measures unchunked prefill
vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 \\
  --no-enable-chunked-prefill \\
  --gpu-memory-utilization 0.97
"""


def test_suppressed_findings_are_hidden_and_counted(tmp_path: Path) -> None:
    code, out = lint(tmp_path, {"start.sh": SCRIPT})
    assert "VL101" not in out and "VL201" in out and code == 1
    assert "1 finding suppressed by comments or annotations." in out
    code, out = lint(tmp_path, {}, "--no-suppress")
    assert "VL101" in out and "VL901" not in out and "suppressed by" not in out


def test_unused_suppressions_are_vl901(tmp_path: Path) -> None:
    text = SCRIPT.replace("--no-enable-chunked-prefill \\\n", "")
    code, out = lint(tmp_path, {"start.sh": text})
    assert code == 1
    assert "start.sh:2:18: VL901 [warning] unused suppression: VL101 reports nothing here" in out
    # a rule that did not run does not make its suppression unused
    _code, out = lint(tmp_path, {}, "--select", "VL2,VL901")
    assert "VL201" in out and "VL901" not in out
    # VL901 is a rule like any other
    _code, out = lint(tmp_path, {}, "--ignore", "VL901")
    assert "VL901" not in out


def test_file_level_and_yaml_comments(tmp_path: Path) -> None:
    files = {
        "serve.yaml": (
            "# vlint: disable-file=gpu-memory-utilization-no-headroom\n"
            "model: Qwen/Qwen2.5-7B-Instruct\n"
            "max-model-len: 8192\n"
            "gpu-memory-utilization: 0.97\n"
            "enable-prefix-caching: false  # vlint: disable=VL011 -- documented no-op\n"
            "enforce-eager: true  # vlint: disable=VL1O5\n"
        )
    }
    _code, out = lint(tmp_path, files, "--select", "VL011,VL201,VL901")
    assert "VL201" not in out and "VL011" not in out
    assert "serve.yaml:6:39: VL901" in out and "'VL1O5', which is no vlint rule" in out


def test_malformed_directive_is_reported(tmp_path: Path) -> None:
    _code, out = lint(tmp_path, {"start.sh": "vllm serve m --max-model-len 8  # vlint: ignore VL101\n"})
    assert "VL901" in out and "malformed vlint comment" in out


def test_a_string_that_looks_like_a_directive_suppresses_nothing(tmp_path: Path) -> None:
    text = 'echo "# vlint: disable=VL101"; vllm serve Qwen/Qwen2.5-7B-Instruct --no-enable-chunked-prefill\n'
    _code, out = lint(tmp_path, {"start.sh": text}, "--select", "VL101,VL901")
    assert "VL101" in out and "VL901" not in out


def _linted_with_fact(tmp_path: Path, value: str) -> tuple[list[str], list[str]]:
    """Lint a script whose launch carries a ``suppress`` fact, as the Kubernetes source sets it from
    the vlint.dev/disable annotation (patched in here: this test is about the suppression side)."""
    import vlint.run.lint as lint_mod

    script = tmp_path / "start.sh"
    script.write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --gpu-memory-utilization 0.97 --no-enable-chunked-prefill\n")
    real = lint_mod._extract

    def extract(path, explicit, reader):  # type: ignore[no-untyped-def]
        fr, sr, p = real(path, explicit, reader)
        for inv in sr.invocations if sr else []:
            inv.facts["suppress"] = Fact(value, Span(fr.path, 1, 1, 1, 5), "annotation vlint.dev/disable")
        return fr, sr, p

    lint_mod._extract = extract
    try:
        engine = Engine(load_catalog())
        report = lint_paths([script], engine, LintOptions(root=tmp_path))
    finally:
        lint_mod._extract = real
    return sorted(f.code for f in report.findings), sorted(f.code for f in report.suppressed)


def test_annotation_fact_suppresses_its_workload(tmp_path: Path) -> None:
    shown, hidden = _linted_with_fact(tmp_path, "VL101, max-model-len-unset -- batch job")
    assert "VL101" in hidden and "VL203" in hidden
    assert "VL101" not in shown and "VL201" in shown and "VL901" not in shown
    shown, hidden = _linted_with_fact(tmp_path, "VL104")
    assert "VL901" in shown and not hidden
    shown, hidden = _linted_with_fact(tmp_path, "--")
    assert "VL901" in shown


K8S = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: llm
  annotations:
    vlint.dev/disable: "VL101, VL104 -- batch-only service"
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.19.1
          args:
            - --max-model-len=8192
            - --no-enable-chunked-prefill
            - --gpu-memory-utilization=0.97  # vlint: disable=VL201 -- dedicated node
          resources:
            limits:
              nvidia.com/gpu: 1
"""


def test_kubernetes_annotation_and_comment(tmp_path: Path) -> None:
    """End to end through the Kubernetes source: the annotation covers the workload, a YAML comment
    covers its list item, the unused code in the annotation is VL901 at the annotation."""
    _, out = lint(tmp_path, {"deploy.yaml": K8S}, "--select", "VL101,VL104,VL201,VL901")
    assert "VL101" not in out and "VL201" not in out
    assert "deploy.yaml:6:24: VL901 [warning] unused suppression: VL104 reports nothing in this workload" in out
    assert "2 findings suppressed" in out
    _, out = lint(tmp_path, {}, "--select", "VL101,VL104,VL201,VL901", "--no-suppress")
    assert "VL101" in out and "VL201" in out and "VL901" not in out
