"""Which files to read: walk the paths given, skip what is never a deployment config."""

from __future__ import annotations

import fnmatch
import os
import re
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
    #: (compiled pattern, negated, dir_only, anchored): anchored patterns match the path relative to
    #: the .gitignore's folder, the others the file or folder name (gitignore(5))
    patterns: list[tuple[re.Pattern[str], bool, bool, bool]] = field(default_factory=list)

    @classmethod
    def read(cls, folder: Path) -> _Ignore | None:
        f = folder / ".gitignore"
        try:
            lines = f.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return None
        pats = []
        for raw in lines:
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
            pats.append((_glob_regex(line.lstrip("/")), neg, dir_only, anchored))
        return cls(folder, pats) if pats else None

    def match(self, path: Path, is_dir: bool) -> bool | None:
        """True ignored, False re-included (!pattern), None no opinion."""
        rel = path.relative_to(self.base).as_posix()
        verdict: bool | None = None
        for regex, neg, dir_only, anchored in self.patterns:
            if dir_only and not is_dir:
                continue
            if regex.fullmatch(rel if anchored else path.name):
                verdict = not neg
        return verdict


def _strip_trailing_blanks(line: str) -> str:
    """Trailing spaces are dropped unless escaped with a backslash (gitignore(5))."""
    stripped = line.rstrip(" \t\r")
    if stripped.endswith("\\") and len(stripped) < len(line.rstrip("\r")):
        stripped += " "
    return stripped


def _glob_regex(pattern: str) -> re.Pattern[str]:
    """A gitignore glob as a regex: ``*`` and ``?`` stay within one path component, ``**`` spans
    any number of them (``**/x``, ``a/**``, ``a/**/b``), ``[…]`` is a character class."""
    out: list[str] = []
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i) and (i == 0 or pattern[i - 1] == "/"):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i) and (i == 0 or pattern[i - 1] == "/") and i + 2 == n:
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[":
            j = pattern.find("]", i + 2)
            if j < 0:
                out.append(re.escape(c))
                i += 1
                continue
            body = pattern[i + 1 : j]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = j + 1
        elif c == "\\" and i + 1 < n:
            out.append(re.escape(pattern[i + 1]))
            i += 2
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out))


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
