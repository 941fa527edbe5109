"""What the lint commands share: exit codes, errors, output and option parsing helpers — without
click, so that a plain ``vlint FILE`` (:func:`vlint.cli.run`'s fast path) never imports it. The click
options several commands take are in :mod:`vlint.commands.options`.

``check`` and ``fix`` both import from here (and ``check --fix`` runs ``fix`` through a lazy import),
so neither command module imports the other at load time.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

from vlint.core.typing_names import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    from vlint.engine.catalog import Catalog

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
FORMATS = ("text", "json", "sarif", "github", "gitlab", "markdown")


def split_list(values: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for v in values:
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return tuple(out)


def use_color(no_color: bool, stream: Any = None) -> bool:
    """ANSI colours: never with ``--no-color`` or ``NO_COLOR``; always with ``FORCE_COLOR``; else when
    the stream (stdout) is a terminal."""
    if no_color or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return (stream or sys.stdout).isatty()


def known_gpu_names() -> list[str]:
    from vlint.hardware.gpus import all_gpus

    return sorted({g.name for g in all_gpus()})


def unknown_gpu_message(name: str) -> str:
    """``unknown GPU 'FOO'``, the closest known names, and every name vlint knows."""
    import difflib

    from vlint.hardware.gpus import all_gpus

    names = known_gpu_names()
    spellings = {a.lower(): g.name for g in all_gpus() for a in (g.name, *g.aliases)}
    close = difflib.get_close_matches(name.lower(), list(spellings), n=3, cutoff=0.5)
    hint = f" (did you mean {', '.join(dict.fromkeys(spellings[c] for c in close))}?)" if close else ""
    return (
        f"unknown GPU {name!r}{hint}; known GPUs: {', '.join(names)}. "
        "For another GPU give its memory with --gpu-memory-gib (gpu-memory-gib in the config)"
    )


def parse_gpu(value: str | None, *, hint: str = "--gpu", check_known: bool = False) -> tuple[str | None, int | None]:
    """``H100`` → (H100, None); ``A100-40GB:2`` → (A100-40GB, 2). With ``check_known``, a name the
    GPU catalog does not know is an error listing the known ones."""
    if not value:
        return None, None
    name, _, count = value.partition(":")
    if count and (not count.isdigit() or int(count) < 1):
        raise UsageProblem(f"GPU count must be a positive integer, not {count!r}", param_hint=hint)
    if check_known and name:
        from vlint.hardware.gpus import lookup_gpu
        from vlint.hardware.instances import lookup_instance

        if lookup_gpu(name) is None and lookup_instance(name) is None:
            raise UsageProblem(unknown_gpu_message(name), param_hint=hint)
    return name or None, int(count) if count else None


def parse_model_configs(values: tuple[str, ...]) -> dict[str, str]:
    """``--model-config [NAME=]PATH`` (repeatable) → model name → absolute path ("" for every launch).

    PATH is a ``config.json`` or a folder with one; ``NAME=`` binds it to the launches whose model (or
    served name) is NAME. Read where it points, anywhere: the user's own choice (docs/security.md)."""
    out: dict[str, str] = {}
    for v in values:
        name, eq, path = v.partition("=")
        if not eq or Path(v).exists():
            name, path = "", v
        p = Path(path).expanduser()
        if not p.exists():
            raise UsageProblem(f"{path}: no such file or folder", param_hint="--model-config")
        out[name.strip()] = os.path.abspath(p)
    return out


def default_format(env: dict[str, str] | os._Environ[str] | None = None) -> str:
    """``github`` under GitHub Actions, else ``text``."""
    env = os.environ if env is None else env
    return "github" if env.get("GITHUB_ACTIONS", "").lower() == "true" else "text"


class UsageProblem(Exception):
    """A command-line value that cannot be used (exit 2). The click commands show it as click's own
    usage error (:func:`vlint.commands.options.usage_errors`: ``Invalid value for '--gpu': …``, with
    the command's usage line); the fast path of :func:`vlint.cli.run` hands the command line to click
    instead, which reports it the same way."""

    def __init__(self, message: str, param_hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.param_hint = param_hint


def echo(message: str = "", *, err: bool = False, nl: bool = True) -> None:
    """Write a line to stdout (``err``: stderr) and flush, as ``click.echo`` does for text. Colour codes
    are written as given: the renderers add them only when colour is on (:func:`use_color`)."""
    stream = sys.stderr if err else sys.stdout
    stream.write(message + ("\n" if nl else ""))
    stream.flush()


def unbreakable_output() -> None:
    """A character the terminal's encoding cannot show (a lone surrogate from an undecodable file
    name) is written as an escape instead of aborting the run halfway through its report."""
    import contextlib

    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:  # CliRunner's streams and closed pipes cannot be reconfigured
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="backslashreplace")


def fail(message: str) -> NoReturn:
    echo(f"vlint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


class SettingsError(Exception):
    """A setting that cannot be used: a bad rule folder, an unknown rule on the command line (exit 2)."""


def load_rules(rules_dirs: tuple[Path, ...]) -> Catalog:
    """The bundled rules and those of ``rules_dirs``. Raises :class:`SettingsError`."""
    from vlint.engine.catalog import RuleError, load_catalog

    try:
        return load_catalog(extra_dirs=rules_dirs)
    except RuleError as e:
        raise SettingsError(str(e)) from None
    except Exception as e:  # an invalid when: schema raises jsonschema's SchemaError from vlint.engine.catalog
        from jsonschema.exceptions import SchemaError

        if not isinstance(e, SchemaError):
            raise
        where = "/".join(str(p) for p in e.absolute_path) or "(top level)"
        dirs = ", ".join(map(str, rules_dirs))
        raise SettingsError(f"a rule in {dirs} has an invalid when: schema at {where}: {e.message}") from None


def build_catalog(rules_dirs: tuple[Path, ...]) -> Catalog:
    """:func:`load_rules`, or exit 2 with the error."""
    try:
        return load_rules(rules_dirs)
    except SettingsError as e:
        fail(str(e))


def load_user_config(paths: list[Path], config_file: Path | None, isolated: bool) -> Any:
    """The one config of a run over ``paths`` (``--config FILE``, else the nearest to their common
    folder, else from the current folder; none with ``--isolated``): for commands that take no
    per-file settings (``vlint rules``)."""
    if isolated:
        return None
    from vlint.config.files import ConfigError, find_config, load_config

    found = config_file or find_config(paths)
    if found is None:
        return None
    try:
        return load_config(found)
    except ConfigError as e:
        fail(str(e))


def exit_code(report: Any, fail_on: str | Callable[[Any], str]) -> int:
    """2 when a file could not be read or parsed, else 1 when a finding is at or above its
    ``fail-on`` (one for all, or each finding's own: that of its file's configuration), else 0."""
    from vlint.core.finding import SEVERITY_RANK

    if any(fr.error is not None for fr in report.files):
        return EXIT_ERROR
    judge: Callable[[Any], str] = fail_on if callable(fail_on) else (lambda f: fail_on)
    if any(SEVERITY_RANK[f.severity] >= SEVERITY_RANK[judge(f)] for f in report.findings):
        return EXIT_FINDINGS
    return EXIT_CLEAN


def default_jobs() -> int:
    """Worker processes when ``-j`` is not given: the CPUs this process may use that are idle now
    (the 1-minute load average taken off), at least 1. On a machine whose CPUs are all busy, workers
    only compete with each other and with the rest: a run in one process is faster."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = 0.0
    return max(1, min(cpus, int(cpus - load + 0.5)))
