"""Generate ``vlint/data/instances.json``: cloud instance type -> (GPU of vlint's catalog, count).

Reads SkyPilot catalog CSVs (``catalogs/v5/<cloud>/vms.csv`` of skypilot-org/skypilot-catalog, or a
catalog in the same format); only the columns ``InstanceType``, ``AcceleratorName``,
``AcceleratorCount`` and ``GpuInfo`` are used, so rows of every region collapse to one entry.

    python tools/gen_instances.py \\
        --csv aws=/tmp/aws/vms.csv --cite aws="skypilot-org/skypilot-catalog@<commit> catalogs/v5/aws/vms.csv" \\
        --csv azure=... --cite azure=... --csv gcp=... --cite gcp=...

or ``--git-dir DIR --repo owner/name`` to read ``catalogs/v5/<cloud>/vms.csv`` at the snapshot's HEAD
(the cite is then ``owner/name@<HEAD commit> catalogs/v5/<cloud>/vms.csv``). The CSVs are never
committed; the JSON records where each entry came from.

What is kept (nothing is guessed, everything left out is counted in ``left_out``):
- rows with an instance type, an accelerator name and a whole count >= 1 (Azure's fractional
  vGPU slices, ``0.333`` of an A10, are left out: ``fractional``);
- the accelerator must be a name of vlint's GPU catalog exactly (an alias, not the loose family
  match ``lookup_gpu`` does): ``K80``, ``T4g``, ``Radeon Pro V520``, ``MI25``… are ``not_in_catalog``;
- when ``GpuInfo`` states the per-GPU memory (AWS: ``MemoryInfo.SizeInMiB``), it must agree with
  the catalog entry's size (within 15 %: A10G/L4 report 22888 MiB of a 24 GB card), else
  ``memory_disagrees``;
- when it states none (Azure) and vlint's catalog has variants of that family with different memory
  (H100 80 GB SXM / 94 GB NVL), the bare name is only taken for the base variant if the catalog's
  own vocabulary names the larger ones separately (``A100`` next to ``A100-80GB``, ``V100`` next to
  ``V100-32GB``); otherwise ``ambiguous_memory`` (Azure's ``H100`` rows name both NC H100 v5, NVL,
  and ND H100 v5, SXM);
- an instance type whose rows disagree (two accelerators or counts) is ``conflicting``.
GCP's ``vms.csv`` lists accelerators in rows of their own (no instance type) and the A2/A3/G2
machine types without accelerators, so it contributes nothing: nothing is inferred from the name.
"""

from __future__ import annotations

import argparse
import ast
import csv
import io
import json
import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vlint.hardware.gpus import GpuSpec, _compact, _family, _index, _marketing_gb, exact_gpu  # noqa: E402

OUT = ROOT / "vlint" / "data" / "instances.json"
CLOUDS = ("aws", "azure", "gcp")
MEMORY_TOLERANCE = 0.15
csv.field_size_limit(1 << 24)


def per_gpu_mib(info: str) -> int | None:
    """``MemoryInfo.SizeInMiB`` of the first GPU in a ``GpuInfo`` cell, when it states one."""
    text = (info or "").strip()
    if not text.startswith("{"):
        return None
    try:
        data = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    gpus = data.get("Gpus") if isinstance(data, dict) else None
    if not gpus or not isinstance(gpus, list) or not isinstance(gpus[0], dict):
        return None
    mib = (gpus[0].get("MemoryInfo") or {}).get("SizeInMiB")
    return int(mib) if isinstance(mib, int | float) and mib > 0 else None


def _count(text: str) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def map_accelerator(name: str, mib: int | None, vocabulary: set[str]) -> tuple[GpuSpec | None, str]:
    """(catalog GPU, "") or (None, reason left out)."""
    gpu = exact_gpu(name)
    if gpu is None:
        return None, "not_in_catalog"
    gb = _marketing_gb(gpu)
    if mib is not None:
        if gb is not None and abs(mib / 1024 - gb) / gb > MEMORY_TOLERANCE:
            return None, "memory_disagrees"
        return gpu, ""
    fam = _family(_compact(gpu.name)) or _family(_compact(gpu.device_name))
    _, fams = _index()
    sizes = {_marketing_gb(g) for g in fams.get(fam or "", [gpu])}
    if len(sizes) > 1 and not re.search(r"\d+GB", name, re.IGNORECASE):
        named_apart = any(re.fullmatch(re.escape(name) + r"-\d+GB", v, re.IGNORECASE) for v in vocabulary)
        if not named_apart:
            return None, "ambiguous_memory"
    return gpu, ""


def read_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def build(tables: dict[str, tuple[list[dict[str, str]], str]]) -> dict:
    vocabulary = {r.get("AcceleratorName", "") for rows, _ in tables.values() for r in rows}
    instances: dict[str, dict] = {}
    left_out: dict[str, Counter] = {}
    per_cloud: dict[str, int] = {}
    for cloud, (rows, cite) in sorted(tables.items()):
        seen: dict[str, set[tuple[str, float]]] = defaultdict(set)
        mem: dict[str, int | None] = {}
        loose: set[str] = set()
        for r in rows:
            itype, acc = (r.get("InstanceType") or "").strip(), (r.get("AcceleratorName") or "").strip()
            n = _count(r.get("AcceleratorCount", ""))
            if acc and not itype:
                loose.add(acc)  # GCP: an accelerator to attach, not an instance type
            if not itype or not acc or n is None or n <= 0:
                continue
            seen[itype].add((acc, n))
            mem.setdefault(itype, per_gpu_mib(r.get("GpuInfo", "")))
        skipped: Counter = Counter()
        if loose:
            skipped["accelerators listed without an instance type (distinct names)"] = len(loose)
        kept = 0
        for itype, options in sorted(seen.items()):
            if len(options) != 1:
                skipped["conflicting"] += 1
                continue
            acc, n = next(iter(options))
            if n != int(n):
                skipped["fractional"] += 1
                continue
            gpu, why = map_accelerator(acc, mem[itype], vocabulary)
            if gpu is None:
                skipped[f"{why}: {acc}"] += 1
                continue
            key = itype.lower()
            if key in instances:
                skipped["duplicate across clouds"] += 1
                continue
            instances[key] = {"name": itype, "gpu": gpu.name, "count": int(n), "accelerator": acc, "source": cite}
            kept += 1
        per_cloud[cloud] = kept
        left_out[cloud] = skipped
    return {
        "about": (
            "Cloud instance types with the GPUs they carry, generated by tools/gen_instances.py from the "
            "SkyPilot catalog CSVs named in each entry's source (InstanceType, AcceleratorName, "
            "AcceleratorCount, GpuInfo). Keys are lower-case instance names; gpu is a name of gpus.json. "
            "Do not edit: regenerate. left_out counts instance types the tool did not take, and why."
        ),
        "sources": {cloud: cite for cloud, (_, cite) in sorted(tables.items())},
        "counts": per_cloud,
        "left_out": {c: dict(sorted(v.items())) for c, v in sorted(left_out.items())},
        "instances": dict(sorted(instances.items())),
    }


def _from_git(git_dir: str, repo: str, cloud: str) -> tuple[str, str] | None:
    path = f"catalogs/v5/{cloud}/vms.csv"
    head = subprocess.run(["git", f"--git-dir={git_dir}", "rev-parse", "HEAD"], capture_output=True, text=True)
    show = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"HEAD:{path}"], capture_output=True, text=True)
    if head.returncode or show.returncode:
        return None
    return show.stdout, f"{repo}@{head.stdout.strip()} {path}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--csv", action="append", default=[], metavar="CLOUD=PATH")
    p.add_argument("--cite", action="append", default=[], metavar="CLOUD=SOURCE")
    p.add_argument("--note", action="append", default=[], metavar="CLOUD=TEXT", help="how the CSV was obtained")
    p.add_argument("--git-dir")
    p.add_argument("--repo", default="skypilot-org/skypilot-catalog")
    p.add_argument("--out", default=str(OUT))
    a = p.parse_args(argv)
    cites = dict(c.split("=", 1) for c in a.cite)
    tables: dict[str, tuple[list[dict[str, str]], str]] = {}
    if a.git_dir:
        for cloud in CLOUDS:
            got = _from_git(a.git_dir, a.repo, cloud)
            if got is not None:
                tables[cloud] = (read_rows(got[0]), got[1])
    for item in a.csv:
        cloud, path = item.split("=", 1)
        if cloud not in cites:
            p.error(f"--cite {cloud}=SOURCE is required for --csv {item}")
        tables[cloud] = (read_rows(Path(path).read_text()), cites[cloud])
    if not tables:
        p.error("no catalog given (--csv or --git-dir)")
    data = build(tables)
    if a.note:
        data["notes"] = dict(sorted(n.split("=", 1) for n in a.note))
    Path(a.out).write_text(json.dumps(data, indent=1, sort_keys=False) + "\n")
    for cloud in sorted(tables):
        lo = data["left_out"][cloud]
        print(f"{cloud}: {data['counts'][cloud]} instance types kept, {sum(lo.values())} left out")
        for why, n in lo.items():
            print(f"    {n:4d}  {why}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
