"""Custom policy rules: --rules-dir / rules-dir load `when:` rules (validated), `vlint rules test DIR`
runs their cases; the shipped example policies in examples/policies pass and fire."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main

ROOT = Path(__file__).resolve().parents[2]
POLICIES = ROOT / "examples" / "policies"

RULE = """code: ACME001
name: no-enforce-eager
severity: warning
summary: Production launches keep CUDA graphs on (no enforce_eager).
message: "enforce_eager is on for {model}"
when: {properties: {user: {properties: {enforce_eager: {const: true}}, required: [enforce_eager]}}}
at: enforce_eager
cases:
  - title: eager
    doc: bad
    file: start.sh
    content: "vllm serve Qwen/Qwen2.5-7B-Instruct --enforce-eager\\n"
    expect: ["ACME001 1:37"]
  - title: graphs on
    doc: good
    file: start.sh
    content: "vllm serve Qwen/Qwen2.5-7B-Instruct\\n"
    expect: []
"""


def invoke(*args: str) -> tuple[int, str, str]:
    res = CliRunner(env={"GITHUB_ACTIONS": None}).invoke(main, list(args))
    return res.exit_code, res.stdout, res.stderr


def write_rule(folder: Path, text: str = RULE, name: str = "ACME001-no-enforce-eager.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")
    return folder


def test_example_policies_pass_their_cases() -> None:
    code, out, _ = invoke("rules", "test", str(POLICIES), "-v")
    assert code == 0, out
    assert out.count("PASS") == 6 and out.rstrip().endswith("6 passed, 0 failed")


def test_example_policies_fire(tmp_path: Path) -> None:
    (tmp_path / "start.sh").write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --gpu-memory-utilization 0.95\n")
    code, out, _ = invoke("--isolated", "--format", "json", "--rules-dir", str(POLICIES), str(tmp_path))
    findings = {f["code"]: f for f in json.loads(out)["findings"]}
    assert code == 1
    assert findings["ORG001"]["severity"] == "error" and findings["ORG001"]["column"] == 37
    assert "0.95" in findings["ORG001"]["message"] and "policy caps it at 0.9" in findings["ORG001"]["message"]
    assert findings["ORG002"]["line"] == 1
    (tmp_path / "start.sh").write_text(
        "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --gpu-memory-utilization 0.85\n"
    )
    _, out, _ = invoke("--isolated", "--format", "json", "--rules-dir", str(POLICIES), str(tmp_path))
    assert not [f for f in json.loads(out)["findings"] if f["code"].startswith("ORG")]


def test_failing_case_exits_1(tmp_path: Path) -> None:
    rules = write_rule(tmp_path / "rules", RULE.replace('["ACME001 1:37"]', '["ACME001 1:12"]'))
    code, out, _ = invoke("rules", "test", str(rules))
    assert code == 1
    assert "FAIL  ACME001 no-enforce-eager [bad] eager" in out
    assert "expected: ['ACME001 1:12']" in out and "got:      ['ACME001 1:37']" in out
    assert out.rstrip().endswith("1 passed, 1 failed")


def test_rules_test_reads_rules_dir_from_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_rule(tmp_path / "policy")
    (tmp_path / ".vlint.toml").write_text('rules-dir = "policy"\n')
    monkeypatch.chdir(tmp_path)
    code, out, _ = invoke("rules", "test")
    assert code == 0 and "2 passed, 0 failed" in out
    code, out, _ = invoke("rules")
    assert "ACME001  no-enforce-eager" in out and "[custom:" in out


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (RULE.replace("when: ", "check: prefill.chunking_disabled\nwhen_: "), "(top level)"),
        (RULE.replace("when: {", "check: prefill.chunking_disabled\n#"), "custom rules use `when:`"),
        (RULE.replace("severity: warning", "severity: fatal"), "severity"),
        (RULE.replace("code: ACME001", "code: VL101"), "already used"),
        (RULE.replace("{const: true}", "{type: 12}"), "12"),
        ("- not a mapping\n", "a rule file is a mapping"),
    ],
)
def test_invalid_rule_files_exit_2(tmp_path: Path, text: str, message: str) -> None:
    rules = write_rule(tmp_path / "rules", text)
    for args in (["rules", "test", str(rules)], ["--isolated", "--rules-dir", str(rules), str(tmp_path)]):
        code, _, err = invoke(*args)
        assert code == 2, err
        assert message in err and ("ACME001-no-enforce-eager.yaml" in err or "invalid when: schema" in err), err


def test_copied_policy_folder_is_self_contained(tmp_path: Path) -> None:
    target = tmp_path / "policies"
    shutil.copytree(POLICIES, target)
    code, out, _ = invoke("rules", "test", str(target))
    assert code == 0, out
