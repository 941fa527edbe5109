"""Never silent about a file (issue 15 item 5): a file named on the command line that no source reads
is an error naming the supported formats; in a run, files that mention vLLM but yield nothing vlint
checked are listed (JSON ``files[].skipped``, the summary line), and files another launch reads are not."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(text))


def run(*args: str):
    return CliRunner().invoke(main, ["--no-color", *args], catch_exceptions=False)


def test_a_named_file_no_source_reads_is_an_error(repo: Path) -> None:
    write(repo, {"DEPLOY.md": "Start it with `vllm serve Qwen/Qwen2.5-7B-Instruct`.\n", "ok.sh": "echo hi\n"})
    r = run("DEPLOY.md", "ok.sh")
    assert r.exit_code == 2
    assert "DEPLOY.md: error: not a file vlint can read: DEPLOY.md (supported formats: shell scripts," in r.output
    assert "No problems found." not in r.output


def test_a_named_yaml_file_without_launch_is_read_not_an_error(repo: Path) -> None:
    # pre-commit names every staged file that matches the hook's pattern: an unrelated YAML is fine
    write(repo, {".github/dependabot.yml": "version: 2\nupdates: []\n"})
    r = run(".github/dependabot.yml")
    assert r.exit_code == 0 and "No problems found. 1 file checked" in r.output, r.output


FILES = {
    "client.py": """\
        from openai import OpenAI

        # talks to the vLLM server started by deploy/serve.sh
        client = OpenAI(base_url="http://localhost:8000/v1", api_key="EMPTY")
        """,
    "docker/Dockerfile": """\
        FROM python:3.11-slim
        RUN pip install vllm==0.10.2
        """,
    "deploy/serve.sh": """\
        #!/bin/bash
        vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192
        """,
    "deploy/compose.yaml": """\
        services:
          vllm:
            image: vllm/vllm-openai:v0.10.2
            command: ["--model", "Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "8192"]
            env_file: vllm.env
        """,
    "deploy/vllm.env": "VLLM_LOGGING_LEVEL=INFO\n",
    "web/app.yaml": "name: web\nport: 80\n",
}


def test_files_that_mention_vllm_without_a_launch_are_listed(repo: Path) -> None:
    write(repo, FILES)
    r = run(".")
    assert "2 files mention vLLM but have no launch vlint can read: client.py, docker/Dockerfile." in r.output
    r = run("--format", "json", ".")
    report = json.loads(r.output)
    skipped = {f["path"]: f["skipped"] for f in report["files"]}
    assert skipped["client.py"] == "mentions vLLM but has no vLLM launch vlint can read"
    assert skipped["docker/Dockerfile"] == "mentions vLLM but has no vLLM launch vlint can read (read as dockerfile)"
    # launches, a file a launch reads (the env_file), a file that has nothing to do with vLLM: not skipped
    assert skipped["deploy/serve.sh"] is None and skipped["deploy/vllm.env"] is None
    assert skipped["web/app.yaml"] is None
    assert report["summary"]["skipped"] == 2


def test_one_skipped_file_is_counted_in_the_singular(repo: Path) -> None:
    write(repo, {"client.py": FILES["client.py"]})
    r = run(".")
    assert "1 file mentions vLLM but has no launch vlint can read: client.py." in r.output


def test_a_named_file_without_extension_that_holds_a_vllm_command_is_read_as_shell(repo: Path) -> None:
    write(repo, {"serve": "vllm serve Qwen/Qwen2.5-7B-Instruct --gpu-memory-utilization 0.99\n"})
    r = run("-q", "serve")
    assert r.exit_code == 1 and "serve:1:" in r.output and "1 vLLM launch" in r.output, r.output
    write(repo, {"NOTES": "we run vLLM on Fridays\n"})
    assert run("NOTES").exit_code == 2


def test_a_policy_rule_file_is_not_a_deployment(repo: Path) -> None:
    """A YAML of the rule schema's shape (code, name, severity, summary, message) that mentions vLLM is a rule,
    wherever it lies (here the examples' own policies, copied under another folder name); a deployment with
    one of those keys, or a rule-like file missing one, is still listed."""
    examples = Path(__file__).resolve().parents[2] / "examples" / "policies"
    files = {f"org/{p.name}": p.read_text() for p in examples.glob("*.yaml")}
    files["deploy/notes.yaml"] = "name: vllm\nsummary: how we run vLLM\nseverity: high\n"
    write(repo, files)
    report = json.loads(run("--format", "json", ".").stdout)
    skipped = {f["path"]: f["skipped"] for f in report["files"]}
    assert len(files) == 3 and all(skipped[p] is None for p in files if p.startswith("org/")), skipped
    assert skipped["deploy/notes.yaml"] == "mentions vLLM but has no vLLM launch vlint can read"
