"""[tool.vlint] / .vlint.toml: discovery, precedence, every key, CLI wins, bad configs exit 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from userrepo import invoke

from vlint.argspec.spec import bundled_versions
from vlint.cli import main
from vlint.config.files import ConfigError, find_config, glob_match, load_config

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = "vllm serve Qwen/Qwen2.5-7B-Instruct --gpu-memory-utilization 0.97 --no-enable-chunked-prefill\n"


def lint(cwd: Path, *args: str) -> tuple[int, dict, str]:
    """Run vlint in ``cwd`` (in this process, as the command); return exit code, the JSON report (if
    any) and stderr."""
    res = invoke(cwd, ["--format", "json", *args])
    doc = json.loads(res.out) if res.out.startswith("{") else {}
    return res.code, doc, res.err


def codes(doc: dict) -> list[str]:
    return sorted(f["code"] for f in doc["findings"])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "start.sh").write_text(SCRIPT, encoding="utf-8")
    return tmp_path


def test_found_upward_and_dot_file_wins(project: Path) -> None:
    (project / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.vlint]\nselect = ["VL201"]\n')
    assert find_config([project / "deploy" / "start.sh"]) == project / "pyproject.toml"
    _, doc, _ = lint(project / "deploy", "start.sh")
    assert codes(doc) == ["VL201"]
    (project / ".vlint.toml").write_text('select = ["VL101"]\n')
    assert find_config([project / "deploy"]) == project / ".vlint.toml"
    _, doc, _ = lint(project / "deploy", "start.sh")
    assert codes(doc) == ["VL101"]


def test_pyproject_without_table_is_passed_over(project: Path) -> None:
    (project / ".vlint.toml").write_text('select = ["VL201"]\n')
    (project / "deploy" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    assert find_config([project / "deploy"]) == project / ".vlint.toml"


def test_nested_tool_table_in_dot_file(project: Path) -> None:
    (project / ".vlint.toml").write_text('[tool.vlint]\nselect = ["VL101"]\n')
    assert load_config(project / ".vlint.toml").select == ("VL101",)


def test_cli_flags_win(project: Path) -> None:
    oldest, newest = str(bundled_versions()[0]), str(bundled_versions()[-1])
    (project / ".vlint.toml").write_text(
        f'select = ["VL201"]\nfail-on = "error"\nvllm-version = "{oldest}"\nseverity = {{VL201 = "error"}}\n'
    )
    code, doc, _ = lint(project, "deploy")
    assert code == 1 and codes(doc) == ["VL201"] and doc["findings"][0]["severity"] == "error"
    assert doc["files"][0]["vllm_versions"] == [oldest]
    code, doc, _ = lint(project, "--select", "VL101", "--fail-on", "info", "--vllm-version", newest, "deploy")
    assert codes(doc) == ["VL101"] and code == 1
    assert doc["files"][0]["vllm_versions"] == [newest]
    _, doc, _ = lint(project, "--isolated", "deploy")
    assert set(codes(doc)) >= {"VL101", "VL201", "VL203"}


def test_extend_select_ignore_and_fail_on(project: Path) -> None:
    (project / ".vlint.toml").write_text('ignore = ["VL101", "max-model-len-unset"]\nfail-on = "error"\n')
    code, doc, _ = lint(project, "deploy")
    assert "VL101" not in codes(doc) and "VL203" not in codes(doc)
    assert code == 0, "only warnings, below fail-on = error"
    code, doc, _ = lint(project, "--ignore", "VL201", "deploy")
    assert "VL201" not in codes(doc) and "VL101" not in codes(doc), "CLI --ignore adds to the config's"


def test_exclude_and_per_file_ignores(project: Path) -> None:
    (project / "legacy").mkdir()
    (project / "legacy" / "old.sh").write_text(SCRIPT)
    (project / "deploy" / "bench.sh").write_text(SCRIPT)
    (project / ".vlint.toml").write_text(
        'exclude = ["legacy/"]\n[per-file-ignores]\n'
        '"deploy/bench*.sh" = ["VL101", "gpu-memory-utilization-no-headroom"]\n'
    )
    _, doc, _ = lint(project, ".")
    paths = {f["path"] for f in doc["files"]}
    assert paths == {"deploy/bench.sh", "deploy/start.sh"}
    by_file: dict[str, list[str]] = {}
    for f in doc["findings"]:
        by_file.setdefault(f["path"], []).append(f["code"])
    assert "VL101" not in by_file["deploy/bench.sh"] and "VL201" not in by_file["deploy/bench.sh"]
    assert {"VL101", "VL201"} <= set(by_file["deploy/start.sh"])
    # explicit files are excluded too (pre-commit passes files one by one)
    _, doc, _ = lint(project, "legacy/old.sh")
    assert doc["files"] == []


def test_glob_match(tmp_path: Path) -> None:
    f = tmp_path / "deploy" / "prod" / "start.sh"
    assert glob_match(f, "prod", tmp_path)
    assert glob_match(f, "*.sh", tmp_path)
    assert glob_match(f, "deploy/", tmp_path)
    assert glob_match(f, "deploy/*/start.sh", tmp_path)
    assert glob_match(f, "**/start.sh", tmp_path)
    assert glob_match(f, "./deploy/prod", tmp_path)
    assert not glob_match(f, "staging", tmp_path)
    assert not glob_match(f, "prod/start.sh", tmp_path), "patterns with / are relative to the config folder"


def test_gpu_model_paths_and_rules_dir(project: Path) -> None:
    model = project / "models" / "tiny"
    model.mkdir(parents=True)
    (model / "config.json").write_text(
        json.dumps(
            {
                "architectures": ["LlamaForCausalLM"],
                "model_type": "llama",
                "hidden_size": 1024,
                "num_hidden_layers": 4,
                "num_attention_heads": 8,
                "num_key_value_heads": 8,
                "intermediate_size": 2048,
                "vocab_size": 32000,
                "max_position_embeddings": 4096,
                "torch_dtype": "bfloat16",
            }
        )
    )
    (project / "deploy" / "start.sh").write_text("vllm serve acme/tiny --gpu-memory-utilization 0.9\n")
    (project / ".vlint.toml").write_text(
        'gpu = "H100:2"\nrules-dir = "../policies"\nselect = ["ORG", "VL203"]\n'
        '[model-paths]\n"acme/tiny" = "models/tiny"\n'
    )
    policies = project.parent / "policies"
    policies.mkdir(exist_ok=True)
    for p in (ROOT / "examples" / "policies").glob("*.yaml"):
        (policies / p.name).write_text(p.read_text())
    cfg = load_config(project / ".vlint.toml")
    assert cfg.model_paths == {"acme/tiny": str(model)}
    assert cfg.rules_dirs == (policies,)
    _, doc, _ = lint(project, "deploy")
    assert codes(doc) == ["ORG002"], "4,096-token model from model-paths: VL203 stays quiet; policy ORG002 fires"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("select = [", "not valid TOML"),
        ("selekt = []", "known keys:"),
        ('fail-on = "fatal"', "fail-on"),
        ("max-file-size = 0", "max-file-size"),
        ('gpu = "H100:0"', "gpu"),
        ("select = ['VL999']", "unknown rule 'VL999'"),
        ("[per-file-ignores]\n'*.sh' = ['nope']", "unknown rule 'nope'"),
        ('rules-dir = "missing"', "not a directory"),
        ('vllm-version = "latest"', "vllm-version"),
        ('gpu = "TPUv9"', "unknown GPU"),
    ],
)
def test_bad_config_is_a_clear_error(project: Path, text: str, message: str) -> None:
    (project / ".vlint.toml").write_text(text + "\n")
    code, doc, err = lint(project, "deploy")
    assert code == 2 and not doc
    assert message in err, err
    if message not in ("unknown GPU",):
        assert ".vlint.toml" in err, err


def test_load_config_errors_name_the_file(tmp_path: Path) -> None:
    p = tmp_path / "pyproject.toml"
    p.write_text("[tool.vlint]\nignore = 3\n")
    with pytest.raises(ConfigError) as e:
        load_config(p)
    assert str(e.value).startswith(f"{p}: ignore: 3 is not of type 'array'")


def test_explicit_config_and_isolated(project: Path) -> None:
    other = project / "ci.toml"
    other.write_text('select = ["VL201"]\n')
    (project / ".vlint.toml").write_text('select = ["VL101"]\n')
    res = CliRunner().invoke(main, ["--config", str(other), "--format", "json", str(project / "deploy")])
    assert codes(json.loads(res.stdout)) == ["VL201"]


def test_no_config_imports_neither_toml_nor_jsonschema(tmp_path: Path) -> None:
    (tmp_path / "start.sh").write_text(SCRIPT)
    probe = (
        "import sys\n"
        "sys.argv = ['vlint', '-q', 'start.sh']\n"
        "from vlint.cli import main\n"
        "try:\n    main()\n"
        "except SystemExit:\n    pass\n"
        "print('LOADED', 'tomllib' in sys.modules or 'tomli' in sys.modules, 'jsonschema' in sys.modules)\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, env={"PYTHONPATH": str(ROOT)}
    )
    assert "LOADED False False" in res.stdout, res.stdout + res.stderr
