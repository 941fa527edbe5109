"""Refit the memory model's fitted constants from calibration records.

    python bench/fit_constants.py [--logs PATH]... [--write]

What is fitted, and why only that, is :mod:`fitting`'s docstring; ``--write`` stores the full-data fit in
``vlint/data/memory_constants.json``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from accuracy import default_logs, load_samples
from fitting import fit, write


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--logs", type=Path, action="append", default=None, help="may be given several times")
    ap.add_argument("--write", action="store_true", help="store the fit in vlint/data/memory_constants.json")
    args = ap.parse_args(argv)
    logs = args.logs or ([p] if (p := default_logs()) else [])
    if not logs:
        print("calibration logs not found (pass --logs PATH)", file=sys.stderr)
        return 2
    samples, _ = load_samples(logs)
    values = fit(samples)
    for k, v in values.items():
        print(k, v)
    if args.write:
        write(values)
        print("wrote vlint/data/memory_constants.json", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
