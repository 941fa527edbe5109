"""``vlint check`` (the default command): lint files and folders.

Settings come from the command line, else from the config file (:mod:`vlint.config`), else the
defaults. After the lint: config excludes and per-file-ignores, the baseline, then one renderer
(text, json, sarif, github) to stdout or ``--output``.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from vlint.finding import SEVERITY_RANK

if TYPE_CHECKING:
    from vlint.config import Config
    from vlint.engine import Engine
    from vlint.lint import LintReport
    from vlint.rules import Catalog

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
FORMATS = ("text", "json", "sarif", "github", "gitlab")


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


def default_format(env: dict[str, str] | os._Environ[str] | None = None) -> str:
    """``github`` under GitHub Actions, else ``text``."""
    env = os.environ if env is None else env
    return "github" if env.get("GITHUB_ACTIONS", "").lower() == "true" else "text"


def fail(message: str) -> None:
    click.echo(f"vlint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


def load_user_config(paths: list[Path], config_file: Path | None, isolated: bool) -> Config | None:
    """The config for this run (``--config FILE``, else found upward; none with ``--isolated``)."""
    if isolated:
        return None
    from vlint.config import ConfigError, find_config, load_config

    found = config_file or find_config(paths)
    if found is None:
        return None
    try:
        return load_config(found)
    except ConfigError as e:
        fail(str(e))
    return None  # pragma: no cover - fail() exits


def build_catalog(rules_dirs: tuple[Path, ...]) -> Catalog:
    from vlint.rules import RuleError, load_catalog

    try:
        return load_catalog(extra_dirs=rules_dirs)
    except RuleError as e:
        fail(str(e))
    except Exception as e:  # an invalid when: schema raises jsonschema's SchemaError from vlint.rules
        from jsonschema.exceptions import SchemaError

        if not isinstance(e, SchemaError):
            raise
        where = "/".join(str(p) for p in e.absolute_path) or "(top level)"
        fail(f"a rule in {', '.join(map(str, rules_dirs))} has an invalid when: schema at {where}: {e.message}")
    raise AssertionError  # pragma: no cover


@dataclass(slots=True)
class Run:
    """What a lint run was asked to do, once command line and config are merged."""

    fmt: str
    fail_on: str
    output: Path | None
    baseline: Path | None
    write_baseline: Path | None
    config: Config | None


@click.command("check")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    help="Output format [default: github when GITHUB_ACTIONS=true, else text].",
)
@click.option("-o", "--output", type=click.Path(path_type=Path, dir_okay=False), help="Write the report to FILE.")
@click.option("--select", multiple=True, help="Only these rules (codes, prefixes such as VL1, or names).")
@click.option("--extend-select", multiple=True, help="Add rules to the default set (e.g. off-by-default ones).")
@click.option("--ignore", multiple=True, help="Skip these rules (codes, prefixes or names).")
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info"]),
    help="Exit 1 when a finding of this severity or higher is reported [default: warning].",
)
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings are reported (2 still means errors).")
@click.option(
    "--vllm-version",
    help="Target vLLM release (X.Y or X.Y.Z); default: image tag, installed vllm, or the newest bundled.",
)
@click.option("--gpu", help="GPU type and count, e.g. H100 or A100-40GB:2 (for defaults and the memory model).")
@click.option("--gpu-memory-gib", type=float, help="GPU memory as vLLM sees it, for GPUs vlint does not know.")
@click.option("--max-file-size", type=int, help="Skip files larger than this (MiB) with an error [default: 10].")
@click.option(
    "--rules-dir",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Also load your own rule YAML files (when: conditions) from DIR.",
)
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
    "folders…) [default: the git work tree of PATHS, else their common folder].",
)
@click.option("--isolated", is_flag=True, help="Ignore every configuration file.")
@click.option("--no-suppress", is_flag=True, help="Ignore suppression comments, annotations and the baseline.")
@click.option(
    "--baseline",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Do not report findings recorded in this baseline file.",
)
@click.option(
    "--write-baseline",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Record every current finding in FILE (then exit 0).",
)
@click.option("-q", "--quiet", is_flag=True, help="One line per finding, no code frames.")
@click.option("--no-color", is_flag=True, help="Plain text output.")
@click.option("--online", is_flag=True, help="Allow fetching model config.json from the Hugging Face Hub.")
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(min=1),
    help="Worker processes for large trees [default: the number of CPUs]; the output is the same.",
)
@click.option("--fix", "apply_fixes", is_flag=True, help="Apply safe fixes in place (same as `vlint fix`).")
@click.option("--diff", "show_diff", is_flag=True, help="With --fix: print the fixes as a unified diff, write nothing.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix: also apply fixes that change behaviour.")
@click.pass_context
def check_cmd(
    ctx: click.Context,
    paths: tuple[Path, ...],
    fmt: str | None,
    output: Path | None,
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    fail_on: str | None,
    exit_zero: bool,
    vllm_version: str | None,
    gpu: str | None,
    gpu_memory_gib: float | None,
    max_file_size: int | None,
    rules_dir: tuple[Path, ...],
    config_file: Path | None,
    lint_root: Path | None,
    isolated: bool,
    no_suppress: bool,
    baseline: Path | None,
    write_baseline: Path | None,
    quiet: bool,
    no_color: bool,
    online: bool,
    jobs: int | None,
    apply_fixes: bool,
    show_diff: bool,
    unsafe_fixes: bool,
) -> None:
    """Lint vLLM launch configs in PATHS (files or folders; default: the current folder)."""
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
            config_file=config_file,
            lint_root=lint_root,
            isolated=isolated,
            fail_on=fail_on,
            quiet=quiet,
            online=online,
        )
        return
    from vlint.engine import Engine, Selection
    from vlint.lint import LintOptions, lint_paths
    from vlint.rules import RuleError

    targets = list(paths) or [Path(".")]
    cfg = load_user_config(targets, config_file, isolated)
    resolve_opts = _resolve_options(cfg, vllm_version, gpu, gpu_memory_gib, online)
    size = max_file_size if max_file_size is not None else (cfg.max_file_size if cfg and cfg.max_file_size else 10)
    if size <= 0:
        raise click.BadParameter("must be positive", param_hint="--max-file-size")
    catalog = build_catalog(tuple(rules_dir) or (cfg.rules_dirs if cfg else ()))
    selection = Selection(
        select=split_list(select) or (cfg.select if cfg else None),
        extend_select=(cfg.extend_select if cfg else ()) + split_list(extend_select),
        ignore=(cfg.ignore if cfg else ()) + split_list(ignore),
        severity=dict(cfg.severity) if cfg else {},
    )
    try:
        engine = Engine(catalog, selection)
    except RuleError as e:
        fail(f"{e} (rules selected by the command line and {cfg.display_name})" if cfg else str(e))
    if cfg:  # per-file-ignores must name real rules too
        for pattern, refs in cfg.per_file_ignores.items():
            for ref in refs:
                if not catalog.resolve_selector(ref):
                    fail(f"{cfg.display_name}: per-file-ignores.{pattern}: unknown rule {ref!r}")
    from vlint.lint_root import find_root

    opts = LintOptions(
        resolve=resolve_opts,
        max_file_size=size * 2**20,
        suppress=not no_suppress,
        jobs=jobs or os.cpu_count() or 1,
        lint_root=find_root(targets, lint_root),
    )
    if cfg:
        opts.discover.exclude = tuple(p.rstrip("/") for p in cfg.exclude if "/" not in p.strip().rstrip("/"))
    run = Run(
        fmt=fmt or default_format(),
        fail_on=fail_on or (cfg.fail_on if cfg and cfg.fail_on else "warning"),
        output=output,
        baseline=None if no_suppress else (baseline or (cfg.baseline if cfg else None)),
        write_baseline=write_baseline,
        config=cfg,
    )
    report = lint_paths(targets, engine, opts)
    if cfg:
        apply_config_filters(report, cfg, engine, opts.root)
    code = finish(report, engine, run, quiet=quiet, color=use_color(no_color) and output is None)
    sys.exit(EXIT_CLEAN if exit_zero and code == EXIT_FINDINGS else code)


def _resolve_options(
    cfg: Config | None, vllm_version: str | None, gpu: str | None, gpu_memory_gib: float | None, online: bool
) -> Any:
    from vlint.resolve.resolver import ResolveOptions
    from vlint.version import Version

    resolve_opts = ResolveOptions(online=online)
    if cfg:
        resolve_opts.model_paths = dict(cfg.model_paths)
    version_text, version_hint = vllm_version, "--vllm-version"
    if not version_text and cfg and cfg.vllm_version:
        version_text, version_hint = cfg.vllm_version, f"vllm-version in {cfg.display_name}"
        resolve_opts.vllm_version_source = f"vllm-version {cfg.vllm_version} in {cfg.path.name}"
    if version_text:
        v = Version.try_parse(version_text)
        if v is None:
            raise click.BadParameter(f"not a vLLM version: {version_text!r}", param_hint=version_hint)
        resolve_opts.vllm_version = v
    gpu_hint = "--gpu"
    if not gpu and cfg and cfg.gpu:
        gpu, gpu_hint = cfg.gpu, f"gpu in {cfg.display_name}"
    try:
        resolve_opts.gpu, resolve_opts.gpu_count = parse_gpu(gpu)
    except click.BadParameter as e:
        e.param_hint = gpu_hint
        raise
    if gpu_memory_gib is None and cfg:
        gpu_memory_gib = cfg.gpu_memory_gib
    if gpu_memory_gib is not None:
        if not 0 < gpu_memory_gib < 10_000:
            raise click.BadParameter("must be a positive number of GiB", param_hint="--gpu-memory-gib")
        resolve_opts.gpu_memory_gib = gpu_memory_gib
    if resolve_opts.gpu and not resolve_opts.gpu_memory_gib:
        from vlint.resolve.gpus import lookup_gpu

        if lookup_gpu(resolve_opts.gpu) is None:
            raise click.BadParameter(
                f"unknown GPU {resolve_opts.gpu!r}; use --gpu-memory-gib for others", param_hint=gpu_hint
            )
    return resolve_opts


def apply_config_filters(report: LintReport, cfg: Config, engine: Engine, root: Path) -> None:
    """Config ``exclude`` (files and findings in them) and ``per-file-ignores``."""
    excluded: dict[str, bool] = {}
    ignored: dict[str, frozenset[str]] = {}

    def is_excluded(path: str) -> bool:
        if path not in excluded:
            excluded[path] = cfg.is_excluded(root / path)
        return excluded[path]

    def ignored_codes(path: str) -> frozenset[str]:
        if path not in ignored:
            refs = cfg.ignored_for(root / path)
            ignored[path] = frozenset(r.code for ref in refs for r in engine.catalog.resolve_selector(ref))
        return ignored[path]

    def keep(f: Any) -> bool:
        return not is_excluded(f.span.path) and f.code not in ignored_codes(f.span.path)

    report.files[:] = [fr for fr in report.files if not is_excluded(fr.path)]
    for fr in report.files:
        fr.findings[:] = [f for f in fr.findings if keep(f)]
    report.findings[:] = [f for f in report.findings if keep(f)]


def finish(report: LintReport, engine: Engine, run: Run, *, quiet: bool = False, color: bool = False) -> int:
    """Baseline, render, write; return the exit code."""
    from vlint.baseline import BaselineError, SourceLines, apply_baseline, fingerprints, read_baseline, write_baseline

    lines = SourceLines(allowed=report.read_paths)
    report.redactor(lines)  # every renderer masks with it: by value, and by where each secret is written
    # fingerprints (a hash per finding) only where they are used: SARIF, GitLab and the baseline
    needed = run.fmt in ("sarif", "gitlab") or run.baseline is not None or run.write_baseline is not None
    prints = fingerprints(report.findings, lines) if needed else []
    try:
        if run.write_baseline is not None:
            write_baseline(run.write_baseline, report, prints)
            n = len(prints)
            click.echo(f"Wrote {n} finding{'s' if n != 1 else ''} to baseline {run.write_baseline}.", err=True)
            return EXIT_ERROR if any(fr.error for fr in report.files) else EXIT_CLEAN
        notes: list[str] = []
        if report.suppressed:
            n = len(report.suppressed)
            notes.append(f"{n} finding{'s' if n != 1 else ''} suppressed by comments or annotations.")
        if run.baseline is not None:
            result = apply_baseline(report, prints, read_baseline(run.baseline))
            notes.append(f"{result.accepted} accepted by the baseline {run.baseline}.")
            if result.stale:
                notes.append(
                    f"{result.stale} baseline entr{'ies' if result.stale != 1 else 'y'} no longer found "
                    f"(update with --write-baseline {run.baseline})."
                )
    except BaselineError as e:
        fail(str(e))
    text = render(report, engine.catalog, prints, run.fmt, lines, quiet=quiet, color=color, notes=" ".join(notes))
    if run.output is not None:
        try:
            run.output.parent.mkdir(parents=True, exist_ok=True)
            run.output.write_text(text, encoding="utf-8", errors="backslashreplace")
        except OSError as e:
            fail(f"{run.output}: cannot write: {e.strerror or e}")
        from vlint.report.text import summary

        click.echo(summary(report) + (f" {' '.join(notes)}" if notes else "") + f" Report: {run.output}", err=True)
    else:
        # color=True keeps the codes when stdout is not a terminal (FORCE_COLOR in CI logs)
        click.echo(text, nl=False, color=True if color else None)
    return exit_code(report, run.fail_on)


def render(
    report: LintReport,
    catalog: Catalog,
    prints: list[str],
    fmt: str,
    lines: Any,
    *,
    quiet: bool = False,
    color: bool = False,
    notes: str = "",
) -> str:
    if fmt == "json":
        from vlint.report import json_report

        return json_report.render(report)
    if fmt == "sarif":
        from vlint.report import sarif

        return sarif.render(report, catalog, prints)
    if fmt == "gitlab":
        from vlint.report import gitlab

        return gitlab.render(report, prints)
    from vlint.report.text import summary

    if fmt == "github":
        from vlint.report import github

        return github.render(report, summary(report) + (f" {notes}" if notes else ""))
    from vlint.report import text

    out = text.render(report, color=color, quiet=quiet, source_lines=lines)
    return out.rstrip("\n") + (f" {notes}" if notes else "") + "\n"


def exit_code(report: Any, fail_on: str) -> int:
    if any(fr.error is not None for fr in report.files):
        return EXIT_ERROR
    threshold = SEVERITY_RANK[fail_on]
    if any(SEVERITY_RANK[f.severity] >= threshold for f in report.findings):
        return EXIT_FINDINGS
    return EXIT_CLEAN
