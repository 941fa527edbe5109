"""Which files to read: walk the paths given, skip what is never a deployment config."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

from vlint.config.globs import Glob, compile_glob
from vlint.core.record import field, record
from vlint.security.bounded_read import read_regular
from vlint.security.lint_root import VCS_DIRS, LintRoot

#: a .gitignore larger than this is not read (a real one is a few KiB)
MAX_GITIGNORE_BYTES = 2**20

#: folders never descended into
DEFAULT_EXCLUDE_DIRS = {
    ".git",
    ".hg",
    ".svn",
    "node_modules",
    ".venv",
    "venv",
    "env",
    "__pycache__",
    ".tox",
    ".nox",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "site-packages",
    "dist",
    "build",
    ".eggs",
    ".idea",
    ".vscode",
    ".terraform",
    ".cache",
    ".hypothesis",
}
#: file name patterns read when walking a directory
DEFAULT_INCLUDE = (
    "*.sh",
    "*.bash",
    "*.zsh",
    "*.ps1",
    "*.yaml",
    "*.yml",
    "Dockerfile",
    "Dockerfile.*",
    "*.Dockerfile",
    "*.dockerfile",
    "Containerfile",
    "*.env",
    ".env",
    ".env.*",
    "*.py",
    "*.ipynb",
    # task runners and process managers (vlint.sources.scripts.makefile, justfile, procfile, systemd, supervisord)
    "Makefile",
    "makefile",
    "GNUmakefile",
    "*.mk",
    "justfile",
    "Justfile",
    ".justfile",
    "*.just",
    "Procfile",
    "Procfile.*",
    "*.service",
    "*.conf",
    "*.ini",
)


@record(slots=True)
class DiscoverOptions:
    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    #: ``.gitignore`` files are read only inside it (and never through a link out of it)
    lint_root: LintRoot | None = None
    #: the configuration's exclude settings (:meth:`vlint.commands.settings.RunSettings.excluded`),
    #: asked for every file and folder, named or walked: True skips it; False keeps it even where
    #: :data:`DEFAULT_EXCLUDE_DIRS` would skip it (version-control folders are never walked); None
    #: leaves the default
    excluded: Callable[[Path, bool], bool | None] | None = None


@record(slots=True)
class Discovered:
    path: Path
    #: given explicitly on the command line (read even if its name matches no include pattern)
    explicit: bool


@record(slots=True)
class _Ignore:
    base: Path
    #: (compiled pattern, negated, dir_only, anchored): anchored patterns match the path relative to
    #: the .gitignore's folder, the others the file or folder name (gitignore(5))
    patterns: list[tuple[Glob, bool, bool, bool]] = field(default_factory=list)

    @classmethod
    def read(cls, folder: Path, root: LintRoot | None = None) -> _Ignore | None:
        text = _read_gitignore(folder / ".gitignore", root)
        if text is None:
            return None
        pats = []
        for raw in text.splitlines():
            line = _strip_trailing_blanks(raw)
            if not line or line.startswith("#"):
                continue
            neg = line.startswith("!")
            if neg or line.startswith(("\\!", "\\#")):  # \! and \# are literal
                line = line[1:]
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            if not line:
                continue
            anchored = "/" in line  # a slash at the start or in the middle anchors the pattern
            pats.append((compile_glob(line.lstrip("/")), neg, dir_only, anchored))
        return cls(folder, pats) if pats else None

    def match(self, path: Path, is_dir: bool) -> bool | None:
        """True ignored, False re-included (!pattern), None no opinion."""
        rel = path.relative_to(self.base).as_posix()
        verdict: bool | None = None
        for regex, neg, dir_only, anchored in self.patterns:
            if dir_only and not is_dir:
                continue
            if regex.match(rel if anchored else path.name):
                verdict = not neg
        return verdict


def _strip_trailing_blanks(line: str) -> str:
    """Trailing spaces are dropped unless escaped with a backslash (gitignore(5))."""
    stripped = line.rstrip(" \t\r")
    if stripped.endswith("\\") and len(stripped) < len(line.rstrip("\r")):
        stripped += " "
    return stripped


def _read_gitignore(path: Path, root: LintRoot | None) -> str | None:
    """A ``.gitignore``'s text: a regular file, at most :data:`MAX_GITIGNORE_BYTES`, inside the lint
    root; otherwise (a link to ``/dev/zero``, a FIFO, a huge file) it is not read and has no effect."""
    try:
        limit = MAX_GITIGNORE_BYTES
        data = root.read_bytes(path, limit) if root is not None else read_regular(path, limit)
    except (OSError, ValueError):
        return None
    return data.decode("utf-8", errors="replace")


def _excluded(path: Path, excludes: list[Glob], root: Path) -> bool:
    if not excludes:
        return False
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        rel = path.as_posix()
    return any(g.match(rel) or g.match(path.name) for g in excludes)


def discover(paths: list[Path], opts: DiscoverOptions | None = None) -> Iterator[Discovered]:
    """Files to lint, in a deterministic order. Directories are walked (symlinked folders are not
    followed, so symlink loops cannot trap the walk)."""
    opts = opts or DiscoverOptions()
    seen: set[Path] = set()
    for p in paths:
        if opts.excluded is not None and opts.excluded(p, p.is_dir()) is True:
            continue
        if not p.is_dir():
            key = p.resolve() if p.exists() else p
            if key not in seen:
                seen.add(key)
                yield Discovered(p, explicit=True)
            continue
        for f in _walk(p, opts):
            key = f.resolve()
            if key not in seen:
                seen.add(key)
                yield Discovered(f, explicit=False)


def _walk(root: Path, opts: DiscoverOptions) -> Iterator[Path]:
    # exclude patterns come from configuration, which a pull request may change: matched in linear time
    excludes = [compile_glob(p, fnmatch=True) for p in opts.exclude]
    includes = [compile_glob(p, fnmatch=True) for p in opts.include]
    ignores: list[_Ignore] = []
    stack: list[tuple[Path, list[_Ignore]]] = [(root, ignores)]
    while stack:
        folder, inherited = stack.pop()
        local = list(inherited)
        if opts.respect_gitignore:
            ig = _Ignore.read(folder, opts.lint_root)
            if ig is not None:
                local.append(ig)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        subdirs: list[Path] = []
        for e in entries:
            path = Path(e.path)
            try:
                is_dir = e.is_dir(follow_symlinks=False)
                is_file = e.is_file(follow_symlinks=True)
            except OSError:
                continue
            if _ignored(path, is_dir, local) or _excluded(path, excludes, root):
                continue
            if is_dir:
                verdict = opts.excluded(path, True) if opts.excluded is not None else None
                if e.name not in VCS_DIRS and (
                    verdict is False or (verdict is None and e.name not in DEFAULT_EXCLUDE_DIRS)
                ):
                    subdirs.append(path)
            elif (
                is_file
                and any(g.match(e.name) for g in includes)
                and (opts.excluded is None or opts.excluded(path, False) is not True)
            ):
                yield path
        for d in reversed(subdirs):
            stack.append((d, local))


def _ignored(path: Path, is_dir: bool, ignores: list[_Ignore]) -> bool:
    verdict = False
    for ig in ignores:
        v = ig.match(path, is_dir)
        if v is not None:
            verdict = v
    return verdict
