"""What a lint run in the editor is configured with: the editor's settings and the workspace's config.

The settings the editor sends (``initializationOptions``, ``workspace/didChangeConfiguration``) play
the part of command-line flags: they win over the nearest ``.vlint.toml`` / ``pyproject.toml
[tool.vlint]`` above the file, as ``vlint check`` flags do. The engine, the lint options, the config
filters and the baseline are assembled from the same pieces ``vlint check`` uses
(:mod:`vlint.commands.check`), so a file gets the same findings in the editor as in CI.

Nothing outside the workspace folder is read: the config file is looked for from the file's folder
up to the workspace folder only, and the workspace folder is the lint root. ``--online`` has no
setting (the server never uses the network).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from vlint.config.files import Config
from vlint.core.record import field, record
from vlint.core.typing_names import Any
from vlint.engine.results import LintReport
from vlint.engine.runner import Engine
from vlint.run.lint import DEFAULT_MAX_FILE_SIZE, LintOptions
from vlint.security.lint_root import LintRoot, is_within, real_path

#: milliseconds between the last keystroke and the lint (a lint of a typical file takes a few ms)
DEFAULT_DEBOUNCE_MS = 75


class SetupError(Exception):
    """The configuration cannot be used (the message names the file and the key)."""


@record(frozen=True, slots=True)
class EditorSettings:
    """The server's settings, as an editor sends them (the ``vlint`` section, camelCase keys)."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    vllm_version: str | None = None
    gpu: str | None = None
    gpu_memory_gib: float | None = None
    #: ignore every configuration file (``--isolated``)
    isolated: bool = False
    debounce_ms: int = DEFAULT_DEBOUNCE_MS

    @classmethod
    def from_json(cls, value: Any) -> tuple[EditorSettings, list[str]]:
        """Settings from the JSON an editor sends (``{"vlint": {...}}`` or the section itself), and a
        line per key that was not understood (never silently dropped)."""
        if isinstance(value, dict) and isinstance(value.get("vlint"), dict):
            value = value["vlint"]
        if value is None:
            return cls(), []
        if not isinstance(value, dict):
            return cls(), [f"settings must be an object, not {type(value).__name__}: ignored"]
        out: dict[str, Any] = {}
        problems: list[str] = []
        for key, v in value.items():
            if key in CLIENT_KEYS:
                continue
            name = _KEYS.get(str(key).replace("-", "").replace("_", "").lower())
            if name is None:
                problems.append(f"unknown setting {key!r} (known: {', '.join(sorted(_KEYS.values()))}): ignored")
                continue
            try:
                out[name] = _convert(name, v)
            except (TypeError, ValueError) as e:
                problems.append(f"setting {key!r}: {e}: ignored")
        return cls(**out), problems


#: keys of the ``vlint`` section that editor extensions read themselves (how to start the server)
CLIENT_KEYS = frozenset({"path", "args", "trace", "server"})
_KEYS = {
    "select": "select",
    "extendselect": "extend_select",
    "ignore": "ignore",
    "vllmversion": "vllm_version",
    "gpu": "gpu",
    "gpumemorygib": "gpu_memory_gib",
    "isolated": "isolated",
    "debouncems": "debounce_ms",
}


def _convert(name: str, v: Any) -> Any:
    if name in ("select", "extend_select", "ignore"):
        if v is None and name == "select":
            return None
        if isinstance(v, str):
            v = [x.strip() for x in v.split(",")]
        if not isinstance(v, list) or not all(isinstance(x, str) for x in v):
            raise TypeError("expected a list of rule codes or names")
        return tuple(x for x in v if x)
    if name in ("vllm_version", "gpu"):
        if v is None or v == "":
            return None
        if not isinstance(v, str):
            raise TypeError("expected a string")
        return v
    if name == "gpu_memory_gib":
        if v is None:
            return None
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise TypeError("expected a number of GiB")
        return float(v)
    if name == "isolated":
        if not isinstance(v, bool):
            raise TypeError("expected true or false")
        return v
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 10_000:
        raise ValueError("expected milliseconds from 0 to 10000")
    return v


@record(slots=True)
class Setup:
    """Everything a lint of one workspace folder needs, built once and kept between requests."""

    engine: Engine
    opts: LintOptions
    config: Config | None = None
    #: config ``exclude`` / ``per-file-ignores`` over a report (as ``vlint check`` applies them)
    post: Callable[[LintReport], None] | None = None
    #: fingerprints the config's baseline accepts
    baseline: set[str] | None = None
    #: (path, stat) of every file this setup was read from: a change rebuilds it
    stamps: tuple[tuple[str, tuple[int, int] | None], ...] = field(default_factory=tuple)

    def fresh(self) -> bool:
        return all(_stamp(Path(p)) == s for p, s in self.stamps)


def _stamp(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def config_file_for(path: Path, folder: Path) -> Path | None:
    """The config file that applies to ``path``: the nearest one from its folder up to ``folder``
    (the workspace folder), never above it."""
    from vlint.config.files import config_in  # the lookup ``vlint check`` uses, one folder at a time

    start = path.parent
    if not is_within(Path(os.path.abspath(start)), Path(os.path.abspath(folder))):
        return None
    for d in (start, *start.parents):
        found = config_in(d)
        if found is not None:
            return found
        if os.path.abspath(d) == os.path.abspath(folder):
            break
    return None


def build_setup(folder: Path, root: LintRoot, config_path: Path | None, settings: EditorSettings) -> Setup:
    """The engine and options for files under ``folder`` (display paths relative to it), as
    ``vlint check --root ROOT`` with the editor's settings as its flags would build them: through
    :class:`vlint.commands.settings.RunSettings`, so each file gets its nearest configuration (looked
    for no higher than ``folder``) and the same precedence of editor settings, files and config."""
    from vlint.commands.common import SettingsError, UsageProblem, split_list
    from vlint.commands.settings import CliSettings, RunSettings
    from vlint.config.files import ConfigError

    cli = CliSettings(
        select=split_list(settings.select) if settings.select is not None else None,
        extend_select=split_list(settings.extend_select),
        ignore=split_list(settings.ignore),
        vllm_version=settings.vllm_version,
        gpu=settings.gpu,
        gpu_memory_gib=settings.gpu_memory_gib,
        isolated=settings.isolated or config_path is None,
    )
    stamps: list[tuple[str, tuple[int, int] | None]] = []
    try:
        run = RunSettings(cli, cwd=folder, ceiling=folder)
        run.lint_root = root
        cfg = run.finder.load(config_path) if config_path is not None and not cli.isolated else None
        for f in cfg.files if cfg is not None else ():
            stamps.append((str(f), _stamp(f)))
        first = run.for_file(folder / "<workspace>")
        size = run.max_file_size(cfg) * 2**20
    except UsageProblem as e:
        raise SetupError(f"{e.param_hint}: {e.message}") from None
    except (ConfigError, SettingsError) as e:
        raise SetupError(str(e)) from None
    opts = LintOptions(
        resolve=first.resolve,
        max_file_size=size or DEFAULT_MAX_FILE_SIZE,
        root=folder,
        lint_root=root,
        suppress=True,
        jobs=1,
        settings_for=run.engine_and_resolve,
        # kubectl/helm on every keystroke would take seconds per change: vlint check renders
        render=False,
        render_off_reason="the editor does not render (vlint check does, when kubectl/helm are installed)",
    )
    opts.discover.excluded = run.excluded
    setup = Setup(first.engine, opts, cfg)
    setup.post = lambda report: run.apply_filters(report, folder)
    baseline = run.baseline(cfg)
    if baseline is not None:
        from vlint.suppression.baseline import BaselineError, read_baseline

        stamps.append((str(baseline), _stamp(baseline)))
        try:
            setup.baseline = read_baseline(baseline)
        except BaselineError as e:
            raise SetupError(str(e)) from None
    setup.stamps = tuple(stamps)
    return setup


def single_file_root(path: Path) -> LintRoot:
    """The lint root of a file outside every workspace folder: the file itself, so that nothing but
    the buffer is read (a reference to any other file is reported, VL060)."""
    return LintRoot(real_path(path), "the file alone (it is outside every workspace folder)")
