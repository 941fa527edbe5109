"""The ``vlint`` command: exit codes, output formats, rule selection, file discovery, secrets."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main
from vlint.config.discover import DiscoverOptions, discover
from vlint.sources.base import SourceError
from vlint.sources.decode import decode

ROOT = Path(__file__).resolve().parents[2]

CLEAN = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n"
WARN = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --gpu-memory-utilization 0.96\n"
INFO = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --enforce-eager\n"
ERROR = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --max-model-lenn 4096\n"
BROKEN = 'vllm serve m\necho "unterminated\n'
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    return tmp_path


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)


def run_json(*args: str) -> tuple[int, dict]:
    r = run("--format", "json", *args)
    return r.exit_code, json.loads(r.stdout)


# -- exit codes -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "fail_on", "code"),
    [
        (CLEAN, "warning", 0),
        (INFO, "warning", 0),
        (INFO, "info", 1),
        (WARN, "warning", 1),
        (WARN, "error", 0),
        (WARN, "info", 1),
        (ERROR, "error", 1),
    ],
)
def test_exit_codes_follow_fail_on(project: Path, content: str, fail_on: str, code: int) -> None:
    write(project, {"start.sh": content})
    assert run("--fail-on", fail_on, "start.sh").exit_code == code


def test_default_command_is_check(project: Path) -> None:
    write(project, {"start.sh": WARN})
    a, b = run("start.sh"), run("check", "start.sh")
    assert (a.exit_code, a.output) == (b.exit_code, b.output)


def test_no_paths_means_the_current_folder(project: Path) -> None:
    write(project, {"deploy/start.sh": WARN})
    r = run("--no-color")
    assert r.exit_code == 1 and "deploy/start.sh:1:" in r.output


def test_a_broken_file_among_good_ones(project: Path) -> None:
    write(project, {"a.sh": WARN, "bad.sh": BROKEN, "z.yaml": "max-model-len: 4096\ngpu-memory-utilization: 1.5\n"})
    r = run("--no-color", "a.sh", "bad.sh", "z.yaml")
    assert r.exit_code == 2
    lines = r.output.splitlines()
    assert "bad.sh:2: error: shell syntax error: unterminated double quote" in lines
    assert any(line.startswith("a.sh:1:") and "VL201" in line for line in lines)
    assert any(line.startswith("z.yaml:2:") for line in lines)
    assert "1 could not be read" in lines[-1]


def test_the_launch_before_a_syntax_error_is_still_linted(project: Path) -> None:
    write(project, {"bad.sh": WARN + 'echo "oops\n'})
    code, doc = run_json("bad.sh")
    assert code == 2
    (f,) = doc["files"]
    assert f["launches"] == 1 and f["error"] == {
        "message": "shell syntax error: unterminated double quote",
        "line": 2,
        "column": 6,
    }
    assert [x["code"] for x in doc["findings"]] == ["VL230", "VL201"]  # VL230: no GPU named


@pytest.mark.parametrize(
    ("files", "args"),
    [
        ({}, ["missing.sh"]),
        ({"bin.sh": "\x00\x01"}, ["bin.sh"]),
        ({"big.sh": "#" * (2 * 2**20)}, ["--max-file-size", "1", "big.sh"]),
    ],
)
def test_unreadable_files_exit_2(project: Path, files: dict[str, str], args: list[str]) -> None:
    write(project, files)
    r = run(*args)
    assert r.exit_code == 2
    assert ": error: " in r.output


def test_invalid_utf8_is_reported_with_its_line(project: Path) -> None:
    # a byte that is not UTF-8 (in a comment) does not make the file an error: it is read as Windows-1252
    # and reported on its line (VL050), the launch still checked
    (project / "start.sh").write_bytes(b"# ok\nvllm serve m # \xff\n")
    r = run("--no-color", "start.sh")
    assert r.exit_code == 0, r.output
    assert "start.sh:2:1: VL050 [info] 1 byte of this file is not valid UTF-8 (the first on line 2)" in r.output
    assert "1 vLLM launch" in r.output


@pytest.mark.parametrize(
    "args",
    [
        ["--select", "VL999", "x.sh"],
        ["--ignore", "no-such-rule", "x.sh"],
        ["--vllm-version", "abc", "x.sh"],
        ["--gpu", "H100:zero", "x.sh"],
        ["--gpu", "NoSuchGPU", "x.sh"],
        ["--fail-on", "fatal", "x.sh"],
        ["--format", "xml", "x.sh"],
        ["--max-file-size", "0", "x.sh"],
        ["--no-such-option"],
    ],
)
def test_usage_errors_exit_2(project: Path, args: list[str]) -> None:
    write(project, {"x.sh": CLEAN})
    r = run(*args)
    assert r.exit_code == 2
    assert r.output.strip()


def test_real_process_exit_code_and_version(project: Path) -> None:
    write(project, {"start.sh": WARN})
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.run([sys.executable, "-m", "vlint.cli", "start.sh"], capture_output=True, text=True, env=env)
    assert p.returncode == 1 and "VL201" in p.stdout
    p = subprocess.run([sys.executable, "-m", "vlint.cli", "--version"], capture_output=True, text=True, env=env)
    from vlint import __version__

    assert p.returncode == 0 and __version__ in p.stdout
    p = subprocess.run([sys.executable, "-m", "vlint", "start.sh"], capture_output=True, text=True, env=env)
    assert p.returncode == 1 and "VL201" in p.stdout, p.stderr


# -- JSON -----------------------------------------------------------------------------------------------------
def test_json_report_shape(project: Path) -> None:
    write(project, {"start.sh": WARN, "bad.sh": 'echo "unterminated\n\n', "notes.yaml": "title: hello\n"})
    code, doc = run_json("--ignore", "VL230", "start.sh", "bad.sh", "notes.yaml")
    assert code == 2
    from vlint import __version__

    assert doc["format_version"] == 1
    assert doc["version"] == __version__
    files = {f["path"]: f for f in doc["files"]}
    assert set(files) == {"start.sh", "bad.sh", "notes.yaml"}
    for f in files.values():
        assert {"path", "launches", "error"} <= set(f)
    assert (files["start.sh"]["launches"], files["start.sh"]["error"]) == (1, None)
    assert (files["notes.yaml"]["launches"], files["notes.yaml"]["error"]) == (0, None)
    assert files["bad.sh"]["error"] == {
        "message": "shell syntax error: unterminated double quote",
        "line": 1,
        "column": 6,
    }
    (finding,) = doc["findings"]
    assert {"code", "name", "severity", "path", "line", "column", "message", "data"} <= set(finding)
    assert (finding["code"], finding["name"], finding["severity"]) == (
        "VL201",
        "gpu-memory-utilization-no-headroom",
        "warning",
    )
    assert (finding["path"], finding["line"], finding["column"]) == ("start.sh", 1, 66)
    assert finding["data"]["gpu_memory_utilization"] == 0.96
    assert isinstance(finding["message"], str) and "0.96" in finding["message"]


def test_json_data_is_plain_json_for_unresolved_values(project: Path) -> None:
    write(project, {"start.sh": "vllm serve $M --max-model-len 1024 --max-model-len $LEN\n"})
    _, doc = run_json("--select", "VL007", "start.sh")
    (f,) = doc["findings"]
    assert f["data"]["value"] == "<unresolved>" and f["data"]["previous"] == 1024


def test_rules_list_as_json() -> None:
    r = run("rules", "--format", "json")
    assert r.exit_code == 0
    rules = json.loads(r.stdout)
    by_code = {x["code"]: x for x in rules}
    assert {"code", "name", "severity", "summary"} <= set(rules[0])
    assert by_code["VL101"]["name"] == "chunked-prefill-disabled"
    assert by_code["VL502"]["severity"] == "error"
    assert [x["code"] for x in rules] == sorted(x["code"] for x in rules)
    assert all(x["severity"] in ("error", "warning", "info") and x["summary"] for x in rules)


def test_rules_list_as_text() -> None:
    r = run("rules")
    assert r.exit_code == 0
    assert re.search(r"^VL101\s+chunked-prefill-disabled\s+warning\s+\S", r.output, re.MULTILINE)


@pytest.mark.parametrize("ref", ["VL101", "vl101", "chunked-prefill-disabled"])
def test_rule_page(ref: str) -> None:
    r = run("rule", ref)
    assert r.exit_code == 0
    assert "VL101" in r.output and "chunked" in r.output.lower()


def test_unknown_rule_page_exits_2() -> None:
    r = run("rule", "VL999")
    assert r.exit_code == 2 and "no rule" in r.output


# -- selection ----------------------------------------------------------------------------------------------------
MIXED = (
    "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --enforce-eager "
    "--gpu-memory-utilization 0.96 --trust-remote-code\n"
)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], {"VL105", "VL201", "VL230", "VL501"}),
        (["--select", "VL201"], {"VL201"}),
        (["--select", "VL2"], {"VL201", "VL230"}),
        (["--select", "VL1,VL5"], {"VL105", "VL501"}),
        (["--select", "VL1", "--select", "VL5"], {"VL105", "VL501"}),
        (["--select", "trust-remote-code"], {"VL501"}),
        (["--ignore", "VL105"], {"VL201", "VL230", "VL501"}),
        (["--ignore", "VL1"], {"VL201", "VL230", "VL501"}),
        (["--ignore", "enforce-eager,trust-remote-code"], {"VL201", "VL230"}),
        (["--select", "VL"], {"VL105", "VL201", "VL230", "VL501"}),
        (["--select", "ALL", "--ignore", "VL2"], {"VL105", "VL501"}),
    ],
)
def test_select_and_ignore(project: Path, args: list[str], expected: set[str]) -> None:
    write(project, {"start.sh": MIXED})
    _, doc = run_json(*args, "start.sh")
    assert {f["code"] for f in doc["findings"]} == expected


# -- text output ---------------------------------------------------------------------------------------------------
def test_text_output_has_location_frame_fix_and_summary(project: Path) -> None:
    script = "#!/bin/bash\nvllm serve meta-llama/Llama-3.1-8B-Instruct \\\n  --max-model-len 8192 \\\n"
    write(project, {"start.sh": script + "  --gpu-memory-utilization 0.96\n"})
    r = run("--no-color", "--ignore", "VL230", "start.sh")
    lines = r.output.splitlines()
    assert lines[0].startswith("start.sh:4:3: VL201 [warning] gpu_memory_utilization 0.96")
    assert lines[1:4] == [
        "  |",
        "4 |   --gpu-memory-utilization 0.96",
        "  |   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
    ]
    assert lines[4].startswith("  = fix (unsafe): ")
    assert lines[-1].startswith("Found 1 problem (1 warning) in 1 file. 1 file checked, 1 vLLM launch.")


def test_quiet_prints_one_line_per_finding(project: Path) -> None:
    write(project, {"start.sh": MIXED})
    r = run("-q", "--no-color", "start.sh")
    lines = r.output.splitlines()
    assert len(lines) == 6  # four findings (VL230: no GPU named), the memory-model line and the summary
    assert all(re.match(r"start\.sh:1:\d+: VL\d{3} \[(error|warning|info)\] ", line) for line in lines[:4])
    assert lines[4].startswith("memory model: 1 of 1 launch (1 on the reference GPUs")


def test_no_problems_summary(project: Path) -> None:
    write(project, {"start.sh": CLEAN})
    r = run("--no-color", "--gpu", "H100", "start.sh")
    first, *rest = r.output.splitlines()
    assert first.startswith("start.sh:1: memory: meta-llama/Llama-3.1-8B-Instruct on H100") and "— starts: " in first
    assert "\n".join(rest).startswith("memory model: 1 of 1 launch.\nNo problems found. 1 file checked, 1 vLLM launch.")


def test_no_color(project: Path) -> None:
    write(project, {"start.sh": WARN})
    assert not ANSI.search(run("start.sh").output)  # not a terminal
    assert not ANSI.search(run("--no-color", "start.sh", env={"FORCE_COLOR": "1"}).output)
    assert not ANSI.search(run("start.sh", env={"FORCE_COLOR": "1", "NO_COLOR": "1"}).output)


def test_force_color_when_piped(project: Path) -> None:
    write(project, {"start.sh": WARN})
    env = {**os.environ, "PYTHONPATH": str(ROOT), "FORCE_COLOR": "1"}
    env.pop("NO_COLOR", None)
    p = subprocess.run([sys.executable, "-m", "vlint.cli", "start.sh"], capture_output=True, text=True, env=env)
    assert ANSI.search(p.stdout)


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("0.33.0", "Target vLLM 0.33.0"),
        ("0.33", "Target vLLM 0.33.0"),
        ("v0.33.0", "Target vLLM 0.33.0"),
        ("99.0", "Target vLLM "),
    ],
)
def test_vllm_version_option(project: Path, value: str, fragment: str) -> None:
    write(project, {"start.sh": WARN})
    r = run("--no-color", "--vllm-version", value, "start.sh")
    assert r.exit_code == 1
    assert fragment in r.output.splitlines()[-1]


def test_vllm_version_too_old_for_any_schema_says_so(project: Path) -> None:
    write(project, {"start.sh": WARN})
    r = run("--no-color", "--vllm-version", "0.1.0", "start.sh")
    assert "0.1.0" in r.output.splitlines()[-1]


# -- secrets ----------------------------------------------------------------------------------------------------------
SECRETS = {
    "hf_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
    "sk-proj-BBBBBBBBBBBBBBBBBBBBBBBB",
    "hf_CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC",
    "secretkey1",
    "secretkey2",
    "shortk",
    "hf_DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD",
    "sk-EEEEEEEEEEEEEEEEEEEEEEEE",
    "Tok3nValue9",
}
SECRET_SCRIPT = (
    "export HF_TOKEN=hf_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n"
    "OPENAI_API_KEY=sk-proj-BBBBBBBBBBBBBBBBBBBBBBBB\n"
    "docker run -e HUGGING_FACE_HUB_TOKEN=hf_CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC vllm/vllm-openai:v0.11.0 m "
    "--api-key secretkey1 --api-key secretkey2 --gpu-memory-utilization 0.99\n"
    "vllm serve m --api-key=shortk --max-model-len 1.5K\n"
    "vllm serve m --config cfg.yaml\n"
    'vllm serve m --hf-token hf_DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD --api-key "$KEY"\n'
    "VLLM_API_KEY=Tok3nValue9 vllm serve m --max-model-len 99999999999\n"
)


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["-q"],
        ["--format", "json"],
        ["--ignore", "VL502"],
        ["--ignore", "VL502", "--format", "json"],
        ["--select", "VL007,VL201,VL004"],
    ],
)
def test_secrets_never_appear_in_the_output(project: Path, args: list[str]) -> None:
    write(
        project,
        {"start.sh": SECRET_SCRIPT, "cfg.yaml": "api-key: sk-EEEEEEEEEEEEEEEEEEEEEEEE\ngpu-memory-utilization: 0.99\n"},
    )
    r = run("--no-color", *args, "start.sh", "cfg.yaml")
    assert r.exit_code in (1, 2)
    leaked = [s for s in SECRETS if s in r.output]
    assert leaked == []
    assert "VL201" in r.output  # the lines with secrets were reported on


def test_secret_findings_say_where_masked(project: Path) -> None:
    write(project, {"start.sh": SECRET_SCRIPT, "cfg.yaml": "api-key: sk-EEEEEEEEEEEEEEEEEEEEEEEE\n"})
    _, doc = run_json("--select", "VL502", "start.sh", "cfg.yaml")
    got = {(f["path"], f["line"], f["data"]["masked"]) for f in doc["findings"]}
    assert ("start.sh", 1, "hf_A****") in got
    assert ("start.sh", 2, "sk-p****") in got
    assert ("start.sh", 4, "****") in got  # short values are masked completely
    assert ("cfg.yaml", 1, "sk-E****") in got


def test_carets_stay_under_their_text_when_a_secret_is_masked(project: Path) -> None:
    write(
        project, {"start.sh": "vllm serve m --api-key sk-abcdefghijklmnopqrstuvwxyz123 --gpu-memory-utilization 0.99\n"}
    )
    r = run("--no-color", "--select", "VL201", "start.sh")
    frame_line, caret_line = r.output.splitlines()[2:4]
    text = frame_line.split("| ", 1)[1]
    start = caret_line.split("| ", 1)[1].index("^")
    assert text[start:].startswith("--gpu-memory-utilization 0.99")


# -- discovery ----------------------------------------------------------------------------------------------------
def found(root: Path, opts: DiscoverOptions | None = None) -> list[str]:
    return sorted(d.path.relative_to(root).as_posix() for d in discover([root], opts))


def test_directory_walk_includes_and_excludes(tmp_path: Path) -> None:
    files = [
        "start.sh",
        "deploy/run.bash",
        "deploy/serve.yaml",
        "deploy/values.yml",
        "docker/Dockerfile",
        "docker/Dockerfile.vllm",
        "docker/vllm.Dockerfile",
        "app/.env",
        "app/main.py",
        "ops/run.ps1",
        ".github/workflows/ci.yml",
        "README.md",
        "notes.txt",
        "node_modules/pkg/start.sh",
        ".git/hooks/pre-commit.sh",
        ".venv/bin/activate.sh",
        "__pycache__/x.sh",
        "build/out.sh",
    ]
    write(tmp_path, {f: CLEAN for f in files})
    assert found(tmp_path) == [
        ".github/workflows/ci.yml",
        "app/.env",
        "app/main.py",
        "deploy/run.bash",
        "deploy/serve.yaml",
        "deploy/values.yml",
        "docker/Dockerfile",
        "docker/Dockerfile.vllm",
        "docker/vllm.Dockerfile",
        "ops/run.ps1",
        "start.sh",
    ]


def test_explicit_files_are_read_whatever_their_name(tmp_path: Path) -> None:
    write(tmp_path, {"README.md": CLEAN, "dir/a.sh": CLEAN})
    got = [
        (d.path.name, d.explicit) for d in discover([tmp_path / "README.md", tmp_path / "dir", tmp_path / "README.md"])
    ]
    assert got == [("README.md", True), ("a.sh", False)]


def test_gitignore_like_git(tmp_path: Path) -> None:
    """Expected set from ``git status --untracked-files=all`` on the same tree."""
    write(
        tmp_path,
        {
            ".gitignore": "/out\nkeep/*\n!keep/h.sh\nfoo/*.sh\n**/c/*.sh\nlogs/**\n"
            "sp\\ ace.sh\nt[0-1].sh\n# comment\n*.log.sh\n",
            "sub/.gitignore": "deep/\n",
            **{
                f: CLEAN
                for f in [
                    "a.sh",
                    "out/b.sh",
                    "sub/out/c.sh",
                    "sub/deep/d.sh",
                    "keep/g.sh",
                    "keep/h.sh",
                    "top.yaml",
                    "foo/i.sh",
                    "foo/a/j.sh",
                    "a/b/c/m.sh",
                    "logs/n.sh",
                    "sp ace.sh",
                    "t1.sh",
                    "t2.sh",
                    "x.log.sh",
                ]
            },
        },
    )
    assert found(tmp_path) == ["a.sh", "foo/a/j.sh", "keep/h.sh", "sub/out/c.sh", "t2.sh", "top.yaml"]


def test_gitignore_can_be_turned_off(tmp_path: Path) -> None:
    write(tmp_path, {".gitignore": "*.sh\n", "a.sh": CLEAN})
    assert found(tmp_path) == []
    assert found(tmp_path, DiscoverOptions(respect_gitignore=False)) == ["a.sh"]


def test_exclude_patterns(tmp_path: Path) -> None:
    write(tmp_path, {"a.sh": CLEAN, "tests/b.sh": CLEAN, "c.yaml": CLEAN})
    assert found(tmp_path, DiscoverOptions(exclude=("tests/*", "*.yaml"))) == ["a.sh"]


def test_symlinked_folders_are_not_followed(tmp_path: Path) -> None:
    write(tmp_path, {"real/a.sh": CLEAN})
    (tmp_path / "real" / "loop").symlink_to(tmp_path, target_is_directory=True)
    assert found(tmp_path) == ["real/a.sh"]


def test_a_directory_of_the_cli(project: Path) -> None:
    write(
        project,
        {"deploy/a.sh": WARN, "deploy/b.yaml": "max-model-len: 4096\nmax-num-seqs: 8\n", "deploy/README.md": WARN},
    )
    _, doc = run_json("deploy")
    assert sorted(f["path"] for f in doc["files"]) == ["deploy/a.sh", "deploy/b.yaml"]


# -- file decoding ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("data", "text"),
    [
        (b"a\nb\n", "a\nb\n"),
        (b"a\r\nb\r\n", "a\nb\n"),
        (b"a\rb", "a\nb"),
        (b"\xef\xbb\xbfa\r\n", "a\n"),
        ("a\r\nb\n".encode("utf-16"), "a\nb\n"),  # Windows editors: UTF-16 with CRLF
        ("a\r\nb".encode("utf-16-be").join([b"\xfe\xff", b""]), "a\nb"),
        ("é\n".encode("utf-32"), "é\n"),
        ("café\n".encode(), "café\n"),
    ],
)
def test_decode(data: bytes, text: str) -> None:
    assert decode(data) == text


@pytest.mark.parametrize(
    ("data", "fragment", "line"),
    [
        (b"ok\n\xffbad\n", "not valid UTF-8", 2),
        (b"\x00\x01\x02", "binary file", None),
        (b"\xff\xfe\x00\xd8", "not valid UTF-16", None),
    ],
)
def test_decode_errors(data: bytes, fragment: str, line: int | None) -> None:
    with pytest.raises(SourceError) as e:
        decode(data, strict=True)  # lenient reading (the default) is tests/sources/test_file_formats.py's
    assert fragment in e.value.message and e.value.line == line


def test_crlf_file_positions_match_an_lf_file(project: Path) -> None:
    write(project, {"lf.sh": WARN})
    (project / "crlf.sh").write_bytes(WARN.replace("\n", "\r\n").encode())
    _, doc = run_json("lf.sh", "crlf.sh")
    locations = {(f["path"], f["line"], f["column"], f["end_column"]) for f in doc["findings"]}
    assert {(p, ln, c, e) for p, ln, c, e in locations if p == "crlf.sh"} == {
        ("crlf.sh", ln, c, e) for p, ln, c, e in locations if p == "lf.sh"
    }


def test_trust_remote_code_message_with_an_unresolved_model(project: Path) -> None:
    write(project, {"start.sh": "vllm serve $MODEL --max-model-len 4096 --trust-remote-code\n"})
    _, doc = run_json("--select", "VL501", "start.sh")
    (f,) = doc["findings"]
    assert "None" not in f["message"]


def test_secret_in_a_config_file_says_where_it_is(project: Path) -> None:
    write(project, {"cfg.yaml": "api-key: sk-EEEEEEEEEEEEEEEEEEEEEEEE\nmax-model-len: 4096\n"})
    _, doc = run_json("--select", "VL502", "cfg.yaml")
    (f,) = doc["findings"]
    assert "command line" not in f["message"]


def test_broken_yaml_about_vllm_is_a_file_error(tmp_path: Path) -> None:
    """A vLLM config that does not parse is an error (exit 2), not a silently skipped file; other broken
    YAML in a tree is not vlint's business."""
    (tmp_path / "serve.yaml").write_text("model: x\nmax-model-len: 8192\n\tgpu-memory-utilization: 0.9\n")
    (tmp_path / "other.yaml").write_text("a: [1,\n")
    r = CliRunner().invoke(main, [str(tmp_path), "--format", "json"])
    assert r.exit_code == 2
    doc = json.loads(r.output)
    errors = {Path(f["path"]).name: f["error"] for f in doc["files"]}
    assert errors["serve.yaml"]["line"] == 3 and "tab" in errors["serve.yaml"]["message"]
    assert errors["other.yaml"] is None


def test_console_script_exit_codes_as_the_interpreter_gives_them() -> None:
    """``run`` leaves with ``os._exit``: it turns ``SystemExit.code`` into a status as Python would."""
    from vlint.cli import _exit_code

    assert [_exit_code(None), _exit_code(0), _exit_code(1), _exit_code(2), _exit_code(256 + 2)] == [0, 0, 1, 2, 2]
    assert _exit_code("a message") == 1
