"""``vlint check`` (the default command) for click: its options, and ``--fix`` handed to ``vlint fix``.

The work is :func:`vlint.commands.lint_run.run_check`, which a plain ``vlint PATH…`` reaches without
click (:func:`vlint.cli.run`).
"""

from __future__ import annotations

from pathlib import Path

import click

from vlint.commands.common import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, FORMATS
from vlint.commands.lint_run import CheckArgs, default_format, exit_code, finish, render, run_check
from vlint.commands.options import (
    config_options,
    exclude_options,
    root_option,
    selection_options,
    target_options,
    usage_errors,
)

__all__ = [
    "EXIT_CLEAN",
    "EXIT_ERROR",
    "EXIT_FINDINGS",
    "check_cmd",
    "default_format",
    "exit_code",
    "finish",
    "render",
]


@click.command("check")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    help="Output format [default: github when GITHUB_ACTIONS=true, else text].",
)
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), help="Write the report to FILE.")
@click.option(
    "--also",
    "also",
    multiple=True,
    metavar="FORMAT=FILE",
    help="Also write this run's report in FORMAT to FILE (repeatable; e.g. --also sarif=vlint.sarif --also "
    f"markdown=summary.md): one lint, several reports. Formats: {', '.join(FORMATS)}.",
)
@selection_options
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info"]),
    help="Exit 1 when a finding of this severity or higher is reported [default: fail-on of the file's "
    "config, else warning].",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings are reported (2 still means errors).")
@target_options
@click.option("--max-file-size", type=int, help="Skip files larger than this (MiB) with an error [default: 10].")
@click.option(
    "--rules-dir",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Also load your own rule YAML files (when: conditions) from DIR.",
)
@config_options
@root_option
@exclude_options
@click.option(
    "--show-settings",
    "show_settings",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="Print the settings that apply to FILE and where each comes from, then exit.",
)
@click.option(
    "--stdin-filename",
    metavar="NAME",
    help="With PATH `-` (read the file from stdin): the file's name, for its format, its configuration and reports.",
)
@click.option("--statistics", is_flag=True, help="Count the findings per rule instead of listing them.")
@click.option(
    "--show-files", is_flag=True, help="List the files that would be linted (with their configuration), then exit."
)
@click.option(
    "--no-render",
    is_flag=True,
    help="Do not run kubectl/kustomize or helm to render kustomize overlays and Helm charts (each gets a note).",
)
@click.option("--no-suppress", is_flag=True, help="Ignore suppression comments, annotations and the baseline.")
@click.option(
    "--add-suppressions",
    is_flag=True,
    help="Write a `# vlint: disable=CODES` comment for every finding reported now (each file linted again "
    "to check), then exit.",
)
@click.option(
    "--baseline",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Do not report findings recorded in this baseline file.",
)
@click.option(
    "--write-baseline",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Record the current findings in FILE (then exit 0); entries of files not in this run are kept.",
)
@click.option("-q", "--quiet", is_flag=True, help="One line per finding, no code frames.")
@click.option("--no-color", is_flag=True, help="Plain text output.")
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    help="Worker processes for large trees [default: the number of CPUs]; the output is the same.",
)
@click.option(
    "--diff-base",
    metavar="REF",
    help="Pull requests: for each launch whose vLLM release (image tag, pin, Helm value) differs at git REF, "
    "report what the upgrade does to it (VL640) on the line that states the release.",
)
@click.option("--fix", "apply_fixes", is_flag=True, help="Apply safe fixes in place (same as `vlint fix`).")
@click.option("--diff", "show_diff", is_flag=True, help="With --fix: print the fixes as a unified diff, write nothing.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix: also apply fixes that change behaviour.")
@click.pass_context
@usage_errors
def check_cmd(
    ctx: click.Context,
    paths: tuple[Path, ...],
    fmt: str | None,
    output: Path | None,
    also: tuple[str, ...],
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    fail_on: str | None,
    exit_zero: bool,
    vllm_version: str | None,
    gpu: str | None,
    gpu_memory_gib: float | None,
    gpu_free_gib: float | None,
    online: bool,
    model_configs: tuple[str, ...],
    max_file_size: int | None,
    rules_dir: tuple[Path, ...],
    config_file: Path | None,
    isolated: bool,
    lint_root: Path | None,
    exclude: tuple[str, ...],
    extend_exclude: tuple[str, ...],
    show_settings: Path | None,
    stdin_filename: str | None,
    statistics: bool,
    show_files: bool,
    no_render: bool,
    no_suppress: bool,
    add_suppressions: bool,
    baseline: Path | None,
    write_baseline: Path | None,
    quiet: bool,
    no_color: bool,
    jobs: int | None,
    diff_base: str | None,
    apply_fixes: bool,
    show_diff: bool,
    unsafe_fixes: bool,
) -> None:
    """Lint vLLM launch configs in PATHS (files or folders; default: the current folder)."""
    if diff_base is not None and (apply_fixes or show_diff or unsafe_fixes or add_suppressions):
        raise click.UsageError("--diff-base reports; to migrate the files use `vlint upgrade --fix --to X.Y.Z`")
    if apply_fixes or show_diff or unsafe_fixes:
        from vlint.commands.fix import fix_cmd

        ctx.invoke(
            fix_cmd,
            paths=paths,
            show_diff=show_diff,
            unsafe_fixes=unsafe_fixes,
            select=select,
            extend_select=extend_select,
            ignore=ignore,
            vllm_version=vllm_version,
            gpu=gpu,
            gpu_memory_gib=gpu_memory_gib,
            gpu_free_gib=gpu_free_gib,
            config_file=config_file,
            lint_root=lint_root,
            isolated=isolated,
            exclude=exclude,
            extend_exclude=extend_exclude,
            fail_on=fail_on,
            quiet=quiet,
            online=online,
            model_configs=model_configs,
        )
        return
    run_check(
        CheckArgs(
            paths=paths,
            fmt=fmt,
            output=output,
            also=also,
            select=select,
            extend_select=extend_select,
            ignore=ignore,
            fail_on=fail_on,
            exit_zero=exit_zero,
            vllm_version=vllm_version,
            gpu=gpu,
            gpu_memory_gib=gpu_memory_gib,
            gpu_free_gib=gpu_free_gib,
            online=online,
            model_configs=model_configs,
            max_file_size=max_file_size,
            rules_dir=rules_dir,
            config_file=config_file,
            isolated=isolated,
            lint_root=lint_root,
            exclude=exclude,
            extend_exclude=extend_exclude,
            show_settings=show_settings,
            stdin_filename=stdin_filename,
            statistics=statistics,
            show_files=show_files,
            no_render=no_render,
            no_suppress=no_suppress,
            add_suppressions=add_suppressions,
            baseline=baseline,
            write_baseline=write_baseline,
            quiet=quiet,
            no_color=no_color,
            jobs=jobs,
            diff_base=diff_base,
        )
    )
