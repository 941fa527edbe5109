"""GPU catalog: total memory as vLLM sees it, and loose name matching.

``total_gib`` is ``torch.cuda.mem_get_info()`` total in GiB, the figure vLLM multiplies by
``gpu_memory_utilization`` (an H100 80GB is 79.19 GiB, not 80). Names are matched loosely:
``H100``, ``h100-80gb``, ``NVIDIA-H100-80GB-HBM3`` (Kubernetes ``nvidia.com/gpu.product``),
``Tesla-T4``, GKE ``nvidia-l4`` / ``nvidia-tesla-a100``… Cloud instance types (``g5.xlarge``) are
:mod:`vlint.hardware.instances`, with their GPU count.
"""

from __future__ import annotations

import json
import re
from functools import cache

from vlint.core.paths import data_dir
from vlint.core.record import record


@record(frozen=True)
class GpuSpec:
    name: str
    vendor: str
    total_gib: float
    device_name: str = ""
    compute_capability: str | None = None
    bandwidth_gbps: float | None = None
    nvlink: bool = False
    unified_memory: bool = False
    aliases: tuple[str, ...] = ()
    source: str = ""
    custom: bool = False

    @property
    def total_bytes(self) -> int:
        return int(self.total_gib * 2**30)

    @property
    def cc_major_minor(self) -> tuple[int, int] | None:
        if not self.compute_capability:
            return None
        try:
            a, _, b = self.compute_capability.partition(".")
            return int(a), int(b or 0)
        except ValueError:
            return None

    @property
    def consumer(self) -> bool:
        """A GeForce card: NVIDIA's consumer line, the one most often also driving a desktop. Read from
        ``device_name``, which is what ``torch.cuda.get_device_name()`` returns (``NVIDIA GeForce RTX
        4090``; vlint/data/gpus.json "about"); datacenter and workstation parts (``NVIDIA H100 80GB HBM3``,
        ``Tesla T4``, ``NVIDIA RTX A6000``) do not carry the brand. A custom GPU (``--gpu-memory-gib``) has
        no device name, so it is not one."""
        return "geforce" in self.device_name.lower()

    @property
    def is_blackwell_datacenter(self) -> bool:
        cc = self.cc_major_minor
        return cc is not None and cc[0] == 10


_DROP_WORDS = ("nvidia", "tesla", "geforce", "amd", "instinct", "graphics", "gpu", "radeon")
# families, longest / most specific first (substring tests on the compacted name)
_FAMILIES = (
    "rtx5090laptop",
    "5090laptop",
    "5090mobile",
    "gh200",
    "gb200",
    "gb300",
    "gb10",
    "h200",
    "h100",
    "h20",
    "b200",
    "b300",
    "a800",
    "a100",
    "a10g",
    "a10",
    "l40s",
    "l40",
    "l4",
    "t4",
    "v100",
    "a6000",
    "3090ti",
    "3090",
    "4090",
    "5090",
    "4060",
    "2080ti",
    "mi300x",
    "mi325x",
)


def _compact(s: str) -> str:
    s = s.lower()
    for w in _DROP_WORDS:
        s = s.replace(w, " ")
    return re.sub(r"[^a-z0-9.]", "", s)


def _family(compact: str) -> str | None:
    for f in _FAMILIES:
        if f in compact:
            return {"rtx5090laptop": "5090laptop", "5090mobile": "5090laptop"}.get(f, f)
    return None


def _mem_hint(s: str) -> int | None:
    s = s.lower()
    m = re.search(r"(\d{2,3})\s*g(?:i)?b?\b", s) or re.search(r"(\d{2,3})gb", s.replace("-", ""))
    if m:
        return int(m.group(1))
    m = re.search(r"[-_ ](\d{2,3})(?:g)?(?:[-_ ]|$)", s)
    if m and int(m.group(1)) in (16, 24, 32, 40, 48, 80, 94, 96, 141, 144, 180, 186, 192, 256, 288):
        return int(m.group(1))
    return None


def _spec(rec: dict) -> GpuSpec:
    return GpuSpec(
        name=rec["name"],
        vendor=rec.get("vendor", "nvidia"),
        total_gib=float(rec["total_gib"]),
        device_name=rec.get("device_name", ""),
        compute_capability=rec.get("compute_capability"),
        bandwidth_gbps=rec.get("bandwidth_gbps"),
        nvlink=bool(rec.get("nvlink", False)),
        unified_memory=bool(rec.get("unified_memory", False)),
        aliases=tuple(rec.get("aliases", [])),
        source=rec.get("source", ""),
    )


@cache
def all_gpus() -> tuple[GpuSpec, ...]:
    data = json.loads((data_dir() / "gpus.json").read_text())
    return tuple(_spec(r) for r in data["gpus"])


@cache
def _index() -> tuple[dict[str, GpuSpec], dict[str, list[GpuSpec]]]:
    exact: dict[str, GpuSpec] = {}
    fams: dict[str, list[GpuSpec]] = {}
    for g in all_gpus():
        for n in (g.name, g.device_name, *g.aliases):
            if n:
                exact.setdefault(_compact(n), g)
                exact.setdefault(n.lower(), g)
        f = _family(_compact(g.name)) or _family(_compact(g.device_name))
        if f:
            fams.setdefault(f, []).append(g)
    return exact, fams


def _marketing_gb(g: GpuSpec) -> int | None:
    m = re.search(r"(\d{2,3})GB", g.name)
    return int(m.group(1)) if m else None


def exact_gpu(name: str | None) -> GpuSpec | None:
    """The catalog GPU whose name, device name or alias is ``name`` (case and punctuation aside);
    never the loose family match of :func:`lookup_gpu`."""
    if not name or not str(name).strip():
        return None
    exact, _ = _index()
    raw = str(name).strip()
    return exact.get(raw.lower()) or exact.get(_compact(raw))


def lookup_gpu(name: str | None) -> GpuSpec | None:
    """The catalog GPU for a loosely written name; ``None`` when unknown."""
    if not name or not str(name).strip():
        return None
    raw = str(name).strip()
    exact, fams = _index()
    if raw.lower() in exact:
        return exact[raw.lower()]
    c = _compact(raw)
    if c in exact:
        return exact[c]
    fam = _family(c)
    if fam is None:
        return None
    cands = fams.get(fam, [])
    if not cands:
        return None
    if len(cands) == 1:
        return cands[0]
    low = raw.lower()
    form = next((f for f in ("pcie", "nvl", "sxm") if f in low), None)
    mem = _mem_hint(low)
    scored = []
    for g in cands:
        score = 0
        gl = g.name.lower()
        if mem is not None and _marketing_gb(g) == mem:
            score += 4
        if form and form in gl:
            score += 2
        if form is None and "pcie" not in gl:
            score += 1
        # the entry that owns the bare family alias is the default variant
        if any(_compact(a) == fam for a in g.aliases):
            score += 1
        scored.append((score, g))
    scored.sort(key=lambda t: -t[0])
    return scored[0][1]


def gpu_from_memory(total_gib: float, name: str = "custom") -> GpuSpec:
    """A GPU known only by its memory (``--gpu-memory-gib``): treated as vLLM would see a device
    of that total size with an unknown name."""
    return GpuSpec(
        name=name,
        vendor="unknown",
        total_gib=float(total_gib),
        device_name=name,
        source="given by the user (--gpu-memory-gib)",
        custom=True,
    )


__all__ = ["GpuSpec", "all_gpus", "exact_gpu", "gpu_from_memory", "lookup_gpu"]
