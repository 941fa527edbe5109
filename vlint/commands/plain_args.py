"""A plain ``vlint PATH…`` command line read without click, for :func:`vlint.cli.run`'s fast path.

Importing click and building its ~40 options costs a one-file lint about a quarter of its start-up
(docs/performance.md), and a pre-commit hook or an editor pays it on every run. The command lines
those send — paths, and the common options below — are read here into the same
:class:`~vlint.commands.lint_run.CheckArgs` that click would build. Anything else (another command,
``--help``, an option not in these tables, a value click would refuse or convert, a path that does
not exist, ``-`` for stdin, ``--``) gives ``None``, and click reads the command line as always, with
its own messages. ``tests/commands/test_plain_args.py`` holds each table entry to the click option of
the same name and compares both readers on the same command lines.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from pathlib import Path

from vlint.commands.common import FORMATS
from vlint.commands.lint_run import CheckArgs
from vlint.core.typing_names import Any

#: options without a value → the CheckArgs field they set to True
FLAGS = {
    "--isolated": "isolated",
    "--online": "online",
    "--exit-zero": "exit_zero",
    "--statistics": "statistics",
    "--no-render": "no_render",
    "--no-suppress": "no_suppress",
    "-q": "quiet",
    "--quiet": "quiet",
    "--no-color": "no_color",
}
#: options with one value of a fixed set → (field, the values)
CHOICES = {
    "--format": ("fmt", FORMATS),
    "--fail-on": ("fail_on", ("error", "warning", "info")),
}
#: options with one free-text value → field (given twice, the last one counts, as in click)
STRINGS = {"--gpu": "gpu", "--vllm-version": "vllm_version"}
#: repeatable options → field (a tuple of the values in order)
MULTIPLE = {
    "--select": "select",
    "--extend-select": "extend_select",
    "--ignore": "ignore",
    "--exclude": "exclude",
    "--extend-exclude": "extend_exclude",
}
#: options with a whole number ≥ 1 → field
COUNTS = {"-j": "jobs", "--jobs": "jobs"}

_TAKES_VALUE = {*CHOICES, *STRINGS, *MULTIPLE, *COUNTS}


def plain_args(argv: Sequence[str], commands: Collection[str]) -> CheckArgs | None:
    """``argv`` (without the program name) as ``vlint check``'s arguments, or ``None`` when click
    should read it. ``commands`` are the subcommand names (``vlint rules`` is not a path)."""
    if argv and argv[0] in commands:
        return None
    values: dict[str, Any] = {}
    multiple: dict[str, list[str]] = {}
    paths: list[Path] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        if not word.startswith("-"):
            if not os.path.lexists(word):  # click: a misspelt command, or the lint's "no such file"
                return None
            paths.append(Path(word))
            continue
        name, eq, value = word.partition("=")
        if name in FLAGS:
            if eq:
                return None
            values[FLAGS[name]] = True
            continue
        if name not in _TAKES_VALUE:
            return None  # --help, -, --, an option click reads, a cluster such as -qj2
        if not eq:
            if i >= len(argv) or argv[i].startswith("-"):
                return None
            value = argv[i]
            i += 1
        if name in CHOICES:
            field, allowed = CHOICES[name]
            if value not in allowed:
                return None
            values[field] = value
        elif name in STRINGS:
            values[STRINGS[name]] = value
        elif name in MULTIPLE:
            multiple.setdefault(MULTIPLE[name], []).append(value)
        else:
            if not (value.isascii() and value.isdigit()) or int(value) < 1:
                return None
            values[COUNTS[name]] = int(value)
    values.update((k, tuple(v)) for k, v in multiple.items())
    return CheckArgs(paths=tuple(paths), **values)
