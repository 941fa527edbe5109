"""Jupyter notebooks (``.ipynb``): vLLM launched from code cells.

A notebook is JSON; its code cells hold Python, with IPython's shell escapes: ``!vllm serve …`` lines,
``%%bash`` / ``%%sh`` / ``%%script bash`` cells, ``%env NAME=value``. vlint reads each code cell's source
lines where the JSON file writes them (nbformat writes a cell's ``source`` as a list of strings, one per
line, each on its own line of the file) and builds two line-aligned texts of the whole file: the Python
of every cell, and the shell of every escape and shell cell. Every other line of the file is blank in
both, so each text is parsed by the ordinary Python or shell source and every span is already the
notebook's own line (the column is the string's, exact up to the first JSON escape on that line).

Python lines that are IPython syntax (``%magic``, ``!cmd``, ``x = !cmd``, ``?obj``) become ``pass`` in
the Python text. Nothing is run, imported or evaluated. A cell whose ``source`` is one string of many
lines, or a notebook saved as one line of JSON, is not read, and the file says so in one note (VL053).
"""

from __future__ import annotations

import json

from vlint.core.invocation import Problem
from vlint.core.lazy_re import lazy_compile
from vlint.core.span import PositionMap, Span
from vlint.sources.base import ReadFile, SourceResult, SourceText

NAME = "notebook"
#: a cell that runs as a shell script
_SHELL_CELL = lazy_compile(r"^\s*%%(?:bash|sh|script\s+(?:ba)?sh)\b")
#: ``!cmd`` or ``x = !cmd``: the shell command after the ``!``
_BANG = lazy_compile(r"^(\s*)(?:[A-Za-z_][\w.]*\s*=\s*)?!(.*)$")
#: IPython syntax that is not Python: line magics, help, shell escapes
_IPYTHON = lazy_compile(r"^\s*(?:%|\?|!|[A-Za-z_][\w.]*\s*=\s*[!%])")
#: ``{expr}`` in a shell escape: IPython puts the Python value there
_INTERPOLATION = lazy_compile(r"\{[^{}\n]*\}")
#: ``%env NAME=value`` / ``%env NAME value``: an exported variable for the shell escapes after it
_ENV_MAGIC = lazy_compile(r"^\s*%env\s+([A-Za-z_]\w*)\s*[= ]\s*(.*?)\s*$")


def _string_lines(text: str) -> dict[int, tuple[int, int]]:
    """For every line of the JSON text holding one string literal (``  "code\\n",``): line index →
    (offset of the literal's opening quote in the line, its end). Lines with anything else are left out."""
    out: dict[int, tuple[int, int]] = {}
    for i, line in enumerate(text.split("\n")):
        s = line.strip()
        if s.endswith(","):
            s = s[:-1].rstrip()
        if len(s) >= 2 and s[0] == '"' and s[-1] == '"':
            start = line.index('"')
            out[i] = (start, start + len(s))
    return out


def extract(src: SourceText, read_file: ReadFile) -> SourceResult:
    result = SourceResult()
    try:
        doc = json.loads(src.text)
    except ValueError as e:
        from vlint.sources.base import SourceError

        result.error = SourceError(f"not a readable notebook (JSON: {e})")
        return result
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list):
        return result
    file_lines = src.text.split("\n")
    literal_at = _string_lines(src.text)
    python = [""] * len(file_lines)
    shell = [""] * len(file_lines)
    cursor = 0  # code lines are found in order: each is the next JSON line holding its literal
    unread = 0
    #: every line is padded to the first code line's column: one indentation for the whole Python text
    pad_column: int | None = None
    #: the file lines of each cell's Python (for reading cell by cell when the whole does not parse)
    cells_python: list[list[int]] = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = cell.get("source")
        lines = [source] if isinstance(source, str) else source
        if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
            continue
        if not any(x.strip() for x in lines):  # an empty cell (``"source": []``): nothing to read, nothing unread
            continue
        if any("\n" in x.rstrip("\n") for x in lines):
            unread += 1
            continue
        placed: list[tuple[int, int, str]] = []  # (file line, column of the first character, code)
        taken = False
        for code in lines:
            # Jupyter writes non-ASCII characters as they are; other writers escape them
            wants = {json.dumps(code), json.dumps(code, ensure_ascii=False)}
            hit = next(
                (
                    k
                    for k in range(cursor, len(file_lines))
                    if k in literal_at and file_lines[k][literal_at[k][0] : literal_at[k][1]] in wants
                ),
                None,
            )
            if hit is None or hit == 0:  # not on a line of its own (line 1 is the JSON's `{`)
                placed = []
                break
            column = literal_at[hit][0] + 1
            taken = taken or bool(python[hit] or shell[hit])
            placed.append((hit, column, code.rstrip("\n")))
            cursor = hit + 1
        if not placed:
            unread += 1
            continue
        if taken or len({line for line, _, _ in placed}) != len(placed):
            unread += 1  # several code lines on one line of the file (a notebook saved without line breaks)
            continue
        if pad_column is None:
            pad_column = placed[0][1]
        cell_lines: list[int] = []
        cells_python.append(cell_lines)
        shell_cell = bool(_SHELL_CELL.match(placed[0][2]))
        pad = " " * pad_column
        for k, (line_no, _column, code) in enumerate(placed):
            if shell_cell:
                if k:  # the %%bash line itself is no command
                    shell[line_no] = pad + code
                continue
            env = _ENV_MAGIC.match(code)
            bang = _BANG.match(code)
            if env is not None:
                shell[line_no] = pad + f"export {env.group(1)}={_quote(env.group(2))}"
                python[line_no] = pad + "pass"
            elif bang is not None:
                # IPython puts Python values into a shell escape ({expr}): unknown here, any words
                shell[line_no] = pad + _INTERPOLATION.sub("$__NOTEBOOK_EXPRESSION", bang.group(2))
                python[line_no] = pad + "pass"
            elif _IPYTHON.match(code):
                python[line_no] = pad + "pass"
            else:
                python[line_no] = pad + code
            if python[line_no]:
                cell_lines.append(line_no)
    # the Python text: every placed line keeps its own indentation after the padding, so the whole
    # text is one block under a header on a line of its own (the first line of the file: `{`)
    if any(x.strip() for x in python):
        _python(src, python, cells_python, read_file, result)
    if any(x.strip() for x in shell):
        _shell(src, shell, read_file, result)
    if unread:
        result.problems.append(
            Problem(
                "VL053",
                Span(src.path, 1, 1, 1, 1),
                f"{unread} code cell{'s' if unread != 1 else ''} of this notebook "
                f"{'are' if unread != 1 else 'is'} written as one string of many lines: not read "
                "(save the notebook with Jupyter to write cell sources line by line)",
                {"cells": unread},
            )
        )
    return result


def _quote(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def _python(
    src: SourceText, lines: list[str], cells: list[list[int]], read_file: ReadFile, result: SourceResult
) -> None:
    """The cells' Python as one module (names a cell assigns are known in the cells after it); when it
    does not parse (a cell left half-written), each cell on its own."""
    from vlint.sources import python_ast
    from vlint.sources.sniffing import python_mentions_vllm

    def text_of(keep: set[int] | None) -> str:
        body = [x if keep is None or k in keep else "" for k, x in enumerate(lines)]
        body[0] = "if True:"  # the header of the block every placed line is indented under
        return "\n".join(body)

    whole = text_of(None)
    if not python_mentions_vllm(whole):
        return
    found = python_ast.extract(SourceText(src.path, src.abspath, whole), read_file)
    if found.error is None:
        _merge(found, result)
        return
    for cell in cells:
        text = text_of(set(cell))
        if cell and python_mentions_vllm(text):
            one = python_ast.extract(SourceText(src.path, src.abspath, text), read_file)
            if one.error is None:
                _merge(one, result)


def _shell(src: SourceText, lines: list[str], read_file: ReadFile, result: SourceResult) -> None:
    from vlint.sources.scripts import shell

    text = "\n".join(lines)
    if "vllm" not in text:
        return
    found = shell.extract_from_text(
        text, PositionMap.for_text(src.path, text), base_dir=src.abspath.parent, read_file=read_file, source=NAME
    )
    _merge(found, result)


def _merge(found: SourceResult, result: SourceResult) -> None:
    result.invocations.extend(found.invocations)
    result.assignments.extend(found.assignments)
    result.secret_tokens.extend(found.secret_tokens)
    result.problems.extend(found.problems)
    result.linked.extend(found.linked)
