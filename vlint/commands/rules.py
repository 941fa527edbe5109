"""``vlint rules`` and ``vlint rule CODE``: the catalog."""

from __future__ import annotations

import sys

import click


@click.command("rules")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rules_cmd(fmt: str) -> None:
    """List every rule: code, name, severity, summary."""
    from vlint.rules import load_catalog

    catalog = load_catalog()
    if fmt == "json":
        import json

        click.echo(
            json.dumps(
                [
                    {"code": r.code, "name": r.name, "severity": r.severity, "summary": r.summary, "enabled": r.enabled}
                    for r in catalog.rules
                ],
                indent=2,
            )
        )
        return
    width = max(len(r.name) for r in catalog.rules)
    for r in catalog.rules:
        off = "" if r.enabled else " (off by default)"
        click.echo(f"{r.code}  {r.name:<{width}}  {r.severity:<7}  {r.summary}{off}")


@click.command("rule")
@click.argument("ref")
def rule_cmd(ref: str) -> None:
    """Print one rule's documentation (by code or name)."""
    from vlint.docs import rule_page
    from vlint.rules import load_catalog

    catalog = load_catalog()
    rule = catalog.find(ref)
    if rule is None:
        click.echo(f"vlint: error: no rule {ref!r}; `vlint rules` lists them", err=True)
        sys.exit(2)
    click.echo(rule_page(rule), nl=False)
