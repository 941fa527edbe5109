"""A ``.env`` no launch reads: its ``VLLM_*`` names are checked on their own (VL013, VL014), at the name,
against the release a launch with nothing stated gets, and the message says which release and why."""

from __future__ import annotations

from pathlib import Path

import pytest

from vlint.core.finding import Finding
from vlint.core.version import Version
from vlint.engine.catalog import load_catalog
from vlint.engine.runner import Engine
from vlint.launch.resolver import ResolveOptions
from vlint.run.lint import LintOptions, lint_paths

ENV = """\
# settings for the server
export VLLM_USE_V1=0
VLLM_ALLOW_LONG_MAX_MODEL_LENGTH=1
VLLM_WORKER_MULTIPROC_METHOD=spawn
HF_TOKEN=
MY_VLLM_THING=3
"""


def lint(tmp_path: Path, files: dict[str, str], *, jobs: int = 1, version: str | None = None) -> list[Finding]:
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    resolve = ResolveOptions(vllm_version=Version.parse(version)) if version else ResolveOptions()
    opts = LintOptions(root=tmp_path, jobs=jobs, resolve=resolve)
    return lint_paths([tmp_path], Engine(load_catalog()), opts).findings


def codes(findings: list[Finding]) -> list[str]:
    return [f"{f.code} {Path(f.span.path).name}:{f.span.line}:{f.span.column}" for f in findings]


def test_a_lone_env_file_is_checked_at_the_names(tmp_path: Path) -> None:
    found = lint(tmp_path, {".env": ENV})
    assert codes(found) == ["VL014 .env:2:8", "VL013 .env:3:1"]
    for f in found:  # the release assumed is said, as for a launch that states none
        assert "no launch in the files linted reads" in f.message
        assert "the newest bundled release; pass --vllm-version to check another" in f.message


def test_the_release_given_is_the_one_checked(tmp_path: Path) -> None:
    found = lint(tmp_path, {"deploy/.env.example": ENV}, version="0.10.2")
    # VLLM_USE_V1 still exists in 0.10.2: no VL014; the misspelled name is still unknown
    assert codes(found) == ["VL013 .env.example:3:1"]
    assert "checked against vLLM 0.10.2, --vllm-version 0.10.2" in found[0].message


def test_other_names_are_not_checked(tmp_path: Path) -> None:
    assert lint(tmp_path, {".env": "HF_TOKEN=\nMY_VLLM_THING=3\nVLLM_PORT=8000\nCUDA_VISIBLE_DEVICES=0\n"}) == []


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_env_file_a_launch_reads_is_checked_through_it(tmp_path: Path, jobs: int) -> None:
    compose = (
        "services:\n  vllm:\n    image: vllm/vllm-openai:v0.8.5\n    env_file: .env\n"
        "    command: --model Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n"
    )
    found = [f for f in lint(tmp_path, {".env": ENV, "docker-compose.yml": compose, "x/.env": ENV}, jobs=jobs)]
    env = [f for f in found if f.code in ("VL013", "VL014")]
    # once, at the launch's release (0.8.5 still reads VLLM_USE_V1), without the lone-file wording;
    # the other folder's .env, which nothing reads, on its own
    assert codes(env) == ["VL013 .env:3:1", "VL014 .env:2:8", "VL013 .env:3:1"]
    assert "vLLM 0.8.5" in env[0].message and "no launch" not in env[0].message
    assert all("x/.env" in f.span.path for f in env[1:])


def test_a_sourced_env_file_is_read_by_the_script(tmp_path: Path) -> None:
    script = "set -a\nsource .env\nvllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192\n"
    found = lint(tmp_path, {".env": ENV, "run.sh": script})
    env = [f for f in found if f.code in ("VL013", "VL014")]
    assert {Path(f.span.path).name for f in env} == {"run.sh"}
    assert all("no launch" not in f.message for f in env)


def test_a_file_that_is_not_a_dotenv_is_not_checked(tmp_path: Path) -> None:
    assert lint(tmp_path, {"notes.txt": ENV, "settings.conf": ENV}) == []
