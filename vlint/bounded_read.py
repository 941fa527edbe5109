"""Reading a small file vlint opens on its own (a configuration, a baseline) without trusting it: only
a regular file (a FIFO blocks, ``/dev/zero`` never ends), never more than a limit."""

from __future__ import annotations

import os
import stat
from pathlib import Path


class NotReadable(OSError):
    """A file vlint will not read: not a regular file, or over the limit (``strerror`` says which)."""


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of ``path``, a regular file of at most ``limit`` bytes. Raises :class:`NotReadable`
    (an ``OSError``) for anything else, and the usual ``OSError``s of opening it."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)  # opening a FIFO for reading must not wait
    fd = os.open(path, flags)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotReadable(0, "not a regular file (a device, pipe or socket)")
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(limit + 1)  # a file that grew since it was opened stops here
    finally:
        os.close(fd)
    if len(data) > limit:
        raise NotReadable(0, f"over {_size(limit)}")
    return data


def _size(limit: int) -> str:
    if limit >= 1 << 20:
        return f"{limit >> 20} MiB"
    return f"{limit >> 10} KiB" if limit >= 1 << 10 else f"{limit} bytes"
