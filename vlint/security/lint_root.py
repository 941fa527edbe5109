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
import sys
from collections.abc import Iterable
from pathlib import Path

from vlint.core.record import record
from vlint.security.bounded_read import read_fd

#: version-control folders: never read as a referenced file, never walked
VCS_DIRS = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", ".jj", ".pijul", "CVS"})


@record(frozen=True, slots=True)
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
        real = real_path(path)
        return next((f for f in self.folders if is_within(real, f)), self.path)

    def resolve(self, path: Path) -> tuple[Path, Path]:
        """``path``'s real location and the root folder that holds it, resolved the way the kernel
        walks it: symbolic links in order, so ``link/..`` climbs from the link's *target*, never
        folded away first. Raises :class:`Refused` when that location lies outside the root or in a
        version-control folder. This is the one check; :meth:`open` opens exactly what it returns."""
        real = real_path(path)
        holder = next((f for f in self.folders if is_within(real, f)), None)
        if holder is None:
            lexical = Path(os.path.normpath(Path(path).absolute()))
            inside = any(is_within(lexical, f) for f in self.folders)
            why = "is a symbolic link to a file outside the lint root" if inside else "lies outside the lint root"
            raise Refused(why)
        vcs = _vcs_part(real.relative_to(holder).parts)
        if vcs is not None:
            named = _vcs_part(Path(os.path.normpath(Path(path).absolute())).parts)
            how = "is inside" if named is not None else "is a symbolic link into"
            raise Refused(f"{how} a version-control folder ({vcs}/), which vlint never reads")
        return real, holder

    def refusal(self, path: Path) -> str | None:
        """Why vlint does not read ``path`` on its own; None when it may (:meth:`resolve`)."""
        try:
            self.resolve(path)
        except Refused as e:
            return e.why
        return None

    def contains(self, path: Path) -> bool:
        real = real_path(path)
        return any(is_within(real, f) for f in self.folders)

    def open(self, path: Path, flags: int = os.O_RDONLY) -> int:
        """A file descriptor of ``path``, opened beneath the root: :meth:`resolve` once, then each
        component of the real path opened from its parent's descriptor without following a link
        (``O_NOFOLLOW``), so a link swapped in after the check fails instead of leading out. Raises
        :class:`Refused` or the ``OSError`` of the open."""
        real, holder = self.resolve(path)
        return open_beneath(holder, real.relative_to(holder).parts, flags)

    def read_bytes(self, path: Path, limit: int) -> bytes:
        """The bytes of ``path`` (a regular file of at most ``limit`` bytes) read through :meth:`open`."""
        return read_fd(self.open(path, _READ_FLAGS), limit)

    def exists(self, path: Path) -> bool:
        """Whether ``path`` names something vlint may read (inside the root, by its real location)."""
        try:
            real, _ = self.resolve(path)
        except Refused:
            return False
        return os.path.lexists(real)


class Refused(OSError):
    """A path vlint does not read on its own; ``why`` says why, naming no content."""

    def __init__(self, why: str) -> None:
        super().__init__(0, why)
        self.why = why


#: flags for reading a file vlint did not choose: a FIFO must not block the open
_READ_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_WALKS = os.open in os.supports_dir_fd and bool(_NOFOLLOW)


def open_beneath(folder: Path, parts: tuple[str, ...], flags: int = os.O_RDONLY) -> int:
    """Open ``folder/parts…`` one component at a time from the folder's descriptor, following no
    symbolic link (on systems without ``dir_fd`` opens: the joined path, with ``O_NOFOLLOW`` on the
    last component)."""
    if not parts:
        raise IsADirectoryError(21, "is a directory, not a file")
    if any(p in ("", ".", "..") for p in parts):
        raise Refused("is not a plain path below the lint root")
    sys.audit("vlint.open_beneath", str(folder.joinpath(*parts)))
    if not _WALKS:
        return os.open(folder.joinpath(*parts), flags | _NOFOLLOW | _CLOEXEC)
    fd = os.open(folder, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        for part in parts[:-1]:
            sub = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            os.close(fd)
            fd = sub
        return os.open(parts[-1], flags | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
    finally:
        os.close(fd)


def _vcs_part(parts: Iterable[str]) -> str | None:
    return next((p for p in parts if p in VCS_DIRS), None)


def real_path(path: Path | str) -> Path:
    """``path`` with every symbolic link resolved in the order the kernel meets them (``link/..`` is
    the parent of the link's target: the path is never folded lexically first). A dangling or looping
    link stays as its text says, which then lies wherever that is."""
    try:
        return Path(os.path.realpath(os.path.join(os.getcwd(), path)))
    except (OSError, ValueError):
        return Path(os.path.abspath(path))


def is_within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def find_root(paths: Iterable[Path], explicit: Path | None = None) -> LintRoot:
    """The lint root for a run over ``paths``: ``explicit`` (``--root``), else the git work tree that
    holds their common parent, else that common parent."""
    if explicit is not None:
        return LintRoot(real_path(explicit), f"--root {explicit}")
    reals = [real_path(p) for p in paths] or [real_path(Path.cwd())]
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
