"""A model folder's own files, read without trusting them: ``config.json``, ``hf_quant_config.json``,
the safetensors index and safetensors *headers* (never tensor data), each capped, opened beneath the
lint root (:meth:`vlint.security.lint_root.LintRoot.open`)."""

from __future__ import annotations

import json
import os
import stat
import struct
from collections.abc import Mapping
from pathlib import Path

from vlint.core.lazy_re import lazy_compile
from vlint.core.typing_names import Any, BinaryIO
from vlint.security.lint_root import LintRoot, Refused

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
_SHARD = lazy_compile(r"-(\d+)-of-(\d+)\.safetensors$")


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
