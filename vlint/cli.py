"""The ``vlint`` command.

``vlint [PATHS…]`` lints (same as ``vlint check``); ``vlint rules`` lists the catalog; ``vlint rule
CODE`` prints one rule's page; ``vlint models`` lists the models vlint knows offline. Exit codes: 0
clean (or only findings below ``--fail-on``), 1 findings at or above ``--fail-on``, 2 a usage error
or a file that could not be read or parsed.
"""

from __future__ import annotations

import click

from vlint import __version__

#: command name → (module, attribute): a command's module is imported only when it runs (or for
#: ``--help``), so ``vlint PATH`` does not pay for the explain/fix/size/schema commands at start-up
_LAZY_COMMANDS = {
    "check": ("vlint.commands.check", "check_cmd"),
    "explain": ("vlint.commands.explain", "explain_cmd"),
    "schema": ("vlint.commands.schema", "schema_cmd"),
    "rules": ("vlint.commands.rules", "rules_cmd"),
    "rule": ("vlint.commands.rules", "rule_cmd"),
    "fix": ("vlint.commands.fix", "fix_cmd"),
    "size": ("vlint.commands.size", "size_cmd"),
    "server": ("vlint.server.command", "server_cmd"),
    "models": ("vlint.commands.models", "models_cmd"),
    "upgrade": ("vlint.commands.upgrade", "upgrade_cmd"),
}


class _DefaultGroup(click.Group):
    """``vlint PATH`` means ``vlint check PATH``; commands are imported on first use."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.list_commands(ctx) and args[0] not in ("--help", "-h", "--version")):
            if args:
                self._not_a_command(ctx, args[0])
            args = ["check", *args]
        return super().parse_args(ctx, args)

    def _not_a_command(self, ctx: click.Context, word: str) -> None:
        """``vlint chek .``: a word that is no path but close to a command is a usage error (exit 2)
        with the command meant, not a path to lint."""
        import difflib
        import os

        if word.startswith("-") or word == "-" or os.path.lexists(word) or "/" in word or "." in word:
            return
        close = difflib.get_close_matches(word, self.list_commands(ctx), n=1, cutoff=0.6)
        if close:
            raise click.UsageError(
                f"no such command or path {word!r}. Did you mean {close[0]!r}? (`vlint --help` lists the commands)",
                ctx,
            )

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *_LAZY_COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in _LAZY_COMMANDS:
            import importlib

            module, attr = _LAZY_COMMANDS[cmd_name]
            self.add_command(getattr(importlib.import_module(module), attr), cmd_name)
        return self.commands.get(cmd_name)


@click.group(cls=_DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="vlint")
def main() -> None:
    """vlint: the linter for vLLM deployments."""
    _unbreakable_output()


def _unbreakable_output() -> None:
    """A character the terminal's encoding cannot show (a lone surrogate from an undecodable file
    name) is written as an escape instead of aborting the run halfway through its report."""
    import contextlib
    import sys

    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:  # CliRunner's streams and closed pipes cannot be reconfigured
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


def run() -> None:
    """The ``vlint`` console script (and ``python -m vlint``): run the command, flush what it wrote,
    and leave with its exit code without the interpreter's teardown (freeing every module and object
    costs ~30-60 ms per start on a 2-CPU machine, ~20 % of a one-file lint; docs/performance.md).
    Nothing is lost: vlint registers no exit handler, its temporary folders are closed by ``with``
    blocks and its worker pools are shut down before the command returns."""
    import contextlib
    import os
    import sys

    try:
        main()
        code: int = 0
    except SystemExit as exit_:
        code = _exit_code(exit_.code)
    for stream in (sys.stdout, sys.stderr):
        # a reader that went away (``vlint . | head``), a closed stream
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


def _exit_code(value: object) -> int:
    """``SystemExit.code`` as the interpreter turns it into a process status."""
    if value is None:
        return 0
    if isinstance(value, int):
        return value & 0xFF
    import sys

    print(value, file=sys.stderr)
    return 1


if __name__ == "__main__":  # pragma: no cover
    run()
