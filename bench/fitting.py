"""The memory model's fitted constants, fitted from calibration samples (``python bench/fit_constants.py``
runs it on the records; ``bench/accuracy.py`` refits it for leave-one-out scores).

Only what vLLM's code cannot give is fitted; everything else (sampler bytes, KV page sizes,
budget arithmetic, weight layouts) comes from the code and is never refit here. The fitted
values and the records they come from:

- activation base (intercept) and the forward per-token scale, per engine
  ("activation" V1/V0 ``since 0.0.0``): records that log the activation peak;
- the multimodal encoder-profiling fallback for models whose item size config.json does not give;
- non-torch memory per parallel layout ("non_torch_gib" V1 ``since 0.18.0``, V0 ``since 0.0.0``):
  medians of the logged values;
- the V1 CUDA-graph estimate ("cuda_graph" V1 ``since 0.0.0``): least squares on the logged
  "Estimated CUDA graph memory" lines, and the actual/estimate ratio;
- the V0 CUDA-graph cost per layer ("cuda_graph" V0 ``since 0.0.0``): the median of the logged
  "Graph capturing finished ... took X GiB" per layer per 35 capture sizes (V0 records).

A parameter with no training record keeps its **prior** (:data:`PRIORS`), a value that does not
come from these logs (a structural guess or a figure the calibration README quotes from logs
outside the file), so leave-one-release-out shows what the model does without in-range logs.
``--write`` stores the full-data fit in ``vlint/data/memory_constants.json``.
"""

from __future__ import annotations

import json
import statistics
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vlint.memory.constants import constants  # noqa: E402
from vlint.memory.estimate import (  # noqa: E402
    activation_terms,
    graph_counts,
    multi_gpu_nvlink_class,
    profile_persistent_bytes,
)
from vlint.memory.inputs import MemoryInputs  # noqa: E402
from vlint.memory.kv import pp_partition  # noqa: E402

GIB = float(2**30)

Key = tuple[str, str, str]
ACT_V1: Key = ("activation", "V1", "0.0.0")
ACT_V0: Key = ("activation", "V0", "0.0.0")
NT_V1: Key = ("non_torch_gib", "V1", "0.18.0")
NT_V0: Key = ("non_torch_gib", "V0", "0.0.0")
CG_V1: Key = ("cuda_graph", "V1", "0.0.0")
CG_V0: Key = ("cuda_graph", "V0", "0.0.0")

#: values used when no training record informs a parameter (not from this file's logs)
PRIORS: dict[Key, dict[str, float]] = {
    # structural: a decoder layer keeps ~5 hidden-size and 3 intermediate-size activations per token
    # alive (V1: plus the persistent input/positions buffers); no intercept
    ACT_V1: {"fwd_hidden_mult": 5.0, "fwd_inter_mult": 3.0, "base_gib": 0.0, "multimodal_fallback_gib": 0.0},
    ACT_V0: {"fwd_hidden_mult": 3.0, "fwd_inter_mult": 3.0, "base_gib": 0.0},
    # the calibration README's figures from logs outside the file (v0.15-0.17 TP1 0.13; V0 consumer GPUs); TP>1
    # without the symmetric-memory all-reduce grows as TP1 does (_fit_non_torch_v1 ties it to the fitted TP1)
    NT_V1: {
        "tp1": 0.13,
        "multi_gpu_nvlink": 2.0,
        "multi_gpu_per_extra_rank": 0.04,
        "pp_only": 0.07,
        "multi_gpu_pcie": 0.13,
    },
    NT_V0: {"tp1": 0.25, "multi_gpu": 0.35},
    # no estimate without logs: graphs then count as 0 where they are subtracted (0.20+)
    CG_V1: {
        "base_gib": 0.0,
        "per_layer_gib": 0.0,
        "per_layer_full_gib": 0.0,
        "moe_extra_gib": 0.0,
        "actual_over_estimate": 1.0,
    },
    # the shipped V0 figure (memory_constants.json): issue reports outside these files (#15664, #7553)
    CG_V0: {"per_layer_gib": 0.03},
}


@dataclass
class Sample:
    """What a fit needs from one record."""

    rid: str
    inp: MemoryInputs
    obs: dict[str, Any]
    rank: str = "driver"  # V0 TP>1: which rank's worker line was logged
    dev_build: bool = False  # an unreleased build ("main ~v0.6.5"): the profiler may be mid-change
    # why the record's memory accounting is not that of a plain Linux host (WSL2), else "": scored, not fitted
    atypical: str = ""
    # the model facts are another model's, taken by the name (vlint.resolve.model_names): scored, never fitted
    name_inferred: bool = False
    # a patched or forked vLLM build (the record's notes say so): scored, never fitted
    patched: bool = False
    #: the log splits the profile as 0.27+ does: "consumed memory (weights + non-torch)" is the free-memory
    #: drop, persistent torch allocations of the profile run included, and "peak activation" only the
    #: transient headroom above them ([0.27.0] vllm/utils/mem_utils.py:317-326; [0.26.0] :303-313 logs the
    #: torch peak increase): the persistent part (vlint.memory.estimate.profile_persistent_bytes) moves
    #: from the activation to the non-torch figure
    transient_activation: bool = False

    @property
    def engine(self) -> str:
        return self.inp.engine


def _persistent_gib(s: Sample) -> float:
    return profile_persistent_bytes(_stage0(s)) / GIB


def _median(xs: Iterable[float]) -> float | None:
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def _stage0(s: Sample):  # type: ignore[no-untyped-def]
    inp = s.inp
    pp = max(1, inp.pipeline_parallel_size)
    parts = pp_partition(inp.arch.num_layers, pp)
    return activation_terms(inp, 0, pp, parts[0], driver=s.rank == "driver")


def fit(samples: list[Sample]) -> dict[Key, dict[str, float]]:
    """Fitted constants from ``samples`` (priors where no sample informs a parameter)."""
    out: dict[Key, dict[str, float]] = {k: dict(v) for k, v in PRIORS.items()}
    samples = [s for s in samples if not s.name_inferred and not s.patched]
    for engine, key in (("V1", ACT_V1), ("V0", ACT_V0)):
        # a V0 worker line's rank is itself inferred (only the driver samples): not used to fit
        rows = [s for s in samples if s.engine == engine and s.obs.get("activation_peak_gib") and s.rank == "driver"]
        _fit_activation(out[key], rows)
    _fit_non_torch_v1(out[NT_V1], [s for s in samples if s.engine == "V1" and s.inp.version.release >= (0, 18)])
    _fit_non_torch_v0(out[NT_V0], [s for s in samples if s.engine == "V0" and not s.dev_build and not s.atypical])
    _fit_graphs(out[CG_V1], [s for s in samples if s.engine == "V1"])
    _fit_graphs_v0(out[CG_V0], [s for s in samples if s.engine == "V0" and not s.dev_build and not s.atypical])
    return out


def _fit_activation(p: dict[str, float], rows: list[Sample]) -> None:
    from vlint.memory.constants import overridden

    key = ACT_V1 if rows and rows[0].engine == "V1" else ACT_V0
    # the terms are computed with the prior multipliers, so the scale fit is relative to them
    with overridden({key: {"fwd_hidden_mult": p["fwd_hidden_mult"], "fwd_inter_mult": p["fwd_inter_mult"]}}):
        terms = [(s, _stage0(s)) for s in rows]
    # the whole profile peak: a 0.27+ log states only the transient part above the persistent allocations
    peak = {
        s.rid: s.obs["activation_peak_gib"] + (profile_persistent_bytes(t) / GIB if s.transient_activation else 0.0)
        for s, t in terms
    }
    text = [(s, t) for s, t in terms if not s.inp.arch.is_multimodal]
    # intercept: records whose peak is the sampler pass (or the MoE workspace on top of it)
    base = _median(peak[s.rid] - t.core / GIB for s, t in text if t.sampler >= t.forward_peak and t.sampler > 0)
    if base is not None:
        p["base_gib"] = round(base, 3)
    # forward scale: records whose peak is the forward pass (the MoE caches, sized from vLLM's code, on top
    # of it whether they outlive the layer or not)
    ratios = [
        (peak[s.rid] - p["base_gib"] - t.moe_workspace / GIB) / (t.forward / GIB)
        for s, t in text
        if t.forward_peak > t.sampler and t.forward > 0
    ]
    scale = _median(ratios)
    if scale is not None:
        p["fwd_hidden_mult"] = round(p["fwd_hidden_mult"] * scale, 3)
        p["fwd_inter_mult"] = round(p["fwd_inter_mult"] * scale, 3)
    if "multimodal_fallback_gib" in p:
        mm = _median(
            peak[s.rid] - t.core / GIB - p["base_gib"]
            for s, t in terms
            if s.inp.arch.is_multimodal and not s.inp.arch.mm_tokens_per_item and t.sampler >= t.forward
        )
        if mm is not None:
            p["multimodal_fallback_gib"] = round(max(0.0, mm), 3)


def _nt_rows(rows: list[Sample]) -> list[tuple[int, int, bool, float]]:
    return [
        (
            max(1, s.inp.tensor_parallel_size),
            max(1, s.inp.pipeline_parallel_size),
            multi_gpu_nvlink_class(s.inp.gpu),
            float(s.obs["non_torch_gib"])
            - (profile_persistent_bytes(_stage0(s)) / GIB if s.transient_activation else 0.0),
        )
        for s in rows
        if s.obs.get("non_torch_gib") is not None
    ]


def _fit_non_torch_v1(p: dict[str, float], rows: list[Sample]) -> None:
    data = _nt_rows(rows)
    v = _median(x for tp, pp, _, x in data if tp == 1 and pp == 1)
    if v is not None:
        p["tp1"] = round(v, 3)
    v = _median(x for tp, _, nv, x in data if tp == 2 and nv)
    if v is not None:
        p["multi_gpu_nvlink"] = round(v, 3)
    v = _median((x - p["multi_gpu_nvlink"]) / (tp - 2) for tp, _, nv, x in data if tp > 2 and nv)
    if v is not None:
        p["multi_gpu_per_extra_rank"] = round(v, 3)
    v = _median(x for tp, pp, _, x in data if tp == 1 and pp > 1)
    if v is not None:
        p["pp_only"] = round(v, 3)
    # TP > 1 where the symmetric-memory all-reduce does not run (vlint.memory.estimate.multi_gpu_nvlink_class):
    # V1 takes its start snapshot after NCCL and the custom all-reduce are set up ([0.13.0]
    # vllm/v1/worker/gpu_worker.py:221-240, "Now take memory snapshot after NCCL is initialized"; [0.19.0]
    # :277), so without logs it grows as TP1 does (V0's absolute figure, [0.6.4.post1] vllm/worker/worker.py:
    # 140-147 and 205-213, counts the communicators' buffers and does not carry over)
    p["multi_gpu_pcie"] = p["tp1"]
    v = _median(x for tp, _, nv, x in data if tp > 1 and not nv)
    if v is not None:
        p["multi_gpu_pcie"] = round(v, 3)


def _fit_non_torch_v0(p: dict[str, float], rows: list[Sample]) -> None:
    data = _nt_rows(rows)
    v = _median(x for tp, pp, _, x in data if tp == 1 and pp == 1)
    if v is not None:
        p["tp1"] = round(v, 3)
    v = _median(x for tp, _, _, x in data if tp > 1)
    if v is not None:
        p["multi_gpu"] = round(v, 3)


def _graph_features(s: Sample) -> tuple[float, float, float, float] | None:
    from vlint.memory.estimate import graph_features

    pp = max(1, s.inp.pipeline_parallel_size)
    return graph_features(s.inp, pp_partition(s.inp.arch.num_layers, pp)[0])


#: the CUDA-graph term's parameters, in graph_features' order
CG_PARAMS = ("base_gib", "per_layer_gib", "per_layer_full_gib", "moe_extra_gib")


def _fit_graphs(p: dict[str, float], rows: list[Sample]) -> None:
    xs: list[tuple[float, ...]] = []
    ys: list[float] = []
    ratios: list[float] = []
    for s in rows:
        f = _graph_features(s)
        if f is None:
            continue
        est = s.obs.get("cuda_graph_estimated_gib")
        act = s.obs.get("cuda_graph_actual_gib")
        if est is not None:
            xs.append(f)
            ys.append(float(est))
        if act is not None and est:
            ratios.append(float(act) / float(est))
    # the capture itself ("took X") is the estimate × the median logged actual/estimate ratio: a separate
    # least-squares on "took X" across releases extrapolates badly (free-memory differences that hold
    # more than the graphs, h186/h213 ~4 GiB, tilt its slope: the 0.17-0.20 fold then over-predicted
    # 27-70B models' graphs 2× and called their sampler warm-up a failure)
    for prefix, x, y in (("", xs, ys),):
        sol = None
        if len(x) >= 3:
            # one per-layer cost for a mixed and a FULL-decode graph: the logs of most releases have both
            # routines in the same proportion on every row, which cannot tell the two costs apart
            tied = _least_squares([(f[0], f[1] + f[2], 0.0, f[3]) for f in x], y)
            sol = [tied[0], tied[1], tied[1], tied[3]] if tied is not None else None
        if sol is not None:
            for name, v in zip(CG_PARAMS, sol, strict=True):
                p[f"{prefix}{name}"] = round(max(0.0, v or 0.0), 4)
            if sol[2] is None:  # no FULL-decode graph among the rows: a full graph costs as a mixed one
                p[f"{prefix}per_layer_full_gib"] = p[f"{prefix}per_layer_gib"]
    r = _median(ratios)
    if r is not None:
        p["actual_over_estimate"] = round(r, 3)


def _fit_graphs_v0(p: dict[str, float], rows: list[Sample]) -> None:
    """V0 captures one decode graph per capture size after the KV cache is allocated, all in one shared
    memory pool, and logs the drop in free memory across the capture ([0.6.6.post1]
    vllm/worker/model_runner.py:1401-1535 capture_model, graph_memory_pool :1502/:1526, "took" :1531-1535;
    called from worker.py:275 initialize_cache -> _warm_up_model :289-291). vLLM gives no closed form for
    what a graph holds, so the cost per layer per reference capture (35 sizes) is the median over the logged
    captures, with the same features the estimate uses (vlint.memory.estimate._cuda_graph, V0 branch: layers x
    graphs / the block's ``reference_sizes``, 35 = 1, 2, 4 and 8..256 in steps of 8, the list of [0.6.6.post1]
    vllm/config.py:3218-3222 up to the default max_num_seqs 256)."""
    ratios = []
    for s in rows:
        took = s.obs.get("cuda_graph_actual_gib")
        graphs = graph_counts(s.inp)[0]
        if took is None or not graphs:
            continue
        ref = float(constants("cuda_graph", s.inp.version, "V0").get("reference_sizes", 35))
        pp = max(1, s.inp.pipeline_parallel_size)
        layers = pp_partition(s.inp.arch.num_layers, pp)[0]
        ratios.append(float(took) / (layers * graphs / ref))
    v = _median(ratios)
    if v is not None:
        p["per_layer_gib"] = round(v, 4)


def _least_squares(xs: list[tuple[float, ...]], ys: list[float]) -> list[float | None] | None:
    """Least squares by the normal equations (no numpy). A feature no row has (no MoE row, no FULL-decode
    graph) is left out (None, read as 0); None when the rest is singular."""
    k = len(xs[0])
    used = [j for j in range(k) if any(x[j] for x in xs)]
    n = len(used)
    a = [[sum(x[i] * x[j] for x in xs) for j in used] for i in used]
    b = [sum(x[i] * y for x, y in zip(xs, ys, strict=True)) for i in used]
    m = [[*row, bv] for row, bv in zip(a, b, strict=True)]
    for c in range(n):
        piv = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[piv][c]) < 1e-12:
            return None
        m[c], m[piv] = m[piv], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c], strict=True)]
    out: list[float | None] = [None] * k
    for idx, j in enumerate(used):
        out[j] = m[idx][n] / m[idx][idx]
    return out


def write(values: dict[Key, dict[str, float]]) -> None:
    path = ROOT / "vlint" / "data" / "memory_constants.json"
    d = json.loads(path.read_text())
    for (block, engine, since), vals in values.items():
        entries = d["constants"][block][engine] if engine else d["constants"][block]
        for e in entries:
            if e["since"] == since:
                e.update(vals)
    path.write_text(json.dumps(d, indent=1, ensure_ascii=False) + "\n")
