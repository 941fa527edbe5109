"""Which files a run opens: an audit hook (``sys.addaudithook``) records every ``open`` event while a
:func:`recording` block runs, so a test can assert on what vlint *opened*, not only on what it printed.

Audit hooks cannot be removed; the one hook is installed once per process and records only inside
a :func:`recording` block. ``open`` events of :func:`vlint.security.lint_root.open_beneath` carry a single
path component opened from a folder's descriptor (``dir_fd``); the hook cannot see that folder, so
the primitive's own checked target is recorded instead through the ``vlint.open_beneath`` event it
raises.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from vlint.core.paths import cache_dir

_RECORDING: list[list[str]] = []
_INSTALLED = False


def _hook(event: str, args: tuple) -> None:
    if not _RECORDING:
        return
    if event == "open":
        path, mode, flags = args
        if not _reads(mode, flags):
            return
        if isinstance(path, (str, bytes, os.PathLike)) and not isinstance(path, int):
            text = os.fsdecode(path)
            if os.sep in text or text in (".", ".."):  # a joined path (single components come from open_beneath)
                _RECORDING[-1].append(os.path.join(os.getcwd(), text))
    elif event == "vlint.open_beneath":
        _RECORDING[-1].append(str(args[0]))


def _reads(mode: object, flags: object) -> bool:
    """An open for reading only (reports and copies vlint writes are not reads)."""
    if isinstance(mode, str):
        return not any(c in mode for c in "wax+")
    return isinstance(flags, int) and flags & os.O_ACCMODE == os.O_RDONLY


@contextmanager
def recording() -> Iterator[list[str]]:
    """The absolute paths opened for reading inside the block (as given to ``open``: not resolved)."""
    global _INSTALLED
    if not _INSTALLED:
        sys.addaudithook(_hook)
        _INSTALLED = True
    seen: list[str] = []
    _RECORDING.append(seen)
    try:
        yield seen
    finally:
        _RECORDING.pop()


def escapes(opened: list[str], root: Path, allowed: tuple[Path, ...] = ()) -> list[str]:
    """The opened paths whose real location is outside ``root`` or inside a ``.git`` folder of it,
    apart from Python's and vlint's own files and the ``allowed`` folders (temporary copies)."""
    root = root.resolve()
    cache = cache_dir()
    own = (Path(sys.prefix), Path(sys.base_prefix), Path(__file__).parents[2], *allowed, *([cache] if cache else []))
    own_real = tuple(o.resolve() for o in own)
    bad = []
    for p in opened:
        real = Path(os.path.realpath(p))
        if _within(real, root):
            if ".git" in real.relative_to(root).parts:
                bad.append(p)
        elif not any(_within(real, o) for o in own_real):
            bad.append(p)
    return bad


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents
