"""tools/vllm_supported_examples.json: vLLM's Supported Models example ids and what the catalog has of each.

The file is the work list of the catalog rule "every example id of vLLM's text-generation and multimodal
generation tables" (docs/models.md); the catalog must agree with the status it records."""

from __future__ import annotations

import json
from pathlib import Path

from vlint.resolve import catalog as ms

ROOT = Path(__file__).resolve().parents[2]
DATA = json.loads((ROOT / "tools" / "vllm_supported_examples.json").read_text())
STATUSES = {"in_catalog", "added", "alias_added", "found_not_added", "not_found", "skipped", "no_example"}


def test_every_row_has_a_known_status_and_a_reason_where_one_is_due():
    assert DATA["source"].startswith("github:vllm-project/vllm@")
    for row in DATA["rows"]:
        assert row["status"] in STATUSES, row
        if row["status"] in ("skipped", "found_not_added", "no_example"):
            assert row.get("note"), row


def test_the_catalog_agrees_with_the_recorded_status():
    for row in DATA["rows"]:
        resolved = ms.resolve_catalog_id(row["id"]) if row["id"] != "TBA" else None
        if row["status"] in ("in_catalog", "added", "alias_added"):
            assert resolved is not None, row["id"]
        if row["status"] == "alias_added":
            assert resolved == row["resolves_to"], row["id"]
        if row["status"] in ("not_found", "found_not_added"):
            assert resolved is None, row["id"]  # found since: update the status
