"""``vlint fix``: apply the findings' fixes in place (or print them as a diff)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from vlint.commands.common import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    exit_code,
    fail,
    parse_model_configs,
    split_list,
)
from vlint.commands.options import config_options, exclude_options, root_option, target_options, usage_errors
from vlint.core.escape import printable
from vlint.core.finding import Finding


@click.command("fix")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff of the fixes; write nothing.")
@click.option(
    "--unsafe-fixes", is_flag=True, help="Also apply fixes that change behaviour (shorter context, fp8 KV cache…)."
)
@click.option("--select", multiple=True, help="Only fix findings of these rules (codes, prefixes or names).")
@click.option("--extend-select", multiple=True, help="Add rules to the selected set (off-by-default ones by code).")
@click.option("--ignore", multiple=True, help="Do not fix findings of these rules (they are still checked).")
@target_options
@config_options
@root_option
@exclude_options
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info"]),
    help="Exit 1 when findings of this severity or higher remain [default: the config's, else warning].",
)
@click.option("-q", "--quiet", is_flag=True, help="Only the summary line.")
@usage_errors
def fix_cmd(
    paths: tuple[Path, ...],
    show_diff: bool,
    unsafe_fixes: bool,
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    vllm_version: str | None,
    gpu: str | None,
    gpu_memory_gib: float | None,
    gpu_free_gib: float | None,
    online: bool,
    model_configs: tuple[str, ...],
    config_file: Path | None,
    isolated: bool,
    lint_root: Path | None,
    exclude: tuple[str, ...],
    extend_exclude: tuple[str, ...],
    fail_on: str | None,
    quiet: bool,
) -> None:
    """Apply the fixes of the findings in PATHS, keeping comments, quoting and layout.

    Safe fixes never change what vLLM does (a misspelt, abbreviated or renamed flag, a flag that does
    nothing); with --unsafe-fixes also those that change behaviour, and of a finding that offers
    alternatives only the first. Every fix is checked by linting the result again: a fix that leaves
    its finding, breaks parsing or brings a new finding is not applied. Files that failed to parse are
    never touched. Each file is fixed with the settings of its nearest configuration.
    """
    from vlint.commands.settings import CliSettings, RunSettings, SettingsError
    from vlint.config.files import ConfigError
    from vlint.fix.apply import fix_paths, write_fixed
    from vlint.run.lint import LintOptions
    from vlint.security.lint_root import find_root

    targets = list(paths) or [Path(".")]
    cli = CliSettings(
        select=split_list(select) or None,
        extend_select=split_list(extend_select),
        fail_on=fail_on,
        vllm_version=vllm_version,
        gpu=gpu,
        gpu_memory_gib=gpu_memory_gib,
        gpu_free_gib=gpu_free_gib,
        exclude=tuple(exclude) or None,
        extend_exclude=tuple(extend_exclude),
        online=online,
        model_configs=parse_model_configs(model_configs),
        config_file=config_file,
        isolated=isolated,
    )
    # every configured rule runs (a fix is checked against all of them); --select/--ignore choose
    # which findings get fixed
    settings = RunSettings(cli, fix_selection=True)
    root = find_root(targets, lint_root)
    settings.lint_root = root
    try:
        first = settings.for_run(targets)
        catalog = first.engine.catalog
        chosen = {r.code for ref in split_list(select) for r in catalog.resolve_selector(ref)}
        skipped = {r.code for ref in split_list(ignore) for r in catalog.resolve_selector(ref)}
        for ref in (*split_list(select), *split_list(ignore)):
            if not catalog.resolve_selector(ref):
                fail(f"unknown rule {ref!r}")

        def wanted(f: Finding) -> bool:
            return (not chosen or f.code in chosen) and f.code not in skipped

        # fixes are never written through a rendering (a kustomize/Helm output mapped back to its sources)
        opts = LintOptions(
            resolve=first.resolve,
            suppress=True,
            lint_root=root,
            settings_for=settings.engine_and_resolve,
            render=False,
        )
        opts.discover.excluded = settings.excluded
        outcome = fix_paths(
            targets,
            first.engine,
            opts,
            unsafe=unsafe_fixes,
            post=lambda report: settings.apply_filters(report, opts.root),
            wanted=wanted,
        )
    except (ConfigError, SettingsError) as e:
        fail(str(e))
    n = len(outcome.applied)
    files = len(outcome.changed)
    unsafe_left = len(outcome.unsafe_left)
    more = f" ({unsafe_left} more with --unsafe-fixes)" if unsafe_left and not unsafe_fixes else ""
    errors = [
        printable(f"{fr.path}: error: {outcome.after.redactor().text(fr.error.message)}")
        for fr in outcome.after.files
        if fr.error is not None
    ]
    if show_diff:
        click.echo(outcome.diff(), nl=False)
        for e in errors:
            click.echo(e, err=True)
        click.echo(
            f"Would fix {n} problem{'s' if n != 1 else ''} in {files} file{'s' if files != 1 else ''}{more}.", err=True
        )
        sys.exit(EXIT_ERROR if errors else EXIT_FINDINGS if files else EXIT_CLEAN)
    write_errors = write_fixed(outcome, opts.lint_root)
    red = outcome.before.redactor()
    if not quiet:
        for r in outcome.applied:
            click.echo(printable(f"{r.path}:{r.line}:{r.column}: {r.code} fixed: {red.text(r.description)}"))
            for alt in r.alternatives:
                click.echo(printable(f"    not applied, another way: {red.text(alt)}"))
        for r in outcome.skipped:
            click.echo(printable(f"{r.path}:{r.line}:{r.column}: {r.code} not fixed: {red.text(r.reason)}"))
    for e in errors + write_errors:
        click.echo(e, err=True)
    remaining = outcome.after.findings
    click.echo(
        f"Fixed {n} problem{'s' if n != 1 else ''} in {files} file{'s' if files != 1 else ''}; "
        f"{len(remaining)} remain{'s' if len(remaining) == 1 else ''}{more}."
        + (" Run `vlint check` to see them." if remaining else "")
    )
    if errors or write_errors:
        sys.exit(EXIT_ERROR)
    code = exit_code(outcome.after, settings.fail_on_for(opts.root))
    sys.exit(code)
