"""A compose service whose image is built from a Dockerfile that installs vLLM with pip (FROM a CUDA or
Python base) runs the release that Dockerfile pins: ``pip install vllm==0.11.2`` makes the launch 0.11.2,
as the Dockerfile's own launch would be. An unpinned install, or none, pins nothing; a vLLM base image's
tag stays the release (as in the Dockerfile source)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main

COMPOSE = """services:
  vllm:
    build:
      context: ./docker
    image: local/vllm:mine
    command: ["python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "Qwen/Qwen3-8B",
              "--max-model-len", "8192", "--swap-space", "4"]
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    (tmp_path / "docker").mkdir()
    (tmp_path / "docker-compose.yml").write_text(COMPOSE)
    return tmp_path


def lint(work: Path, dockerfile: str) -> tuple[list[str], list[str]]:
    (work / "docker" / "Dockerfile").write_text(dockerfile)
    r = CliRunner().invoke(main, ["--format", "json", "--isolated", "."], catch_exceptions=False)
    assert r.exit_code in (0, 1), r.output
    doc = json.loads(r.stdout)
    (f,) = [f for f in doc["files"] if f["path"].endswith("docker-compose.yml")]
    return f["vllm_versions"], [x["code"] for x in doc["findings"] if x["code"] == "VL002"]


def test_the_built_images_pip_pin_is_the_release(work: Path) -> None:
    versions, vl002 = lint(work, "FROM nvidia/cuda:12.8.0-runtime-ubuntu22.04\nRUN pip install vllm==0.11.2\n")
    assert versions == ["0.11.2"] and vl002 == []  # --swap-space exists in 0.11.2


@pytest.mark.parametrize(
    "dockerfile",
    [
        "FROM nvidia/cuda:12.8.0-runtime-ubuntu22.04\nRUN pip install vllm\n",  # the newest release
        "FROM python:3.12\nRUN pip install fastapi\n",  # no vLLM pin at all
        "FROM nvidia/cuda:12.8.0-runtime-ubuntu22.04\n# RUN pip install vllm==0.11.2\n",  # a comment
    ],
)
def test_no_pin_without_an_exact_install(work: Path, dockerfile: str) -> None:
    versions, vl002 = lint(work, dockerfile)
    assert "0.11.2" not in versions and vl002 == ["VL002"]  # checked against the newest release


def test_a_vllm_base_images_tag_stays_the_release(work: Path) -> None:
    versions, _ = lint(work, "FROM vllm/vllm-openai:v0.9.2\nRUN pip install vllm==0.11.2\n")
    assert versions == ["0.9.2"]
