"""``vlint fix``: apply the findings' fixes in place (or print them as a diff)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from vlint.commands.check import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    _resolve_options,
    apply_config_filters,
    build_catalog,
    fail,
    load_user_config,
    split_list,
)
from vlint.finding import SEVERITY_RANK, Finding
from vlint.report.escape import printable


@click.command("fix")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff of the fixes; write nothing.")
@click.option(
    "--unsafe-fixes", is_flag=True, help="Also apply fixes that change behaviour (shorter context, fp8 KV cache…)."
)
@click.option("--select", multiple=True, help="Only fix findings of these rules (codes, prefixes or names).")
@click.option("--extend-select", multiple=True, help="Add rules to the default set (e.g. off-by-default ones).")
@click.option("--ignore", multiple=True, help="Do not fix findings of these rules (they are still checked).")
@click.option("--vllm-version", help="Target vLLM release (X.Y or X.Y.Z).")
@click.option("--gpu", help="GPU type and count, e.g. H100 or A100-40GB:2.")
@click.option("--gpu-memory-gib", type=float, help="GPU memory as vLLM sees it, for GPUs vlint does not know.")
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False, exists=True),
    help="Read settings from this pyproject.toml or .vlint.toml instead of looking for one.",
)
@click.option(
    "--root",
    "lint_root",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="The only folder whose files vlint reads on its own (--config targets, env files, model "
    "folders…); fixes are written only inside it [default: the git work tree of PATHS, else their common folder].",
)
@click.option("--isolated", is_flag=True, help="Ignore every configuration file.")
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info"]),
    help="Exit 1 when findings of this severity or higher remain [default: warning].",
)
@click.option("-q", "--quiet", is_flag=True, help="Only the summary line.")
@click.option("--online", is_flag=True, help="Allow fetching model config.json from the Hugging Face Hub.")
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
    config_file: Path | None,
    lint_root: Path | None,
    isolated: bool,
    fail_on: str | None,
    quiet: bool,
    online: bool,
) -> None:
    """Apply the fixes of the findings in PATHS, keeping comments, quoting and layout.

    Safe fixes only change spelling (an abbreviated or renamed flag, a flag that does nothing); with
    --unsafe-fixes also those that change behaviour. Every fix is checked by linting the result
    again: a fix that leaves its finding, breaks parsing or adds an error is not applied. Files that
    failed to parse are never touched.
    """
    from vlint.engine import Engine, Selection
    from vlint.fix.apply import fix_paths, write_fixed
    from vlint.lint import LintOptions
    from vlint.rules import RuleError

    targets = list(paths) or [Path(".")]
    cfg = load_user_config(targets, config_file, isolated)
    resolve_opts = _resolve_options(cfg, vllm_version, gpu, gpu_memory_gib, online)
    catalog = build_catalog(cfg.rules_dirs if cfg else ())
    # every configured rule runs (a fix is checked against all of them); --select/--ignore choose
    # which findings get fixed
    chosen: set[str] = set()
    skipped: set[str] = set()
    try:
        engine = Engine(
            catalog,
            Selection(
                select=cfg.select if cfg else None,
                extend_select=(cfg.extend_select if cfg else ()) + split_list(extend_select) + split_list(select),
                ignore=cfg.ignore if cfg else (),
                severity=dict(cfg.severity) if cfg else {},
            ),
        )
        chosen = {r.code for ref in split_list(select) for r in catalog.resolve_selector(ref)}
        skipped = {r.code for ref in split_list(ignore) for r in catalog.resolve_selector(ref)}
    except RuleError as e:
        fail(str(e))
    for ref in split_list(ignore):
        if not catalog.resolve_selector(ref):
            fail(f"unknown rule {ref!r}")

    def wanted(f: Finding) -> bool:
        return (not chosen or f.code in chosen) and f.code not in skipped

    from vlint.lint_root import find_root

    opts = LintOptions(resolve=resolve_opts, suppress=True, lint_root=find_root(targets, lint_root))
    if cfg:
        opts.discover.exclude = tuple(p.rstrip("/") for p in cfg.exclude if "/" not in p.strip().rstrip("/"))
    post = (lambda report: apply_config_filters(report, cfg, engine, opts.root)) if cfg else None
    outcome = fix_paths(targets, engine, opts, unsafe=unsafe_fixes, post=post, wanted=wanted)
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
        for r in outcome.skipped:
            click.echo(printable(f"{r.path}:{r.line}:{r.column}: {r.code} not fixed: {red.text(r.reason)}"))
    for e in errors + write_errors:
        click.echo(e, err=True)
    remaining = outcome.after.findings
    threshold = SEVERITY_RANK[fail_on or (cfg.fail_on if cfg and cfg.fail_on else "warning")]
    left = sum(1 for f in remaining if SEVERITY_RANK[f.severity] >= threshold)
    click.echo(
        f"Fixed {n} problem{'s' if n != 1 else ''} in {files} file{'s' if files != 1 else ''}; "
        f"{len(remaining)} remain{'s' if len(remaining) == 1 else ''}{more}."
        + (" Run `vlint check` to see them." if remaining else "")
    )
    if errors or write_errors:
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if left else EXIT_CLEAN)
