"""Configuration: ``[tool.vlint]`` in ``pyproject.toml``, or ``.vlint.toml`` (top-level keys).

Hierarchical, like ruff: each linted file gets the **nearest** config file at or above its folder
(in one folder ``.vlint.toml`` wins over ``pyproject.toml``; a ``pyproject.toml`` without a
``[tool.vlint]`` table is passed over); a file with none above it gets the one found from the current
folder, if any. ``extend = "../.vlint.toml"`` inherits another file: its settings apply first and this
file's on top. ``[per-path."k8s/l4/**"]`` tables state settings for the files their glob matches.
Paths and globs are relative to the file that writes them. ``schemas/config.schema.json`` validates
every table (rule options included); command-line flags win over all of it (:mod:`vlint.commands.settings`).

How tables combine (base file, its per-path tables that match, then the extending file, its
per-path tables, then the command line): scalars (``fail-on``, ``gpu``, ``vllm-version``…) — the
last one stated wins; ``select``/``extend-select``/``ignore`` — applied one table after the other
(``select`` restarts from its list, ``extend-select`` adds, ``ignore`` removes), as ruff does;
``severity``, ``model-paths``, ``models`` and rule options — merged key by key; ``exclude``, ``rules-dir`` and
``reference-gpus`` — the last one stated replaces; ``extend-exclude`` and ``per-file-ignores`` — added up.

``vllm-version``, ``gpu`` and ``gpu-memory-gib`` are *defaults*: they apply only where a launch and
its files state nothing (:mod:`vlint.config.precedence`).

Cold start: TOML and jsonschema are imported only when a config file exists.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable
from functools import lru_cache
from pathlib import Path

from vlint.config.globs import Glob, compile_glob
from vlint.core.lazy_re import lazy_compile
from vlint.core.paths import schemas_dir
from vlint.core.record import field, record
from vlint.core.typing_names import Any
from vlint.security.bounded_read import read_regular

CONFIG_FILES = (".vlint.toml", "pyproject.toml")
#: a pyproject.toml is parsed only when its text mentions the table
_HAS_TABLE = lazy_compile(r"^\s*\[\s*tool\s*\.\s*vlint\s*[\].]", re.MULTILINE)
#: ``extend`` chains longer than this are an error (a loop is caught before)
MAX_EXTEND_DEPTH = 10
#: keys a ``per-path`` table may state (the others are about the whole tree, not a file)
PER_PATH_KEYS = frozenset(
    {
        "select",
        "extend-select",
        "ignore",
        "severity",
        "rules",
        "fail-on",
        "vllm-version",
        "gpu",
        "gpu-memory-gib",
        "gpu-free-gib",
        "models",
        "reference-gpus",
    }
)
#: the largest config file read (a config is a few hundred bytes)
MAX_CONFIG_BYTES = 1 << 20


class ConfigError(Exception):
    """A configuration file is unreadable or invalid (exit 2)."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(f"{display_config(path)}: {message}")
        self.path = path
        self.message = message


@record(slots=True)
class Layer:
    """What one table states: a config file's top level, or one of its ``per-path`` tables.

    Unset keys are None (or empty), so that folding layers can tell "not stated" from a value."""

    file: Path
    #: the glob of a ``per-path`` table ("" for the file's top level)
    pattern: str = ""
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: dict[str, str] = field(default_factory=dict)
    #: rule selector (code or name) → option name → value
    rule_options: dict[str, dict[str, Any]] = field(default_factory=dict)
    fail_on: str | None = None
    vllm_version: str | None = None
    gpu: str | None = None
    gpu_memory_gib: float | None = None
    gpu_free_gib: float | None = None
    #: model id → absolute folder
    model_paths: dict[str, str] = field(default_factory=dict)
    #: ``models``: a path or served name → a model id, or an absolute folder (path-like values)
    models: dict[str, str] = field(default_factory=dict)
    #: ``reference-gpus``: the GPUs a launch that names none is checked on (None: not stated)
    reference_gpus: tuple[str, ...] | None = None
    rules_dirs: tuple[Path, ...] | None = None
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: MiB
    max_file_size: int | None = None
    baseline: Path | None = None
    per_path: tuple[Layer, ...] = ()
    extend: Path | None = None

    @property
    def base(self) -> Path:
        """The folder relative paths and globs in the file are resolved against."""
        return self.file.parent

    @property
    def where(self) -> str:
        """Where a key of this table is written, for ``--show-settings`` and messages."""
        shown = display_config(self.file)
        return f'{shown} [per-path."{self.pattern}"]' if self.pattern else shown

    def matches(self, path: Path) -> bool:
        return not self.pattern or glob_match(path, self.pattern, self.base)


def display_config(path: Path) -> str:
    """A config file as messages name it: relative to the current folder when below it."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        rel = str(path)
    return str(path) if rel.startswith("..") else rel


@record(slots=True)
class Config:
    """A config file with the files it extends: ``layers`` base first, this file last."""

    path: Path
    layers: tuple[Layer, ...]

    @property
    def base(self) -> Path:
        return self.path.parent

    @property
    def display_name(self) -> str:
        shown = display_config(self.path)
        return f"[tool.vlint] in {shown}" if self.path.name == "pyproject.toml" else shown

    @property
    def files(self) -> tuple[Path, ...]:
        return tuple(layer.file for layer in self.layers)

    def layers_for(self, path: Path | None) -> list[Layer]:
        """The tables that apply to ``path`` in order: each file's top level, then its ``per-path``
        tables whose glob matches (None: top levels only)."""
        out: list[Layer] = []
        for layer in self.layers:
            out.append(layer)
            if path is not None:
                out.extend(p for p in layer.per_path if p.matches(path))
        return out

    # the folded top-level settings, for callers that do not care about a particular file
    @property
    def select(self) -> tuple[str, ...] | None:
        return _last(layer.select for layer in self.layers)

    @property
    def model_paths(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for layer in self.layers:
            out.update(layer.model_paths)
        return out

    @property
    def models(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for layer in self.layers:
            out.update(layer.models)
        return out

    @property
    def rules_dirs(self) -> tuple[Path, ...]:
        return _last(layer.rules_dirs for layer in self.layers) or ()

    @property
    def baseline(self) -> Path | None:
        return _last(layer.baseline for layer in self.layers)

    @property
    def max_file_size(self) -> int | None:
        return _last(layer.max_file_size for layer in self.layers)

    @property
    def fail_on(self) -> str | None:
        return _last(layer.fail_on for layer in self.layers)

    def is_excluded(self, path: Path) -> bool:
        """``exclude`` (the last file that states it) and every ``extend-exclude``."""
        return any(glob_match(path, pat, base) for pat, base in self.exclude_patterns())

    def exclude_patterns(self) -> list[tuple[str, Path]]:
        out: list[tuple[str, Path]] = []
        for layer in self.layers:
            if layer.exclude is not None:
                out = [(p, layer.base) for p in layer.exclude]
        for layer in self.layers:
            out.extend((p, layer.base) for p in layer.extend_exclude)
        return out

    def replaces_default_excludes(self) -> bool:
        """Does a file state ``exclude`` (which replaces vlint's list of folders never walked)?"""
        return any(layer.exclude is not None for layer in self.layers)


def _last(values: Iterable[Any]) -> Any:
    out = None
    for v in values:
        if v is not None:
            out = v
    return out


def glob_match(path: Path, pattern: str, base: Path) -> bool:
    """Does ``path`` (a file) match a config glob?

    A pattern without ``/`` matches the file name or any folder name on its path (``legacy``,
    ``*.old.sh``); a pattern with ``/`` matches the path relative to ``base`` or one of its parent
    folders (``deploy/legacy``, ``deploy/*/staging.yaml``, ``**/tmp/*``); ``*`` crosses ``/``.
    """
    pat = pattern.strip()
    if pat.startswith("./"):
        pat = pat[2:]
    pat = pat.rstrip("/")
    if not pat:
        return False
    absolute = Path(os.path.abspath(path))
    if "/" not in pat:
        g = _glob(pat)
        return any(g.match(part) for part in absolute.parts[1:])
    try:
        rel = absolute.relative_to(Path(os.path.abspath(base))).parts
    except ValueError:
        return False
    candidates = [_glob(p) for p in ([pat, pat[3:]] if pat.startswith("**/") else [pat])]
    for i in range(len(rel), 0, -1):
        prefix = "/".join(rel[:i])
        if any(g.match(prefix) for g in candidates):
            return True
    return False


@lru_cache(maxsize=1024)
def _glob(pattern: str) -> Glob:
    """fnmatch's dialect, matched in linear time (a pull request may write the config: no backtracking)."""
    return compile_glob(pattern, fnmatch=True)


# -- finding config files ---------------------------------------------------------------------------
def config_in(folder: Path) -> Path | None:
    """The config file of one folder, if it has one."""
    dot = folder / ".vlint.toml"
    if dot.is_file():
        return dot
    py = folder / "pyproject.toml"
    if py.is_file():
        try:
            with py.open("rb") as f:
                text = f.read(MAX_CONFIG_BYTES).decode("utf-8", errors="replace")
        except OSError:
            return None
        if _HAS_TABLE.search(text):
            return py
    return None


def find_config(paths: list[Path], cwd: Path | None = None) -> Path | None:
    """The config file nearest to the common folder of ``paths``, else the one found from ``cwd``."""
    finder = ConfigFinder(cwd=cwd)
    if paths:
        absolute = [os.path.abspath(p) for p in paths]
        try:
            common = Path(os.path.commonpath(absolute))
        except ValueError:  # different drives
            common = Path(absolute[0])
        found = finder.nearest(common if common.is_dir() else common.parent)
        if found is not None:
            return found
    return finder.nearest(finder.cwd)


class ConfigFinder:
    """Finds and loads the config of each folder, once (``--config FILE``: that one for every file;
    ``--isolated``: none)."""

    def __init__(
        self,
        *,
        explicit: Path | None = None,
        isolated: bool = False,
        cwd: Path | None = None,
        ceiling: Path | None = None,
    ) -> None:
        """``ceiling``: look no higher than this folder, and fall back on nothing (the language
        server's workspace folder)."""
        self.explicit = explicit
        self.isolated = isolated
        self.ceiling = Path(os.path.abspath(ceiling)) if ceiling is not None else None
        #: vets what the config files found name (:func:`load_config`); the ``--config`` file is trusted
        self.guard: Guard | None = None
        self.cwd = Path(os.path.abspath(cwd or Path.cwd()))
        self._nearest: dict[Path, Path | None] = {}
        self._loaded: dict[Path, Config] = {}
        self._fallback: Config | bool | None = False

    def nearest(self, folder: Path) -> Path | None:
        """The config file at or above ``folder`` (cached per folder on the way up)."""
        folder = Path(os.path.abspath(folder))
        walked: list[Path] = []
        found: Path | None = None
        if self.ceiling is not None and not (folder == self.ceiling or self.ceiling in folder.parents):
            return None
        for d in (folder, *folder.parents):
            if d in self._nearest:
                found = self._nearest[d]
                break
            walked.append(d)
            hit = config_in(d)
            if hit is not None:
                found = hit
                break
            if d == self.ceiling:
                break
        for d in walked:
            self._nearest[d] = found
        return found

    def load(self, path: Path) -> Config:
        key = Path(os.path.abspath(path))
        cfg = self._loaded.get(key)
        if cfg is None:
            trusted = self.explicit is not None and key == Path(os.path.abspath(self.explicit))
            cfg = load_config(key, None if trusted else self.guard)
            self._loaded[key] = cfg
        return cfg

    def fallback(self) -> Config | None:
        """The config found from the current folder: for files with none above them."""
        if self._fallback is False:
            found = self.nearest(self.cwd) if self.ceiling is None else None
            self._fallback = self.load(found) if found is not None else None
        assert self._fallback is not True
        return self._fallback

    def for_folder(self, folder: Path) -> Config | None:
        """The config that applies to the files directly in ``folder``."""
        if self.isolated:
            return None
        if self.explicit is not None:
            return self.load(self.explicit)
        found = self.nearest(folder)
        return self.load(found) if found is not None else self.fallback()

    def for_file(self, path: Path) -> Config | None:
        return self.for_folder(Path(os.path.abspath(path)).parent)

    def loaded(self) -> list[Config]:
        return list(self._loaded.values())


# -- reading one file -------------------------------------------------------------------------------
def _toml_loads(text: str) -> dict[str, Any]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib.loads(text)


def read_table(path: Path) -> dict[str, Any]:
    """The ``[tool.vlint]`` table of a pyproject.toml, or the top level of another TOML file."""
    try:
        text = read_regular(path, MAX_CONFIG_BYTES).decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(path, "no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(path, f"cannot read: {getattr(e, 'strerror', None) or e}") from None
    try:
        doc = _toml_loads(text)
    except ValueError as e:  # tomllib.TOMLDecodeError is a ValueError
        raise ConfigError(path, f"not valid TOML: {e}") from None
    except RecursionError:  # arrays or tables nested deeper than the parser's stack
        raise ConfigError(path, "not valid TOML: nested too deeply to read") from None
    table: Any
    if path.name == "pyproject.toml":
        table = doc.get("tool", {}).get("vlint") if isinstance(doc.get("tool"), dict) else None
        if table is None:
            raise ConfigError(path, "has no [tool.vlint] table")
    else:
        tool = doc.get("tool")
        nested = tool.get("vlint") if isinstance(tool, dict) else None
        table = nested if nested is not None and len(doc) == 1 else doc
    return table  # type: ignore[no-any-return]


#: (the config file, the key, the path it names) → why the path may not be used (None: it may)
Guard = Callable[[Path, str, Path], "str | None"]


def load_config(path: Path, guard: Guard | None = None) -> Config:
    """Read, validate and resolve one config file and the files it extends. ``guard`` vets the
    folders and files a config names (``extend``, ``rules-dir``, the model folders of ``model-paths``
    and ``models``) before any is read. Raises
    :class:`ConfigError`."""
    chain: list[Layer] = []
    seen: list[Path] = []
    current: Path | None = Path(os.path.abspath(path))
    while current is not None:
        if current in seen:
            loop = " → ".join(display_config(p) for p in [*seen, current])
            raise ConfigError(seen[-1], f"extend: the files extend each other in a loop ({loop})")
        if len(seen) >= MAX_EXTEND_DEPTH:
            raise ConfigError(path, f"extend: more than {MAX_EXTEND_DEPTH} files extend each other")
        seen.append(current)
        if guard is not None:  # the file itself (found, or named by extend): a link out is not read
            why = guard(current, "", current)
            if why is not None:
                raise ConfigError(current, why)
        table = read_table(current)
        validate(table, current)
        layer = layer_from_table(table, current)
        if guard is not None:
            named = [("rules-dir", d) for d in layer.rules_dirs or ()]
            named += [("extend", layer.extend)] if layer.extend is not None else []
            named += [("baseline", layer.baseline)] if layer.baseline is not None else []
            named += named_folders(layer)
            for key, target in named:
                why = guard(layer.file, key, target)
                if why is not None:
                    raise ConfigError(layer.file, f"{key}: {display_config(target)} {why}")
        for d in layer.rules_dirs or ():
            if not d.is_dir():
                raise ConfigError(layer.file, f"rules-dir: {d} is not a directory")
        chain.append(layer)
        current = layer.extend
        if current is not None and not current.is_file():
            raise ConfigError(layer.file, f"extend: {display_config(current)} is not a file")
    return Config(Path(os.path.abspath(path)), tuple(reversed(chain)))


def validate(table: Any, path: Path) -> None:
    import json

    import jsonschema

    with (schemas_dir() / "config.schema.json").open(encoding="utf-8") as f:
        schema = json.load(f)
    errors = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(table), key=lambda e: [str(p) for p in e.absolute_path]
    )
    if errors:
        e = min(errors, key=lambda e: (len(e.absolute_path), [str(p) for p in e.absolute_path]))
        where = ".".join(str(p) for p in e.absolute_path) or "(top level)"
        detail = e.message
        if e.validator == "additionalProperties":
            props = e.schema.get("properties") if isinstance(e.schema, dict) else None
            if props:
                detail += f" (known keys: {', '.join(sorted(props))})"
        raise ConfigError(path, f"{where}: {detail}")


def _path_like(value: str, base: Path) -> bool:
    """A ``models`` value that names a folder (``/m``, ``./m``, ``../m``, ``~/m``, or a folder with a
    config.json next to the config file) rather than a model id."""
    if value.startswith(("/", "./", "../", "~", ".\\", "..\\")) or Path(value).is_absolute():
        return True
    try:
        return (base / value / "config.json").is_file()
    except OSError:
        return False


def named_folders(layer: Layer) -> list[tuple[str, Path]]:
    """The folders a table names for vlint to read model facts from (``model-paths`` values, the
    folder values of ``models``), with the key that names each, its per-path tables' too."""
    out: list[tuple[str, Path]] = []
    for table in (layer, *layer.per_path):
        prefix = f'per-path."{table.pattern}".' if table.pattern else ""
        out += [(f"{prefix}model-paths.{k}", Path(v)) for k, v in table.model_paths.items()]
        out += [(f"{prefix}models.{k}", Path(v)) for k, v in table.models.items() if os.path.isabs(v)]
    return out


def layer_from_table(t: dict[str, Any], path: Path, pattern: str = "") -> Layer:
    base = path.parent

    def rel(p: str) -> Path:
        return Path(os.path.normpath(base / Path(p).expanduser()))

    rules = t.get("rules-dir")
    rules_dirs = None
    if rules is not None:
        rules_dirs = tuple(rel(d) for d in ((rules,) if isinstance(rules, str) else tuple(rules)))
    extend = None
    if "extend" in t:
        extend = rel(t["extend"])
        if extend.suffix != ".toml":
            raise ConfigError(path, f"extend: {t['extend']!r} is not a .toml file (a .vlint.toml or pyproject.toml)")
    per_path = tuple(layer_from_table(sub, path, pat) for pat, sub in t.get("per-path", {}).items())
    return Layer(
        file=path,
        pattern=pattern,
        select=tuple(t["select"]) if "select" in t else None,
        extend_select=tuple(t.get("extend-select", ())),
        ignore=tuple(t.get("ignore", ())),
        severity=dict(t.get("severity", {})),
        rule_options={k: dict(v) for k, v in t.get("rules", {}).items()},
        fail_on=t.get("fail-on"),
        vllm_version=t.get("vllm-version"),
        gpu=t.get("gpu"),
        gpu_memory_gib=float(t["gpu-memory-gib"]) if "gpu-memory-gib" in t else None,
        gpu_free_gib=float(t["gpu-free-gib"]) if "gpu-free-gib" in t else None,
        model_paths={k: str(rel(v)) for k, v in t.get("model-paths", {}).items()},
        models={k: str(rel(v)) if _path_like(v, base) else v for k, v in t.get("models", {}).items()},
        reference_gpus=tuple(t["reference-gpus"]) if "reference-gpus" in t else None,
        rules_dirs=rules_dirs,
        exclude=tuple(t["exclude"]) if "exclude" in t else None,
        extend_exclude=tuple(t.get("extend-exclude", ())),
        per_file_ignores={k: tuple(v) for k, v in t.get("per-file-ignores", {}).items()},
        max_file_size=t.get("max-file-size"),
        baseline=rel(t["baseline"]) if "baseline" in t else None,
        per_path=per_path,
        extend=extend,
    )
