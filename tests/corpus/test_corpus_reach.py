"""Reach over the shared corpus (issue 12): ``vlint explain --format json`` answers (``memory`` or
``gpu_fit``) for at least the pinned number of launches, and every other launch says why, with a fix.
Skips when ../shared is absent; the repository's own fixtures cover each behaviour (tests/launch/test_reach.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent

#: launches of corpus/real answered (bench/reach.py; docs/accuracy.md "Reach"): a floor that only
#: rises — with the bundled catalog of this commit, offline, no configuration, an empty HF cache
PINNED_ANSWERED = 119
PINNED_LAUNCHES = 158


def test_corpus_reach(shared: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-hub"))
    sys.path.insert(0, str(ROOT))
    from bench.reach import measure

    r = measure(shared / "corpus" / "real")
    assert r["launches"] >= PINNED_LAUNCHES
    assert r["answered"] >= PINNED_ANSWERED, r["per_kind"]
    # every unanswered launch has a kind of reason (measure() asserts each has memory_unavailable too)
    assert sum(n for k, n in r["per_kind"].items() if k not in ("memory", "gpu_fit")) == r["launches"] - r["answered"]
    assert all(u["kind"] for u in r["unanswered"])
    assert r["gpu_fit"] > 0 and r["memory"] > 0
