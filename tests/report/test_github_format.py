"""``--format github``: workflow commands with GitHub's escaping, chosen automatically under Actions."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main
from vlint.commands.check import default_format
from vlint.report.github import command, escape_data, escape_property

SCRIPT = (
    "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --gpu-memory-utilization 0.97 "
    "--api-key sk-abcdefghijklmnopqrstuvwxyz\n"
)
COMMAND = re.compile(r"^::(error|warning|notice) (?P<props>[^:]*)::(?P<msg>.*)$")


def unescape_property(text: str) -> str:
    """What the Actions runner does with a property value."""
    return text.replace("%2C", ",").replace("%3A", ":").replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")


def test_escaping_round_trips() -> None:
    nasty = "50%: a,b\r\nc %0A"
    assert escape_data(nasty) == "50%25: a,b%0D%0Ac %250A"
    assert escape_property(nasty) == "50%25%3A a%2Cb%0D%0Ac %250A"
    assert unescape_property(escape_property(nasty)) == nasty
    line = command("warning", "m: 1,2", file="dir,x/a:b.sh", line=3, col=None)
    assert line == "::warning file=dir%2Cx/a%3Ab.sh,line=3::m: 1,2"


def run(args: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> tuple[int, str]:
    (tmp_path / "start.sh").write_text(SCRIPT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    res = CliRunner(env=env).invoke(main, ["--isolated", *args])
    return res.exit_code, res.stdout


def test_annotations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = run(["--format", "github", "start.sh"], tmp_path, monkeypatch, {})
    assert code == 1
    lines = out.splitlines()
    annotations = [m for m in map(COMMAND.match, lines) if m]
    assert len(annotations) == len(lines) - 1, "every line but the summary is a command"
    by_title = {}
    for m in annotations:
        props = dict(p.split("=", 1) for p in m.group("props").split(","))
        by_title[unescape_property(props["title"]).split()[0]] = (m.group(1), props, m.group("msg"))
    level, props, msg = by_title["VL201"]
    assert level == "warning"
    assert props["file"] == "start.sh" and props["line"] == "1" and props["col"] == "58"
    assert props["endLine"] == "1" and int(props["endColumn"]) > 58
    assert unescape_property(props["title"]) == "VL201 gpu-memory-utilization-no-headroom"
    assert "%25" in msg and "%0Afix (unsafe)%3A" not in msg and "%0Afix (unsafe): " in msg  # data escaping only
    assert by_title["VL502"][0] == "error"
    assert "sk-abcdefghijklmnopqrstuvwxyz" not in out
    assert lines[-1].startswith("Found ")


def test_info_is_a_notice(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "start.sh").write_text(SCRIPT, encoding="utf-8")
    (tmp_path / ".vlint.toml").write_text('select = ["VL201"]\nseverity = {VL201 = "info"}\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["--format", "github", "start.sh"])
    assert res.exit_code == 0, res.output  # info is below the default --fail-on warning
    assert res.stdout.startswith("::notice file=start.sh,line=1,col=58,")


def test_chosen_automatically_under_actions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_format({"GITHUB_ACTIONS": "true"}) == "github"
    assert default_format({"GITHUB_ACTIONS": "false"}) == "text"
    assert default_format({}) == "text"
    _, out = run(["start.sh"], tmp_path, monkeypatch, {"GITHUB_ACTIONS": "true"})
    assert out.startswith("::")
    _, out = run(["--format", "text", "start.sh"], tmp_path, monkeypatch, {"GITHUB_ACTIONS": "true"})
    assert out.startswith("start.sh:1:")
    _, out = run(["start.sh"], tmp_path, monkeypatch, {"GITHUB_ACTIONS": ""})
    assert out.startswith("start.sh:1:")


def test_file_errors_are_error_annotations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bad.sh").write_bytes(b"\x00\x01binary")
    code, out = run(["--format", "github", "bad.sh"], tmp_path, monkeypatch, {})
    assert code == 2
    assert out.splitlines()[0].startswith("::error file=bad.sh,title=vlint%3A file could not be read::binary file")


def test_output_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out = run(["--format", "github", "--output", "out/annotations.txt", "start.sh"], tmp_path, monkeypatch, {})
    assert code == 1 and out == ""
    written = (tmp_path / "out" / "annotations.txt").read_text(encoding="utf-8")
    assert written.startswith("::")


def test_gitlab_codequality(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    (tmp_path / "bad.sh").write_bytes(b"\x00binary")
    code, out = run(["--format", "gitlab", "start.sh", "bad.sh"], tmp_path, monkeypatch, {})
    assert code == 2
    issues = json.loads(out)
    by_check = {i["check_name"]: i for i in issues}
    assert by_check["VL201"]["severity"] == "minor" and by_check["VL201"]["location"] == {
        "path": "start.sh",
        "lines": {"begin": 1},
    }
    assert by_check["VL502"]["severity"] == "major" and by_check["VL502"]["categories"] == ["Security"]
    assert by_check["file-error"]["location"]["path"] == "bad.sh"
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    assert "sk-abcdefghijklmnopqrstuvwxyz" not in out
    _, sarif_out = run(["--format", "sarif", "start.sh"], tmp_path, monkeypatch, {})
    sarif_prints = {r["partialFingerprints"]["vlint/v1"] for r in json.loads(sarif_out)["runs"][0]["results"]}
    assert sarif_prints == {i["fingerprint"] for i in issues if i["check_name"] != "file-error"}


def test_more_annotations_than_github_shows_are_announced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """GitHub shows 10 warning and 10 error annotations per step: the summary says when there are more."""
    for i in range(11):
        (tmp_path / f"s{i:02d}.sh").write_text(
            "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --no-such-flag\n"
        )
    monkeypatch.chdir(tmp_path)
    many = CliRunner().invoke(main, ["--isolated", "--format", "github", "--select", "VL001", "."]).stdout
    assert many.count("::error ") == 11
    assert "GitHub shows at most 10 annotations of each level per step on the pull request (11 errors here)" in many
    few = CliRunner().invoke(main, ["--isolated", "--format", "github", "--select", "VL001", "s00.sh"]).stdout
    assert "GitHub shows at most" not in few
