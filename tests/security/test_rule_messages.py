"""A repository's own rules (``--rules-dir``, ``rules-dir`` in its config) are written by whoever
opens the pull request: their message templates cannot reach into objects or exhaust memory."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main
from vlint.engine.runner import render_message

RULE = """code: EVIL001
name: evil
severity: warning
summary: A hostile message template.
message: "{template}"
when: {{properties: {{user: {{properties: {{enforce_eager: {{const: true}}}}, required: [enforce_eager]}}}}}}
at: enforce_eager
"""


@pytest.mark.parametrize(
    "template",
    ["{model.__class__.__mro__}", "{model.__init__.__globals__}", "{model[0]}", "{model:>3000000000}", "{model:{w}}"],
)
def test_hostile_templates_fall_back_to_the_summary(tmp_path: Path, template: str) -> None:
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "EVIL001-evil.yaml").write_text(RULE.format(template=template), encoding="utf-8")
    (tmp_path / "serve.sh").write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --enforce-eager\n", encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        r = CliRunner().invoke(main, ["check", "--isolated", "--format", "json", "--rules-dir", "rules", "serve.sh"])
    finally:
        os.chdir(cwd)
    evil = [f for f in json.loads(r.output)["findings"] if f["code"] == "EVIL001"]
    assert [f["message"] for f in evil] == ["A hostile message template."]


def test_plain_fields_and_modest_specs_still_format() -> None:
    assert render_message("{n:>6.2f} on {gpu!r}", {"n": 1.5, "gpu": "L4"}, "x") == "  1.50 on 'L4'"
    assert render_message("{n:>{w}}", {"n": 1, "w": 5000}, "fallback") == "fallback"
