"""``vlint check`` (the default command): lint files and folders."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import click

from vlint.finding import SEVERITY_RANK

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def split_list(values: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for v in values:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return tuple(out)


def use_color(no_color: bool) -> bool:
    if no_color or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty()


def parse_gpu(value: str | None) -> tuple[str | None, int | None]:
    if not value:
        return None, None
    name, _, count = value.partition(":")
    if count:
        if not count.isdigit() or int(count) < 1:
            raise click.BadParameter(f"GPU count must be a positive integer, not {count!r}", param_hint="--gpu")
        return name or None, int(count)
    return name, None


@click.command("check")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format."
)
@click.option("--select", multiple=True, help="Only these rules (codes, prefixes such as VL1, or names).")
@click.option("--extend-select", multiple=True, help="Add rules to the default set (e.g. off-by-default ones).")
@click.option("--ignore", multiple=True, help="Skip these rules (codes, prefixes or names).")
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info"]),
    default="warning",
    show_default=True,
    help="Exit 1 when a finding of this severity or higher is reported.",
)
@click.option(
    "--vllm-version",
    help="Target vLLM release (X.Y or X.Y.Z); default: image tag, installed vllm, or the newest bundled.",
)
@click.option("--gpu", help="GPU type and count, e.g. H100 or A100-40GB:2 (for defaults and the memory model).")
@click.option("--gpu-memory-gib", type=float, help="GPU memory as vLLM sees it, for GPUs vlint does not know.")
@click.option(
    "--max-file-size", type=int, default=10, show_default=True, help="Skip files larger than this (MiB) with an error."
)
@click.option("-q", "--quiet", is_flag=True, help="One line per finding, no code frames.")
@click.option("--no-color", is_flag=True, help="Plain text output.")
@click.option("--online", is_flag=True, help="Allow fetching model config.json from the Hugging Face Hub.")
def check_cmd(
    paths: tuple[Path, ...],
    fmt: str,
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    fail_on: str,
    vllm_version: str | None,
    gpu: str | None,
    gpu_memory_gib: float | None,
    max_file_size: int,
    quiet: bool,
    no_color: bool,
    online: bool,
) -> None:
    """Lint vLLM launch configs in PATHS (files or folders; default: the current folder)."""
    from vlint.engine import Engine, Selection
    from vlint.lint import LintOptions, lint_paths
    from vlint.resolve.resolver import ResolveOptions
    from vlint.rules import RuleError, load_catalog
    from vlint.version import Version

    resolve_opts = ResolveOptions(online=online)
    if vllm_version:
        v = Version.try_parse(vllm_version)
        if v is None:
            raise click.BadParameter(f"not a vLLM version: {vllm_version!r}", param_hint="--vllm-version")
        resolve_opts.vllm_version = v
    resolve_opts.gpu, resolve_opts.gpu_count = parse_gpu(gpu)
    if gpu_memory_gib is not None:
        if not 0 < gpu_memory_gib < 10_000:
            raise click.BadParameter("must be a positive number of GiB", param_hint="--gpu-memory-gib")
        resolve_opts.gpu_memory_gib = gpu_memory_gib
    if resolve_opts.gpu and not resolve_opts.gpu_memory_gib:
        from vlint.resolve.gpus import lookup_gpu

        if lookup_gpu(resolve_opts.gpu) is None:
            raise click.BadParameter(
                f"unknown GPU {resolve_opts.gpu!r}; use --gpu-memory-gib for others", param_hint="--gpu"
            )
    if max_file_size <= 0:
        raise click.BadParameter("must be positive", param_hint="--max-file-size")
    try:
        catalog = load_catalog()
        engine = Engine(
            catalog,
            Selection(
                select=split_list(select) or None, extend_select=split_list(extend_select), ignore=split_list(ignore)
            ),
        )
    except RuleError as e:
        click.echo(f"vlint: error: {e}", err=True)
        sys.exit(EXIT_ERROR)
    opts = LintOptions(resolve=resolve_opts, max_file_size=max_file_size * 2**20)
    report = lint_paths(list(paths) or [Path(".")], engine, opts)
    if fmt == "json":
        from vlint.report import json_report

        click.echo(json_report.render(report), nl=False)
    else:
        from vlint.report import text

        cache: dict[str, list[str] | None] = {}

        def lines(path: str) -> list[str] | None:
            if path not in cache:
                try:
                    cache[path] = Path(path).read_text(encoding="utf-8", errors="replace").splitlines()
                except OSError:
                    cache[path] = None
            return cache[path]

        click.echo(text.render(report, color=use_color(no_color), quiet=quiet, source_lines=lines), nl=False)
    sys.exit(exit_code(report, fail_on))


def exit_code(report: Any, fail_on: str) -> int:
    if any(fr.error is not None for fr in report.files):
        return EXIT_ERROR
    threshold = SEVERITY_RANK[fail_on]
    if any(SEVERITY_RANK[f.severity] >= threshold for f in report.findings):
        return EXIT_FINDINGS
    return EXIT_CLEAN
