"""Where a model's ``config.json`` facts come from, for the name a launch uses.

Order (:func:`load_model_arch`): a local directory with ``config.json`` → the explicit mapping →
the bundled catalog → the hub (only when online). The only I/O of the model layer is here: the
local folder's ``config.json``, ``hf_quant_config.json``, the safetensors index and each file's
header (the 8-byte length and the JSON header, never the tensor data).
"""

from __future__ import annotations

import json
import os
import re
import stat
import struct
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any, BinaryIO

from vlint.lint_root import LintRoot
from vlint.paths import data_dir
from vlint.resolve.model_arch import ModelArch, model_arch_from_config

# --------------------------------------------------------------------------------------------
# reading a local model folder: regular files only, size-checked, and (for a folder a linted file
# names) inside the lint root

#: config.json, hf_quant_config.json and model.safetensors.index.json are kilobytes; a safetensors
#: header is at most a few MiB (one entry per tensor)
MAX_JSON_BYTES = 16 * 2**20
MAX_SAFETENSORS_FILES = 4096


class ModelFileError(ValueError):
    """A model file that cannot be used (not a regular file, too large, not JSON, refused)."""


def _open_regular(path: Path, root: LintRoot | None) -> BinaryIO:
    if root is not None:
        why = root.refusal(path)
        if why is not None:
            raise ModelFileError(f"{path} {why}")
    fh = open(path, "rb")  # noqa: SIM115 - returned to the caller's with-block
    try:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):  # a FIFO blocks, /dev/zero never ends
            raise ModelFileError(f"{path}: not a regular file")
    except BaseException:
        fh.close()
        raise
    return fh


def read_json_file(path: Path, root: LintRoot | None = None, limit: int = MAX_JSON_BYTES) -> Any:
    """A small JSON file of a model folder, never more than ``limit`` bytes read."""
    with _open_regular(path, root) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise ModelFileError(f"{path}: over {limit // 2**20} MiB")
    return json.loads(data)


def read_safetensors_header(path: Path, root: LintRoot | None = None) -> dict[str, Any]:
    """The JSON header of a ``.safetensors`` file: 8-byte little-endian length, then JSON.

    Only the header is read, never the tensor data."""
    with _open_regular(path, root) as fh:
        raw = fh.read(8)
        if len(raw) != 8:
            raise ValueError(f"{path}: not a safetensors file")
        (n,) = struct.unpack("<Q", raw)
        if n <= 0 or n > MAX_JSON_BYTES:
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


def local_weight_bytes(directory: Path, root: LintRoot | None = None) -> tuple[int | None, str | None]:
    """Exact checkpoint bytes of a local model directory, and how they were found."""
    index = directory / "model.safetensors.index.json"
    if index.is_file():
        try:
            meta = read_json_file(index, root).get("metadata") or {}
            if meta.get("total_size"):
                return int(meta["total_size"]), f"{index.name} metadata.total_size"
        except (OSError, ValueError, AttributeError, TypeError):
            pass
    try:
        files = sorted(directory.glob("*.safetensors"))[: MAX_SAFETENSORS_FILES + 1]
    except OSError:
        return None, None
    if files and len(files) <= MAX_SAFETENSORS_FILES:
        total = 0
        try:
            for f in files:
                total += safetensors_tensor_bytes(read_safetensors_header(f, root))
        except (OSError, ValueError, TypeError):
            return None, None
        return total, f"safetensors headers of {len(files)} file(s)"
    return None, None


# --------------------------------------------------------------------------------------------
# catalog
#
# ``models.index.json`` maps every lower-cased id and alias to ``[id, offset, length]`` of that
# model's line in ``models.jsonl`` (both written by tools/build_model_catalog.py). A lookup parses
# the small index and then the one record it needs: a launch never pays for parsing the catalog.


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


_REVISION_RE = re.compile(r"[@:](?:[0-9a-f]{7,40}|main|v?\d[\w.\-]*)$", re.IGNORECASE)


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


def _expanded(ref: str) -> Path:
    """``~/models/x`` → the home folder's; as written when ``~name`` names no user (RuntimeError)."""
    try:
        return Path(ref).expanduser()
    except RuntimeError:
        return Path(ref)


@dataclass(frozen=True, slots=True)
class ModelLookup:
    """What was found for the model a launch names."""

    arch: ModelArch | None
    #: where the facts came from: ``local folder``, ``mapping``, ``catalog``, ``hub`` ("" when none)
    origin: str = ""
    #: why a place that could have answered was not read (a folder outside the lint root…)
    note: str = ""


def find_model(
    ref: str,
    *,
    base_dir: Path | None = None,
    model_paths: Mapping[str, str] | None = None,
    online: bool = False,
    root: LintRoot | None = None,
) -> ModelLookup:
    """The architecture of the model a launch names (HF id or local path), and where it came from.

    Order: a local directory with ``config.json`` (relative to ``base_dir``), read only inside the
    lint root ``root`` when one is given (the name comes from a linted file) → the ``model_paths``
    mapping (the user's own configuration: read where it points) → bundled catalog → the hub (only
    with ``online=True``; needs ``huggingface_hub``)."""
    if not ref:
        return ModelLookup(None)
    note = ""
    p = _expanded(ref)
    named = p if p.is_absolute() else base_dir / p if base_dir is not None else None
    if named is not None and _looks_local(ref, named):
        why = root.refusal(named) if root is not None else None
        if why is not None:
            note = f"model folder {ref} {why}: not read"
        else:
            arch = _load_local(named, name=ref, root=root)
            if arch is not None:
                return ModelLookup(arch, "local folder")
    if model_paths and ref in model_paths:
        mp = _expanded(model_paths[ref])
        arch = _load_local(mp if mp.is_absolute() or base_dir is None else base_dir / mp, name=ref)
        if arch is not None:
            return ModelLookup(arch, "mapping")
    arch = lookup_catalog(ref)
    if arch is not None:
        return ModelLookup(arch, "catalog", note)
    if online:
        from vlint.resolve.hub import fetch_model_arch

        fetched = fetch_model_arch(ref)
        if fetched.arch is not None:
            return ModelLookup(fetched.arch, "hub", note)
        note = "; ".join(n for n in (note, fetched.note) if n)
    return ModelLookup(None, "", note)


def load_model_arch(
    ref: str,
    *,
    base_dir: Path | None = None,
    model_paths: Mapping[str, str] | None = None,
    online: bool = False,
    root: LintRoot | None = None,
) -> ModelArch | None:
    """:func:`find_model`'s architecture alone; ``None`` when unknown."""
    return find_model(ref, base_dir=base_dir, model_paths=model_paths, online=online, root=root).arch


def _looks_local(ref: str, path: Path) -> bool:
    """A name that can be a folder: an existing path, or one written as a path (``./m``, ``/m``)."""
    try:
        return ref.startswith(("/", "./", "../", "~")) or path.exists()
    except (OSError, ValueError):
        return False


def _load_local(d: Path, *, name: str, root: LintRoot | None = None) -> ModelArch | None:
    cfg_path = d / "config.json"
    try:
        if not cfg_path.is_file():
            return None
        config = read_json_file(cfg_path, root)
    except (OSError, ValueError):
        return None
    if not isinstance(config, dict):
        return None
    qpath = d / "hf_quant_config.json"
    if "quantization_config" not in config and qpath.is_file():
        try:
            hq = read_json_file(qpath, root)
            qsec = hq.get("quantization", hq)
            config["quantization_config"] = {"quant_method": "modelopt", **qsec}
        except (OSError, ValueError, AttributeError, TypeError):
            pass
    wb, wsrc = local_weight_bytes(d, root)
    arch = model_arch_from_config(config, name=name, weight_bytes=wb, source=f"local {cfg_path}")
    if wb is not None:
        arch = replace(arch, weight_bytes_source=wsrc)
    return arch
