"""docs/: the generated rule pages are current, `vlint rule CODE` prints the same page, and the guide
documents every option, config key and JSON field."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import CliRunner

from tests.conftest import load_script
from vlint.cli import main
from vlint.commands.check import check_cmd

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "guide.md").read_text(encoding="utf-8")


def gen_docs() -> ModuleType:
    return load_script("gen_docs", "tools/gen_docs.py")


@functools.cache
def generated_pages() -> dict[str, str]:
    """``tools/gen_docs.py``'s pages, generated once for the tests of this module (each rule's cases are
    linted to write its page: ~1.5 s)."""
    return gen_docs().generate()


def test_generated_rule_pages_are_current() -> None:
    stale = gen_docs().stale(pages=dict(generated_pages()))
    assert not stale, f"docs/rules/ is out of date ({', '.join(stale)}): run python tools/gen_docs.py"


def test_stale_detection(tmp_path: Path) -> None:
    mod = gen_docs()
    pages = {"VL101.md": "# new\n", "index.md": "idx\n"}
    (tmp_path / "VL101.md").write_text("# old\n")
    (tmp_path / "VL999.md").write_text("# removed rule\n")
    (tmp_path / "notes.md").write_text("not generated\n")
    assert mod.stale(tmp_path, pages) == ["VL101.md", "VL999.md", "index.md"]


def test_index_lists_every_rule() -> None:
    pages = generated_pages()
    index = pages["index.md"]
    for name in pages:
        if name != "index.md":
            assert f"]({name})" in index


@pytest.mark.parametrize("code", ["VL101", "VL901"])
def test_vlint_rule_prints_the_page(code: str) -> None:
    res = CliRunner().invoke(main, ["rule", code])
    assert res.exit_code == 0
    assert res.stdout == (ROOT / "docs" / "rules" / f"{code}.md").read_text(encoding="utf-8")


def test_guide_sections() -> None:
    for heading in (
        "## Install",
        "## First run",
        "## Adopt it in 5 minutes",
        "## Configuration",
        "## Suppressions",
        "## Baseline",
        "## Custom policy rules",
        "## Output formats",
        "### GitHub Actions",
        "### GitLab CI",
        "### pre-commit",
        "## The memory model",
        "## Exit codes",
    ):
        assert f"\n{heading}\n" in GUIDE, heading


def test_guide_documents_every_check_option() -> None:
    for param in check_cmd.params:
        for opt in getattr(param, "opts", []):
            if opt.startswith("--"):
                assert f"`{opt}" in GUIDE or f"{opt}`" in GUIDE or f" {opt}" in GUIDE, opt


def test_guide_documents_every_config_key() -> None:
    schema = json.loads((ROOT / "schemas" / "config.schema.json").read_text(encoding="utf-8"))
    for key in schema["properties"]:
        assert f"| `{key}` |" in GUIDE, key


def _keys(node: Any, prefix: str = "") -> set[str]:
    out: set[str] = set()
    if isinstance(node, dict):
        for k, v in node.items():
            if prefix.endswith("data"):
                continue  # rule-specific numbers
            out.add(k)
            out |= _keys(v, f"{prefix}.{k}")
    elif isinstance(node, list):
        for v in node:
            out |= _keys(v, prefix)
    return out


def test_guide_documents_every_json_field(tmp_path: Path) -> None:
    (tmp_path / "start.sh").write_text(
        "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --no-enable-chunked-prefill\n"
    )
    (tmp_path / "bad.sh").write_bytes(b"\x00")
    res = CliRunner().invoke(main, ["--isolated", "--format", "json", str(tmp_path), str(ROOT / "examples")])
    doc = json.loads(res.stdout)
    section = GUIDE.split("### json", 1)[1].split("### sarif", 1)[0]
    documented = {k for k in _keys(doc) if any(f"{pre}{k}{post}`" in section for pre in "`." for post in ("", "[]"))}
    missing = sorted(_keys(doc) - documented)
    assert not missing, f"fields of the JSON report not in docs/guide.md: {missing}"


def test_readme_points_to_ci_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "## Use in CI" in readme
    assert re.search(r"\(docs/guide\.md#ci-recipes\)", readme)


def test_the_readme_sample_output_is_what_vlint_prints(monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's "Sample output" block is `vlint examples/k8s` as it runs today (it once kept an older
    memory model's figures)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```text\n$ vlint examples/k8s\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(ROOT)
    r = CliRunner().invoke(main, ["examples/k8s"])
    assert r.output.rstrip("\n") == block.rstrip("\n")
