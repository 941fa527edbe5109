"""``vlint upgrade PATHS --to X.Y.Z``: what a vLLM version bump does to each launch, before it is merged."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from vlint.commands.common import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    fail,
    parse_model_configs,
    use_color,
)
from vlint.commands.options import config_options, exclude_options, root_option, target_options, usage_errors
from vlint.core.escape import printable
from vlint.core.typing_names import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vlint.core.version import Version
    from vlint.engine.results import LintReport
    from vlint.engine.runner import Engine
    from vlint.fix.upgrade import UpgradeFix
    from vlint.run.git_ref import Snapshot
    from vlint.run.lint import LintOptions
    from vlint.run.upgrade import UpgradeRun
    from vlint.security.lint_root import LintRoot


def release(text: str, hint: str) -> Version:
    """A bundled release for ``--to`` / ``--from`` (``latest``: the newest bundled); a release of a bundled
    series that is not bundled itself is checked as its nearest bundled release, with a note."""
    from vlint.argspec.spec import bundled_versions, resolve_release
    from vlint.core.version import Version

    versions = bundled_versions()
    if text.strip().lower() == "latest":
        return versions[-1]
    v = Version.try_parse(text)
    if v is None:
        raise click.BadParameter(f"not a vLLM version: {text!r} (X.Y.Z, or latest)", param_hint=hint)
    res = resolve_release(v)
    if res.outside:
        raise click.BadParameter(
            f"vLLM {v} is outside the releases vlint knows ({versions[0]} to {versions[-1]}): "
            "`vlint schema versions` lists them (a newer vlint knows newer releases)",
            param_hint=hint,
        )
    if not res.exact:
        click.echo(f"note: {res.note}", err=True)
    return res.version


@click.command("upgrade")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--to", "to_text", required=True, metavar="X.Y.Z", help="The release to upgrade to (latest: the newest bundled)."
)
@click.option(
    "--from",
    "from_text",
    metavar="X.Y.Z",
    help="The release the launches run now [default: the one each launch states: image tag, pin, vllm-version "
    "in the config; --vllm-version is the same].",
)
@target_options
@config_options
@root_option
@exclude_options
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option(
    "--fix",
    "apply_fixes",
    is_flag=True,
    help="Rewrite what migrates safely: the image tag or vllm pin, renamed flags, removed flags that did nothing.",
)
@click.option(
    "--diff",
    "show_diff",
    is_flag=True,
    help="With or without --fix: print the migration as a unified diff, write nothing.",
)
@click.option("--no-color", is_flag=True, help="Plain text (also NO_COLOR=1).")
@usage_errors
def upgrade_cmd(
    paths: tuple[Path, ...],
    to_text: str,
    from_text: str | None,
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
    fmt: str,
    apply_fixes: bool,
    show_diff: bool,
    no_color: bool,
) -> None:
    """What upgrading vLLM to --to does to each launch in PATHS: the flags and values it rejects, the startup
    checks it adds, every setting whose effective value changes (with the release and vLLM source line where
    it changed), the memory before and after (as `vlint explain` computes it for each release) and what a
    later release deprecates. Each side is linted as `vlint check --vllm-version R` lints it.

    Exit codes: 0 nothing breaks; 1 a launch breaks on the target; 2 a file could not be read or a
    launch's current release is not stated (pass --from)."""
    from vlint.commands.settings import CliSettings, RunSettings, SettingsError
    from vlint.config.files import ConfigError
    from vlint.report.text import Styler
    from vlint.report.upgrade import explain_view, render_text, upgrade_doc
    from vlint.run.lint import LintOptions
    from vlint.run.upgrade import upgrade
    from vlint.security.lint_root import find_root

    if from_text and vllm_version and from_text != vllm_version:
        raise click.UsageError("--from and --vllm-version name the same release: give one")
    from_text = from_text or vllm_version
    target = release(to_text, "--to")
    source = release(from_text, "--from") if from_text else None
    targets = list(paths) or [Path(".")]
    cli = CliSettings(
        gpu=gpu,
        gpu_memory_gib=gpu_memory_gib,
        gpu_free_gib=gpu_free_gib,
        online=online,
        model_configs=parse_model_configs(model_configs),
        config_file=config_file,
        isolated=isolated,
        exclude=tuple(exclude) or None,
        extend_exclude=tuple(extend_exclude),
    )
    settings = RunSettings(cli)
    root = find_root(targets, lint_root)
    settings.lint_root = root
    target_why = f"--to {to_text}"
    try:
        run_cfg = settings.run_config(targets)
        first = settings.for_run(targets)
        opts = LintOptions(
            resolve=first.resolve,
            max_file_size=settings.max_file_size(run_cfg) * 2**20,
            lint_root=root,
            settings_for=settings.engine_and_resolve,
            unknown_format_is_error=True,
        )
        opts.discover.excluded = settings.excluded

        def post(report: object) -> None:
            settings.apply_filters(report, opts.root)  # type: ignore[arg-type]

        run = upgrade(
            targets,
            first.engine,
            opts,
            target=target,
            target_why=target_why,
            source=source,
            source_why=f"--from {from_text}",
            explain=explain_view,
            post=post,
        )
        if apply_fixes or show_diff:
            from vlint.core.record import replace
            from vlint.fix.upgrade import upgrade_fix

            # fixes are never written through a rendering (a kustomize/Helm output mapped back to its sources)
            fixed = upgrade_fix(
                targets, first.engine, replace(opts, render=False), run, target=target, target_why=target_why, post=post
            )
            sys.exit(_finish_fix(fixed, write=apply_fixes and not show_diff, root=root))
    except (ConfigError, SettingsError) as e:
        fail(str(e))
    if fmt == "json":
        click.echo(json.dumps(upgrade_doc(run, str(source) if source else None), indent=2))
    else:
        style = Styler(use_color(no_color))
        click.echo(render_text(run, style), nl=False, color=True if style.color else None)
    sys.exit(exit_code(run))


def exit_code(run: UpgradeRun) -> int:
    if run.file_errors or any(r.unresolved for r in run.launches):
        return EXIT_ERROR
    if any(r.comparison is not None and r.comparison.breaks for r in run.launches):
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _finish_fix(fixed: UpgradeFix, *, write: bool, root: object) -> int:
    from vlint.fix.apply import write_fixed
    from vlint.fix.upgrade import migrated_left

    outcome = fixed.outcome
    red = outcome.before.redactor()
    if not write:
        click.echo(outcome.diff(), nl=False)
    errors = write_fixed(outcome, root) if write else []  # type: ignore[arg-type]
    verb = "rewrote" if write else "would rewrite"
    out = sys.stdout if write else sys.stderr
    for b in fixed.bumps:
        click.echo(printable(red.text(f"{b.path}:{b.line}: {verb} {b.old} → {b.new} ({b.launch})")), file=out)
    for r in outcome.applied:
        click.echo(printable(red.text(f"{r.path}:{r.line}:{r.column}: {r.code} {r.description}")), file=out)
    for b in fixed.not_bumped:
        click.echo(printable(red.text(f"{b.path}:{b.line}: release not rewritten ({b.launch}): {b.reason}")), err=True)
    for r in outcome.skipped:
        click.echo(printable(red.text(f"{r.path}:{r.line}:{r.column}: {r.code} not fixed: {r.reason}")), err=True)
    for e in errors:
        click.echo(e, err=True)
    left = migrated_left(outcome.after)
    n = len(fixed.bumps) + len(outcome.applied)
    files = len(outcome.changed)
    click.echo(
        f"{'Migrated' if write else 'Would migrate'} {n} thing{'s' if n != 1 else ''} in {files} "
        f"file{'s' if files != 1 else ''}"
        + (f"; {len(left)} removed flag{'s' if len(left) != 1 else ''} left (see above)" if left else "")
        + ". Flags vLLM rejects with no safe replacement stay: `vlint upgrade` lists them.",
        err=True,
    )
    if errors or any(fr.error is not None for fr in outcome.after.files):
        return EXIT_ERROR
    return EXIT_FINDINGS if not write and files else EXIT_CLEAN


# -- vlint check --diff-base REF -------------------------------------------------------------------
def open_diff_base(ref: str, root: LintRoot) -> Snapshot:
    """The files as git REF has them, or exit 2 with why not (no git, no work tree, REF unknown)."""
    from vlint.run.git_ref import DiffBaseError, open_git_snapshot

    try:
        return open_git_snapshot(ref, root)
    except DiffBaseError as e:
        fail(str(e))


def annotate_diff_base(report: LintReport, engine: Engine, opts: LintOptions, snapshot: Snapshot, post: Any) -> None:
    """Add the VL640 finding of every launch whose stated release changed since the diff base (and say on
    stderr what could not be compared)."""
    from vlint.report.upgrade import explain_view
    from vlint.run.upgrade import diff_base

    found = diff_base(report, engine, opts, snapshot, explain=explain_view, post=post)
    n = len(found.compared)
    click.echo(
        f"diff base {found.base}: {n} launch{'es' if n != 1 else ''} with another vLLM release than there"
        + (
            f" ({', '.join(sorted({f'{r.before.version} → {r.after.version}' for r in found.compared if r.after}))})"
            if n
            else ""
        ),
        err=True,
    )
    for note in found.notes:
        click.echo(printable(f"diff base {found.base}: {note}"), err=True)
