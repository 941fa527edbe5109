"""The lint root: the one folder whose files vlint may read on its own.

vlint runs on files a pull-request author controls. A file it lints can name other files — a
``--config`` target, an ``env_file``, a ``.env`` next to a compose file, an entrypoint script, a
Dockerfile ``COPY`` source, a model folder — and whatever vlint reads may end up, quoted, in a report
that CI uploads. So every read vlint decides on by itself is confined to the lint root:

- the root is ``--root DIR``, else the git work tree that contains the paths given, else their
  common parent folder; paths in different work trees (or a work tree and a folder outside it, or
  folders whose only common parent is ``/``) give a root of several folders, one per tree or
  folder: never the whole machine;
- a reference whose real path (symbolic links resolved) lies outside the root is not read;
- nothing inside a version-control folder (``.git``, ``.hg``…) is read as a referenced file, even
  inside the root (``actions/checkout`` keeps the token in ``.git/config``).

Paths the user names on the command line are read as named, and model folders the user configures
(``--model-config``, ``[tool.vlint] models``) are the user's own trust decision: neither goes through
:meth:`LintRoot.refusal`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

#: version-control folders: never read as a referenced file, never walked
VCS_DIRS = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", ".jj", ".pijul", "CVS"})


@dataclass(frozen=True, slots=True)
class LintRoot:
    """A folder (its real path) and the rule for what vlint may read below it."""

    path: Path
    #: how the root was chosen, for ``--show-settings`` and messages (``--root``, ``git work tree``…)
    how: str = ""
    #: the other folders of a root of several (paths given in different work trees)
    also: tuple[Path, ...] = ()

    @property
    def folders(self) -> tuple[Path, ...]:
        return (self.path, *self.also)

    def folder_of(self, path: Path) -> Path:
        """The root folder that holds ``path`` (the first one when none does)."""
        real = real_path(Path(os.path.abspath(path)))
        return next((f for f in self.folders if is_within(real, f)), self.path)

    def refusal(self, path: Path) -> str | None:
        """Why vlint does not read ``path`` on its own; None when it may (inside the root, not in a
        version-control folder, whatever symbolic links lead there)."""
        given = Path(os.path.abspath(path))
        holder = next((f for f in self.folders if is_within(given, f)), None)
        if holder is not None:
            vcs = _vcs_part(given.relative_to(holder).parts)
            if vcs is not None:
                return f"is inside a version-control folder ({vcs}/), which vlint never reads"
        real = real_path(given)
        real_holder = next((f for f in self.folders if is_within(real, f)), None)
        if real_holder is None:
            if holder is not None:
                return "is a symbolic link to a file outside the lint root"
            return "lies outside the lint root"
        rel = real.relative_to(real_holder).parts
        vcs = _vcs_part(rel)
        if vcs is not None:
            return f"is a symbolic link into a version-control folder ({vcs}/), which vlint never reads"
        return None

    def contains(self, path: Path) -> bool:
        real = real_path(Path(os.path.abspath(path)))
        return any(is_within(real, f) for f in self.folders)


def _vcs_part(parts: Iterable[str]) -> str | None:
    return next((p for p in parts if p in VCS_DIRS), None)


def real_path(path: Path) -> Path:
    """``path`` with every symbolic link resolved (as far as they resolve: a dangling or looping
    link stays as it is, which then lies wherever its text says)."""
    try:
        return Path(os.path.realpath(path))
    except (OSError, ValueError):
        return Path(os.path.abspath(path))


def is_within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def find_root(paths: Iterable[Path], explicit: Path | None = None) -> LintRoot:
    """The lint root for a run over ``paths``: ``explicit`` (``--root``), else the git work tree that
    holds their common parent, else that common parent."""
    if explicit is not None:
        return LintRoot(real_path(explicit), f"--root {explicit}")
    reals = [real_path(Path(os.path.abspath(p))) for p in paths] or [real_path(Path.cwd())]
    folders = list(dict.fromkeys(r if r.is_dir() else r.parent for r in reals))
    trees = [git_work_tree(f) for f in folders]
    units = list(dict.fromkeys(t or f for t, f in zip(trees, folders, strict=True)))
    if len(units) == 1:
        how = "the git work tree of the paths given" if trees[0] is not None else "the folder of the paths given"
        return LintRoot(units[0], how)
    common = _common(units)
    if common is not None and common.parent != common and not any(trees):  # never the whole machine
        return LintRoot(common, "the common folder of the paths given")
    # several work trees (or a tree and folders outside it, or folders with only / in common):
    # each is a folder of the root, and a file may read in any of them, never between them
    kept = [u for u in units if not any(o != u and is_within(u, o) for o in units)]
    return LintRoot(kept[0], "the git work trees and folders of the paths given", tuple(kept[1:]))


def _common(folders: list[Path]) -> Path | None:
    try:
        return Path(os.path.commonpath([str(f) for f in folders]))
    except ValueError:  # different drives (Windows)
        return None


def git_work_tree(folder: Path) -> Path | None:
    """The nearest folder at or above ``folder`` that holds a ``.git`` entry (a folder, or the file
    a worktree or submodule has)."""
    for d in (folder, *folder.parents):
        try:
            if os.path.lexists(d / ".git"):
                return d
        except (OSError, ValueError):
            return None
    return None
