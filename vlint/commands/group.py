"""The ``vlint`` click group: ``vlint PATH`` means ``vlint check PATH``, and each command's module is
imported only when that command runs (or for ``--help``)."""

from __future__ import annotations

import click

from vlint import __version__
from vlint.commands import COMMANDS
from vlint.commands.common import unbreakable_output


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
        return sorted({*self.commands, *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            import importlib

            module, attr = COMMANDS[cmd_name]
            self.add_command(getattr(importlib.import_module(module), attr), cmd_name)
        return self.commands.get(cmd_name)


@click.group(cls=_DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="vlint")
def main() -> None:
    """vlint: the linter for vLLM deployments."""
    unbreakable_output()
