"""The bundled vLLM release data (``schemas/vllm/``), as stored: read-only, loaded on demand.

Layout (written by ``tools/pack_schemas.py``; see tools/README.md "Storage"):

- ``index.json``: every bundled release (oldest first), ``aliases`` (a release whose record is
  identical to an earlier one of its minor series uses that record), a one-line ``summary`` per
  release, and for every option string, ``dest`` and environment variable the releases that have it
  as ranges of indices into ``versions`` (``[[first, last], …]``, inclusive). Read on every run.
- ``registries.json``: the same ranges for every value of every registry (quantization methods,
  load formats, …, model architectures) and the releases where each registry could be read. Read
  only by the checks that need it.
- ``releases/<version>.json.gz``: the generator's ``x-vlint`` record of one release (arguments,
  environment variables, parser features, registries), compact JSON, gzip. A run reads the one
  file of its target release.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from vlint.core.paths import schemas_dir
from vlint.core.typing_names import Any

Ranges = list[list[int]]


def vllm_dir() -> Path:
    return schemas_dir() / "vllm"


@cache
def index() -> dict[str, Any]:
    with (vllm_dir() / "index.json").open(encoding="utf-8") as f:
        return json.load(f)


@cache
def registries_doc() -> dict[str, Any]:
    with (vllm_dir() / "registries.json").open(encoding="utf-8") as f:
        return json.load(f)


def stored_as(version: str) -> str:
    """The release whose record ``version`` uses (itself unless it is an alias)."""
    return index().get("aliases", {}).get(version, version)


def record_path(version: str) -> Path:
    return vllm_dir() / "releases" / f"{stored_as(version)}.json.gz"


def read_record(version: str) -> dict[str, Any]:
    """The ``x-vlint`` record of a bundled release (``vllm_version`` is ``version`` itself, also
    for an alias; ``stored_as`` names the record used)."""
    import zlib

    data = zlib.decompress(record_path(version).read_bytes(), wbits=31)
    doc = json.loads(data)
    base = doc.get("vllm_version")
    doc["vllm_version"] = version
    doc["stored_as"] = base
    return doc


def expand(ranges: Ranges) -> tuple[int, ...]:
    """``[[0, 2], [5, 5]]`` → ``(0, 1, 2, 5)``."""
    out: list[int] = []
    for a, b in ranges:
        out.extend(range(a, b + 1))
    return tuple(out)


def contains(ranges: Ranges, i: int) -> bool:
    return any(a <= i <= b for a, b in ranges)


def to_ranges(indices: list[int] | tuple[int, ...]) -> Ranges:
    """``[0, 1, 2, 5]`` → ``[[0, 2], [5, 5]]`` (sorted, deduplicated)."""
    out: Ranges = []
    for i in sorted(set(indices)):
        if out and out[-1][1] == i - 1:
            out[-1][1] = i
        else:
            out.append([i, i])
    return out
