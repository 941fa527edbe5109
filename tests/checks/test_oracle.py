"""vLLM is the oracle: vlint must agree with what each release's own startup code did on every recorded
launch case (tests/data/oracle/<release>.jsonl, written by bench/oracle.py; see tests/data/oracle/README.md).

* a launch vLLM refused: vlint reports an error, and the error says what vLLM's message says;
* a launch vLLM accepted: no error, and ``vlint explain --format json`` shows the settings vLLM resolved.

Every disagreement must be listed with its reason in tests/data/oracle/disagreements.yaml (and a listed one
that agrees again fails too, so the list stays true); on top, per release, at least 95 % of refusals and
98 % of acceptances must agree. No vLLM is needed: the verdicts are recorded.
"""

from __future__ import annotations

import fnmatch
import sys
from collections import defaultdict
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

import oracle  # noqa: E402  (bench/oracle.py: the harness and the comparison)

DATA = ROOT / "tests" / "data" / "oracle"
RECORDS = [r for r in oracle.load_records(DATA) if r["verdict"] in ("accept", "reject")]
REFUSALS_NEEDED = 0.95
ACCEPTANCES_NEEDED = 0.98


@cache
def _engine() -> Any:
    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine

    return Engine(load_catalog())


@cache
def _judged() -> dict[tuple[str, str], dict[str, Any]]:
    """Every compared record's judgement (records whose verdict the CPU platform decides are left out)."""
    out = {}
    for r, o in zip(RECORDS, oracle.vlint_outcomes(RECORDS, _engine()), strict=True):
        j = oracle.judge(r, o)
        if "agree" in j:
            out[(r["release"], r["id"])] = j
    return out


def _entries() -> list[dict[str, Any]]:
    entries = yaml.safe_load((DATA / "disagreements.yaml").read_text()) or []
    for e in entries:
        assert e.get("reason", "").strip(), f"disagreement {e['id']} has no reason"
        assert e.get("what"), f"disagreement {e['id']} does not say what disagrees"
    return entries


def _entry_for(key: tuple[str, str], entries: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The listed disagreement covering (release, id): ``id`` may be a glob (``*``), ``releases`` a list or
    ``all``."""
    rel, cid = key
    for e in entries:
        rels = e.get("releases", "all")
        if (rels == "all" or rel in [str(x) for x in rels]) and fnmatch.fnmatchcase(cid, str(e["id"])):
            return e
    return None


def _problems(j: dict[str, Any]) -> list[str]:
    """What disagrees about one record: 'verdict', 'message', 'value:<setting>'."""
    if not j["agree"]:
        return ["verdict"]
    out = []
    if j["verdict"] == "reject" and not j.get("message_ok", True):
        out.append("message")
    out += [f"value:{k}" for k in sorted(j.get("value_diffs") or {})]
    return out


def test_oracle_data_covers_twenty_releases_and_800_cases() -> None:
    releases = {r["release"] for r in RECORDS}
    cases = {r["id"] for r in RECORDS}
    assert len(cases) >= 800, f"{len(cases)} distinct cases compared ({len(RECORDS)} records)"
    assert len(releases) >= 20, sorted(releases)
    keys = sorted(releases, key=oracle.vkey)
    assert oracle.vkey(keys[0]) < oracle.vkey("0.7.0") and oracle.vkey(keys[-1]) >= oracle.vkey("0.33.0"), keys
    assert {r["harness"] for r in RECORDS} == {oracle.HARNESS_VERSION}


def test_every_disagreement_is_listed_with_its_reason() -> None:
    entries = _entries()
    unlisted, used = [], set()
    for key, j in sorted(_judged().items(), key=lambda kv: (oracle.vkey(kv[0][0]), kv[0][1])):
        probs = _problems(j)
        if not probs:
            continue
        entry = _entry_for(key, entries)
        if entry is None or not set(probs) <= set(entry["what"]):
            unlisted.append(f"{key[0]} {key[1]}: {', '.join(probs)} {j.get('value_diffs') or ''}")
        else:
            used.add(id(entry))
    assert not unlisted, "disagreements not listed in tests/data/oracle/disagreements.yaml:\n" + "\n".join(unlisted)
    stale = [f"{e['id']} ({e.get('releases', 'all')})" for e in entries if id(e) not in used]
    assert not stale, "listed in disagreements.yaml but vlint agrees now: " + ", ".join(stale)


def agreement() -> dict[str, dict[str, int]]:
    """Per release: refusals / agreeing refusals (error with a consistent message) / acceptances / agreeing
    acceptances (no error) / settings compared / settings equal."""
    table: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for (rel, _id), j in _judged().items():
        t = table[rel]
        if j["verdict"] == "reject":
            t["refusals"] += 1
            t["refusals_agree"] += bool(j["agree"] and j.get("message_ok"))
        else:
            t["acceptances"] += 1
            t["acceptances_agree"] += bool(j["agree"])
    return table


@pytest.mark.parametrize("release", sorted({r["release"] for r in RECORDS}, key=oracle.vkey))
def test_agreement_per_release(release: str) -> None:
    t = agreement()[release]
    if t["refusals"]:
        rate = t["refusals_agree"] / t["refusals"]
        assert rate >= REFUSALS_NEEDED, f"{release}: {t['refusals_agree']}/{t['refusals']} refusals agree"
    if t["acceptances"]:
        rate = t["acceptances_agree"] / t["acceptances"]
        assert rate >= ACCEPTANCES_NEEDED, f"{release}: {t['acceptances_agree']}/{t['acceptances']} acceptances agree"


def test_the_comparison_can_fail() -> None:
    """A vLLM refusal vlint does not report, a message that names other facts, and a differing value are
    each found (the judge is not vacuous)."""
    rec = {"id": "x", "release": "0.33.0", "verdict": "reject", "message": "max_num_seqs (0) must be >= 1"}
    assert not oracle.judge(rec, {"rejects": False, "errors": [], "file_errors": [], "settings": {}})["agree"]
    j = oracle.judge(rec, {"rejects": True, "errors": [("VL001", "unknown option --foo")], "file_errors": []})
    assert j["agree"] and not j["message_ok"]
    acc = {"id": "y", "release": "0.33.0", "verdict": "accept", "values": {"max_num_seqs": 256}}
    j = oracle.judge(acc, {"rejects": False, "errors": [], "file_errors": [], "settings": {"max_num_seqs": 128}})
    assert j["value_diffs"] == {"max_num_seqs": (256, 128)}
