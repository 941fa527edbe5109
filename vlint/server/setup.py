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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vlint.config import Config
from vlint.engine import Engine
from vlint.lint import DEFAULT_MAX_FILE_SIZE, LintOptions, LintReport
from vlint.lint_root import LintRoot, is_within, real_path

#: milliseconds between the last keystroke and the lint (a lint of a typical file takes a few ms)
DEFAULT_DEBOUNCE_MS = 75


class SetupError(Exception):
    """The configuration cannot be used (the message names the file and the key)."""


@dataclass(frozen=True, slots=True)
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


@dataclass(slots=True)
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
    from vlint.config import _config_in  # the lookup ``vlint check`` uses, one folder at a time

    start = path.parent
    if not is_within(Path(os.path.abspath(start)), Path(os.path.abspath(folder))):
        return None
    for d in (start, *start.parents):
        found = _config_in(d)
        if found is not None:
            return found
        if os.path.abspath(d) == os.path.abspath(folder):
            break
    return None


def build_setup(folder: Path, root: LintRoot, config_path: Path | None, settings: EditorSettings) -> Setup:
    """The engine and options for files under ``folder`` (display paths relative to it), as
    ``vlint check --root ROOT`` with the editor's settings as its flags would build them."""
    import click

    from vlint.commands.check import _resolve_options, apply_config_filters, split_list
    from vlint.config import ConfigError, load_config
    from vlint.engine import Selection
    from vlint.rules import RuleError, load_catalog

    stamps: list[tuple[str, tuple[int, int] | None]] = []
    cfg: Config | None = None
    if config_path is not None and not settings.isolated:
        stamps.append((str(config_path), _stamp(config_path)))
        try:
            cfg = load_config(config_path)
        except ConfigError as e:
            raise SetupError(str(e)) from None
    try:
        resolve = _resolve_options(cfg, settings.vllm_version, settings.gpu, settings.gpu_memory_gib, False)
    except click.BadParameter as e:
        raise SetupError(f"{e.param_hint}: {e.message}") from None
    resolve.lint_root = root
    try:
        catalog = load_catalog(extra_dirs=cfg.rules_dirs if cfg else ())
        engine = Engine(
            catalog,
            Selection(
                select=settings.select if settings.select is not None else (cfg.select if cfg else None),
                extend_select=(cfg.extend_select if cfg else ()) + split_list(settings.extend_select),
                ignore=(cfg.ignore if cfg else ()) + split_list(settings.ignore),
                severity=dict(cfg.severity) if cfg else {},
            ),
        )
    except RuleError as e:
        detail = f"{e} (rules selected by the editor's settings and {cfg.display_name})" if cfg else str(e)
        raise SetupError(detail) from None
    except Exception as e:  # an invalid when: schema in a rules-dir raises jsonschema's SchemaError
        from jsonschema.exceptions import SchemaError

        if not isinstance(e, SchemaError):
            raise
        raise SetupError(f"a rule in {', '.join(map(str, cfg.rules_dirs if cfg else ()))}: {e.message}") from None
    if cfg:
        for pattern, refs in cfg.per_file_ignores.items():
            for ref in refs:
                if not catalog.resolve_selector(ref):
                    raise SetupError(f"{cfg.display_name}: per-file-ignores.{pattern}: unknown rule {ref!r}")
    size = cfg.max_file_size * 2**20 if cfg and cfg.max_file_size else DEFAULT_MAX_FILE_SIZE
    opts = LintOptions(resolve=resolve, max_file_size=size, root=folder, lint_root=root, suppress=True, jobs=1)
    setup = Setup(engine, opts, cfg)
    if cfg:
        opts.discover.exclude = tuple(p.rstrip("/") for p in cfg.exclude if "/" not in p.strip().rstrip("/"))
        config = cfg
        setup.post = lambda report: apply_config_filters(report, config, engine, folder)
        if cfg.baseline is not None:
            from vlint.baseline import BaselineError, read_baseline

            stamps.append((str(cfg.baseline), _stamp(cfg.baseline)))
            try:
                setup.baseline = read_baseline(cfg.baseline)
            except BaselineError as e:
                raise SetupError(str(e)) from None
    setup.stamps = tuple(stamps)
    return setup


def single_file_root(path: Path) -> LintRoot:
    """The lint root of a file outside every workspace folder: the file itself, so that nothing but
    the buffer is read (a reference to any other file is reported, VL060)."""
    return LintRoot(real_path(path), "the file alone (it is outside every workspace folder)")
