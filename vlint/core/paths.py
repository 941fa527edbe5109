"""Where vlint's bundled data lives, in a source checkout and in an installed wheel.

In the wheel, ``rules/`` and ``schemas/`` are copied into ``vlint/_bundled/``; in a checkout
they stay at the repository root.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

_PKG = Path(__file__).resolve().parent.parent


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


def cache_dir() -> Path | None:
    """Where vlint keeps parsed copies of its bundled data between runs (the rule catalog):
    ``$VLINT_CACHE_DIR``, else ``$XDG_CACHE_HOME/vlint``, else ``~/.cache/vlint``; None when
    ``VLINT_NO_CACHE`` is set. Nothing the user lints is ever cached."""
    import os

    if os.environ.get("VLINT_NO_CACHE"):
        return None
    if os.environ.get("VLINT_CACHE_DIR"):
        return Path(os.environ["VLINT_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "vlint"
