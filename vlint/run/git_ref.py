"""The files of a lint run as another commit has them (``vlint check --diff-base REF``).

A :class:`Snapshot` answers "what did this file hold at REF?". :class:`GitSnapshot` asks git — ``git
show COMMIT:PATH`` — run through :func:`vlint.sources.render.tools.run_git` (the one module that starts
programs: a scrubbed environment without the user's configuration or credentials, no network, a timeout,
an output cap). Only paths inside the lint root are asked for, never one inside ``.git/`` (checked by
:meth:`vlint.security.lint_root.LintRoot.resolve`, the check every read of vlint goes through), and
vlint never reads a file of ``.git/`` itself: git does. :class:`RefReader` is the lint run's reader
with every file taken from a snapshot, so a lint of REF reads exactly what a lint of the working tree
reads, as it was then.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Protocol

from vlint.core.lazy_re import lazy_compile
from vlint.core.record import field, record
from vlint.run.lint import LintOptions, Reader, display_path
from vlint.security.lint_root import LintRoot, Refused, git_work_tree
from vlint.sources.base import OutsideRoot, SourceError, SourceText
from vlint.sources.decode import read_text

#: seconds all the git commands of one run may take together
GIT_BUDGET = 60.0
#: a ref as a user writes it: a branch, tag, ``HEAD~2``, ``origin/main``, a commit (no option, no space)
_REF = lazy_compile(r"^[^\s\-:][^\s:]*$")


class DiffBaseError(Exception):
    """``--diff-base`` cannot be used: git is absent, the folder is no git work tree, the ref is unknown."""


class Snapshot(Protocol):
    """The files of one commit."""

    #: how reports name it: the ref as given (``origin/main``), with its commit
    name: str

    def read(self, path: Path, limit: int) -> bytes | None:
        """``path``'s bytes at the commit (None: it does not exist there). Raises :class:`SourceError`."""
        ...


@record(slots=True)
class DictSnapshot:
    """A snapshot given as text (the rule cases' ``before`` files): absolute path → text."""

    files: dict[Path, str]
    name: str = "the diff base"

    def __post_init__(self) -> None:
        self.files = {Path(os.path.realpath(p)): t for p, t in self.files.items()}

    def read(self, path: Path, limit: int) -> bytes | None:
        text = self.files.get(Path(os.path.realpath(path)))
        if text is None:
            return None
        data = text.encode("utf-8")
        if len(data) > limit:
            raise SourceError(f"over the {limit / 2**20:.0f} MiB limit (--max-file-size) at {self.name}")
        return data


@record(slots=True)
class GitSnapshot:
    """The files of ``commit`` in the git work tree ``work_tree``, read with ``git show``."""

    git: str
    work_tree: Path
    ref: str
    commit: str
    #: seconds left for the run's git commands
    left: float = GIT_BUDGET
    #: how many files were asked for (each one ``git show``)
    asked: int = field(default=0)

    @property
    def name(self) -> str:
        return f"{self.ref} ({self.commit[:12]})"

    def read(self, path: Path, limit: int) -> bytes | None:
        from vlint.sources.render.tools import GIT_TIMEOUT, run_git

        try:
            rel = Path(os.path.realpath(path)).relative_to(self.work_tree)
        except ValueError:
            raise SourceError(f"lies outside the git work tree {self.work_tree}: not read at {self.name}") from None
        if self.left < 1.0:
            raise SourceError(f"the run's git time budget ({GIT_BUDGET:.0f} s) is used up: not read at {self.name}")
        self.asked += 1
        timeout = min(GIT_TIMEOUT, self.left)
        import time

        started = time.monotonic()
        # the commit, not the ref: a name cannot be read as an option or a path; `--` ends the options
        run = run_git(
            self.git,
            self.work_tree,
            ["show", "--no-textconv", f"{self.commit}:{rel.as_posix()}", "--"],
            timeout=timeout,
            max_output=limit + 1,
        )
        self.left -= time.monotonic() - started
        if run.ok:
            return run.data
        if run.code == 128 and ("does not exist" in run.error or "exists on disk, but not in" in run.error):
            return None
        if "output over" in run.error:
            raise SourceError(f"over the {limit / 2**20:.0f} MiB limit (--max-file-size) at {self.name}")
        raise SourceError(f"git could not read it at {self.name}: {run.error}")


def open_git_snapshot(ref: str, root: LintRoot) -> GitSnapshot:
    """The snapshot of ``ref`` in the git work tree of the lint root. Raises :class:`DiffBaseError`."""
    from vlint.sources.render.tools import find_git, run_git

    if not _REF.match(ref) or ".." in ref:
        raise DiffBaseError(f"--diff-base {ref!r}: not a git revision (a branch, tag or commit)")
    tree = git_work_tree(root.path)
    if tree is None:
        raise DiffBaseError(f"--diff-base needs a git work tree: {root.path} is in none (no .git above it)")
    git, why = find_git(root.folders)
    if git is None:
        raise DiffBaseError(f"--diff-base: {why}")
    run = run_git(git, tree, ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"])
    commit = run.output.strip()
    if not run.ok or not re.fullmatch(r"[0-9a-f]{40,64}", commit):
        detail = f" ({run.error})" if run.error and not run.error.startswith("exit code") else ""
        raise DiffBaseError(
            f"--diff-base {ref}: git knows no commit of that name in {tree}{detail}; fetch it first "
            "(actions/checkout with fetch-depth: 0, or `git fetch origin main`)"
        )
    top = run_git(git, tree, ["rev-parse", "--show-toplevel"])
    work_tree = Path(os.path.realpath(top.output.strip())) if top.ok and top.output.strip() else tree
    return GitSnapshot(git, work_tree, ref, commit)


class RefReader(Reader):
    """The lint run's reader, every file taken from a :class:`Snapshot` instead of the disk. The lint
    root's check comes first, exactly as for the disk: nothing outside it, nothing in ``.git/``."""

    def __init__(self, opts: LintOptions, snapshot: Snapshot) -> None:
        super().__init__(opts)
        self.snapshot = snapshot

    def _read(self, path: Path, beneath: LintRoot | None = None) -> SourceText | SourceError:
        shown = display_path(path, self.opts.root)
        root = beneath or self.opts.lint_root
        if root is None:
            return SourceError(f"not read at {self.snapshot.name}: no lint root")
        try:
            real, _ = root.resolve(path)
        except Refused as e:
            return OutsideRoot(path, shown, e.why)
        try:
            data = self.snapshot.read(real, self.opts.max_file_size)
        except SourceError as e:
            return e
        if data is None:
            return SourceError(f"no such file at {self.snapshot.name}")
        try:
            return SourceText(shown, path, *read_text(data))
        except SourceError as e:
            return e
