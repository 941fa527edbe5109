"""Which files to read: walk the paths given, skip what is never a deployment config."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

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
)


@dataclass(slots=True)
class DiscoverOptions:
    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True


@dataclass(slots=True)
class Discovered:
    path: Path
    #: given explicitly on the command line (read even if its name matches no include pattern)
    explicit: bool


@dataclass(slots=True)
class _Ignore:
    base: Path
    patterns: list[tuple[str, bool, bool]] = field(default_factory=list)  # (pattern, negated, dir_only)

    @classmethod
    def read(cls, folder: Path) -> _Ignore | None:
        f = folder / ".gitignore"
        try:
            lines = f.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return None
        pats = []
        for raw in lines:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            neg = line.startswith("!")
            if neg:
                line = line[1:]
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            pats.append((line, neg, dir_only))
        return cls(folder, pats) if pats else None

    def match(self, path: Path, is_dir: bool) -> bool | None:
        """True ignored, False re-included (!pattern), None no opinion."""
        rel = path.relative_to(self.base).as_posix()
        verdict: bool | None = None
        for pat, neg, dir_only in self.patterns:
            if dir_only and not is_dir:
                continue
            anchored = "/" in pat.lstrip("/")
            p = pat.lstrip("/")
            hit = fnmatch.fnmatch(rel, p) if anchored else fnmatch.fnmatch(path.name, p)
            if not hit and p.endswith("/**"):
                hit = rel.startswith(p[:-3])
            if hit:
                verdict = not neg
        return verdict


def _excluded(path: Path, opts: DiscoverOptions, root: Path) -> bool:
    try:
        rel = path.relative_to(root).as_posix()
    except ValueError:
        rel = path.as_posix()
    return any(fnmatch.fnmatch(rel, pat) or fnmatch.fnmatch(path.name, pat) for pat in opts.exclude)


def discover(paths: list[Path], opts: DiscoverOptions | None = None) -> Iterator[Discovered]:
    """Files to lint, in a deterministic order. Directories are walked (symlinked folders are not
    followed, so symlink loops cannot trap the walk)."""
    opts = opts or DiscoverOptions()
    seen: set[Path] = set()
    for p in paths:
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
    ignores: list[_Ignore] = []
    stack: list[tuple[Path, list[_Ignore]]] = [(root, ignores)]
    while stack:
        folder, inherited = stack.pop()
        local = list(inherited)
        if opts.respect_gitignore:
            ig = _Ignore.read(folder)
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
            if _ignored(path, is_dir, local) or _excluded(path, opts, root):
                continue
            if is_dir:
                if e.name not in DEFAULT_EXCLUDE_DIRS:
                    subdirs.append(path)
            elif is_file and any(fnmatch.fnmatch(e.name, pat) for pat in opts.include):
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
