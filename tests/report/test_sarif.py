"""``--format sarif``: valid SARIF 2.1.0 (the official OASIS schema in tests/data), complete rule
metadata, locations, file errors as notifications, masked secrets, fingerprints stable across line
moves."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft4Validator

from vlint.cli import main
from vlint.engine.catalog import load_catalog
from vlint.report.sarif import RULE_DOCS_URL
from vlint.suppression.baseline import FINGERPRINT_KEY

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "tests" / "data" / "sarif-2.1.0.json"


@cache
def validator() -> Draft4Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    Draft4Validator.check_schema(schema)
    return Draft4Validator(schema)


def assert_valid(doc: dict[str, Any]) -> None:
    errors = sorted(validator().iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:10])


def sarif(args: list[str], cwd: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[int, dict[str, Any]]:
    monkeypatch.chdir(cwd)
    res = CliRunner().invoke(main, ["--format", "sarif", "--isolated", *args])
    assert res.exception is None or isinstance(res.exception, SystemExit), res.output
    return res.exit_code, json.loads(res.stdout)


BAD = """#!/bin/sh
export HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH
vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 \\
  --no-enable-chunked-prefill --gpu-memory-utilization 0.97
"""


def test_the_schema_copy_is_the_official_one() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert schema["id"].endswith("/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json")
    assert schema["properties"]["version"]["enum"] == ["2.1.0"]


def test_examples_validate_and_carry_every_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    code, doc = sarif(["examples"], ROOT, monkeypatch)
    assert code == 1
    assert_valid(doc)
    run = doc["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    catalog = load_catalog()
    assert [r["id"] for r in rules] == [r.code for r in catalog.rules]
    for desc, rule in zip(rules, catalog.rules, strict=True):
        assert desc["name"] == rule.name
        assert desc["shortDescription"]["text"] == rule.summary
        assert desc["fullDescription"]["text"]
        assert (
            desc["defaultConfiguration"]["level"]
            == {"error": "error", "warning": "warning", "info": "note"}[rule.severity]
        )
        assert desc["helpUri"] == RULE_DOCS_URL.format(code=rule.code)
        assert (ROOT / "docs" / "rules" / f"{rule.code}.md").is_file(), f"helpUri of {rule.code} points nowhere"
    assert run["results"], "examples/ has findings"
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert loc["artifactLocation"]["uri"].startswith("examples/")
        assert loc["region"]["startLine"] >= 1 and loc["region"]["startColumn"] >= 1
        assert len(res["partialFingerprints"][FINGERPRINT_KEY]) == 32
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == ROOT.as_uri() + "/"
    assert run["invocations"][0]["executionSuccessful"] is True


def test_result_fields(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "start.sh").write_text(BAD, encoding="utf-8")
    _, doc = sarif(["start.sh"], tmp_path, monkeypatch)
    assert_valid(doc)
    results = {r["ruleId"]: r for r in doc["runs"][0]["results"]}
    r = results["VL101"]
    assert r["level"] == {"error": "error", "warning": "warning", "info": "note"}[r["properties"]["severity"]]
    assert r["locations"][0]["physicalLocation"]["region"] == {
        "startLine": 4,
        "startColumn": 3,
        "endLine": 4,
        "endColumn": 30,
    }
    assert r["message"]["text"].startswith("chunked prefill is disabled")
    # VL101's fix removes the flag (applicable, unsafe): "fix (unsafe):"; advice only would read "help:"
    assert "\nfix (unsafe): " in r["message"]["text"] and r["properties"]["fix"] and r["properties"]["fixApplicable"]
    assert results["VL502"]["level"] == "error"


def test_secrets_are_masked_everywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "start.sh").write_text(BAD, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["--format", "sarif", "--isolated", "start.sh"])
    assert "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH" not in res.stdout
    assert "hf_a****" in res.stdout


def test_file_errors_are_tool_notifications(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bad.sh").write_text('vllm serve x --max-model-len "4096\n')  # (bytes not UTF-8 are read: VL050)
    (tmp_path / "start.sh").write_text(BAD, encoding="utf-8")
    code, doc = sarif(["bad.sh", "start.sh"], tmp_path, monkeypatch)
    assert code == 2
    assert_valid(doc)
    inv = doc["runs"][0]["invocations"][0]
    assert inv["executionSuccessful"] is False
    (note,) = inv["toolExecutionNotifications"]
    assert note["level"] == "error" and "shell syntax error" in note["message"]["text"]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "bad.sh"
    assert note["locations"][0]["physicalLocation"]["region"]["startLine"] == 1
    assert doc["runs"][0]["results"], "the other file is still linted"


def _prints(doc: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((r["ruleId"], r["partialFingerprints"][FINGERPRINT_KEY]) for r in doc["runs"][0]["results"])


def test_fingerprints_survive_line_moves_not_edits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    f = tmp_path / "start.sh"
    f.write_text(BAD, encoding="utf-8")
    _, first = sarif(["start.sh"], tmp_path, monkeypatch)
    _, again = sarif(["start.sh"], tmp_path, monkeypatch)
    assert _prints(first) == _prints(again)
    f.write_text(BAD.replace("#!/bin/sh\n", "#!/bin/sh\n# a comment\n\n# and another\n"), encoding="utf-8")
    _, moved = sarif(["start.sh"], tmp_path, monkeypatch)
    lines = {
        r["ruleId"]: r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in moved["runs"][0]["results"]
    }
    assert lines["VL101"] == 7
    assert _prints(first) == _prints(moved)
    f.write_text(BAD.replace("0.97", "0.98"), encoding="utf-8")
    _, edited = sarif(["start.sh"], tmp_path, monkeypatch)
    changed = dict(_prints(first)).items() ^ dict(_prints(edited)).items()
    assert {code for code, _ in changed} == {"VL101", "VL201"}, "only findings on the edited line change"


def test_identical_lines_get_distinct_fingerprints(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    line = "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --no-enable-chunked-prefill\n"
    (tmp_path / "start.sh").write_text(line + "sleep 1\n" + line, encoding="utf-8")
    _, doc = sarif(["start.sh"], tmp_path, monkeypatch)
    prints = [fp for code, fp in _prints(doc) if code == "VL101"]
    assert len(prints) == 2 and len(set(prints)) == 2


def test_custom_rules_are_described_without_help_uri(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "start.sh").write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --gpu-memory-utilization 0.95\n")
    _, doc = sarif(["--rules-dir", str(ROOT / "examples" / "policies"), "start.sh"], tmp_path, monkeypatch)
    assert_valid(doc)
    rules = {r["id"]: r for r in doc["runs"][0]["tool"]["driver"]["rules"]}
    assert "helpUri" not in rules["ORG001"] and rules["ORG001"]["properties"]["tags"] == ["custom", "correctness"]
    assert {r["ruleId"] for r in doc["runs"][0]["results"]} >= {"ORG001", "ORG002"}


def test_corpus_sarif_validates(shared: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = shared / "corpus" / "real"
    out = tmp_path / "corpus.sarif"
    monkeypatch.chdir(ROOT)
    res = CliRunner().invoke(main, ["--isolated", "--format", "sarif", "--output", str(out), str(corpus)])
    assert res.exit_code in (0, 1, 2), res.output
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert_valid(doc)
    json_res = CliRunner().invoke(main, ["--isolated", "--format", "json", str(corpus)])
    findings = json.loads(json_res.stdout)["findings"]
    run = doc["runs"][0]
    assert len(run["results"]) == len(findings) > 0
    errors = sum(1 for f in json.loads(json_res.stdout)["files"] if f["error"])
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert sum(1 for n in notes if n["level"] == "error") == errors
    unavailable = sum(
        1 for f in json.loads(json_res.stdout)["files"] for d in f["deployments"] if not d["memory_answer"]
    )
    assert sum(1 for n in notes if n["descriptor"]["id"] == "memory-unavailable") == unavailable > 0
    prints = [r["partialFingerprints"][FINGERPRINT_KEY] for r in run["results"]]
    assert len(set(prints)) == len(prints), "fingerprints are unique within a run"


def test_security_rules_carry_security_severity_and_tags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GitHub code scanning ranks security alerts by properties.security-severity (a number as a
    string) and needs the security tag; every rule is tagged security, correctness or performance."""
    (tmp_path / "start.sh").write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --trust-remote-code\n")
    _, doc = sarif(["start.sh"], tmp_path, monkeypatch)
    assert_valid(doc)
    rules = {r["id"]: r for r in doc["runs"][0]["tool"]["driver"]["rules"]}
    for code in ("VL501", "VL502", "VL060"):
        props = rules[code]["properties"]
        assert "security" in props["tags"], code
        assert 0.1 <= float(props["security-severity"]) <= 10.0 and isinstance(props["security-severity"], str)
    assert float(rules["VL502"]["properties"]["security-severity"]) >= 7.0, "a leaked credential is high"
    for r in rules.values():
        kinds = {"security", "correctness", "performance"} & set(r["properties"]["tags"])
        assert len(kinds) == 1, r["id"]
        assert ("security-severity" in r["properties"]) == ("security" in kinds), r["id"]
    assert "performance" in rules["VL101"]["properties"]["tags"]
    assert "correctness" in rules["VL210"]["properties"]["tags"]
