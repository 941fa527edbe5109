"""Jupyter notebooks: launches in code cells (Python, ``!`` shell escapes, ``%%bash`` cells), at the
notebook's own lines. Fixtures are written here in nbformat 4's layout (one JSON string per source line),
modelled on public tutorial notebooks (e.g. a vLLM quick-start with ``LLM(model_name, …)`` in one cell
and ``!nohup vllm serve … &`` in another)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.sources.render.helpers import lint, write


def _notebook(*cells: tuple[str, list[str]]) -> str:
    doc = {
        "cells": [
            {
                "cell_type": kind,
                "metadata": {},
                "source": lines,
                **({"outputs": [], "execution_count": None} if kind == "code" else {}),
            }
            for kind, lines in cells
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(doc, indent=1) + "\n"


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), 1) if needle in line)


NOTEBOOK = _notebook(
    ("markdown", ["Run `vllm serve not/a-launch --max-model-len 1` in a terminal\n"]),
    ("code", ["from vllm import LLM\n", 'model_name = "Qwen/Qwen2.5-7B-Instruct"\n']),
    ("code", ["%pip install vllm\n", "llm = LLM(model_name, gpu_memory_utilization=0.5, max_model_len=4096)\n"]),
    ("code", ["port = 8001\n", "!nohup vllm serve Qwen/Qwen2.5-1.5B-Instruct --port {port} --max-model-len 4096 &\n"]),
    ("code", ["%%bash\n", "vllm serve Qwen/Qwen2.5-1.5B-Instruct --max-model-len 4096 --gpu-memory-utilisation 0.5\n"]),
)


def test_code_cells_are_launches_at_their_lines(tmp_path: Path) -> None:
    write(tmp_path, {"tutorial.ipynb": NOTEBOOK})
    found = lint(tmp_path, "tutorial.ipynb")
    lines = {f.span.line for f in found}
    assert _line_of(NOTEBOOK, "not/a-launch") not in lines  # markdown is no code
    typo = [f for f in found if f.code == "VL001"]
    assert [f.span.line for f in typo] == [_line_of(NOTEBOOK, "--gpu-memory-utilisation")]
    assert not any(f.code == "VL203" for f in found)  # every launch sets its max_model_len


def test_the_python_of_earlier_cells_is_known_and_magics_are_not_python(tmp_path: Path) -> None:
    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine
    from vlint.run.lint import LintOptions, lint_paths

    write(tmp_path, {"tutorial.ipynb": NOTEBOOK})
    report = lint_paths([tmp_path / "tutorial.ipynb"], Engine(load_catalog()), LintOptions(root=tmp_path))
    deps = [d for fr in report.files for d in fr.deployments]
    by_line = {d.invocation.span.line: d for d in deps}
    assert by_line[_line_of(NOTEBOOK, "llm = LLM(")].model == "Qwen/Qwen2.5-7B-Instruct"  # from the cell before
    bang = by_line[_line_of(NOTEBOOK, "!nohup")]
    assert bang.model == "Qwen/Qwen2.5-1.5B-Instruct" and bang.args.settings["port"].raw != "8001"  # {port}: unknown
    assert len(deps) == 3


def test_a_half_written_cell_does_not_hide_the_others(tmp_path: Path) -> None:
    text = _notebook(
        ("code", ["def broken(:\n"]),
        ("code", ["from vllm import LLM\n", 'llm = LLM("Qwen/Qwen2.5-7B-Instruct", max_model_len=4096)\n']),
    )
    write(tmp_path, {"nb.ipynb": text})
    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine
    from vlint.run.lint import LintOptions, lint_paths

    report = lint_paths([tmp_path / "nb.ipynb"], Engine(load_catalog()), LintOptions(root=tmp_path))
    assert [d.model for fr in report.files for d in fr.deployments] == ["Qwen/Qwen2.5-7B-Instruct"]


def test_a_notebook_saved_on_one_line_says_it_was_not_read(tmp_path: Path) -> None:
    doc = json.loads(NOTEBOOK)
    write(tmp_path, {"flat.ipynb": json.dumps(doc)})
    found = lint(tmp_path, "flat.ipynb")
    assert [f.code for f in found] == ["VL053"] and "not read" in found[0].message


def test_non_ascii_code_as_jupyter_writes_it(tmp_path: Path) -> None:
    launch = "!vllm serve Qwen/Qwen2.5-1.5B-Instruct --max-model-len 4096 --gpu-memory-utilisation 0.5\n"
    nb = _notebook(("code", ["# modèle servi\n", launch]))
    nb = nb.replace("\\u00e8", "è")  # json.dumps escapes it; Jupyter does not
    write(tmp_path, {"nb.ipynb": nb})
    found = lint(tmp_path, "nb.ipynb")
    assert ("VL001", _line_of(nb, "--gpu-memory-utilisation")) in {(f.code, f.span.line) for f in found}


def test_notebooks_without_vllm_are_not_read(tmp_path: Path) -> None:
    write(tmp_path, {"plot.ipynb": _notebook(("code", ["import matplotlib\n"]))})
    assert lint(tmp_path, "plot.ipynb") == []


def test_an_empty_code_cell_is_not_called_unread(tmp_path: Path) -> None:
    """``"source": []`` (a fresh cell Jupyter saved) holds nothing: no VL053 for it."""
    text = _notebook(
        ("code", ["!vllm serve Qwen/Qwen2.5-1.5B-Instruct --max-model-len 4096\n"]),
        ("code", []),
        ("code", ["\n"]),
    )
    write(tmp_path, {"nb.ipynb": text})
    assert [f.code for f in lint(tmp_path, "nb.ipynb") if f.code == "VL053"] == []


def test_a_cell_written_as_one_string_of_many_lines_is_still_said(tmp_path: Path) -> None:
    text = _notebook(("code", ["!vllm serve Qwen/Qwen2.5-1.5B-Instruct\n!echo done\n"]), ("code", []))
    write(tmp_path, {"nb.ipynb": text})
    found = [f for f in lint(tmp_path, "nb.ipynb") if f.code == "VL053"]
    assert len(found) == 1 and "1 code cell of this notebook is written" in found[0].message
