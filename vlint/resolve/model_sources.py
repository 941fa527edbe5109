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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any, BinaryIO

from vlint.core.paths import data_dir
from vlint.resolve.model_arch import ModelArch, model_arch_from_config
from vlint.security.lint_root import LintRoot, Refused

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
    """``path`` opened for reading: beneath ``root`` by its real location when there is one
    (:meth:`vlint.security.lint_root.LintRoot.open`), as named otherwise (the user's own configuration)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = root.open(path, flags) if root is not None else os.open(path, flags)
    except Refused as e:
        raise ModelFileError(f"{path} {e.why}") from None
    fh = os.fdopen(fd, "rb")
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
    files = _complete_shards(files)
    if files and len(files) <= MAX_SAFETENSORS_FILES:
        total = 0
        try:
            for f in files:
                total += safetensors_tensor_bytes(read_safetensors_header(f, root))
        except (OSError, ValueError, TypeError):
            return None, None
        return total, f"safetensors headers of {len(files)} file(s)"
    return None, None


#: ``model-00001-of-00004.safetensors``: one shard of a checkpoint split in N files
_SHARD = re.compile(r"-(\d+)-of-(\d+)\.safetensors$")


def _complete_shards(files: list[Path]) -> list[Path]:
    """The files that make one checkpoint: with sharded names, the shards alone and only when every
    one is present (a half-downloaded cache, or ``consolidated.safetensors`` beside the shards, would
    count wrong); else the files as found."""
    shards = [(f, m) for f in files if (m := _SHARD.search(f.name)) is not None]
    if not shards:
        return files
    counts = {int(m.group(2)) for _, m in shards}
    numbers = {int(m.group(1)) for _, m in shards}
    if len(counts) != 1 or numbers != set(range(1, counts.pop() + 1)):
        return []
    return [f for f, _ in shards]


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
    #: where the facts came from: ``local folder``, ``--model-config``, ``mapping``, ``HF cache``,
    #: ``catalog``, ``hub``, ``served name``, ``name`` (inferred from the name) ("" when none)
    origin: str = ""
    #: why a place that could have answered was not read (a folder outside the lint root…)
    note: str = ""
    #: how the origin was reached, for ``vlint explain`` (``/models/x → org/name in [tool.vlint] models``)
    via: str = ""


#: ``--model-config PATH`` without ``NAME=``: the model facts of every launch of the run
ALL_LAUNCHES = ""


def find_model(
    ref: str,
    *,
    base_dir: Path | None = None,
    model_paths: Mapping[str, str] | None = None,
    online: bool = False,
    root: LintRoot | None = None,
    model_configs: Mapping[str, str] | None = None,
    models: Mapping[str, str] | None = None,
    names: Sequence[str] = (),
    revision: str | None = None,
    locations: Sequence[str] = (),
) -> ModelLookup:
    """The architecture of the model a launch names (HF id or local path), and where it came from.

    Order (DESIGN.md "Where each fact comes from"):

    1. a local directory with ``config.json`` (relative to ``base_dir``), read only inside the lint
       root ``root`` when one is given (the name comes from a linted file);
    2. ``model_configs`` (``--model-config [NAME=]PATH``: a ``config.json`` or a folder with one; the
       key :data:`ALL_LAUNCHES` for every launch);
    3. ``models`` (``[tool.vlint] models``: a path or served name → a model id or an absolute folder)
       and ``model_paths`` (``[tool.vlint] model-paths``: a model id → folder);
    4. the local Hugging Face cache (read only, :mod:`vlint.resolve.hf_cache`) at ``revision``;
    5. the bundled catalog;
    6. the hub (only with ``online=True``; needs ``huggingface_hub``);
    7. for a folder none of these answered: the Hugging Face id the launch serves it under, when
       its name is the folder's (:func:`served_id_of_folder`), from the cache or the catalog;
    8. the catalog model the name stands for (:mod:`vlint.resolve.model_names`: a folder named
       like a catalog model, a re-upload, a quantized checkpoint of a catalog model), an inference
       with confidence ``low`` and origin ``name``.

    ``names`` are other names the launch gives its model (``--served-model-name``): a mapping or
    ``--model-config`` entry may use them, and so may step 8, like ``locations`` (where the model's
    files are downloaded from: a KServe ``storageUri``, never read). The user's own configuration
    (2, 3) is read where it points, outside the lint root too: that is the user's trust decision."""
    if not ref and not names and not locations and not (model_configs and ALL_LAUNCHES in model_configs):
        return ModelLookup(None)
    note = ""
    p = _expanded(ref) if ref else None
    named = None if p is None else p if p.is_absolute() else base_dir / p if base_dir is not None else None
    if named is not None and _looks_local(ref, named):
        why, real = None, named
        if root is not None:
            try:
                real = root.resolve(named)[0]
            except Refused as e:
                why = e.why
        if why is not None:
            note = f"model folder {ref} {why}: not read"
        else:
            arch = _load_local(real, name=ref, root=root)
            if arch is not None:
                return ModelLookup(arch, "local folder", via=str(named))
    keys = _names(ref, named, names)
    if model_configs:
        key = next((k for k in keys if k in model_configs), ALL_LAUNCHES if ALL_LAUNCHES in model_configs else None)
        if key is not None:
            given = model_configs[key]
            arch = load_model_config(Path(given), name=ref or given)
            if arch is not None:
                return ModelLookup(arch, "--model-config", via=f"--model-config {given}")
            note = _join(note, f"--model-config {given} has no readable config.json")
    mapped = _mapping_target(keys, models)
    if mapped is not None:
        key, target = mapped
        found = _resolve_target(target, name=ref or key, online=online)
        if found.arch is not None:
            return ModelLookup(found.arch, "mapping", note, f"{key} → {target} ({found.origin}) in [tool.vlint] models")
        note = _join(note, f"[tool.vlint] models maps {key} to {target}, which vlint does not find")
    folder = _mapping_target(keys, model_paths)
    if folder is not None:
        key, target = folder
        mp = _expanded(target)
        arch = _load_local(mp if mp.is_absolute() or base_dir is None else base_dir / mp, name=ref)
        if arch is not None:
            return ModelLookup(arch, "mapping", note, f"{key} → {target} in [tool.vlint] model-paths")
    if ref:
        found = _resolve_target(ref, name=ref, online=online, revision=revision, folder=False)
        if found.arch is not None:
            return replace(found, note=_join(note, found.note))
        note = _join(note, found.note)
    served = served_id_of_folder(ref, names)
    if served is not None:
        found = _resolve_target(served, name=ref, online=online, folder=False)
        if found.arch is not None:
            via = f"--served-model-name {served}, the Hugging Face id of the folder {ref} ({found.origin})"
            return ModelLookup(found.arch, "served name", note, via)
    from vlint.resolve.model_names import infer_arch

    inferred = infer_arch(ref, names, locations)
    if inferred is not None:
        arch, how = inferred
        return ModelLookup(arch, "name", note, how.description)
    return ModelLookup(None, "", note)


def served_id_of_folder(ref: str, names: Sequence[str]) -> str | None:
    """The Hugging Face id a launch serves a model folder under, when the launch itself says so: a
    ``--served-model-name`` of the form ``org/name`` whose ``name`` is the folder's own name
    (``vllm serve /root/.cache/Llama-3.2-1B-Instruct --served-model-name
    meta-llama/Llama-3.2-1B-Instruct``). Never a guess from the path alone: a folder named like a
    model (``/models/Qwen3-8B``) with no such statement, or a served name that is not the folder's
    (``/models`` served as ``gpt-3.5-turbo``), gives None."""
    if not ref.startswith(("/", "./", "../", "~")) and ref.count("/") < 2:
        return None  # a Hugging Face id (``org/name``) is its own name, never another's
    from vlint.resolve.hf_cache import valid_repo_id

    folder = ref.rstrip("/").rsplit("/", 1)[-1].lower()
    for n in names:
        if not isinstance(n, str) or n.count("/") != 1 or not valid_repo_id(n):
            continue
        if folder and n.split("/", 1)[1].lower() == folder:
            return n
    return None


def _join(a: str, b: str) -> str:
    return f"{a}; {b}" if a and b else a or b


def _names(ref: str, named: Path | None, names: Sequence[str]) -> list[str]:
    """The names a mapping key may match: as written, without a trailing slash, the folder it makes
    relative to the file, then the served names."""
    out = [ref, ref.rstrip("/")]
    if named is not None and not Path(ref).is_absolute():
        out.append(os.path.normpath(named))
    out.extend(n for n in names if isinstance(n, str))
    return list(dict.fromkeys(k for k in out if k))


def _mapping_target(keys: Sequence[str], table: Mapping[str, str] | None) -> tuple[str, str] | None:
    """(key, target) of the first mapping entry that names the launch's model (exact, then without a
    trailing slash and case-insensitive)."""
    if not table:
        return None
    for k in keys:
        if k in table:
            return k, table[k]
    folded = {k.rstrip("/").lower(): k for k in table}
    for k in keys:
        hit = folded.get(k.rstrip("/").lower())
        if hit is not None:
            return hit, table[hit]
    return None


def _resolve_target(
    target: str, *, name: str, online: bool, revision: str | None = None, folder: bool = True
) -> ModelLookup:
    """A model id or (``folder``: the user's own mapping) an absolute folder: the folder, else the HF
    cache → the catalog → the hub."""
    if folder and Path(target).is_absolute():
        arch = _load_local(Path(target), name=name)
        return ModelLookup(arch, "local folder" if arch is not None else "", via=target)
    from vlint.resolve.hf_cache import snapshot

    snap = snapshot(target.strip().strip("/"), revision)
    if snap is not None:
        folder, confine = snap
        arch = _load_local(folder, name=name, root=confine, source=f"Hugging Face cache {folder / 'config.json'}")
        if arch is not None:
            return ModelLookup(arch, "HF cache", via=str(folder))
    arch = lookup_catalog(target)
    if arch is not None:
        return ModelLookup(arch, "catalog", via=arch.name)
    if online:
        from vlint.resolve.hub import fetch_model_arch

        fetched = fetch_model_arch(target)
        if fetched.arch is not None:
            return ModelLookup(fetched.arch, "hub", via=target)
        return ModelLookup(None, "", fetched.note)
    return ModelLookup(None)


def load_model_config(path: Path, *, name: str) -> ModelArch | None:
    """``--model-config PATH``: a folder with ``config.json`` (its safetensors sizes too), or a
    ``config.json``-shaped file on its own. Read where the user points."""
    try:
        if path.is_dir():
            return _load_local(path, name=name)
        config = read_json_file(path)
    except (OSError, ValueError):
        return None
    if not isinstance(config, dict):
        return None
    return model_arch_from_config(config, name=name, source=f"--model-config {path}")


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


def _load_local(d: Path, *, name: str, root: LintRoot | None = None, source: str = "") -> ModelArch | None:
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
    arch = model_arch_from_config(config, name=name, weight_bytes=wb, source=source or f"local {cfg_path}")
    if wb is not None:
        arch = replace(arch, weight_bytes_source=wsrc)
    return arch
