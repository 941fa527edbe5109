"""The local Hugging Face hub cache, read only: the ``config.json`` of a model someone downloaded.

Where it is, as ``huggingface_hub`` decides (huggingface_hub 2.4.0 ``constants.py:159-184``):
``$HF_HUB_CACHE``, else ``$HUGGINGFACE_HUB_CACHE``, else ``$HF_HOME/hub``, else
``$XDG_CACHE_HOME/huggingface/hub``, else ``~/.cache/huggingface/hub``. Its layout
(``file_download.py:747-755`` ``repo_folder_name``, ``1523-1614`` ``try_to_load_from_cache``)::

    <cache>/models--<org>--<name>/refs/<revision>         a commit hash
    <cache>/models--<org>--<name>/snapshots/<hash>/config.json   (a link into ../../blobs/)

The model id comes from a linted file, so it builds a path only when ``huggingface_hub`` itself would
accept it (``utils/_validators.py:28-150`` ``validate_repo_id``: ``name`` or ``org/name``, ASCII letters,
digits, ``-`` ``_`` ``.``, no ``--`` or ``..``, at most 96 characters a part): the result is one folder
name directly below the cache. A revision is one path component. Every file read must lie, links
followed, inside that model's folder, through the size-checked readers of
:mod:`vlint.resolve.model_sources`. Nothing is downloaded, nothing is written.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from vlint.core.lazy_re import lazy_compile
from vlint.security.bounded_read import NotReadable
from vlint.security.lint_root import LintRoot, Refused, real_path

#: huggingface_hub's REPO_ID_REGEX (utils/_validators.py:28-38), ASCII only
_REPO_ID = lazy_compile(r"(\b[\w\-.]{1,96}\b/)?\b[\w\-.]{1,96}\b", re.ASCII)
#: a branch, tag or commit as one path component
_REVISION = lazy_compile(r"[\w\-.]{1,255}", re.ASCII)
#: a refs/<revision> file holds a commit hash: a few dozen bytes
_MAX_REF_BYTES = 256


def hub_cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """The hub cache folder ``huggingface_hub`` uses with this environment."""
    env = os.environ if env is None else env
    explicit = env.get("HF_HUB_CACHE") or env.get("HUGGINGFACE_HUB_CACHE")
    if explicit:
        return _expand(explicit)
    home = env.get("HF_HOME") or os.path.join(env.get("XDG_CACHE_HOME") or os.path.join("~", ".cache"), "huggingface")
    return _expand(home) / "hub"


def _expand(text: str) -> Path:
    try:
        return Path(os.path.expandvars(text)).expanduser()
    except RuntimeError:  # ~user that does not exist
        return Path(text)


def valid_repo_id(ref: str) -> bool:
    """A model id ``huggingface_hub`` accepts (``validate_repo_id``): the only names that build a path."""
    return (
        ref.count("/") <= 1
        and _REPO_ID.fullmatch(ref) is not None
        and "--" not in ref
        and ".." not in ref
        and not ref.endswith(".git")
    )


def repo_folder(repo_id: str, cache: Path | None = None) -> Path | None:
    """``<cache>/models--org--name`` for a valid id (None for anything else)."""
    if not valid_repo_id(repo_id):
        return None
    return (cache if cache is not None else hub_cache_dir()) / "--".join(["models", *repo_id.split("/")])


def snapshot(repo_id: str, revision: str | None = None, cache: Path | None = None) -> tuple[Path, LintRoot] | None:
    """The cached snapshot folder of ``repo_id`` at ``revision`` (default ``main``), and the confinement
    every read below it must respect (the model's own cache folder); None when not cached.

    As ``try_to_load_from_cache``: ``refs/<revision>`` turns a branch or tag into a commit hash; a
    revision without a ref is taken as a commit hash; no other snapshot is ever picked instead."""
    folder = repo_folder(repo_id, cache)
    rev = revision or "main"
    if folder is None or _REVISION.fullmatch(rev) is None or rev in (".", ".."):
        return None
    try:
        if not folder.is_dir():
            return None
        root = LintRoot(real_path(folder), "the Hugging Face cache folder of " + repo_id)
        ref = folder / "refs" / rev
        if ref.is_file():
            try:
                text = root.read_bytes(ref, _MAX_REF_BYTES).decode("ascii", "replace").strip()
            except (Refused, NotReadable):
                return None
            if _REVISION.fullmatch(text) is None or text in (".", ".."):
                return None
            rev = text
        snap = folder / "snapshots" / rev
        if not snap.is_dir() or root.refusal(snap) is not None:
            return None
    except (OSError, ValueError):
        return None
    return snap, root
