"""``vlint rules`` (list the catalog), ``vlint rules test DIR`` (run custom rules' cases) and
``vlint rule CODE`` (one rule's page)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from vlint.commands.common import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, build_catalog, fail, load_user_config
from vlint.core.record import record
from vlint.core.rule import Rule, RuleCase
from vlint.engine.catalog import Catalog

_RULES_DIR = click.option(
    "--rules-dir",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Also load your own rule YAML files from DIR (default: rules-dir of the config file).",
)


def _config_rules_dirs(rules_dir: tuple[Path, ...]) -> tuple[Path, ...]:
    if rules_dir:
        return rules_dir
    cfg = load_user_config([], None, isolated=False)
    return cfg.rules_dirs if cfg else ()


@click.group("rules", invoke_without_command=True)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@_RULES_DIR
@click.pass_context
def rules_cmd(ctx: click.Context, fmt: str, rules_dir: tuple[Path, ...]) -> None:
    """List every rule: code, name, severity, summary (``vlint rules test DIR`` runs custom rules' cases)."""
    if ctx.invoked_subcommand is not None:
        return
    catalog = build_catalog(_config_rules_dirs(rules_dir))
    if fmt == "json":
        import json

        click.echo(
            json.dumps(
                [
                    {
                        "code": r.code,
                        "name": r.name,
                        "severity": r.severity,
                        "summary": r.summary,
                        "enabled": r.enabled,
                        "custom": r.custom,
                    }
                    for r in catalog.rules
                ],
                indent=2,
            )
        )
        return
    width = max(len(r.name) for r in catalog.rules)
    for r in catalog.rules:
        notes = ("" if r.enabled else " (off by default)") + (f" [custom: {r.path}]" if r.custom else "")
        click.echo(f"{r.code}  {r.name:<{width}}  {r.severity:<7}  {r.summary}{notes}")


@record(slots=True)
class CaseResult:
    rule: Rule
    case: RuleCase
    expected: list[str]
    got: list[str]
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error and self.got == self.expected


def run_rule_case(rule: Rule, case: RuleCase, catalog: Catalog) -> CaseResult:
    """Lint one case and compare the findings *of this rule* with ``expect`` (``CODE`` or ``CODE line:col``)."""
    from vlint.commands.rule_pages import run_case

    expected = sorted(case.expect)
    try:
        findings = [f for f in run_case(case, rule, catalog) if f.code == rule.code]
    except (ValueError, OSError) as e:
        return CaseResult(rule, case, expected, [], error=str(e))
    with_position = all(" " in e for e in case.expect)
    got = sorted(f"{f.code} {f.span.line}:{f.span.column}" if with_position else f.code for f in findings)
    return CaseResult(rule, case, expected, got)


@rules_cmd.command("test")
@click.argument("dirs", nargs=-1, type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option("-v", "--verbose", is_flag=True, help="Also list the cases that pass.")
def rules_test_cmd(dirs: tuple[Path, ...], verbose: bool) -> None:
    """Run the cases of the rules in DIRS (your --rules-dir folders; default: rules-dir of the config).

    Each case's file is linted with every rule; the findings of the case's own rule must be exactly
    its ``expect`` list. Exit 1 when a case fails, 2 when a rule file is invalid.
    """
    from vlint.engine.catalog import RuleError, load_rules_from

    folders = _config_rules_dirs(dirs)
    if not folders:
        fail("no rule folder: pass DIR, or set rules-dir in the config file")
    catalog = build_catalog(folders)
    rules: list[Rule] = []
    for d in folders:
        try:
            rules.extend(load_rules_from(d, custom=True, validate=True))
        except RuleError as e:  # pragma: no cover - build_catalog validated them already
            fail(str(e))
    failed = passed = 0
    for rule in rules:
        if not rule.cases:
            click.echo(f"WARN  {rule.code} {rule.name}: no cases ({rule.path})")
        for case in rule.cases:
            res = run_rule_case(catalog.by_code[rule.code], case, catalog)
            label = f"{rule.code} {rule.name} [{case.doc}] {case.title}"
            if res.ok:
                passed += 1
                if verbose:
                    click.echo(f"PASS  {label}")
                continue
            failed += 1
            click.echo(f"FAIL  {label}")
            click.echo(f"      {rule.path}")
            if res.error:
                click.echo(f"      error: {res.error}")
            else:
                click.echo(f"      expected: {res.expected or '(nothing)'}")
                click.echo(f"      got:      {res.got or '(nothing)'}")
    click.echo(f"{passed} passed, {failed} failed")
    sys.exit(EXIT_FINDINGS if failed else EXIT_CLEAN)


@click.command("rule")
@click.argument("ref")
def rule_cmd(ref: str) -> None:
    """Print one rule's documentation (by code or name)."""
    from vlint.commands.rule_pages import rule_page
    from vlint.engine.catalog import load_catalog

    catalog = load_catalog()
    rule = catalog.find(ref)
    if rule is None:
        click.echo(f"vlint: error: no rule {ref!r}; `vlint rules` lists them", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(rule_page(rule), nl=False)
