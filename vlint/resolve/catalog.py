"""The bundled model catalog (``vlint/data/models.jsonl`` and its index): records by Hugging Face id,
read lazily, one record at a time."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache

from vlint.core.lazy_re import lazy_compile
from vlint.core.paths import data_dir
from vlint.core.record import replace
from vlint.core.typing_names import Any
from vlint.resolve.model_arch import ModelArch, model_arch_from_config


@cache
def _index() -> dict[str, list[Any]]:
    try:
        data = json.loads((data_dir() / "models.index.json").read_text())
    except (OSError, ValueError):
        return {}
    ids = data.get("ids")
    return ids if isinstance(ids, dict) else {}


@cache
def catalog_record(mid: str) -> dict[str, Any] | None:
    """The bundled record of one catalog id (exact id as listed by :func:`catalog_ids`)."""
    pos = _index().get(mid.lower())
    if not pos or pos[0] != mid:
        return None
    try:
        with open(data_dir() / "models.jsonl", "rb") as fh:
            fh.seek(int(pos[1]))
            rec = json.loads(fh.read(int(pos[2])))
    except (OSError, ValueError):
        return None
    return rec if isinstance(rec, dict) and rec.get("id") == mid else None


def catalog_records() -> list[dict[str, Any]]:
    """Every bundled record, in id order (``vlint models``; reads the whole catalog)."""
    out = []
    try:
        with open(data_dir() / "models.jsonl", encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    out.append(json.loads(line))
    except (OSError, ValueError):
        return []
    return out


def catalog_ids() -> list[str]:
    return sorted({pos[0] for pos in _index().values()})


def arch_from_record(rec: Mapping[str, Any]) -> ModelArch:
    """:class:`ModelArch` of a bundled catalog record (keeps its source, confidence and sizes)."""
    mid = str(rec["id"])
    cfg = dict(rec["config"])
    if rec.get("params"):
        cfg["params"] = rec["params"]
    if rec.get("vision_params"):
        cfg["vision_params"] = rec["vision_params"]
    arch = model_arch_from_config(
        cfg,
        name=mid,
        weight_bytes=rec.get("weight_bytes"),
        source="bundled catalog: " + "; ".join(rec.get("source", [])[:2]),
    )
    return replace(
        arch,
        weight_bytes_source=rec.get("weight_bytes_source") if rec.get("weight_bytes") else None,
        params_estimated=not rec.get("params") and arch.params_estimated,
        confidence=rec.get("confidence"),
        aliases=tuple(rec.get("aliases", [])),
        notes=arch.notes + tuple(rec.get("notes_short", [])),
    )


_REVISION_RE = lazy_compile(r"[@:](?:[0-9a-f]{7,40}|main|v?\d[\w.\-]*)$", re.IGNORECASE)


def resolve_catalog_id(ref: str) -> str | None:
    """The catalog id a name refers to (id or alias, case-insensitive, ``@revision`` tolerated)."""
    idx = _index()
    key = ref.strip().strip("/").lower()
    for cand in (key, _REVISION_RE.sub("", key), key.removeprefix("hf://").removeprefix("huggingface.co/")):
        if cand in idx:
            return str(idx[cand][0])
    return None


def lookup_catalog(ref: str) -> ModelArch | None:
    """Catalog entry by id or alias (case-insensitive; a trailing ``@revision`` is tolerated)."""
    mid = resolve_catalog_id(ref)
    rec = catalog_record(mid) if mid else None
    return arch_from_record(rec) if rec else None
