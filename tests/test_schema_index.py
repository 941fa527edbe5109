"""The cross-version index (schemas/vllm/index.json) must match the bundled schema files."""

from __future__ import annotations

import json
import sys

from vlint.paths import schemas_dir


def test_index_is_fresh() -> None:
    sys.path.insert(0, str(schemas_dir().parent / "tools"))
    from gen_schema_index import render

    folder = schemas_dir() / "vllm"
    on_disk = json.loads((folder / "index.json").read_text(encoding="utf-8"))
    stale = "schemas/vllm/index.json is stale: run python tools/gen_schema_index.py"
    assert on_disk == json.loads(render(folder)), stale
