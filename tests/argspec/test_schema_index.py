"""The bundle's index, registry history and alias decisions (schemas/vllm/) must match its release records."""

from __future__ import annotations

import json
import sys

import pytest

from vlint.core.paths import schemas_dir
from vlint.core.version import V


def _packer():
    sys.path.insert(0, str(schemas_dir().parent / "tools"))
    import pack_schemas

    return pack_schemas


def test_bundle_is_fresh() -> None:
    problems = _packer().stale(schemas_dir() / "vllm")
    assert problems == [], f"stale: {problems}: run python tools/pack_schemas.py"


def _record(version: str, **changes: object) -> dict:
    base = {"vllm_version": version, "arguments": [{"dest": "x", "option_strings": ["--x"]}], "env_vars": {}}
    return {**base, **changes}


def test_aliases_are_decided_by_comparing() -> None:
    p = _packer()
    same = {v: _record(v) for v in ("0.8.5", "0.8.5.post1", "0.9.0")}
    # identical within a minor series: an alias; identical across series: stored (0.9.0)
    assert p.decide_aliases(same) == {"0.8.5.post1": "0.8.5"}
    differ = {**same, "0.8.5.post1": _record("0.8.5.post1", env_vars={"VLLM_X": "1"})}
    assert p.decide_aliases(differ) == {}


def test_alias_chain_points_at_the_stored_record() -> None:
    p = _packer()
    recs = {v: _record(v) for v in ("0.6.1", "0.6.1.post1", "0.6.1.post2")}
    assert p.decide_aliases(recs) == {"0.6.1.post1": "0.6.1", "0.6.1.post2": "0.6.1"}


def test_ranges_roundtrip() -> None:
    from vlint.argspec.bundle import expand, to_ranges

    assert to_ranges([5, 0, 1, 2, 2]) == [[0, 2], [5, 5]]
    assert expand([[0, 2], [5, 5]]) == (0, 1, 2, 5)


def test_pack_writes_deterministic_records(tmp_path) -> None:
    p = _packer()
    recs = {v: _record(v) for v in ("0.8.5", "0.8.5.post1")}
    p.write(recs, tmp_path)
    first = (tmp_path / "releases" / "0.8.5.json.gz").read_bytes()
    assert not (tmp_path / "releases" / "0.8.5.post1.json.gz").exists()
    idx = json.loads((tmp_path / "index.json").read_text())
    assert idx["versions"] == ["0.8.5", "0.8.5.post1"] and idx["aliases"] == {"0.8.5.post1": "0.8.5"}
    assert idx["options"]["--x"] == [[0, 1]]
    p.write(recs, tmp_path)
    assert (tmp_path / "releases" / "0.8.5.json.gz").read_bytes() == first
    assert p.load_bundle(tmp_path)["0.8.5.post1"]["vllm_version"] == "0.8.5.post1"


@pytest.mark.parametrize("name", ["index.json", "registries.json"])
def test_bundle_files_are_compact_json(name: str) -> None:
    doc = json.loads((schemas_dir() / "vllm" / name).read_text(encoding="utf-8"))
    assert doc["versions"] == sorted(doc["versions"], key=V)
