"""Where a model's ``config.json`` facts come from, for the name a launch uses.

Order (:func:`load_model_arch`): a local directory with ``config.json`` → the explicit mapping →
the bundled catalog → the hub (only when online). The only I/O of the model layer is here: the
local folder's ``config.json``, ``hf_quant_config.json``, the safetensors index and each file's
header (the 8-byte length and the JSON header, never the tensor data).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from vlint.core.record import record, replace
from vlint.resolve.catalog import (
    lookup_catalog,
)
from vlint.resolve.model_arch import ModelArch, model_arch_from_config
from vlint.resolve.model_files import (
    local_weight_bytes,
    read_json_file,
)
from vlint.security.lint_root import LintRoot, Refused

# --------------------------------------------------------------------------------------------
# reading a local model folder: regular files only, size-checked, and (for a folder a linted file
# names) inside the lint root


# --------------------------------------------------------------------------------------------
# catalog
#
# ``models.index.json`` maps every lower-cased id and alias to ``[id, offset, length]`` of that
# model's line in ``models.jsonl`` (both written by tools/build_model_catalog.py). A lookup parses
# the small index and then the one record it needs: a launch never pays for parsing the catalog.


def _expanded(ref: str) -> Path:
    """``~/models/x`` → the home folder's; as written when ``~name`` names no user (RuntimeError)."""
    try:
        return Path(ref).expanduser()
    except RuntimeError:
        return Path(ref)


@record(frozen=True, slots=True)
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

    ``names`` are other names the launch gives its model (``--served-model-name``) and ``locations``
    where the model's files are downloaded from (a KServe ``storageUri``, never read): a mapping or
    ``--model-config`` entry may use either, and so may step 8. The user's own configuration
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
    keys = _names(ref, named, [*names, *locations])  # a storageUri may be mapped too
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
