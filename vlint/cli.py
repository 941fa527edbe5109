"""The ``vlint`` command.

``vlint [PATHS…]`` lints (same as ``vlint check``); ``vlint rules`` lists the catalog; ``vlint rule
CODE`` prints one rule's page; ``vlint models`` lists the models vlint knows offline. Exit codes: 0
clean (or only findings below ``--fail-on``), 1 findings at or above ``--fail-on``, 2 a usage error
or a file that could not be read or parsed.

A plain ``vlint PATH…`` (paths and the common options: :mod:`vlint.commands.plain_args`) goes
straight to :func:`vlint.commands.lint_run.run_check` without importing click; every other command
line goes to the click group :data:`main` (:mod:`vlint.commands.group`), loaded on first use.
"""

from __future__ import annotations

import sys

from vlint.core.typing_names import Any


def __getattr__(name: str) -> Any:
    """``vlint.cli.main``, the click group, imported on first use (``from vlint.cli import main``)."""
    if name == "main":
        from vlint.commands.group import main

        return main
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def run() -> None:
    """The ``vlint`` console script (and ``python -m vlint``): run the command, flush what it wrote,
    and leave with its exit code without the interpreter's teardown (freeing every module and object
    costs ~30-60 ms per start on a 2-CPU machine, ~20 % of a one-file lint; docs/performance.md).
    Nothing is lost: vlint registers no exit handler, its temporary folders are closed by ``with``
    blocks and its worker pools are shut down before the command returns."""
    import contextlib
    import os

    code = invoke(sys.argv[1:])
    for stream in (sys.stdout, sys.stderr):
        # a reader that went away (``vlint . | head``), a closed stream
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def invoke(argv: list[str]) -> int:
    """Run the command line ``argv`` (without the program name); return the exit status. A plain lint
    runs without click; should it find a value it cannot use, click reads the command line again and
    says so as it would have (nothing has been linted or written by then)."""
    from vlint.commands import COMMANDS
    from vlint.commands.common import UsageProblem, unbreakable_output
    from vlint.commands.plain_args import plain_args

    args = plain_args(argv, COMMANDS)
    if args is not None:
        from vlint.commands.lint_run import run_check

        unbreakable_output()
        try:
            run_check(args)
        except SystemExit as exit_:
            return _exit_code(exit_.code)
        except UsageProblem:
            pass
        except KeyboardInterrupt:  # as click's main does
            print("\nAborted!", file=sys.stderr)
            return 1
        except BrokenPipeError:  # ``vlint . | head``: as click's main does
            return 1
    from vlint.commands.group import main

    try:
        main(args=argv, prog_name="vlint")
    except SystemExit as exit_:
        return _exit_code(exit_.code)
    return 0


def _exit_code(value: object) -> int:
    """``SystemExit.code`` as the interpreter turns it into a process status."""
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    print(value, file=sys.stderr)
    return 1


if __name__ == "__main__":  # pragma: no cover
    run()
