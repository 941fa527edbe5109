"""A wrapper script that runs its own arguments (``exec "$@"`` or ``"$@"`` on a line of its own) passes
the command it is given on: ``./wrap.sh vllm serve …`` in a shell script, and a compose ``entrypoint:``
script (read through the service's volume mounts) in front of a ``command:`` that is a vLLM launch. Only a
wrapper vlint can read counts: an unreadable one, one that runs something else, or one whose ``"$@"`` is
commented out makes no launch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main

FORWARDS = '#!/bin/sh\nset -e\nln -sf "$(command -v python3)" /usr/local/bin/python\nexec "$@"\n'

COMPOSE = """services:
  vllm:
    image: local/vllm:dev
    entrypoint: ["/wrap.sh"]
    volumes:
      - ./docker/wrap.sh:/wrap.sh:ro
    command:
      - python
      - -m
      - vllm.entrypoints.openai.api_server
      - --model
      - Qwen/Qwen3-8B
      - --enforce-eager
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    (tmp_path / "docker").mkdir()
    return tmp_path


def report(*args: str) -> dict:
    r = CliRunner().invoke(main, ["--format", "json", "--isolated", *args], catch_exceptions=False)
    assert r.exit_code in (0, 1), r.output
    return json.loads(r.stdout)


def launches(doc: dict, name: str) -> list[dict]:
    (f,) = [f for f in doc["files"] if f["path"].endswith(name)]
    return list(f["deployments"])


@pytest.mark.parametrize("call", ["./docker/wrap.sh", "bash docker/wrap.sh", "exec ./docker/wrap.sh"])
def test_a_shell_wrapper_that_forwards_its_arguments(work: Path, call: str) -> None:
    (work / "docker" / "wrap.sh").write_text(FORWARDS)
    (work / "run.sh").write_text(f"{call} vllm serve Qwen/Qwen3-8B --enforce-eager\n")
    doc = report(".")
    (dep,) = launches(doc, "run.sh")
    assert dep["model"] == "Qwen/Qwen3-8B"
    assert any(f["code"] == "VL105" and f["path"].endswith("run.sh") for f in doc["findings"])


def test_a_compose_entrypoint_script_that_forwards(work: Path) -> None:
    (work / "docker" / "wrap.sh").write_text(FORWARDS)
    (work / "docker-compose.yml").write_text(COMPOSE)
    doc = report(".")
    (dep,) = launches(doc, "docker-compose.yml")
    assert dep["model"] == "Qwen/Qwen3-8B"
    assert dep["lines"] == [4, 13]  # from the entrypoint wrapper to the command's last argument
    assert [f["line"] for f in doc["findings"] if f["code"] == "VL105"] == [13]


@pytest.mark.parametrize(
    "wrapper",
    [
        None,  # not in the repository: vlint cannot tell what it does
        "#!/bin/sh\nexec python3 /app/server.py\n",  # runs something else
        '#!/bin/sh\n# exec "$@"\nexec python3 /app/server.py "$1"\n',  # the forwarding line is a comment
    ],
)
def test_no_launch_through_a_wrapper_that_does_not_forward(work: Path, wrapper: str | None) -> None:
    if wrapper is not None:
        (work / "docker" / "wrap.sh").write_text(wrapper)
    (work / "run.sh").write_text("./docker/wrap.sh vllm serve Qwen/Qwen3-8B --enforce-eager\n")
    (work / "docker-compose.yml").write_text(COMPOSE)
    doc = report(".")
    assert launches(doc, "run.sh") == [] and launches(doc, "docker-compose.yml") == []


def test_a_program_outside_the_repository_is_not_read_nor_reported(work: Path) -> None:
    (work / "run.sh").write_text(
        "/opt/venv/bin/wrap.sh vllm serve Qwen/Qwen3-8B\n../wrap.sh vllm serve Qwen/Qwen3-8B\n"
    )
    doc = report(".")
    assert launches(doc, "run.sh") == []
    assert [f for f in doc["findings"] if f["code"] == "VL060"] == []
