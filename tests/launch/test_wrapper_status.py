"""An entrypoint wrapper (``exec vllm serve "$@"``) names no model: its launch is completed by the
arguments it is run with, and the memory line says so instead of "no model is named"."""

from __future__ import annotations

from pathlib import Path

import pytest

from vlint.engine.catalog import load_catalog
from vlint.engine.runner import Engine
from vlint.launch.memory_status import memory_status
from vlint.run.lint import LintOptions, lint_paths


def _status(tmp_path: Path, text: str) -> str:
    (tmp_path / "entrypoint.sh").write_text(text)
    report = lint_paths([tmp_path / "entrypoint.sh"], Engine(load_catalog()), LintOptions(root=tmp_path))
    (dep,) = report.files[0].deployments
    return memory_status(dep).reason or ""


@pytest.mark.parametrize(
    "line",
    [
        'exec python3 -u -m vllm.entrypoints.openai.api_server "$@"',  # the model is the first of them
        'exec python3 -m vllm.entrypoints.openai.api_server --host 0.0.0.0 --port 8000 "$@"',
        "vllm serve $*",
    ],
)
def test_a_wrapper_says_its_model_comes_from_its_arguments(tmp_path: Path, line: str) -> None:
    why = _status(tmp_path, f"#!/usr/bin/env bash\nset -e\n{line}\n")
    assert why.startswith("the model comes with the arguments the script is run with"), why


def test_must_not_a_launch_that_names_its_model(tmp_path: Path) -> None:
    why = _status(tmp_path, 'exec vllm serve "$MODEL" "$@"\n')
    assert "arguments the script is run with" not in why and "$MODEL" in why
