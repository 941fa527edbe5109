"""Configuration: ``[tool.vlint]`` in ``pyproject.toml``, or ``.vlint.toml`` (top-level keys).

The file is found upward from the linted paths (then from the current folder); in one folder
``.vlint.toml`` wins over ``pyproject.toml``, and a ``pyproject.toml`` without a ``[tool.vlint]``
table is passed over. Settings are not merged across files. Paths in the file (``rules-dir``,
``model-paths``, ``exclude``, ``per-file-ignores``, ``baseline``) are relative to its folder.
``schemas/config.schema.json`` validates it; command-line flags win over it.

Cold start: TOML and jsonschema are imported only when a config file exists.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vlint.paths import schemas_dir

CONFIG_FILES = (".vlint.toml", "pyproject.toml")
#: a pyproject.toml is parsed only when its text mentions the table
_HAS_TABLE = re.compile(r"^\s*\[\s*tool\s*\.\s*vlint\s*[\].]", re.MULTILINE)


class ConfigError(Exception):
    """A configuration file is unreadable or invalid (exit 2)."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


@dataclass(slots=True)
class Config:
    path: Path
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    severity: dict[str, str] = field(default_factory=dict)
    fail_on: str | None = None
    vllm_version: str | None = None
    gpu: str | None = None
    gpu_memory_gib: float | None = None
    #: model id → absolute folder
    model_paths: dict[str, str] = field(default_factory=dict)
    rules_dirs: tuple[Path, ...] = ()
    exclude: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: MiB
    max_file_size: int | None = None
    baseline: Path | None = None

    @property
    def base(self) -> Path:
        """The folder relative paths and globs in the file are resolved against."""
        return self.path.parent

    @property
    def display_name(self) -> str:
        return f"[tool.vlint] in {self.path}" if self.path.name == "pyproject.toml" else str(self.path)

    def is_excluded(self, path: Path) -> bool:
        return any(glob_match(path, pat, self.base) for pat in self.exclude)

    def ignored_for(self, path: Path) -> tuple[str, ...]:
        """The per-file-ignores selectors that apply to ``path``."""
        out: list[str] = []
        for pat, refs in self.per_file_ignores.items():
            if glob_match(path, pat, self.base):
                out.extend(refs)
        return tuple(out)


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
        return any(fnmatch.fnmatchcase(part, pat) for part in absolute.parts[1:])
    try:
        rel = absolute.relative_to(Path(os.path.abspath(base))).parts
    except ValueError:
        return False
    candidates = [pat, pat[3:]] if pat.startswith("**/") else [pat]
    for i in range(len(rel), 0, -1):
        prefix = "/".join(rel[:i])
        if any(fnmatch.fnmatchcase(prefix, p) for p in candidates):
            return True
    return False


def find_config(paths: list[Path], cwd: Path | None = None) -> Path | None:
    """The config file for a run over ``paths``: upward from their common folder, then from ``cwd``."""
    cwd = cwd or Path.cwd()
    starts: list[Path] = []
    if paths:
        absolute = [os.path.abspath(p) for p in paths]
        try:
            common = Path(os.path.commonpath(absolute))
        except ValueError:  # different drives
            common = Path(absolute[0])
        starts.append(common if common.is_dir() else common.parent)
    starts.append(Path(os.path.abspath(cwd)))
    for start in starts:
        for folder in (start, *start.parents):
            found = _config_in(folder)
            if found is not None:
                return found
    return None


def _config_in(folder: Path) -> Path | None:
    dot = folder / ".vlint.toml"
    if dot.is_file():
        return dot
    py = folder / "pyproject.toml"
    if py.is_file():
        try:
            text = py.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        if _HAS_TABLE.search(text):
            return py
    return None


def _toml_loads(text: str) -> dict[str, Any]:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    return tomllib.loads(text)


def load_config(path: Path) -> Config:
    """Read, validate and resolve one config file. Raises :class:`ConfigError`."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(path, f"cannot read: {getattr(e, 'strerror', None) or e}") from None
    try:
        doc = _toml_loads(text)
    except ValueError as e:  # tomllib.TOMLDecodeError is a ValueError
        raise ConfigError(path, f"not valid TOML: {e}") from None
    table: Any
    if path.name == "pyproject.toml":
        table = doc.get("tool", {}).get("vlint") if isinstance(doc.get("tool"), dict) else None
        if table is None:
            raise ConfigError(path, "has no [tool.vlint] table")
    else:
        tool = doc.get("tool")
        nested = tool.get("vlint") if isinstance(tool, dict) else None
        table = nested if nested is not None and len(doc) == 1 else doc
    validate(table, path)
    return _from_table(table, path)


def validate(table: Any, path: Path) -> None:
    import json

    import jsonschema

    with (schemas_dir() / "config.schema.json").open(encoding="utf-8") as f:
        schema = json.load(f)
    errors = sorted(
        jsonschema.Draft202012Validator(schema).iter_errors(table), key=lambda e: [str(p) for p in e.absolute_path]
    )
    if errors:
        e = errors[0]
        where = ".".join(str(p) for p in e.absolute_path) or "(top level)"
        detail = e.message
        if e.validator == "additionalProperties" and not e.absolute_path:
            known = ", ".join(sorted(schema["properties"]))
            detail += f" (known keys: {known})"
        raise ConfigError(path, f"{where}: {detail}")


def _from_table(t: dict[str, Any], path: Path) -> Config:
    base = path.parent

    def rel(p: str) -> Path:
        return Path(os.path.normpath(base / Path(p).expanduser()))

    rules = t.get("rules-dir")
    rules_dirs = tuple(rel(d) for d in ((rules,) if isinstance(rules, str) else tuple(rules or ())))
    for d in rules_dirs:
        if not d.is_dir():
            raise ConfigError(path, f"rules-dir: {d} is not a directory")
    return Config(
        path=path,
        select=tuple(t["select"]) if "select" in t else None,
        extend_select=tuple(t.get("extend-select", ())),
        ignore=tuple(t.get("ignore", ())),
        severity=dict(t.get("severity", {})),
        fail_on=t.get("fail-on"),
        vllm_version=t.get("vllm-version"),
        gpu=t.get("gpu"),
        gpu_memory_gib=float(t["gpu-memory-gib"]) if "gpu-memory-gib" in t else None,
        model_paths={k: str(rel(v)) for k, v in t.get("model-paths", {}).items()},
        rules_dirs=rules_dirs,
        exclude=tuple(t.get("exclude", ())),
        per_file_ignores={k: tuple(v) for k, v in t.get("per-file-ignores", {}).items()},
        max_file_size=t.get("max-file-size"),
        baseline=rel(t["baseline"]) if "baseline" in t else None,
    )
