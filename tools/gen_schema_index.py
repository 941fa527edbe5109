"""Regenerate ``schemas/vllm/index.json`` (which bundled versions have each option and env var).

Run after adding or regenerating a schema: ``python tools/gen_schema_index.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vlint.argspec.history import build_index  # noqa: E402
from vlint.version import Version  # noqa: E402


def load_schemas(folder: Path) -> dict[Version, dict]:
    out = {}
    for p in sorted(folder.glob("*.json")):
        v = Version.try_parse(p.stem)
        if v is not None:
            out[v] = json.loads(p.read_text(encoding="utf-8"))
    return out


def render(folder: Path) -> str:
    return json.dumps(build_index(load_schemas(folder)), indent=0, sort_keys=False) + "\n"


def main() -> None:
    folder = ROOT / "schemas" / "vllm"
    (folder / "index.json").write_text(render(folder), encoding="utf-8")
    print(f"wrote {folder / 'index.json'}")


if __name__ == "__main__":
    main()
