"""Version-keyed constants of the memory model (``vlint/data/memory_constants.json``)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from vlint.paths import data_dir
from vlint.version import Version


@cache
def _data() -> dict[str, Any]:
    return json.loads((data_dir() / "memory_constants.json").read_text())["constants"]


def _pick(entries: list[dict[str, Any]], version: Version | None) -> dict[str, Any]:
    """Merge every entry whose ``since`` <= version, later ones overriding earlier keys."""
    out: dict[str, Any] = {}
    evidence: list[str] = []
    for e in sorted(entries, key=lambda e: Version.parse(e["since"])):
        if version is None or Version.parse(e["since"]) <= version:
            out.update({k: v for k, v in e.items() if k not in ("since", "evidence")})
            if e.get("evidence"):
                evidence.append(f"[since {e['since']}] {e['evidence']}")
    out["_evidence"] = evidence
    return out


def constants(name: str, version: Version | None, engine: str | None = None) -> dict[str, Any]:
    """The merged constant block ``name`` (per engine where the file splits by engine)."""
    block = _data()[name]
    if isinstance(block, dict):
        block = block.get(engine or "V1") or block.get("V1") or []
    return _pick(block, version)


def switches(version: Version | None) -> dict[str, Any]:
    return constants("switches", version)
