"""vlint schema versions / diff / export."""

from __future__ import annotations

import json

from click.testing import CliRunner

from vlint.argspec.spec import ArgSpec, Argument, bundled_versions
from vlint.cli import main
from vlint.commands.schema import diff_specs
from vlint.core.version import V


def test_versions_lists_every_bundled_schema() -> None:
    r = CliRunner().invoke(main, ["schema", "versions", "--format", "json"])
    assert r.exit_code == 0
    assert [x["version"] for x in json.loads(r.output)] == [str(v) for v in bundled_versions()]


def test_export_is_a_json_schema_for_config_files() -> None:
    import jsonschema

    r = CliRunner().invoke(main, ["schema", "export"])
    assert r.exit_code == 0
    doc = json.loads(r.output)
    jsonschema.Draft202012Validator.check_schema(doc)
    v = jsonschema.Draft202012Validator(doc)
    assert v.is_valid({"max-model-len": 8192, "gpu_memory_utilization": 0.9})
    assert not v.is_valid({"max-model-len": 8192, "vllm-release": "v2"})
    assert "x-vlint" not in doc


def test_diff_reports_removed_added_and_changed_defaults() -> None:
    a = ArgSpec(
        V("0.19.1"),
        [
            Argument("swap_space", "--swap-space", ("--swap-space",), kind="float", default=4),
            Argument(
                "gpu_memory_utilization",
                "--gpu-memory-utilization",
                ("--gpu-memory-utilization",),
                kind="float",
                default=0.9,
            ),
        ],
        env_vars={"VLLM_USE_V1": "1"},
    )
    b = ArgSpec(
        V("0.22.1"),
        [
            Argument(
                "gpu_memory_utilization",
                "--gpu-memory-utilization",
                ("--gpu-memory-utilization",),
                kind="float",
                default=0.92,
            ),
            Argument("performance_mode", "--performance-mode", ("--performance-mode",)),
        ],
    )
    d = diff_specs(a, b)
    assert d["removed"] == ["--swap-space"]
    assert d["added"] == ["--performance-mode"]
    assert {
        "option": "--gpu-memory-utilization",
        "dest": "gpu_memory_utilization",
        "field": "default",
        "from": 0.9,
        "to": 0.92,
    } in d["changed"]
    assert d["env_removed"] == ["VLLM_USE_V1"]


def test_diff_command_text() -> None:
    newest = str(bundled_versions()[-1])
    r = CliRunner().invoke(main, ["schema", "diff", newest, newest])
    assert r.exit_code == 0
    assert "Removed options (0)" in r.output


def test_diff_groups_negative_forms_and_keeps_the_o_shorthand() -> None:
    r = CliRunner().invoke(main, ["schema", "diff", "0.10.2", "0.33.0"])
    assert r.exit_code == 0
    out = r.output
    assert "  - --swap-space\n      → use nothing in the V1 engine" in out
    assert "--enable-lora-bias (also --no-enable-lora-bias)" in out
    assert "  - -O\n" not in out  # -O3 still works: 0.33 rewrites -O itself
    assert "~ --gpu-memory-utilization: default 0.9 → 0.92" in out
    assert "  - VLLM_ATTENTION_BACKEND" in out
