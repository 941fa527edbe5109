"""Record vLLM's releases on PyPI (from 0.6.0 on) in tools/vllm_releases.txt.

    python tools/refresh_vllm_releases.py            # rewrite the file from `pip index versions vllm`
    python tools/refresh_vllm_releases.py --check    # exit 1 when PyPI has a release the file lacks
    python tools/refresh_vllm_releases.py --new      # print releases on PyPI without a bundled schema

The list is what `vlint schema versions` is tested against (tests/argspec/test_releases.py)
and what tools/gen_all_schemas.sh builds by default. Only final and post releases are listed
(PyPI's vLLM has no pre-releases in that range; any would be skipped by `pip index`).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RELEASES = ROOT / "tools" / "vllm_releases.txt"
SCHEMAS = ROOT / "schemas" / "vllm"
OLDEST = (0, 6, 0)


def _key(v: str) -> tuple[tuple[int, ...], int]:
    m = re.fullmatch(r"(\d+(?:\.\d+)*)(?:\.post(\d+))?", v)
    if not m:
        raise ValueError(f"not a release: {v}")
    return tuple(int(p) for p in m.group(1).split(".")), int(m.group(2) or -1)


def pypi_releases() -> list[str]:
    out = subprocess.run(
        [sys.executable, "-m", "pip", "index", "versions", "vllm"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    m = re.search(r"Available versions:\s*(.+)", out)
    if not m:
        raise SystemExit(f"unexpected `pip index versions` output:\n{out}")
    versions = [v.strip() for v in m.group(1).split(",") if v.strip()]
    keep = [v for v in versions if re.fullmatch(r"\d+(\.\d+)*(\.post\d+)?", v)]
    return sorted((v for v in keep if _key(v)[0] >= OLDEST), key=_key)


def recorded() -> list[str]:
    return [ln.strip() for ln in RELEASES.read_text().splitlines() if ln.strip() and not ln.startswith("#")]


def bundled() -> set[str]:
    import json

    index = json.loads((SCHEMAS / "index.json").read_text())
    return set(index.get("versions", index))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--new", action="store_true")
    args = ap.parse_args(argv)
    live = pypi_releases()
    if args.new:
        have = bundled()
        for v in live:
            if v not in have:
                print(v)
        return 0
    if args.check:
        missing = [v for v in live if v not in recorded()]
        print("\n".join(missing))
        return 1 if missing else 0
    header = (
        "# vLLM releases on PyPI from 0.6.0 on, oldest first (tools/refresh_vllm_releases.py;\n"
        "# source: `pip index versions vllm`). One release a line.\n"
    )
    RELEASES.write_text(header + "".join(f"{v}\n" for v in live))
    print(f"{len(live)} releases, {live[0]} .. {live[-1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
