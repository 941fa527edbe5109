"""Store generated vLLM release schemas in vlint's compact bundle (``schemas/vllm/``).

    python tools/pack_schemas.py --add OUT_DIR   # add/replace the generator's <version>.json files
    python tools/pack_schemas.py                 # rebuild index.json and registries.json only
    python tools/pack_schemas.py --check         # exit 1 when index/registries/aliases are stale

``OUT_DIR`` holds what ``tools/gen_vllm_schema.py --out OUT_DIR`` wrote (one JSON Schema document
per release, with its ``x-vlint`` record). Only the record is stored (the JSON Schema part is rebuilt
from the arguments by ``vlint schema export``), as compact gzip-compressed JSON, one file per
release. A release whose record is identical (all but its version) to the previous release of the
same minor series is stored as an **alias** of it: decided here by comparing the records, never
assumed. The index and the registry history are rebuilt from all records. See tools/README.md.
"""

from __future__ import annotations

import argparse
import gzip
import itertools
import json
import sys
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vlint.argspec.bundle import to_ranges  # noqa: E402
from vlint.core.version import Version  # noqa: E402

FOLDER = ROOT / "schemas" / "vllm"
#: keys of a record that are not compared when deciding an alias
UNCOMPARED = ("vllm_version", "generated_at", "stored_as")
#: registries kept at the top level of a record by generator format 1
TOP_LEVEL_REGISTRIES = {"quantization_methods": "methods", "kv_cache_dtypes": "dtypes"}


def _dump(record: dict[str, Any]) -> bytes:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _comparable(record: dict[str, Any]) -> bytes:
    return _dump({k: v for k, v in record.items() if k not in UNCOMPARED})


def load_bundle(folder: Path = FOLDER) -> dict[str, dict[str, Any]]:
    """Every bundled release's record (aliases expanded), by version string."""
    out: dict[str, dict[str, Any]] = {}
    rel = folder / "releases"
    for p in sorted(rel.glob("*.json.gz")):
        rec = json.loads(zlib.decompress(p.read_bytes(), wbits=31))
        out[rec["vllm_version"]] = rec
    idx_path = folder / "index.json"
    if idx_path.exists():
        for alias, base in json.loads(idx_path.read_text(encoding="utf-8")).get("aliases", {}).items():
            if base in out:
                out[alias] = {**out[base], "vllm_version": alias}
    return out


def load_generated(folder: Path) -> dict[str, dict[str, Any]]:
    """The generator's documents in ``folder`` (``<version>.json``) → their ``x-vlint`` records."""
    out: dict[str, dict[str, Any]] = {}
    for p in sorted(folder.glob("*.json")):
        if Version.try_parse(p.stem) is None:
            continue
        doc = json.loads(p.read_text(encoding="utf-8"))
        rec = doc.get("x-vlint", doc)
        if rec.get("vllm_version") != p.stem:
            raise SystemExit(f"{p}: x-vlint.vllm_version is {rec.get('vllm_version')!r}, not {p.stem}")
        out[p.stem] = rec
    return out


def decide_aliases(records: dict[str, dict[str, Any]]) -> dict[str, str]:
    """release → the earlier release of its minor series whose record it repeats exactly."""
    aliases: dict[str, str] = {}
    versions = sorted(records, key=Version.parse)
    for prev, cur in itertools.pairwise(versions):
        if Version.parse(prev).minor != Version.parse(cur).minor:
            continue
        if _comparable(records[prev]) == _comparable(records[cur]):
            aliases[cur] = aliases.get(prev, prev)
    return aliases


def _registries_of(record: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``{name: {source, values}}``: the record's ``registries`` plus the two kept at its top level."""
    out = dict(record.get("registries") or {})
    for name, key in TOP_LEVEL_REGISTRIES.items():
        v = record.get(name)
        if isinstance(v, dict) and v.get(key):
            out.setdefault(name, {"source": v.get("source"), "values": list(v[key])})
    return out


def build_index(records: dict[str, dict[str, Any]], aliases: dict[str, str]) -> dict[str, Any]:
    versions = sorted(records, key=Version.parse)
    options: dict[str, list[int]] = {}
    dests: dict[str, list[int]] = {}
    env: dict[str, list[int]] = {}
    summary: dict[str, list[Any]] = {}
    for i, v in enumerate(versions):
        rec = records[v]
        args = rec.get("arguments", [])
        for a in args:
            for o in (*(a.get("option_strings") or ()), *(a.get("negative_option_strings") or ())):
                options.setdefault(o, []).append(i)
            dests.setdefault(a["dest"], []).append(i)
        for name in rec.get("env_vars") or {}:
            env.setdefault(name, []).append(i)
        summary[v] = [len(args), len(rec.get("env_vars") or {}), rec.get("parser_module")]
    return {
        "generated_by": "tools/pack_schemas.py",
        "format": 2,
        "versions": versions,
        "aliases": {k: aliases[k] for k in sorted(aliases, key=Version.parse)},
        "summary": summary,
        "options": {k: to_ranges(options[k]) for k in sorted(options)},
        "dests": {k: to_ranges(dests[k]) for k in sorted(dests)},
        "env_vars": {k: to_ranges(env[k]) for k in sorted(env)},
    }


def build_registries(records: dict[str, dict[str, Any]]) -> dict[str, Any]:
    versions = sorted(records, key=Version.parse)
    values: dict[str, dict[str, list[int]]] = {}
    extracted: dict[str, list[int]] = {}
    sources: dict[str, dict[str, list[int]]] = {}
    for i, v in enumerate(versions):
        for name, reg in _registries_of(records[v]).items():
            vals = reg.get("values")
            if not vals:
                continue
            extracted.setdefault(name, []).append(i)
            sources.setdefault(name, {}).setdefault(str(reg.get("source")), []).append(i)
            for value in vals:
                values.setdefault(name, {}).setdefault(str(value), []).append(i)
    return {
        "generated_by": "tools/pack_schemas.py",
        "versions": versions,
        "extracted": {k: to_ranges(extracted[k]) for k in sorted(extracted)},
        "sources": {k: {s: to_ranges(ix) for s, ix in sorted(sources[k].items())} for k in sorted(sources)},
        "registries": {k: {x: to_ranges(ix) for x, ix in sorted(values[k].items())} for k in sorted(values)},
    }


def render(records: dict[str, dict[str, Any]]) -> tuple[dict[str, bytes], str, str, dict[str, str]]:
    """(stored record files by version, index.json text, registries.json text, aliases)."""
    aliases = decide_aliases(records)
    files = {v: gzip.compress(_dump(r), compresslevel=9, mtime=0) for v, r in records.items() if v not in aliases}
    index = json.dumps(build_index(records, aliases), separators=(",", ":")) + "\n"
    regs = json.dumps(build_registries(records), separators=(",", ":")) + "\n"
    return files, index, regs, aliases


def write(records: dict[str, dict[str, Any]], folder: Path = FOLDER) -> dict[str, str]:
    files, index, regs, aliases = render(records)
    rel = folder / "releases"
    rel.mkdir(parents=True, exist_ok=True)
    for p in rel.glob("*.json.gz"):
        if p.name[: -len(".json.gz")] not in files:
            p.unlink()
    for v, data in files.items():
        p = rel / f"{v}.json.gz"
        # rewrite only when the content changed (gzip bytes may differ between zlib builds)
        if not p.exists() or zlib.decompress(p.read_bytes(), wbits=31) != zlib.decompress(data, wbits=31):
            p.write_bytes(data)
    (folder / "index.json").write_text(index, encoding="utf-8")
    (folder / "registries.json").write_text(regs, encoding="utf-8")
    return aliases


def stale(folder: Path = FOLDER) -> list[str]:
    """What ``--check`` reports: files that do not match a rebuild from the stored records."""
    records = load_bundle(folder)
    files, index, regs, _aliases = render(records)
    problems = []
    if json.loads((folder / "index.json").read_text(encoding="utf-8")) != json.loads(index):
        problems.append("index.json")
    if json.loads((folder / "registries.json").read_text(encoding="utf-8")) != json.loads(regs):
        problems.append("registries.json")
    on_disk = {p.name[: -len(".json.gz")] for p in (folder / "releases").glob("*.json.gz")}
    if on_disk != set(files):
        problems.append(f"releases/ (stored {sorted(on_disk ^ set(files))} differ from the alias decision)")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--add", action="append", default=[], type=Path, help="folder of generated <version>.json")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    if args.check:
        problems = stale()
        for p in problems:
            print(f"stale: schemas/vllm/{p} (run python tools/pack_schemas.py)")
        return 1 if problems else 0
    records = load_bundle()
    for folder in args.add:
        new = load_generated(folder)
        records.update(new)
        print(f"{folder}: {len(new)} release(s): {', '.join(sorted(new, key=Version.parse))}")
    aliases = write(records)
    size = sum(p.stat().st_size for p in FOLDER.rglob("*") if p.is_file())
    print(f"{len(records)} releases ({len(aliases)} aliases), schemas/vllm/ {size / 1e6:.2f} MB")
    for a, b in aliases.items():
        print(f"  alias {a} → {b}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
