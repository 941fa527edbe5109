"""Version-keyed constants of the memory model (``vlint/data/memory_constants.json``).

Each block is a list of entries (optionally split by engine); the values in force for a release
are every entry whose ``since`` is <= that release, later ones overriding earlier keys.

:func:`overridden` replaces fitted values for the duration of a ``with`` block; only the
accuracy benchmark uses it (leave-one-out refits), the product never does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache

from vlint.core.paths import data_dir
from vlint.core.typing_names import Any
from vlint.core.version import Version

#: (block, engine or "", since) → values replacing that entry's keys
_OVERRIDES: dict[tuple[str, str, str], dict[str, Any]] = {}


@cache
def _data() -> dict[str, Any]:
    return json.loads((data_dir() / "memory_constants.json").read_text())["constants"]


def _pick(entries: list[dict[str, Any]], version: Version | None, ov: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    """Merge every entry whose ``since`` <= version, later ones overriding earlier keys."""
    out: dict[str, Any] = {}
    evidence: list[str] = []
    for e in sorted(entries, key=lambda e: Version.parse(e["since"])):
        if version is None or Version.parse(e["since"]) <= version:
            out.update({k: v for k, v in e.items() if k not in ("since", "evidence")})
            out.update(ov.get(e["since"], {}))
            if e.get("evidence"):
                evidence.append(f"[since {e['since']}] {e['evidence']}")
    out["_evidence"] = evidence
    return out


def entries(name: str, engine: str | None = None) -> list[dict[str, Any]]:
    """The raw entries of block ``name`` (for the engine where the block splits by engine)."""
    block = _data()[name]
    if isinstance(block, dict):
        block = block.get(engine or "V1") or block.get("V1") or []
    return list(block)


#: (block, version, engine) → its merged values, while no override is in force (the memory model asks
#: for the same few blocks ~13 times per launch: once per reference GPU)
_MERGED: dict[tuple[str, Version | None, str | None], dict[str, Any]] = {}


def constants(name: str, version: Version | None, engine: str | None = None) -> dict[str, Any]:
    """The merged constant block ``name`` (per engine where the file splits by engine)."""
    key = (name, version, engine)
    merged = _MERGED.get(key) if not _OVERRIDES else None
    if merged is None:
        block = _data()[name]
        eng = (engine or "V1") if isinstance(block, dict) else ""
        ov = {since: vals for (b, e, since), vals in _OVERRIDES.items() if b == name and e == eng}
        merged = _pick(entries(name, engine), version, ov)
        if not _OVERRIDES:
            _MERGED[key] = merged
    return dict(merged)  # a copy: a caller may add to it


def switches(version: Version | None) -> dict[str, Any]:
    return constants("switches", version)


@contextmanager
def overridden(values: Mapping[tuple[str, str, str], Mapping[str, Any]]) -> Iterator[None]:
    """Temporarily replace constant values: ``{(block, engine or "", since): {key: value}}``."""
    saved = dict(_OVERRIDES)
    _MERGED.clear()
    try:
        for key, vals in values.items():
            _OVERRIDES[key] = {**_OVERRIDES.get(key, {}), **dict(vals)}
        yield
    finally:
        _OVERRIDES.clear()
        _OVERRIDES.update(saved)
        _MERGED.clear()
