"""Reading a file vlint opens on its own (a configuration, a baseline, a file a linted file names)
without trusting it: only a regular file (a FIFO blocks, ``/dev/zero`` never ends), never more than a
limit. Where the file may lie is :mod:`vlint.security.lint_root`'s business; this module only reads."""

from __future__ import annotations

import os
import stat
from pathlib import Path


class NotReadable(OSError):
    """A file vlint will not read: not a regular file, or over the limit (``strerror`` says which;
    ``size`` is the file's size when it is too large)."""

    def __init__(self, why: str, size: int | None = None) -> None:
        super().__init__(0, why)
        self.size = size


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes. Raises :class:`NotReadable`
    (an ``OSError``) for anything else, and the usual ``OSError``s of opening it."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)  # opening a FIFO for reading must not wait
    return read_fd(os.open(path, flags), limit)


def read_fd(fd: int, limit: int) -> bytes:
    """The bytes behind ``fd`` (closed here): a regular file of at most ``limit`` bytes, else
    :class:`NotReadable`."""
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise NotReadable("is a directory, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise NotReadable("not a regular file (a device, pipe or socket)")
        if st.st_size > limit:
            raise NotReadable(f"over {_size(limit)}", st.st_size)
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)  # a file that grew since it was opened (or /proc's, of size 0) stops here
    finally:
        os.close(fd)
    if len(data) > limit:
        raise NotReadable(f"over {_size(limit)}", len(data))
    return data


def _size(limit: int) -> str:
    if limit >= 1 << 20:
        return f"{limit >> 20} MiB"
    return f"{limit >> 10} KiB" if limit >= 1 << 10 else f"{limit} bytes"
