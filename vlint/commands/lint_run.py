"""The work of ``vlint check`` (the default command), without click: lint files and folders, report.

Each file gets its own settings: the command line over its nearest configuration
(:mod:`vlint.commands.settings`). After the lint: excluded files and per-file-ignores, the baseline,
then one renderer (text, json, sarif, github, gitlab, markdown) to stdout or ``--output``.

:mod:`vlint.commands.check` declares the command for click; a plain ``vlint PATH…`` (paths and the
common options, :mod:`vlint.commands.plain_args`) comes here straight from :func:`vlint.cli.run`,
without importing click (a third of a one-file lint's start-up; docs/performance.md).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from vlint.commands.common import (
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    FORMATS,
    UsageProblem,
    default_format,
    default_jobs,
    echo,
    exit_code,
    fail,
    parse_model_configs,
    split_list,
    use_color,
)
from vlint.core.escape import printable
from vlint.core.finding import SEVERITY_RANK, Finding
from vlint.core.record import record, replace
from vlint.core.typing_names import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from vlint.commands.settings import RunSettings
    from vlint.engine.catalog import Catalog
    from vlint.engine.results import LintReport
    from vlint.engine.runner import Engine

__all__ = ["CheckArgs", "default_format", "exit_code", "finish", "render", "run_check"]


@record(slots=True)
class Run:
    """What a lint run was asked to do, once command line and config are merged."""

    fmt: str
    #: the ``fail-on`` of each finding (that of the file it is in), or one for all
    fail_on: str | Callable[[Finding], str]
    output: Path | None
    baseline: Path | None
    write_baseline: Path | None
    #: display paths of the folders the run walked (with the files it linted: the baseline's scope)
    folders: tuple[str, ...] = ()
    #: ``--statistics``: counts per rule instead of the findings
    statistics: bool = False
    #: (display path, text) of a file read from stdin (``vlint -``)
    stdin: tuple[str, str] | None = None
    #: ``--also FORMAT=FILE``: more reports of this same run, each written to its file
    also: tuple[tuple[str, Path], ...] = ()


@record(slots=True)
class CheckArgs:
    """The values of ``vlint check``'s options (each field is the click parameter of the same name;
    ``tests/commands/test_fast_path.py`` holds the two to the same names and defaults)."""

    paths: tuple[Path, ...] = ()
    fmt: str | None = None
    output: Path | None = None
    also: tuple[str, ...] = ()
    select: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    fail_on: str | None = None
    exit_zero: bool = False
    vllm_version: str | None = None
    gpu: str | None = None
    gpu_memory_gib: float | None = None
    gpu_free_gib: float | None = None
    online: bool = False
    model_configs: tuple[str, ...] = ()
    max_file_size: int | None = None
    rules_dir: tuple[Path, ...] = ()
    config_file: Path | None = None
    isolated: bool = False
    lint_root: Path | None = None
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    show_settings: Path | None = None
    stdin_filename: str | None = None
    statistics: bool = False
    show_files: bool = False
    no_render: bool = False
    no_suppress: bool = False
    add_suppressions: bool = False
    baseline: Path | None = None
    write_baseline: Path | None = None
    quiet: bool = False
    no_color: bool = False
    jobs: int | None = None
    diff_base: str | None = None


def run_check(a: CheckArgs) -> NoReturn:
    """Lint what ``a`` names, report, and exit with the run's code (:data:`EXIT_CLEAN`,
    :data:`EXIT_FINDINGS`, :data:`EXIT_ERROR`); a value that cannot be used raises :class:`UsageProblem`
    before anything is linted or written. ``--fix`` and its companions are not handled here: ``vlint
    check`` hands them to ``vlint fix``, and refuses them, or ``--add-suppressions``, with ``--diff-base``."""
    from vlint.commands.settings import CliSettings, RunSettings, SettingsError
    from vlint.config.files import ConfigError
    from vlint.run.lint import LintOptions, display_path, lint_paths
    from vlint.security.lint_root import find_root

    stdin = _read_stdin(a.paths, a.stdin_filename, a.max_file_size)
    targets = [stdin[0]] if stdin is not None else list(a.paths) or [Path(".")]
    cli = CliSettings(
        select=split_list(a.select) or None,
        extend_select=split_list(a.extend_select),
        ignore=split_list(a.ignore),
        fail_on=a.fail_on,
        vllm_version=a.vllm_version,
        gpu=a.gpu,
        gpu_memory_gib=a.gpu_memory_gib,
        gpu_free_gib=a.gpu_free_gib,
        rules_dirs=tuple(a.rules_dir),
        exclude=tuple(a.exclude) or None,
        extend_exclude=tuple(a.extend_exclude),
        max_file_size=a.max_file_size,
        baseline=a.baseline,
        online=a.online,
        model_configs=parse_model_configs(a.model_configs),
        config_file=a.config_file,
        isolated=a.isolated,
    )
    settings = RunSettings(cli)
    root = find_root([a.show_settings] if a.show_settings is not None else targets, a.lint_root)
    settings.lint_root = root
    snapshot = None
    if a.diff_base is not None:
        from vlint.commands.upgrade import open_diff_base

        if stdin is not None:
            raise UsageProblem("--diff-base compares files with git REF: name them instead of `-`")
        snapshot = open_diff_base(a.diff_base, root)
    try:
        if a.show_settings is not None:
            for line in settings.describe(a.show_settings, launches=True):
                echo(printable(line))
            sys.exit(EXIT_CLEAN)
        run_cfg = settings.run_config(targets)
        opts = LintOptions(
            max_file_size=settings.max_file_size(run_cfg) * 2**20,
            suppress=not a.no_suppress,
            jobs=a.jobs or default_jobs(),
            auto_jobs=a.jobs is None,
            lint_root=root,
            settings_for=settings.engine_and_resolve,
            render=not a.no_render,
            unknown_format_is_error=True,
        )
        first = settings.for_run(targets)
        opts.resolve, engine = first.resolve, first.engine
        opts.discover.excluded = settings.excluded
        if a.show_files:
            sys.exit(_show_files(targets, opts, settings))
        run = Run(
            fmt=a.fmt or default_format(),
            fail_on=settings.fail_on_for(opts.root),
            output=a.output,
            baseline=None if a.no_suppress else settings.baseline(run_cfg),
            write_baseline=a.write_baseline,
            folders=tuple(display_path(t, opts.root) for t in targets if t.is_dir()),
            statistics=a.statistics,
            also=parse_also(a.also),
        )
        reader = None
        if stdin is not None:
            from vlint.fix.apply import OverlayReader

            reader = OverlayReader(opts, {Path(os.path.normpath(stdin[0].absolute())): stdin[1]})
            run.stdin = (display_path(stdin[0], opts.root), stdin[1])
        progress = Progress.on_terminal()
        opts.progress = progress if progress.enabled else None
        report = lint_paths(targets, engine, opts, reader=reader)
        progress.done()
        if snapshot is not None:
            from vlint.commands.upgrade import annotate_diff_base

            annotate_diff_base(report, engine, opts, snapshot, lambda r: settings.apply_filters(r, opts.root))
        settings.apply_filters(report, opts.root)
        empty = _nothing_to_lint(list(a.paths), settings, opts.root) if not report.files else None
        if a.add_suppressions:
            sys.exit(_add_suppressions(report, engine, opts, settings))
    except (ConfigError, SettingsError) as e:
        fail(str(e))
    if empty is not None:  # an empty run says so, not "No problems found"
        echo(printable(empty[0]), err=True)
        if run.fmt in ("text", "github") and run.output is None and run.write_baseline is None:
            sys.exit(empty[1])
    code = finish(report, engine, run, quiet=a.quiet, color=use_color(a.no_color) and a.output is None)
    if empty is not None:
        code = max(code, empty[1])
    sys.exit(EXIT_CLEAN if a.exit_zero and code == EXIT_FINDINGS else code)


def parse_also(values: tuple[str, ...]) -> tuple[tuple[str, Path], ...]:
    """``--also FORMAT=FILE`` values (split at the first ``=``: a file name may hold one too)."""
    out = []
    for v in values:
        fmt, sep, path = v.partition("=")
        if not sep or not path or fmt not in FORMATS:
            why = f"{v!r}: give FORMAT=FILE, FORMAT one of {', '.join(FORMATS)}"
            raise UsageProblem(why, param_hint="--also")
        out.append((fmt, Path(path)))
    return tuple(out)


class Progress:
    """``N/M files`` on stderr, rewritten in place, once a run has taken ~2 s — only on a terminal
    (a CI log or a pipe gets nothing)."""

    AFTER = 2.0
    EVERY = 0.1

    def __init__(self, enabled: bool) -> None:
        import time

        self.enabled = enabled
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False
        self.after = self.AFTER

    @classmethod
    def on_terminal(cls) -> Progress:
        p = cls(sys.stderr.isatty() and not os.environ.get("CI"))
        after = os.environ.get("VLINT_PROGRESS_AFTER", "")  # 0 shows it from the start
        p.after = float(after) if after.replace(".", "", 1).isdigit() else cls.AFTER
        return p

    def __call__(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        import time

        now = time.monotonic()
        if now - self.start < self.after or now - self.last < self.EVERY:
            return
        self.last = now
        self.shown = True
        pct = 100 * done // max(total, 1)
        sys.stderr.write(f"\rvlint: {pct:3d}% ({done:,}/{total:,} steps) …")
        sys.stderr.flush()

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


def _read_stdin(paths: tuple[Path, ...], name: str | None, max_file_size: int | None) -> tuple[Path, str] | None:
    """``vlint -``: (the path the text stands for, the text). ``--stdin-filename`` names it (its format,
    its nearest configuration, the reports); else ``stdin``."""
    if [str(p) for p in paths] != ["-"]:
        if any(str(p) == "-" for p in paths):
            raise UsageProblem("`-` (read stdin) cannot be combined with other paths")
        if name is not None:
            raise UsageProblem("--stdin-filename goes with the path `-` (read the file from stdin)")
        return None
    from vlint.sources.base import SourceError
    from vlint.sources.decode import decode

    limit = (max_file_size or 10) * 2**20
    data = sys.stdin.buffer.read(limit + 1)
    if len(data) > limit:
        fail(f"stdin is over the {limit >> 20} MiB limit (--max-file-size)")
    try:
        text = decode(data)
    except SourceError as e:
        fail(f"{name or 'stdin'}: {e.message}")
    return Path(name or guess_stdin_name(text)), text


def guess_stdin_name(text: str) -> str:
    """A name for a file read from stdin without ``--stdin-filename``, from its content (formats are
    chosen by file name): ``Dockerfile``, ``stdin.py``, ``stdin.yaml`` or ``stdin.sh``."""
    import re

    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    first = lines[0].strip() if lines else ""
    if re.match(r"(?i)^(FROM|ARG)\s", first) and any(re.match(r"(?i)^(CMD|ENTRYPOINT|RUN)\b", x) for x in lines):
        return "Dockerfile"
    if re.search(r"^\s*(from\s+\S+\s+import|import\s+\w)", text, re.MULTILINE):
        return "stdin.py"
    if first == "---" or re.match(r"^[\w.-]+\s*:(\s|$)", first) or first.startswith("- "):
        return "stdin.yaml"
    return "stdin.sh"


def _show_files(targets: list[Path], opts: Any, settings: RunSettings) -> int:
    """``--show-files``: each file the run would lint, and the configuration that applies to it."""
    from vlint.config.discover import discover
    from vlint.config.files import display_config
    from vlint.run.lint import display_path

    found = list(discover(targets, replace(opts.discover, lint_root=opts.lint_root)))
    for d in sorted(found, key=lambda d: display_path(d.path, opts.root)):
        cfg = settings.for_file(d.path).config
        where = display_config(cfg.path) if cfg is not None else "no configuration"
        echo(printable(f"{display_path(d.path, opts.root)}  [{where}]"))
    excluded = len(settings.excluded_paths)
    echo(
        f"{len(found)} file{'s' if len(found) != 1 else ''} to lint"
        + (f"; {excluded} excluded by the configuration or --exclude" if excluded else "")
        + ".",
        err=True,
    )
    return EXIT_CLEAN


def _nothing_to_lint(paths: list[Path], settings: RunSettings, root: Path) -> tuple[str, int]:
    """What an empty run says, and its exit code: 0 when nothing was named or everything named is
    excluded by the configuration, 2 when the folders named hold no file vlint reads."""
    from vlint.run.lint import display_path

    excluded = len(settings.excluded_paths)
    named = ", ".join(display_path(p, root) for p in paths)
    kinds = "YAML, shell scripts, Dockerfiles, .env and Python files"
    if not paths:
        message, code = f"no files to lint in the current folder (vlint reads {kinds})", EXIT_CLEAN
    elif all(settings.is_excluded(p) for p in paths):
        verb = "is" if len(paths) == 1 else "are"
        message, code = f"no files to lint: {named} {verb} excluded by the configuration or --exclude", EXIT_CLEAN
    else:
        message, code = f"no files to lint in {named} (vlint reads {kinds})", EXIT_ERROR
    if excluded and code == EXIT_ERROR:
        message += f"; {excluded} excluded by the configuration or --exclude"
    return f"vlint: {message}.", code


def _add_suppressions(report: LintReport, engine: Engine, opts: Any, settings: RunSettings) -> int:
    """``--add-suppressions``: comment every finding, each file checked by linting it again."""
    from vlint.fix.apply import FixOutcome, OverlayReader, write_fixed
    from vlint.run.lint import Reader, lint_paths
    from vlint.suppression.add import plan

    used_by = {fr.path: fr.used_by for fr in report.files}

    def text_of(shown: str) -> str:
        return Reader(opts).read(opts.root / shown).text

    def relint(overlay: dict[str, str]) -> LintReport:
        files = {Path(os.path.normpath((opts.root / k).absolute())): v for k, v in overlay.items()}
        targets = [opts.root / k for k in sorted({*overlay, *(u for k in overlay for u in used_by.get(k, ()))})]
        again = lint_paths(targets, engine, opts, reader=OverlayReader(opts, files))
        settings.apply_filters(again, opts.root)
        return again

    outcome = plan(report, text_of, relint)
    changed = {Path(os.path.normpath((opts.root / s).absolute())): v for s, v in outcome.changed.items()}
    errors = write_fixed(FixOutcome(before=report, after=report, changed=changed), opts.lint_root)
    for a in outcome.added:
        echo(printable(f"{a.path}:{a.line}: added # vlint: disable={','.join(a.codes)}"))
    for shown, why in sorted(outcome.skipped.items()):
        echo(printable(f"{shown}: no suppression added: {report.redactor().text(why)}"), err=True)
    for e in errors:
        echo(e, err=True)
    n = sum(len(a.codes) for a in outcome.added)
    files = len(outcome.changed) - len(errors)
    echo(
        f"Added {n} suppression{'s' if n != 1 else ''} in {files} file{'s' if files != 1 else ''}"
        + (
            f"; {len(outcome.skipped)} file{'s' if len(outcome.skipped) != 1 else ''} left alone"
            if outcome.skipped
            else ""
        )
        + "."
    )
    return EXIT_ERROR if errors or any(fr.error for fr in report.files) else EXIT_CLEAN


def finish(report: LintReport, engine: Engine, run: Run, *, quiet: bool = False, color: bool = False) -> int:
    """Baseline, render, write; return the exit code."""
    from vlint.suppression.baseline import (
        BaselineError,
        Scope,
        SourceLines,
        apply_baseline,
        fingerprints,
        read_entries,
        write_baseline,
    )

    lines = SourceLines(allowed=report.read_paths)
    if run.stdin is not None:
        lines.provide(*run.stdin)
    report.redactor(lines)  # every renderer masks with it: by value, and by where each secret is written
    # fingerprints (a hash per finding) only where they are used: SARIF, GitLab and the baseline
    formats = {run.fmt, *(f for f, _ in run.also)}
    needed = bool(formats & {"sarif", "gitlab"}) or run.baseline is not None or run.write_baseline is not None
    prints = fingerprints(report.findings, lines) if needed else []
    try:
        # a partial run (pre-commit's batches) neither drops nor counts as stale the entries of the
        # files it did not lint
        scope = Scope.of_run(report, run.folders)
        if run.write_baseline is not None:
            kept = write_baseline(run.write_baseline, report, prints, scope)
            n = len(prints)
            others = f" ({kept} kept for files not in this run)" if kept else ""
            echo(f"Wrote {n} finding{'s' if n != 1 else ''} to baseline {run.write_baseline}{others}.", err=True)
            return EXIT_ERROR if any(fr.error for fr in report.files) else EXIT_CLEAN
        notes: list[str] = []
        if report.suppressed:
            n = len(report.suppressed)
            notes.append(f"{n} finding{'s' if n != 1 else ''} suppressed by comments or annotations.")
        if run.baseline is not None:
            result = apply_baseline(report, prints, read_entries(run.baseline), scope)
            notes.append(f"{result.accepted} accepted by the baseline {run.baseline}.")
            if result.stale:
                notes.append(
                    f"{result.stale} baseline entr{'ies' if result.stale != 1 else 'y'} no longer found "
                    f"(update with --write-baseline {run.baseline})."
                )
    except BaselineError as e:
        fail(str(e))
    for fmt, path in run.also:  # the same run's other reports (plain text, no colour)
        more = notes + (annotation_limit_note(report) if fmt == "github" else [])
        _write(path, render(report, engine.catalog, prints, fmt, lines, notes=" ".join(more)))
    if run.fmt == "github":
        notes.extend(annotation_limit_note(report))
    if run.statistics and run.fmt == "text":
        text = statistics_table(report, color=color, notes=" ".join(notes))
    else:
        text = render(report, engine.catalog, prints, run.fmt, lines, quiet=quiet, color=color, notes=" ".join(notes))
    if run.output is not None:
        _write(run.output, text)
        from vlint.report.text import summary

        echo(summary(report) + (f" {' '.join(notes)}" if notes else "") + f" Report: {run.output}", err=True)
    else:
        # the text holds colour codes only when colour is on (FORCE_COLOR keeps them in CI logs)
        echo(text, nl=False)
    return exit_code(report, run.fail_on)


def _write(path: Path, text: str) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", errors="backslashreplace")
    except OSError as e:
        fail(f"{path}: cannot write: {e.strerror or e}")


def statistics_table(report: LintReport, *, color: bool = False, notes: str = "") -> str:
    """``--statistics``: one line per rule, most findings first — count, code, name, severity, and
    whether ``vlint fix`` can fix them (``[fix]``, ``[unsafe fix]``) — then the summary."""
    from collections import Counter

    from vlint.report.text import Styler, summary

    st = Styler(color)
    counts = Counter(f.code for f in report.findings)
    first = {}
    fixable: dict[str, set[str]] = {}
    for f in report.findings:
        first.setdefault(f.code, f)
        if f.fix is not None and f.fix.changes:
            fixable.setdefault(f.code, set()).add("unsafe fix" if f.fix.unsafe else "fix")
    lines = []
    width = max((len(f"{n}") for n in counts.values()), default=1)
    name_width = max((len(first[c].name) for c in counts), default=0)
    for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        f = first[code]
        kinds = fixable.get(code)
        mark = f"[{'fix' if kinds == {'fix'} else 'unsafe fix'}]" if kinds else ""
        sev = max((x.severity for x in report.findings if x.code == code), key=SEVERITY_RANK.__getitem__)
        lines.append(f"{n:>{width}}  {st(code, bold=True)}  {f.name:<{name_width}}  {sev:<7}  {mark}".rstrip())
    for fr in report.files:
        if fr.error is not None:
            lines.append(printable(f"{fr.path}: error: {report.redactor().text(fr.error.message)}"))
    lines.append(summary(report, st) + (f" {notes}" if notes else ""))
    return "\n".join(lines) + "\n"


#: GitHub shows this many annotations of each level per step ("GitHub Actions are limited to 10
#: warning annotations and 10 error annotations per step", docs.github.com/en/rest/checks/runs)
GITHUB_ANNOTATIONS_PER_STEP = 10


def annotation_limit_note(report: LintReport) -> list[str]:
    """A line saying that GitHub shows only the first annotations of a level, when there are more."""
    # file errors are ::error annotations too
    counts = {"error": sum(1 for fr in report.files if fr.error is not None), "warning": 0, "info": 0}
    for f in report.findings:
        counts[f.severity] += 1
    over = {k: n for k, n in counts.items() if n > GITHUB_ANNOTATIONS_PER_STEP}
    if not over:
        return []
    shown = ", ".join(f"{n} {'notice' if k == 'info' else k}s" for k, n in over.items())
    return [
        f"GitHub shows at most {GITHUB_ANNOTATIONS_PER_STEP} annotations of each level per step on the pull "
        f"request ({shown} here): every finding is in this log, and in code scanning with the action's "
        "sarif-file."
    ]


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
    if fmt == "markdown":
        from vlint.report import markdown

        return markdown.render(report) + (f"\n{notes}\n" if notes else "")
    from vlint.report.text import summary

    if fmt == "github":
        from vlint.report import github
        from vlint.report.text import memory_line, note_lines

        memory = memory_line(report)  # the memory model's reach, on the summary's plain line
        line = summary(report) + (f" {notes}" if notes else "") + (f" {memory}" if memory else "")
        line += "".join(f" {n}" for n in note_lines(report))
        return github.render(report, line)
    from vlint.report import text

    out = text.render(report, color=color, quiet=quiet, source_lines=lines)
    return out.rstrip("\n") + (f" {notes}" if notes else "") + "\n"
