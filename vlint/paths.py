"""Where vlint's bundled data lives, in a source checkout and in an installed wheel.

In the wheel, ``rules/`` and ``schemas/`` are copied into ``vlint/_bundled/``; in a checkout
they stay at the repository root.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PKG = Path(__file__).resolve().parent


@cache
def bundled_dir(name: str) -> Path:
    """``rules`` or ``schemas``: the folder shipped with this installation."""
    installed = _PKG / "_bundled" / name
    if installed.is_dir():
        return installed
    return _PKG.parent / name


def rules_dir() -> Path:
    return bundled_dir("rules")


def schemas_dir() -> Path:
    return bundled_dir("schemas")


def data_dir() -> Path:
    """Package data (model and GPU catalogs, memory constants): ``vlint/data``."""
    return _PKG / "data"
