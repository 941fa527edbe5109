"""--write-baseline / --baseline: today's findings are accepted by fingerprint (not line), new ones
fail, stale entries are no error, a broken baseline is exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main

SCRIPT = """#!/bin/sh
vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 \\
  --gpu-memory-utilization 0.97
"""


def vlint(cwd: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    monkeypatch.chdir(cwd)
    # VL230 (no GPU named: the launch on the reference GPUs) would be one more finding in every baseline
    args = ("--ignore", "VL230", *args)
    res = CliRunner(env={"GITHUB_ACTIONS": None}).invoke(main, ["--isolated", "-q", "--no-color", *args])
    return res.exit_code, res.stdout, res.stderr


def test_write_then_accept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "start.sh").write_text(SCRIPT)
    code, _, err = vlint(tmp_path, monkeypatch, "--write-baseline", "baseline.json", "start.sh")
    assert code == 0 and "Wrote 1 finding to baseline baseline.json" in err
    doc = json.loads((tmp_path / "baseline.json").read_text())
    assert doc["tool"] == "vlint" and doc["format_version"] == 1
    (entry,) = doc["findings"]
    assert entry["code"] == "VL201" and entry["path"] == "start.sh" and len(entry["fingerprint"]) == 32
    code, out, _ = vlint(tmp_path, monkeypatch, "--baseline", "baseline.json", "start.sh")
    assert code == 0 and "No problems found" in out and "1 accepted by the baseline baseline.json" in out


def test_moved_lines_stay_accepted_new_findings_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "start.sh").write_text(SCRIPT)
    vlint(tmp_path, monkeypatch, "--write-baseline", "b.json", "start.sh")
    moved = SCRIPT.replace("#!/bin/sh\n", "#!/bin/sh\nset -eu\n\n")
    (tmp_path / "start.sh").write_text(moved + "vllm serve Qwen/Qwen2.5-7B-Instruct --no-enable-chunked-prefill\n")
    code, out, _ = vlint(tmp_path, monkeypatch, "--baseline", "b.json", "--select", "VL1,VL2", "start.sh")
    assert code == 1
    assert "start.sh:5:" not in out, "the accepted finding moved from line 3 to 5 and is still accepted"
    assert "start.sh:6:" in out and "VL101" in out


def test_stale_entries_are_counted_not_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "start.sh").write_text(SCRIPT)
    vlint(tmp_path, monkeypatch, "--write-baseline", "b.json", "start.sh")
    (tmp_path / "start.sh").write_text(SCRIPT.replace("0.97", "0.9"))
    code, out, _ = vlint(tmp_path, monkeypatch, "--baseline", "b.json", "start.sh")
    assert code == 0
    assert "1 baseline entry no longer found (update with --write-baseline b.json)" in out


def test_sarif_and_baseline_share_the_fingerprint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "start.sh").write_text(SCRIPT)
    vlint(tmp_path, monkeypatch, "--write-baseline", "b.json", "start.sh")
    _, out, _ = vlint(tmp_path, monkeypatch, "--format", "sarif", "start.sh")
    (result,) = json.loads(out)["runs"][0]["results"]
    (entry,) = json.loads((tmp_path / "b.json").read_text())["findings"]
    assert result["partialFingerprints"]["vlint/v1"] == entry["fingerprint"]


def test_no_suppress_ignores_the_baseline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "start.sh").write_text(SCRIPT)
    vlint(tmp_path, monkeypatch, "--write-baseline", "b.json", "start.sh")
    code, out, _ = vlint(tmp_path, monkeypatch, "--baseline", "b.json", "--no-suppress", "start.sh")
    assert code == 1 and "VL201" in out


def test_baseline_from_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "start.sh").write_text(SCRIPT)
    (tmp_path / "pyproject.toml").write_text('[tool.vlint]\nbaseline = ".vlint-baseline.json"\n')
    monkeypatch.chdir(tmp_path)
    CliRunner().invoke(main, ["--write-baseline", ".vlint-baseline.json", "deploy"])
    res = CliRunner(env={"GITHUB_ACTIONS": None}).invoke(main, ["deploy"])
    assert res.exit_code == 0, res.stdout


def test_secrets_are_masked_in_the_baseline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    token = "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH"
    (tmp_path / "start.sh").write_text(f"export HF_TOKEN={token}\n" + SCRIPT)
    vlint(tmp_path, monkeypatch, "--write-baseline", "b.json", "start.sh")
    text = (tmp_path / "b.json").read_text()
    assert "VL502" in text and token not in text


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such baseline file (create it with --write-baseline b.json)"),
        ("{", "not JSON"),
        ('{"findings": []}', "not a vlint baseline"),
        ('{"tool": "vlint", "format_version": 9, "findings": []}', "format_version 9"),
        ('{"tool": "vlint", "format_version": 1, "findings": [{"code": "VL201"}]}', "findings[0] has no fingerprint"),
    ],
)
def test_bad_baseline_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str | None, message: str
) -> None:
    (tmp_path / "start.sh").write_text(SCRIPT)
    if content is not None:
        (tmp_path / "b.json").write_text(content)
    code, _, err = vlint(tmp_path, monkeypatch, "--baseline", "b.json", "start.sh")
    assert code == 2 and message in err, err
