"""Memory-model accuracy against real vLLM startup logs: in-sample, leave-one-out, leave-one-release-out.

    python bench/accuracy.py [--logs PATH] [--markdown] [--verbose] [--write-uncertainty]

Runs vlint's memory model over the calibration records (default: ``calibration/vllm-logs.jsonl`` in
``$VLINT_SHARED``, else in the folder ``shared`` beside the repository) and compares predicted with
logged weights, activation peak, non-torch memory, CUDA-graph estimate, available KV memory, KV
tokens and the start/fail verdict.

Three ways of scoring, because the fitted constants (:mod:`fit_constants`) were fitted on these
very logs:

- **in-sample**: the constants as shipped (fitted on every record);
- **leave-one-out (LOO)**: for each record, the fitted constants are refit on all other records;
- **leave-one-release-out (LORO)**: for each release range, refit on the records of the other
  ranges (parameters left without data fall back to priors that do not come from these logs).

Only the deployment (model, GPU, version, args as logged) goes in; the logged numbers are used
solely for the comparison and the refits. Records whose model is not known (bundled catalog or
``--models DIR`` of ``config.json`` copies) or whose GPU is neither named in the GPU catalog nor
given by its logged total are skipped and listed. ``--markdown`` writes ``docs/accuracy.md``
(keeping any "## Agreement with vLLM" section already there). ``--write-uncertainty`` stores the
LOO per-term errors in ``vlint/data/memory_constants.json`` (the verdict band).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from fitting import Sample, fit  # noqa: E402

from vlint.core.version import Version  # noqa: E402
from vlint.hardware.gpus import gpu_from_memory, lookup_gpu  # noqa: E402
from vlint.memory import estimate_memory, inputs_from_resolved  # noqa: E402
from vlint.memory.constants import overridden  # noqa: E402
from vlint.memory.estimate import MemoryEstimate  # noqa: E402
from vlint.resolve.catalog import lookup_catalog  # noqa: E402
from vlint.resolve.defaults import resolve_defaults  # noqa: E402
from vlint.resolve.model_arch import ModelArch  # noqa: E402

GIB = float(2**30)

#: model types whose attention or weight format the memory model does not reproduce (reported, not scored)
from vlint.launch.memory_inputs import NOT_MODELLED as UNMODELLED  # noqa: E402 - the product's own table
from vlint.launch.memory_inputs import unmodelled_type  # noqa: E402

#: (name, observed key, estimate attribute)
QUANTITIES = (
    ("weights", "weights_gib", "weights_gib"),
    ("activation", "activation_peak_gib", "activation_gib"),
    ("non_torch", "non_torch_gib", "non_torch_gib"),
    ("cuda_graph_est", "cuda_graph_estimated_gib", "cuda_graph_gib"),
    ("kv_memory", "kv_cache_gib", "kv_cache_gib"),
    ("kv_tokens", "gpu_kv_cache_tokens", "kv_cache_tokens"),
)
NAMES = [q[0] for q in QUANTITIES]

RANGES = (
    ("≤0.5", (0, 0), (0, 6)),
    ("0.6–0.7", (0, 6), (0, 8)),
    ("0.8–0.10", (0, 8), (0, 11)),
    ("0.11–0.16", (0, 11), (0, 17)),
    ("0.17–0.20", (0, 17), (0, 21)),
    ("≥0.21", (0, 21), (99, 0)),
)


def release_range(v: Version) -> str:
    r = v.release[:2]
    for name, lo, hi in RANGES:
        if lo <= r < hi:
            return name
    return "?"


_QUANT_WORDS = ("awq", "gptq", "fp8", "w8a8", "w4a16", "nvfp4", "int4", "int8", "gguf", "marlin", "autoround")


def is_quantized_record(rec: dict[str, Any]) -> bool:
    """The record's checkpoint is quantized, or it runs with --quantization (as logged)."""
    q = str(rec.get("quantization") or "").lower()
    return q not in ("", "none", "null") or any(w in str(rec.get("model") or "").lower() for w in _QUANT_WORDS)


def model_classes(arch: ModelArch, rec: dict[str, Any]) -> list[str]:
    out = []
    q = (rec.get("quantization") or "").lower()
    quant = bool(arch.quant) or q not in ("", "none", "null")
    if arch.is_moe:
        out.append("MoE")
    if arch.is_mla:
        out.append("MLA")
    if any(t in ("sliding_attention", "chunked_attention") for t in arch.layer_types):
        out.append("sliding window")
    if arch.has_state_layers:
        out.append("hybrid")
    if quant:
        out.append("quantized")
    if arch.is_multimodal:
        out.append("multimodal")
    if arch.is_dense_full_attention and not arch.is_moe and not quant and not arch.is_multimodal:
        out.append("dense")
    return out


def shared_folders() -> list[Path]:
    """Where the shared data (not shipped) may be: $VLINT_SHARED, then the folder ``shared`` beside the
    checkout; no machine's own path."""
    env = os.environ.get("VLINT_SHARED")
    return ([Path(env)] if env else []) + [ROOT.parent / "shared"]


def default_logs() -> Path | None:
    return next((p for f in shared_folders() if (p := f / "calibration" / "vllm-logs.jsonl").is_file()), None)


@dataclass
class Row:
    rid: str
    model: str
    gpu: str
    version: str
    release: str
    classes: list[str]
    planner: bool
    weights_only: bool = False  # GPU not stated: only the weights (which do not depend on it) are scored
    inferred: str = ""  # why the model id was inferred (INFERRED_MODELS)
    #: the model facts are another model's, taken by the name as vlint does for a launch
    #: (vlint.resolve.model_names): scored, in their own class, and never used to fit a constant
    name_inferred: str = ""
    quant: str = ""  # the checkpoint's quantization as sized (scheme source), or the --quantization
    pairs: dict[str, tuple[float, float]] = field(default_factory=dict)  # name → (pred, logged)
    verdict: tuple[bool, bool] | None = None  # (predicted starts, logged starts)
    close_call: bool = False  # inside the uncertainty band (reported as a warning)
    failure_pred: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def dense(self) -> bool:
        return "dense" in self.classes


def _version(rec: dict[str, Any]) -> tuple[Version, str]:
    for text in (rec.get("vllm_version"), rec.get("vllm_version_note")):
        if text:
            m = re.search(r"(\d+\.\d+(?:\.\d+)?(?:\.\d+)?(?:\.post\d+)?)", str(text))
            if m:
                v = Version.try_parse(m.group(1))
                if v:
                    return v, str(v)
    if rec.get("engine") == "V0":
        return Version.parse("0.6.4"), "0.6.4 (assumed: V0 log format)"
    return Version.parse("0.19.0"), "0.19.0 (assumed: V1 log format)"


#: records whose model is an inference or a local name: the catalog checkpoint it names, and why that
#: one (the row says "model inferred"; the record's own wording is kept in the calibration file)
INFERRED_MODELS = {
    "Qwen2.5-7B-Instruct (AWQ int4 inferred from 5.2 GB weights)": (
        "Qwen/Qwen2.5-7B-Instruct-AWQ",
        "the record infers Qwen2.5-7B-Instruct in AWQ int4; Qwen's own AWQ checkpoint of it",
    ),
    "Qwen2.5-7B-Instruct (inferred: WeClone default; 14.2487 GB bf16 weights)": (
        "Qwen/Qwen2.5-7B-Instruct",
        "the record infers WeClone's default model Qwen2.5-7B-Instruct",
    ),
    "qwen3.6-35b-a3b-nvfp4 (Qwen3.6-35B-A3B NVFP4, modelopt)": (
        "nvidia/Qwen3.6-35B-A3B-NVFP4",
        "local name qwen3.6-35b-a3b-nvfp4, logged as ModelOpt NVFP4: NVIDIA's ModelOpt checkpoint of that name",
    ),
}


#: what a name-inferred record's error says (the record's own notes, summarised)
NAME_INFERRED_NOTES = {
    "r051": (
        "the log is of a main-branch build of December 2023 with the profiling regression of vLLM PR #2031 "
        "(free memory counted with NCCL's, 13x fewer blocks than the release before it); vlint's tokens "
        "(23,440) are 13.1x the 1,792 logged, the ratio the record describes"
    ),
}

#: quantized checkpoints whose weights miss the log: what is known about why
WEIGHT_GAPS = {
    "meta-llama/Meta-Llama-3.1-405B-Instruct-FP8": (
        "the only public copy of its config (sgl-project/ome's test fixture) lists 10 modules_to_not_convert "
        "(layers 0 and 125 MLP, layer 0 attention); keeping every layer's attention in bf16 would give 56.75 GiB "
        "per GPU at TP8 (-1.7 %): the full list is not in the copy"
    ),
    "nvidia/Gemma-4-31B-IT-NVFP4": (
        "with its vision tower counted from vision_config (0.58B, bf16) 0.3-0.5 GiB are still not placed; the "
        "checkpoint's size is not published, so whether the layout or the runtime holds them is not known"
    ),
}

#: records whose GPU name covers variants of different memory, with the variant their own evidence shows
GPU_VARIANT = {
    "r009": (
        "H20-141GB",
        "the same launch at --gpu-memory-utilization 0.90 and 0.95 differs by 6.99 GiB of KV cache, so the GPU has "
        "6.99 / 0.05 = 139.8 GiB: the 141 GB H20",
    ),
}

#: why a record cannot be answered, where the generic reason ("model not known") would not say it
UNANSWERED_WHY = {
    "qwen3.6-27b-autoround-int4 (local path; Qwen3.6-27B AutoRound int4)": (
        "a local AutoRound int4 export of Qwen3.6-27B: no published checkpoint is named, and which layers it kept "
        "in 16 bits (AutoRound exports of the Qwen3.5/3.6 hybrids keep linear-attention and vision layers) and its "
        "group size are not in the log"
    ),
    "qwen3.6-27b-autoround-int4 (Qwen3.6-27B AutoRound int4)": (
        "the same local AutoRound int4 export of Qwen3.6-27B (checkpoint and its quantization_config unknown)"
    ),
    "Sehyo Qwen3.5-122B-A10B NVFP4 (+MTP drafter)": (
        "a community NVFP4 export (not NVIDIA's, which is in the catalog) whose quantization_config was not found, "
        "served with an MTP drafter, on a Jetson AGX Thor whose CUDA-visible (unified) memory is not logged"
    ),
    "Qwopus 3.5-27B NVFP4 (Qwen3.5-27B derivative, local profile name)": (
        "a local NVFP4 fine-tune of Qwen3.5-27B (no published checkpoint of that name), MTP on, logged KV memory "
        "only, on a Jetson AGX Thor whose CUDA-visible memory is not logged"
    ),
    "mgoin/phi-2-super-marlin": "no public copy of its config.json or its Marlin quantization config was found",
    "Qwen2 GPTQ Int8 (likely Qwen/Qwen2-72B-Instruct-GPTQ-Int8; inferred from 17.98 GB/GPU at TP4)": (
        "the checkpoint is the record author's guess from the weight size, and Qwen2-72B-Instruct-GPTQ-Int8's "
        "config was not found (docs/models.md lists it); the GPU is a modded 22 GB RTX 2080 Ti"
    ),
    "deepseek-ai/DeepSeek-V4-Flash-0731": (
        "a DeepSeek-V4-Flash revision: its config is in no public copy found, and deepseek_v4 (compressed sparse "
        "attention with an indexer, FP4 experts) is not modelled"
    ),
    "DeepSeek-R1 GGUF (issue title)": (
        "which GGUF file (model and quant type) is not stated; GGUF loading is not modelled"
    ),
}


def _model_ref(rec: dict[str, Any]) -> str:
    model = str(rec.get("model") or "")
    if model in INFERRED_MODELS:
        return INFERRED_MODELS[model][0]
    return model.split(" ")[0]


def _rank(rec: dict[str, Any]) -> str:
    """Which rank's worker line a V0 TP>1 record logged (only the driver samples in V0)."""
    ev = " ".join(rec.get("evidence") or [])
    if "VllmWorkerProcess" in ev and "worker.py" in ev and "Loading model weights" not in ev.split("worker.py")[0]:
        return "worker"
    if "other rank" in str(rec.get("notes") or ""):
        return "worker"
    return "driver"


@dataclass
class Prepared:
    rec: dict[str, Any]
    sample: Sample
    row: Row


def prepare(rec: dict[str, Any], models: dict[str, ModelArch] | None = None) -> tuple[Prepared | None, str | None]:
    ref = _model_ref(rec)
    arch = (lookup_catalog(ref) if ref else None) or (models or {}).get(ref)
    named = ""
    if arch is None and ref and str(rec.get("model") or "") not in UNANSWERED_WHY:
        from vlint.resolve.model_names import infer_arch

        found = infer_arch(ref)
        if found is not None:
            arch, how = found
            named = how.description
    if arch is None:
        return None, f"model not known: {rec.get('model')!r}"
    unmodelled = unmodelled_type(arch)
    if unmodelled:
        return None, f"architecture not modelled: {unmodelled} ({UNMODELLED[unmodelled]})"
    obs = dict(rec.get("observed_numeric") or {})
    # the one-line V0 profile (~0.6.4) logs peak_torch_memory, which includes the weights
    pk = re.search(r"peak_torch_memory=([\d.]+)GiB", " ".join(rec.get("evidence") or []))
    if pk and obs.get("activation_peak_gib") is None and obs.get("weights_gib") is not None:
        obs["activation_peak_gib"] = round(float(pk.group(1)) - float(obs["weights_gib"]), 2)
    gpu = lookup_gpu(GPU_VARIANT[rec["id"]][0] if rec.get("id") in GPU_VARIANT else rec.get("gpu") or "")
    if gpu is None and obs.get("total_gpu_memory_gib"):
        gpu = gpu_from_memory(float(obs["total_gpu_memory_gib"]), name=f"{obs['total_gpu_memory_gib']} GiB (logged)")
    # a record that says its deployment arguments are not visible ("weak record (weights only)"):
    # only the weights can be compared
    weights_only = "weights only" in str(rec.get("notes") or "")
    if weights_only and obs.get("weights_gib") is not None:
        obs = {"weights_gib": obs["weights_gib"]}
    if gpu is None:
        if obs.get("weights_gib") is None or arch.quant_method == "mxfp4":  # MXFP4 padding depends on the GPU
            return None, f"GPU unknown: {rec.get('gpu')!r}"
        # the weights vLLM loads do not depend on the GPU's memory: score them alone
        weights_only = True
        obs = {"weights_gib": obs["weights_gib"]}
        gpu = gpu_from_memory(1024.0, name="GPU not stated (weights only)")
    version, vnote = _version(rec)
    args = {k: v for k, v in (rec.get("args") or {}).items() if v is not None}
    user: dict[str, Any] = dict(args)
    for key in ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size"):
        if rec.get(key):
            user[key] = int(rec[key])
    if rec.get("expert_parallel"):
        user["enable_expert_parallel"] = True
    if rec.get("dtype"):
        user["dtype"] = str(rec["dtype"]).replace("torch.", "")
    if rec.get("kv_cache_dtype"):
        user["kv_cache_dtype"] = str(rec["kv_cache_dtype"])
    q = (rec.get("quantization") or "").lower()
    if q in ("fp8",) and not arch.quant_method:
        user["quantization"] = "fp8"
    if rec.get("engine") in ("V0", "V1"):
        user["env_VLLM_USE_V1"] = "1" if rec["engine"] == "V1" else "0"
    user.pop("swap_space", None)
    resolved = resolve_defaults(version, gpu=gpu, usage_context="OPENAI_API_SERVER", arch=arch, user=user)
    extra: dict[str, Any] = {}
    # another process on the GPU is part of the deployment: the startup error states how much was free
    m = re.search(r"Free memory on device \S+ \(([\d.]+)/([\d.]+) GiB\)", str(rec.get("failure_message") or ""))
    if m:
        extra["other_gpu_usage_gib"] = max(0.0, float(m.group(2)) - float(m.group(1)) - 0.51)
    inp = inputs_from_resolved(arch, gpu, version, resolved, **extra)
    rank = _rank(rec) if inp.engine == "V0" and inp.tensor_parallel_size > 1 else "driver"
    if obs.get("gpu_blocks") is not None and inp.engine == "V0":
        obs["gpu_kv_cache_tokens"] = float(obs["gpu_blocks"]) * inp.block_size
    if obs.get("kv_cache_tokens_in_error") is not None and inp.engine == "V0":
        obs["gpu_kv_cache_tokens"] = float(obs["kv_cache_tokens_in_error"])
    src = json.dumps(rec.get("source_detail", "")) + str(rec.get("source", ""))
    row = Row(
        rid=rec["id"],
        model=ref,
        gpu=gpu.name,
        version=vnote,
        release=release_range(version),
        classes=model_classes(arch, rec) + (["name-inferred"] if named else []),
        planner="llm-d-planner" in src or "version-sweep" in src,
        weights_only=weights_only,
        inferred=INFERRED_MODELS.get(str(rec.get("model") or ""), ("", ""))[1],
        name_inferred=named,
        quant=(arch.quant.source or arch.quant.method) if arch.quant else str(user.get("quantization") or ""),
    )
    dev = bool(re.search(r"\bmain\b|dev\d|\.dev", str(rec.get("vllm_version") or "")))
    # WSL2 reports device memory through its own driver layer (r023: non-torch 0.03 GiB, outside the
    # 0.13-0.46 GiB the calibration README gives for TP1 on Linux): scored, but not used to fit
    atypical = "WSL2 host" if "WSL" in str(rec.get("gpu") or "") else ""
    return Prepared(rec, Sample(rec["id"], inp, obs, rank, dev, atypical, bool(named)), row), None


def score(p: Prepared, est: MemoryEstimate | None = None) -> Row:
    """The row of ``p`` with predictions from ``est`` (computed with the constants in force)."""
    est = est or estimate_memory(p.sample.inp)
    obs = p.sample.obs
    row = replace(p.row, pairs={}, notes=[])
    for name, okey, attr in QUANTITIES:
        if obs.get(okey) is None:
            continue
        pred = float(getattr(est, attr))
        if p.sample.rank == "worker":
            if name == "activation" and est.other_ranks_activation_gib is not None:
                pred = est.other_ranks_activation_gib
            if name == "kv_memory" and est.other_ranks_kv_cache_gib is not None:
                pred = est.other_ranks_kv_cache_gib
        if name == "kv_tokens" and obs.get("gpu_blocks") is not None:
            pred = float(est.num_blocks * est.block_size)
        row.pairs[name] = (pred, float(obs[okey]))
    outcome = str(p.rec.get("outcome") or "")
    stage = str(p.rec.get("failure_stage") or "")
    if p.row.weights_only or "config validation" in stage or "cause not in excerpt" in outcome:
        outcome = ""  # not a memory verdict (argument checks are other rules'; or the cause is unknown)
    if outcome.startswith("success"):
        row.verdict = (est.starts, True)
    elif outcome.startswith("failure"):
        row.verdict = (est.starts, False)
    row.close_call = est.too_close_to_call or (est.starts and est.late_close_call)
    row.failure_pred = est.failure_stage
    return row


def load_samples(logs: Path, models: dict[str, ModelArch] | None = None) -> tuple[list[Sample], list[Prepared]]:
    recs = [json.loads(line) for line in logs.read_text().splitlines() if line.strip()]
    prepared = [p for p in (prepare(r, models)[0] for r in recs) if p is not None]
    return [p.sample for p in prepared], prepared


# ------------------------------------------------------------------------------------------
# scoring modes


def in_sample(prepared: list[Prepared]) -> list[Row]:
    return [score(p) for p in prepared]


def leave_one_out(prepared: list[Prepared]) -> list[Row]:
    rows = []
    for p in prepared:
        values = fit([q.sample for q in prepared if q is not p])
        with overridden(values):
            rows.append(score(p))
    return rows


def leave_one_release_out(prepared: list[Prepared]) -> list[Row]:
    rows: dict[str, Row] = {}
    for name, _, _ in RANGES:
        held = [p for p in prepared if p.row.release == name]
        if not held:
            continue
        values = fit([q.sample for q in prepared if q.row.release != name])
        with overridden(values):
            for p in held:
                rows[p.row.rid] = score(p)
    return [rows[p.row.rid] for p in prepared if p.row.rid in rows]


# ------------------------------------------------------------------------------------------
# summaries


def pct(pred: float, logged: float) -> float | None:
    if logged == 0:
        return None
    return abs(pred - logged) / abs(logged) * 100


def summarize(rows: Iterable[Row], name: str) -> tuple[float, float, int] | None:
    errs = [pct(*r.pairs[name]) for r in rows if name in r.pairs]
    errs = [e for e in errs if e is not None]
    if not errs:
        return None
    return sum(errs) / len(errs), max(errs), len(errs)


def verdicts(rows: Iterable[Row]) -> tuple[int, int, int, int]:
    """(right, wrong, too close to call, total) over rows with a stated outcome."""
    vr = [r for r in rows if r.verdict is not None]
    close = [r for r in vr if r.close_call]
    decided = [r for r in vr if not r.close_call]
    right = sum(1 for r in decided if r.verdict and r.verdict[0] == r.verdict[1])
    return right, len(decided) - right, len(close), len(vr)


def _cell(s: tuple[float, float, int] | None) -> str:
    return f"{s[0]:.2f} / {s[1]:.1f} ({s[2]})" if s else "–"


SUBSETS: tuple[tuple[str, Callable[[Row], bool]], ...] = (
    ("dense full-attention", lambda r: r.dense),
    ("overall", lambda r: True),
)


def subsets(rows: list[Row]) -> list[tuple[str, Callable[[Row], bool]]]:
    """The table's rows: every subset over the records whose model facts are the model's own; the
    records whose facts vlint takes by the name (as it would for a launch) in a row of their own."""
    out: list[tuple[str, Callable[[Row], bool]]] = list(SUBSETS)
    for cls in ("dense", "MoE", "MLA", "sliding window", "hybrid", "quantized", "multimodal"):
        if cls != "dense" and any(cls in r.classes for r in rows):
            out.append((f"class: {cls}", lambda r, c=cls: c in r.classes))
    for name, _, _ in RANGES:
        if any(r.release == name for r in rows):
            out.append((f"release {name}", lambda r, n=name: r.release == n))
    out.append(("llm-d-planner H100 v0.19 sweep", lambda r: r.planner))
    out.append(("all other sources", lambda r: not r.planner))
    out = [(t, lambda r, f=f: f(r) and not r.name_inferred) for t, f in out]
    if any(r.name_inferred for r in rows):
        out.append(("model facts inferred from the name (not in the rows above)", lambda r: bool(r.name_inferred)))
    return out


def term_uncertainty(rows: list[Row], engine_of: dict[str, str]) -> dict[str, dict[str, float]]:
    """Per engine: RMS relative LOO error of weights, activation and CUDA graphs, RMS absolute
    error of non-torch memory (GiB), and of available KV memory (GiB) for reference."""
    out: dict[str, dict[str, float]] = {}
    for eng in ("V1", "V0"):
        rs = [r for r in rows if engine_of.get(r.rid) == eng]
        d: dict[str, float] = {}
        terms = (("weights", "weights_rel"), ("activation", "activation_rel"), ("cuda_graph_est", "graphs_rel"))
        for name, key in terms:
            errs = [(p - o) / o for r in rs if name in r.pairs for p, o in [r.pairs[name]] if o]
            if errs:
                d[key] = round(math.sqrt(sum(e * e for e in errs) / len(errs)), 4)
        exact = [
            (p - o) / o
            for r in rs
            if "weights" in r.pairs and r.rid in EXACT_WEIGHTS
            for p, o in [r.pairs["weights"]]
            if o
        ]
        if exact:
            d["weights_exact_rel"] = round(math.sqrt(sum(e * e for e in exact) / len(exact)), 4)
        nt = [p - o for r in rs if "non_torch" in r.pairs for p, o in [r.pairs["non_torch"]]]
        if nt:
            d["non_torch_abs_gib"] = round(math.sqrt(sum(e * e for e in nt) / len(nt)), 3)
        kv = [p - o for r in rs if "kv_memory" in r.pairs for p, o in [r.pairs["kv_memory"]]]
        if kv:
            d["kv_abs_gib_rms"] = round(math.sqrt(sum(e * e for e in kv) / len(kv)), 3)
            d["n"] = len(kv)
        out[eng] = d
    return out


#: lower bounds of the band: the sweep behind most V1 records is one H100 machine with one driver, so
#: its spread understates other machines (the calibration README's TP1 non-torch 0.13-0.46 GiB)
FLOORS = {
    "weights_rel": 0.01,
    "weights_exact_rel": 0.002,
    "activation_rel": 0.05,
    "graphs_rel": 0.2,
    "non_torch_abs_gib": 0.1,
}
#: records whose checkpoint size is exact and unquantized, text-only (the weights term is then nearly exact)
EXACT_WEIGHTS: set[str] = set()


def write_uncertainty(unc: dict[str, dict[str, float]]) -> None:
    """Store the LOO term errors (with :data:`FLOORS`) in the first ``uncertainty`` entry per engine."""
    path = ROOT / "vlint" / "data" / "memory_constants.json"
    d = json.loads(path.read_text())
    block = d["constants"].setdefault("uncertainty", {})
    for eng, vals in unc.items():
        entries = block.setdefault(eng, [{"since": "0.0.0"}])
        first = min(entries, key=lambda e: Version.parse(e["since"]))
        first["measured_loo_rms"] = dict(vals)
        for k, floor in FLOORS.items():
            if k in vals:
                first[k] = round(max(float(vals[k]), floor), 4)
    path.write_text(json.dumps(d, indent=1, ensure_ascii=False) + "\n")


def default_models() -> Path | None:
    """The shared harvest of public config.json copies (test data, not shipped), when present."""
    return next((p for f in shared_folders() if (p := f / "models" / "harvest" / "files").is_dir()), None)


def load_models(folder: Path | None) -> dict[str, ModelArch]:
    """Model configs for records the bundled catalog lacks: ``folder/<org>__<name>/config.json``
    (+ ``model.safetensors.index.json``), or the harvest layout ``folder/<org>__<name>.config.json``
    (+ ``<org>__<name>.hf_quant_config.json``). The bundled catalog wins where both have a model."""
    if folder is None or not folder.is_dir():
        return {}
    from vlint.resolve.model_arch import model_arch_from_config

    out: dict[str, ModelArch] = {}
    for p in sorted(folder.iterdir()):
        if "__" not in p.name:
            continue
        if p.is_dir():
            cfg_path, stem, quant_path = p / "config.json", p.name, p / "hf_quant_config.json"
            idx = p / "model.safetensors.index.json"
        elif p.name.endswith(".config.json"):
            stem = p.name.removesuffix(".config.json")
            cfg_path, quant_path, idx = p, folder / f"{stem}.hf_quant_config.json", None
        else:
            continue
        try:
            cfg = json.loads(cfg_path.read_text())
        except (OSError, ValueError):
            continue
        if not isinstance(cfg, dict):
            continue
        if "quantization_config" not in cfg and quant_path.is_file():
            hq = json.loads(quant_path.read_text())
            cfg["quantization_config"] = {"quant_method": "modelopt", **hq.get("quantization", hq)}
        # harvest copies carry the collection they came from: <org>__<name>.<collection>.config.json
        base, _, tag = stem.rpartition(".")
        if base and (folder.parent / "entries" / f"{tag}.json").is_file():
            stem = base
            quant_path = folder / f"{stem}.{tag}.hf_quant_config.json"
            if "quantization_config" not in cfg and quant_path.is_file():
                hq = json.loads(quant_path.read_text())
                cfg["quantization_config"] = {"quant_method": "modelopt", **hq.get("quantization", hq)}
        name = stem.replace("__", "/", 1)
        if name in out:
            continue
        wb = None
        if idx is not None and idx.is_file():
            wb = (json.loads(idx.read_text()).get("metadata") or {}).get("total_size")
        try:
            out[name] = model_arch_from_config(cfg, name=name, weight_bytes=wb, source=str(cfg_path))
        except (KeyError, TypeError, ValueError, ZeroDivisionError):
            continue
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--logs", type=Path, default=None)
    ap.add_argument(
        "--models",
        type=Path,
        default=None,
        help="folder of <org>__<name>/config.json copies (default: the shared harvest, when present)",
    )
    ap.add_argument("--markdown", action="store_true", help="write docs/accuracy.md")
    ap.add_argument("--write-uncertainty", action="store_true", help="store LOO term errors in the constants")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    logs = args.logs or default_logs()
    if logs is None or not logs.is_file():
        print(
            "calibration logs not found (pass --logs PATH, set VLINT_SHARED, or put the shared folder beside the "
            "checkout)",
            file=sys.stderr,
        )
        return 2
    models = load_models(args.models or default_models())
    recs = [json.loads(line) for line in logs.read_text().splitlines() if line.strip()]
    prepared: list[Prepared] = []
    skipped: list[tuple[str, str]] = []
    for rec in recs:
        p, why = prepare(rec, models)
        if p is None:
            skipped.append((rec["id"], UNANSWERED_WHY.get(str(rec.get("model") or ""), why or "")))
        else:
            prepared.append(p)
    EXACT_WEIGHTS.update(
        p.row.rid
        for p in prepared
        if p.sample.inp.arch.weight_bytes and not p.sample.inp.arch.quant and not p.sample.inp.arch.is_multimodal
    )
    ins = in_sample(prepared)
    loo = leave_one_out(prepared)
    loro = leave_one_release_out(prepared)
    # unreleased builds ("main ~v0.6.5") are scored but do not set the band: their profiler may be
    # mid-change (the calibration README calls r003's non-torch 1.79 GiB an outlier for that reason)
    engine_of = {
        p.row.rid: p.sample.engine
        for p in prepared
        if not p.sample.dev_build and not p.sample.atypical and not p.sample.name_inferred
    }
    unc = term_uncertainty(loo, engine_of)
    if args.write_uncertainty:
        write_uncertainty(unc)
    text = render(logs, recs, prepared, skipped, ins, loo, loro, unc)
    print(text)
    if args.markdown:
        out = ROOT / "docs" / "accuracy.md"
        keep = ""
        if out.is_file():
            old = out.read_text()
            i = old.find("\n## Agreement with vLLM")
            if i >= 0:
                keep = old[i:]
        out.write_text(text + keep)
        print(f"wrote {out}", file=sys.stderr)
    return 0


def render(
    logs: Path,
    recs: list[dict[str, Any]],
    prepared: list[Prepared],
    skipped: list[tuple[str, str]],
    ins: list[Row],
    loo: list[Row],
    loro: list[Row],
    unc: dict[str, dict[str, float]],
) -> str:
    lines: list[str] = []
    w = lines.append
    w("<!-- generated by bench/accuracy.py --markdown; do not edit by hand -->")
    w("# Memory-model accuracy")
    w("")
    w(
        f"Generated by `bench/accuracy.py` from `{logs.name}` ({len(recs)} records; {len(prepared)} evaluated, "
        f"{len(skipped)} skipped). Errors are |predicted − logged| / logged, mean / max % (records). "
        "Values GiB unless noted."
    )
    w("")
    w(
        "**Leave-one-out (LOO)** refits every fitted constant without the record it predicts; "
        "**leave-one-release-out (LORO)** refits without the record's whole release range (parameters "
        "left without data fall back to priors that do not come from these logs, see "
        "`bench/fit_constants.py`). **In-sample** uses the shipped constants, fitted on all records: "
        "quote LOO, not in-sample."
    )
    w("")
    planner = sum(1 for p in prepared if p.row.planner)
    w(
        f"**What these numbers cover.** {planner} of the {len(prepared)} scored records come from one automated "
        "sweep (llm-d-planner, H100 80GB, vLLM 0.19.0): leave-one-out over them measures how stable the fitted "
        "constants are, not how the model does on other releases, GPUs and drivers. The leave-one-release-out "
        "table is the harder test: without the 0.17–0.20 logs the fitted terms fall back to priors and the "
        "CUDA-graph estimate is unknown. The terms that come from vLLM's code (sampler bytes per release, KV "
        "page sizes, weight layouts, budget arithmetic) are not refit in any mode. Records whose GPU or launch "
        'arguments are not stated are scored on their weights alone ("weights only": the weights vLLM loads do '
        "not depend on them); records that name no checkpoint id are mapped to the one they describe only where "
        "it is unambiguous (listed under the per-record table, with why). Records that vlint cannot model "
        "(unidentified checkpoint, config in no public copy, new architectures) are listed under Skipped, the "
        "quantized ones with the exact reason under Quantized checkpoints."
    )
    w("")
    for title, rows in (("Leave-one-out", loo), ("Leave-one-release-out", loro), ("In-sample", ins)):
        w(f"## {title}: mean / max |error| % (n)")
        w("")
        w("| subset | " + " | ".join(NAMES) + " | verdicts right / wrong / too close |")
        w("|---|" + "---|" * (len(NAMES) + 1))
        for stitle, pick in subsets(rows):
            sel = [r for r in rows if pick(r)]
            if not sel:
                continue
            right, wrong, close, tot = verdicts(sel)
            vcell = f"{right} / {wrong} / {close} of {tot}" if tot else "–"
            w(f"| {stitle} | " + " | ".join(_cell(summarize(sel, n)) for n in NAMES) + f" | {vcell} |")
        w("")
    right, wrong, close, tot = verdicts(r for r in loo if not r.name_inferred)
    w(
        f"Verdicts (LOO): {right} right, {wrong} wrong, {close} too close to call (reported as a warning, "
        f"not an error) of {tot} records with a stated outcome"
        + (
            "; with model facts inferred from the name: {} right, {} wrong, {} too close of {}.".format(
                *verdicts(r for r in loo if r.name_inferred)
            )
            if any(r.name_inferred for r in loo)
            else "."
        )
    )
    for r in loo:
        if r.verdict and not r.close_call and r.verdict[0] != r.verdict[1]:
            w(f"- wrong: {r.rid} {r.model} predicted {'start' if r.verdict[0] else r.failure_pred}")
        elif r.verdict and r.close_call:
            w(f"- too close to call: {r.rid} {r.model} (logged {'start' if r.verdict[1] else 'failure'})")
    w("")
    w("## Uncertainty used for verdicts (LOO, RMS)")
    w("")
    w(
        "| engine | weights (rel) | activation (rel) | CUDA-graph estimate (rel) | non-torch (GiB) "
        "| available KV (GiB) | n |"
    )
    w("|---|---|---|---|---|---|---|")
    for eng, d in unc.items():
        w(
            f"| {eng} | {d.get('weights_rel', '–')} | {d.get('activation_rel', '–')} | {d.get('graphs_rel', '–')} | "
            f"{d.get('non_torch_abs_gib', '–')} | {d.get('kv_abs_gib_rms', '–')} | {d.get('n', 0)} |"
        )
    w("")
    w("## Per record (LOO predictions / logged)")
    w("")
    w("| record | model | GPU | vLLM | classes | " + " | ".join(NAMES) + " | verdict |")
    w("|---|---|---|---|---|" + "---|" * (len(NAMES) + 1))
    for r in loo:
        cells = []
        for n in NAMES:
            if n in r.pairs:
                p, o = r.pairs[n]
                cells.append(f"{p:,.0f}/{o:,.0f}" if n == "kv_tokens" else f"{p:.2f}/{o:.2f}")
            else:
                cells.append("")
        if r.weights_only:
            v = "weights only (GPU not stated)" if "not stated" in r.gpu else "weights only (arguments not logged)"
        elif r.verdict is None:
            v = "n/a"
        elif r.close_call:
            v = "too close (warning)"
        else:
            ok = r.verdict[0] == r.verdict[1]
            v = ("start" if r.verdict[0] else f"fail ({r.failure_pred})") + (" ✓" if ok else " ✗")
        model = f"{r.model} (inferred)" if r.inferred else r.model
        w(f"| {r.rid} | {model} | {r.gpu} | {r.version} | {', '.join(r.classes)} | " + " | ".join(cells) + f" | {v} |")
    w("")
    for title, items in (
        (
            "Model inferred (the record names no checkpoint id; the one taken and why):",
            [f"{r.rid} → {r.model}: {r.inferred}" for r in loo if r.inferred],
        ),
        (
            "GPU variant taken from the record's own evidence (its GPU name covers variants of different memory):",
            [f"{r.rid} → {GPU_VARIANT[r.rid][0]}: {GPU_VARIANT[r.rid][1]}" for r in loo if r.rid in GPU_VARIANT],
        ),
    ):
        if items:
            w(title)
            w("")
            for item in items:
                w(f"- {item}")
            w("")
    named = [r for r in loo if r.name_inferred]
    if named:
        w(
            "Model facts inferred from the name, as vlint does for a launch whose model's own config.json it "
            "cannot find (vlint/resolve/model_names.py; scored in their own row above, used to fit no constant):"
        )
        w("")
        for r in named:
            w(
                f"- {r.rid}: {r.name_inferred}"
                + (f" — {NAME_INFERRED_NOTES[r.rid]}" if r.rid in NAME_INFERRED_NOTES else "")
            )
        w("")
    w("## Quantized checkpoints")
    w("")
    qrecs = [r for r in recs if is_quantized_record(r)]
    by_id = {r.rid: r for r in loo}
    full = [r for r in qrecs if r["id"] in by_id and not by_id[r["id"]].weights_only]
    wonly = [r for r in qrecs if r["id"] in by_id and by_id[r["id"]].weights_only]
    left = [r for r in qrecs if r["id"] not in by_id]
    w(
        f"{len(qrecs)} records name a quantized checkpoint (or a --quantization): {len(full)} answered in full, "
        f"{len(wonly)} for their weights only (GPU or arguments not stated), {len(left)} not answered."
    )
    w("")
    w(
        "Weights as sized from each checkpoint's quantization_config against the log's \"Model loading took "
        'X GiB" (LOO row; the weights term is not fitted):'
    )
    w("")
    w("| record | model | format as sized | TP | predicted / logged GiB | error % |")
    w("|---|---|---|---|---|---|")
    for r in qrecs:
        row = by_id.get(r["id"])
        if row is None or "weights" not in row.pairs:
            continue
        pred, logged = row.pairs["weights"]
        tp = r.get("tensor_parallel_size") or 1
        err = (pred - logged) / logged * 100
        w(f"| {row.rid} | {row.model} | {row.quant} | {tp} | {pred:.2f} / {logged:.2f} | {err:+.1f} |")
    w("")
    for model, why_gap in WEIGHT_GAPS.items():
        if any(by_id[r["id"]].model == model for r in qrecs if r["id"] in by_id):
            w(f"- {model}: {why_gap}")
    w("")
    w("Not answered, and why:")
    w("")
    why = dict(skipped)
    for r in left:
        w(f"- {r['id']} {r.get('model')}: {why.get(r['id'], '')}")
    w("")
    w(f"## Skipped ({len(skipped)})")
    w("")
    for rid, why in skipped:
        w(f"- {rid}: {why}")
    return "\n".join(lines) + "\n"


def run_record(rec: dict[str, Any]) -> tuple[Row | None, str | None]:
    """One record scored with the shipped constants (the calibration regression test)."""
    p, why = prepare(rec)
    if p is None:
        return None, why
    return score(p), None


_ = statistics

if __name__ == "__main__":
    raise SystemExit(main())
