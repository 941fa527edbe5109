"""Accelerators other than CUDA/ROCm GPUs that vLLM serves on through platform plugins: TPUs
(tpu-inference) and Intel Gaudi (vllm-gaudi). Their memory accounting is :mod:`vlint.memory.platforms`;
this module knows the devices (``vlint/data/accelerators.json``, each figure cited) and which one a
launch names (a GKE TPU node label, a KubeAI resource profile, a name in the image or labels)."""

from __future__ import annotations

import json
import re
from functools import cache

from vlint.core.paths import data_dir
from vlint.core.record import record


@record(frozen=True, slots=True)
class Accelerator:
    name: str
    #: ``TPU`` or ``HPU`` (:mod:`vlint.launch.platform`)
    platform: str
    #: device memory the plugin's accounting starts from, GiB
    hbm_gib: float
    aliases: tuple[str, ...] = ()
    source: str = ""


@cache
def _data() -> tuple[tuple[Accelerator, ...], dict[str, tuple[str, ...]]]:
    raw = json.loads((data_dir() / "accelerators.json").read_text())
    accs = tuple(
        Accelerator(r["name"], r["platform"], float(r["hbm_gib"]), tuple(r.get("aliases", [])), r.get("source", ""))
        for r in raw["accelerators"]
    )
    return accs, {k: tuple(v) for k, v in raw.get("reference", {}).items()}


def _words(text: str) -> str:
    return "-" + re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") + "-"


def lookup_accelerator(text: str | None, platform: str | None = None) -> Accelerator | None:
    """The accelerator a label or name means (``tpu-v6e-slice``, ``google-tpu-v5e-2x2``, ``Gaudi3``):
    a name or alias equal to it, or standing in it as whole words; None when none or several do."""
    if not text:
        return None
    accs = [a for a in _data()[0] if platform is None or a.platform == platform]
    low = str(text).strip().lower()
    for a in accs:
        if low in (a.name.lower(), *(x.lower() for x in a.aliases)):
            return a
    words = _words(low)
    hits = {a for a in accs for n in (a.name, *a.aliases) if _words(n) in words}
    return hits.pop() if len(hits) == 1 else None


def reference_accelerators(platform: str) -> tuple[Accelerator, ...]:
    """The devices a launch on ``platform`` that names none is answered over, smallest first."""
    accs, ref = _data()
    by_name = {a.name: a for a in accs}
    return tuple(sorted((by_name[n] for n in ref.get(platform, ()) if n in by_name), key=lambda a: a.hbm_gib))
