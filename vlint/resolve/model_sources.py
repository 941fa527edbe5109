"""Where a model's ``config.json`` facts come from, for the name a launch uses.

Order (:func:`load_model_arch`): a local directory with ``config.json`` → the explicit mapping →
the bundled catalog → the hub (only when online). The only I/O of the model layer is here: the
local folder's ``config.json``, ``hf_quant_config.json``, the safetensors index and each file's
header (the 8-byte length and the JSON header, never the tensor data).
"""

from __future__ import annotations

import json
import re
import struct
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from vlint.paths import data_dir
from vlint.resolve.model_arch import ModelArch, model_arch_from_config

# --------------------------------------------------------------------------------------------
# safetensors


def read_safetensors_header(path: Path) -> dict[str, Any]:
    """The JSON header of a ``.safetensors`` file: 8-byte little-endian length, then JSON.

    Only the header is read, never the tensor data."""
    with open(path, "rb") as fh:
        raw = fh.read(8)
        if len(raw) != 8:
            raise ValueError(f"{path}: not a safetensors file")
        (n,) = struct.unpack("<Q", raw)
        if n <= 0 or n > 100 * 2**20:
            raise ValueError(f"{path}: implausible safetensors header length {n}")
        header = json.loads(fh.read(n))
    if not isinstance(header, dict):
        raise ValueError(f"{path}: bad safetensors header")
    return header


def safetensors_tensor_bytes(header: Mapping[str, Any]) -> int:
    """Sum of tensor sizes from a safetensors header (``data_offsets`` end − start)."""
    total = 0
    for k, meta in header.items():
        if k == "__metadata__" or not isinstance(meta, Mapping):
            continue
        offs = meta.get("data_offsets")
        if isinstance(offs, list) and len(offs) == 2:
            total += int(offs[1]) - int(offs[0])
    return total


def local_weight_bytes(directory: Path) -> tuple[int | None, str | None]:
    """Exact checkpoint bytes of a local model directory, and how they were found."""
    index = directory / "model.safetensors.index.json"
    if index.is_file():
        try:
            meta = json.loads(index.read_text()).get("metadata") or {}
            if meta.get("total_size"):
                return int(meta["total_size"]), f"{index.name} metadata.total_size"
        except (OSError, ValueError):
            pass
    files = sorted(directory.glob("*.safetensors"))
    if files:
        total = 0
        try:
            for f in files:
                total += safetensors_tensor_bytes(read_safetensors_header(f))
        except (OSError, ValueError):
            return None, None
        return total, f"safetensors headers of {len(files)} file(s)"
    return None, None


# --------------------------------------------------------------------------------------------
# catalog


@cache
def _catalog() -> dict[str, Any]:
    path = data_dir() / "models.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return {"models": {}, "index": {}}
    index: dict[str, str] = {}
    for mid, rec in data.get("models", {}).items():
        index[mid.lower()] = mid
        for a in rec.get("aliases", []):
            index.setdefault(a.lower(), mid)
    data["index"] = index
    return data


def catalog_ids() -> list[str]:
    return sorted(_catalog().get("models", {}))


def _arch_from_catalog(mid: str) -> ModelArch:
    rec = _catalog()["models"][mid]
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
    from dataclasses import replace

    return replace(
        arch,
        weight_bytes_source=rec.get("weight_bytes_source") if rec.get("weight_bytes") else None,
        params_estimated=not rec.get("params") and arch.params_estimated,
        confidence=rec.get("confidence"),
        aliases=tuple(rec.get("aliases", [])),
        notes=arch.notes + tuple(rec.get("notes_short", [])),
    )


_REVISION_RE = re.compile(r"[@:](?:[0-9a-f]{7,40}|main|v?\d[\w.\-]*)$", re.IGNORECASE)


def lookup_catalog(ref: str) -> ModelArch | None:
    """Catalog entry by id or alias (case-insensitive; a trailing ``@revision`` is tolerated)."""
    idx = _catalog()["index"]
    key = ref.strip().strip("/").lower()
    for cand in (key, _REVISION_RE.sub("", key), key.removeprefix("hf://").removeprefix("huggingface.co/")):
        if cand in idx:
            return _arch_from_catalog(idx[cand])
    return None


def _expanded(ref: str) -> Path:
    """``~/models/x`` → the home folder's; as written when ``~name`` names no user (RuntimeError)."""
    try:
        return Path(ref).expanduser()
    except RuntimeError:
        return Path(ref)


def load_model_arch(
    ref: str,
    *,
    base_dir: Path | None = None,
    model_paths: Mapping[str, str] | None = None,
    online: bool = False,
) -> ModelArch | None:
    """Architecture of the model a launch names (HF id or local path); ``None`` when unknown.

    Order: local directory with ``config.json`` (relative to ``base_dir``) → ``model_paths``
    mapping → bundled catalog → the hub (only with ``online=True``; needs ``huggingface_hub``)."""
    if not ref:
        return None
    candidates: list[Path] = []
    p = _expanded(ref)
    if p.is_absolute():
        candidates.append(p)
    elif base_dir is not None:
        candidates.append(base_dir / p)
    if model_paths and ref in model_paths:
        mp = _expanded(model_paths[ref])
        candidates.append(mp if mp.is_absolute() or base_dir is None else base_dir / mp)
    for d in candidates:
        arch = _load_local(d, name=ref)
        if arch is not None:
            return arch
    arch = lookup_catalog(ref)
    if arch is not None:
        return arch
    if online:
        from vlint.resolve.hub import fetch_model_arch

        return fetch_model_arch(ref)
    return None


def _load_local(d: Path, *, name: str) -> ModelArch | None:
    cfg_path = d / "config.json"
    try:
        if not cfg_path.is_file():
            return None
        config = json.loads(cfg_path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(config, dict):
        return None
    qpath = d / "hf_quant_config.json"
    if "quantization_config" not in config and qpath.is_file():
        try:
            hq = json.loads(qpath.read_text())
            qsec = hq.get("quantization", hq)
            config["quantization_config"] = {"quant_method": "modelopt", **qsec}
        except (OSError, ValueError):
            pass
    wb, wsrc = local_weight_bytes(d)
    arch = model_arch_from_config(config, name=name, weight_bytes=wb, source=f"local {cfg_path}")
    if wb is not None:
        from dataclasses import replace

        arch = replace(arch, weight_bytes_source=wsrc)
    return arch
