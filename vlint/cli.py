"""The ``vlint`` command.

``vlint [PATHS…]`` lints (same as ``vlint check``); ``vlint rules`` lists the catalog; ``vlint rule
CODE`` prints one rule's page. Exit codes: 0 clean (or only findings below ``--fail-on``), 1 findings
at or above ``--fail-on``, 2 a usage error or a file that could not be read or parsed.
"""

from __future__ import annotations

import click

from vlint import __version__


class _DefaultGroup(click.Group):
    """``vlint PATH`` means ``vlint check PATH``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (args[0] not in self.commands and args[0] not in ("--help", "-h", "--version")):
            args = ["check", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="vlint")
def main() -> None:
    """vlint: the linter for vLLM deployments."""


def _register() -> None:
    from vlint.commands import check, explain, rules, schema

    main.add_command(check.check_cmd)
    main.add_command(explain.explain_cmd)
    main.add_command(schema.schema_cmd)
    main.add_command(rules.rules_cmd)
    main.add_command(rules.rule_cmd)

    from vlint.commands import fix, size

    main.add_command(fix.fix_cmd)
    main.add_command(size.size_cmd)


_register()

if __name__ == "__main__":  # pragma: no cover
    main()
