"""bench/accuracy.py's machinery: two calibration files, GPU families, leave-one-GPU-out (LOGO).

The unit tests run on small synthetic records in the calibration schema (the 27 keys of
``bench/data/calibration/harvest.jsonl``; numbers of the shape vLLM logs, not real runs). The data test
reads the shared logs and the bundled harvest and is skipped without the shared folder.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest

from tests.conftest import load_script
from vlint.memory.estimate import activation_terms

ROOT = Path(__file__).resolve().parents[2]
SHARED = [Path(os.environ["VLINT_SHARED"])] if os.environ.get("VLINT_SHARED") else []
SHARED_LOGS = next(
    (p for f in [*SHARED, ROOT.parent / "shared"] if (p := f / "calibration" / "vllm-logs.jsonl").is_file()), None
)
HARVEST = ROOT / "bench" / "data" / "calibration" / "harvest.jsonl"


def _bench():
    return load_script("vlint_bench_accuracy", "bench/accuracy.py")


#: one V1 startup in the calibration schema (synthetic numbers)
BASE = {
    "id": "t001",
    "source": "https://github.com/example/sweep/blob/0000000000000000000000000000000000000000/logs/a.log#L1-L9",
    "source_detail": "synthetic test record",
    "vllm_version": "0.19.0",
    "vllm_version_note": None,
    "engine": "V1",
    "engine_is_inferred": True,
    "model": "meta-llama/Llama-3.1-8B-Instruct",
    "dtype": "bfloat16",
    "quantization": "none",
    "kv_cache_dtype": None,
    "gpu": "H100 80GB",
    "gpu_count": 1,
    "tensor_parallel_size": 1,
    "pipeline_parallel_size": None,
    "data_parallel_size": None,
    "expert_parallel": None,
    "args": {
        "max_model_len": 8192,
        "gpu_memory_utilization": 0.9,
        "max_num_seqs": None,
        "max_num_batched_tokens": None,
        "enable_chunked_prefill": None,
        "enforce_eager": None,
        "block_size": None,
        "swap_space": None,
        "cpu_offload_gb": None,
    },
    "other_args": None,
    "args_note": None,
    "observed": {"weights": "14.99 GiB", "available_kv_cache_memory": "54.0 GiB"},
    "observed_numeric": {
        "weights_gib": 14.99,
        "activation_peak_gib": 1.9,
        "non_torch_gib": 0.25,
        "kv_cache_gib": 54.0,
        "cuda_graph_actual_gib": 0.9,
    },
    "outcome": "success",
    "failure_stage": None,
    "failure_message": None,
    "evidence": ["Model loading took 14.99 GiB", "Available KV cache memory: 54.0 GiB"],
    "notes": "synthetic",
}


def _rec(rid: str, gpu: str, total: float | None = None, **obs: float) -> dict:
    r = copy.deepcopy(BASE)
    r["id"], r["gpu"] = rid, gpu
    r["source"] = r["source"].replace("a.log", f"{rid}.log")
    r["observed_numeric"].update(obs)
    if total is not None:
        r["observed_numeric"]["total_gpu_memory_gib"] = total
    return r


def _write(path: Path, recs: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


@pytest.fixture
def two_files(tmp_path: Path) -> list[Path]:
    a = _write(
        tmp_path / "shared.jsonl",
        [_rec("r1", "H100 80GB"), _rec("r2", "H100 80GB", non_torch_gib=0.3), _rec("r3", "RTX 3090", kv_cache_gib=4.0)],
    )
    b = _write(
        tmp_path / "harvest.jsonl",
        [
            _rec("h1", "A100-80GB", activation_peak_gib=2.5),
            _rec("h2", "L4", kv_cache_gib=3.0),
            _rec("r1", "H100 80GB"),  # the same id again: its first copy is kept
            _rec("h3", "model not named", total=47.38, kv_cache_gib=30.0),
        ],
    )
    return [a, b]


def test_records_of_two_files_keep_their_file(two_files: list[Path]) -> None:
    bench = _bench()
    recs = bench.load_records(two_files)
    assert [r["id"] for r in recs] == ["r1", "r2", "r3", "h1", "h2", "h3"]
    assert {r["id"]: r["_source"] for r in recs}["h2"] == "harvest.jsonl"
    res = bench.evaluate(recs)
    assert {r.rid: r.source for r in res.loro} == {
        "r1": "shared.jsonl",
        "r2": "shared.jsonl",
        "r3": "shared.jsonl",
        "h1": "harvest.jsonl",
        "h2": "harvest.jsonl",
        "h3": "harvest.jsonl",
    }
    assert len(res.logo) == len(res.loro) == len(res.loo) == len(res.prepared) == 6


def test_default_files_are_the_shared_logs_and_the_bundled_harvest(monkeypatch, tmp_path: Path) -> None:
    bench = _bench()
    monkeypatch.setattr(bench, "default_logs", lambda: None)
    assert bench.default_log_files() == [HARVEST]
    shared = _write(tmp_path / "vllm-logs.jsonl", [_rec("r1", "H100 80GB")])
    monkeypatch.setattr(bench, "default_logs", lambda: shared)
    assert bench.default_log_files() == [shared, HARVEST]


def test_logs_may_be_given_twice(two_files: list[Path], capsys) -> None:
    bench = _bench()
    assert bench.main(["--logs", str(two_files[0]), "--logs", str(two_files[1])]) == 0
    out = capsys.readouterr().out
    assert "`shared.jsonl` (3 records, 3 scored), `harvest.jsonl` (3 records, 3 scored)" in out
    assert "| file: harvest.jsonl |" in out


@pytest.mark.parametrize(
    ("text", "family"),
    [
        ("H100 80GB", "HOPPER"),
        ("H20", "HOPPER"),
        ("H200 / H20 141GB class (139.72 GiB total, inferred)", "HOPPER"),
        ("A100-40GB (inferred)", "AMPERE_ADA"),
        ("L4 (22.06 GiB total; inferred from total)", "AMPERE_ADA"),
        ("L40S", "AMPERE_ADA"),
        ("Tesla T4 (16 GB; 14.56 GiB usable)", "VOLTA_TURING"),
        ("RTX 3090 x2 (NVLink)", "CONSUMER"),
        ("RTX 5090 Laptop GPU (24 GB)", "CONSUMER"),
        ("RTX A6000 (48GB)", "WORKSTATION"),
        ("B200", "BLACKWELL"),
        ("DGX Spark GB10 (unified memory)", "BLACKWELL"),
        ("AMD Instinct MI300X (192 GB; ROCm)", "AMD"),
        ("80 GB-class (H100 80GB or A100-80GB; 79.18 GiB total)", "AMBIGUOUS"),
        ("16GB GPU (total_gpu_memory 15.77GiB; model unstated, V100-16GB/RTX 4080 class)", "AMBIGUOUS"),
    ],
)
def test_gpu_family_from_the_catalog_and_the_text(text: str, family: str) -> None:
    bench = _bench()
    from vlint.hardware.gpus import lookup_gpu

    assert bench.gpu_family(text, lookup_gpu(text)) == getattr(bench, family)


def test_gpu_family_of_a_gpu_known_by_its_total_only() -> None:
    bench = _bench()
    from vlint.hardware.gpus import gpu_from_memory

    custom = gpu_from_memory(15.92, name="15.92 GiB (logged)")
    assert bench.gpu_family("AMD Radeon RX 9070-series 16GB (gfx1201, inferred)", custom) == bench.AMD
    assert bench.gpu_family("48GB-class card (model unstated)", custom) == bench.BY_TOTAL
    assert bench.gpu_family(None, None, weights_only_no_gpu=True) == bench.NOT_STATED


def test_logo_refits_without_the_whole_family(two_files: list[Path], monkeypatch) -> None:
    """Each record is scored with constants fitted on the other families only."""
    bench = _bench()
    res = bench.evaluate(bench.load_records(two_files))
    family = {p.row.rid: p.row.family for p in res.prepared}
    assert family["r1"] == family["r2"] == bench.HOPPER
    assert family["h1"] == family["h2"] == bench.AMPERE_ADA
    assert family["r3"] == bench.CONSUMER and family["h3"] == bench.BY_TOTAL
    fits: list[set[str]] = []
    real_fit = bench.fit

    def spy(samples):
        fits.append({s.rid for s in samples})
        return real_fit(samples)

    monkeypatch.setattr(bench, "fit", spy)
    rows = bench.leave_one_gpu_out(res.prepared)
    assert len(fits) == len(set(family.values())) == 4
    for trained in fits:
        held = set(family) - trained
        assert len({family[r] for r in held}) == 1  # exactly one family is out, all of it
        assert {r for r in family if family[r] == family[next(iter(held))]} == held
    assert [r.rid for r in rows] == [p.row.rid for p in res.prepared]


def test_logo_differs_from_in_sample_when_a_family_sets_a_constant(two_files: list[Path]) -> None:
    """Without the Hopper records the V1 TP1 non-torch median comes from the others (0.25), so the
    0.3 GiB record is predicted from them: the LOGO prediction is that median, not its own value."""
    bench = _bench()
    res = bench.evaluate(bench.load_records(two_files))
    logo = {r.rid: r for r in res.logo}
    pred, logged = logo["r2"].pairs["non_torch"]
    assert logged == 0.3 and pred == pytest.approx(0.25, abs=1e-6)


def test_headline_comes_first(two_files: list[Path]) -> None:
    bench = _bench()
    res = bench.evaluate(bench.load_records(two_files))
    text = bench.render(two_files, res)
    heads = [line for line in text.splitlines() if line.startswith("## ")]
    assert heads[0] == "## Headline: leave-one-release-out and leave-one-GPU-out"
    assert heads.index("## Leave-one-out (LOO, not the headline): mean (median) / max |error| % (n)") > 2
    assert "| GPU: " + bench.HOPPER + " |" in text
    assert "### Per term" in text and "Largest single sweep among scored records" in text


def test_negative_graph_capture_memory_is_not_compared() -> None:
    bench = _bench()
    p, why = bench.prepare(_rec("t2", "H100 80GB", cuda_graph_actual_gib=-0.45))
    assert p is not None, why
    assert "cuda_graph_actual_gib" not in p.sample.obs


def test_free_memory_line_without_a_device_name() -> None:
    """0.10-0.11 print "Free memory on device (x/T GiB)" (no cuda:N): the memory others hold is taken."""
    bench = _bench()
    rec = _rec("t3", "H100 80GB", total=79.19)
    rec["outcome"], rec["failure_stage"] = "failure", "startup free-memory check"
    rec["failure_message"] = (
        "ValueError: Free memory on device (5.92/79.19 GiB) on startup is less than desired GPU memory "
        "utilization (0.9, 71.27 GiB)."
    )
    p, _ = bench.prepare(rec)
    assert p is not None and p.sample.inp.other_gpu_usage_gib == pytest.approx(79.19 - 5.92 - 0.51)
    assert bench.score(p).verdict == (False, False)


@pytest.mark.skipif(SHARED_LOGS is None, reason="shared calibration logs not found (set VLINT_SHARED)")
def test_all_records_scored_or_skipped_with_a_reason() -> None:
    """Over the shared logs and the harvest: every record is scored or skipped with why, and LORO and
    LOGO score every scored record (floors, so a regression shows)."""
    bench = _bench()
    recs = bench.load_records([SHARED_LOGS, HARVEST])
    assert len(recs) >= 260
    prepared, skipped = [], []
    for rec in recs:
        p, why = bench.prepare(rec)
        (prepared if p is not None else skipped).append(p or (rec["id"], why))
    assert len(prepared) + len(skipped) == len(recs)
    assert all(why for _, why in skipped)
    assert len(prepared) >= 165
    assert {p.row.source for p in prepared} == {SHARED_LOGS.name, HARVEST.name}
    assert len({p.row.family for p in prepared}) >= 8
    logo = bench.leave_one_gpu_out(prepared)
    assert len(logo) == len(prepared)


def test_series_and_the_largest_sweeps_share() -> None:
    """A series is the planner sweep, a repository of committed logs, or one issue thread."""
    bench = _bench()
    blob = _rec("a", "H100 80GB")
    thread = _rec("b", "H100 80GB")
    thread["source"] = "https://github.com/vllm-project/vllm/issues/10517#issuecomment-1"
    planner = _rec("c", "H100 80GB")
    planner["source_detail"] = "llm-d-planner accuracy sweep"
    assert bench.series_of(blob, False) == "example/sweep"
    assert bench.series_of(thread, False) == "vllm-project/vllm#10517"
    assert bench.series_of(planner, True) == "llm-d-planner H100 v0.19 sweep"
    rows = [p.row for p in (bench.prepare(r)[0] for r in (blob, thread, planner, _rec("d", "L4"))) if p]
    assert bench.largest_series(rows)[0] == ("example/sweep", 2)


def test_a_log_without_a_version_is_its_own_release_group() -> None:
    """The version scored for it is an assumption: LORO holds those records out together."""
    bench = _bench()
    rec = _rec("t4", "H100 80GB")
    rec["vllm_version"] = None
    p, _ = bench.prepare(rec)
    assert p is not None and p.row.release == bench.UNSTATED_RELEASE and "assumed" in p.row.version
    q, _ = bench.prepare(_rec("t5", "H100 80GB"))
    assert q is not None and q.row.release == "0.17–0.20"


def test_the_logged_sampler_path_sets_flashinfer() -> None:
    """0.8-0.11.1 sample with FlashInfer when it imports and print so ([0.10.2]
    vllm/v1/sample/ops/topk_topp_sampler.py:49-61); the record's log line decides the sampler term: the
    Qwen2-7B 0.10.1.1 shape of h076 (256 rows x 152,064 vocab) profiles 38 B (sort) or 14 B (FlashInfer)
    per element on top of the logits, 1.38 vs 0.51 GiB."""
    bench = _bench()
    rec = _rec("t6", "A100-80GB")
    rec["vllm_version"], rec["model"] = "0.10.1.1", "Qwen/Qwen2-7B-Instruct"
    rec["args"].update(max_model_len=16384, gpu_memory_utilization=0.25)
    plain, _ = bench.prepare(rec)
    rec["evidence"] = [*rec["evidence"], "[topk_topp_sampler.py:50] Using FlashInfer for top-p & top-k sampling."]
    fi, _ = bench.prepare(rec)
    rec["evidence"][-1] = (
        "[topk_topp_sampler.py:61] FlashInfer is not available. Falling back to the PyTorch-native "
        "implementation of top-p & top-k sampling."
    )
    native, _ = bench.prepare(rec)
    assert plain and fi and native
    assert fi.sample.inp.flashinfer_installed is True and native.sample.inp.flashinfer_installed is False
    assert plain.sample.inp.flashinfer_installed is None
    gib = 2**30
    assert activation_terms(native.sample.inp, 0, 1, 28).sampler / gib == pytest.approx(1.378, abs=0.005)
    assert activation_terms(fi.sample.inp, 0, 1, 28).sampler / gib == pytest.approx(0.508, abs=0.005)


def test_a_deployment_on_two_gpu_models_is_not_scored_on_one() -> None:
    """vLLM checks the whole model against the smallest worker's memory ([0.15.1]
    vllm/v1/core/kv_cache_utils.py:1513-1525): no one GPU of a mixed pair reproduces it. The weights,
    which do not depend on the GPU, are still scored; without them the record is skipped with why."""
    bench = _bench()
    rec = _rec("t7", "RTX 5070 Ti 16GB + RTX 5090 D 32GB (mixed)")
    p, why = bench.prepare(rec)
    assert p is not None and p.row.weights_only and set(p.sample.obs) == {"weights_gib"}
    del rec["observed_numeric"]["weights_gib"]
    p, why = bench.prepare(rec)
    assert p is None and why and why.startswith("GPU unknown: two GPU models")
    assert bench.skip_reason(why).startswith("GPU: two GPU models")
    # sums of GiB figures in a GPU text are not two GPUs
    for text in (
        "not stated (80GB-class H100/A100 inferred: 5.32 + 64.73 GiB + activation ~ 0.9 x ~79 GiB)",
        "H100 80GB",
    ):
        assert not bench.MIXED_GPUS.search(text)


def test_a_027_summary_line_moves_the_persistent_profile_memory_to_consumed() -> None:
    """0.27+ logs "consumed memory (weights + non-torch)" = the free-memory drop, the profile's persistent
    allocations (the 0.14+ MoE workspace) included, and only the transient rest as peak activation
    ([0.27.0] vllm/utils/mem_utils.py:317-326). h062's shape: Qwen3-Coder-30B-A3B on an A100, 2048 tokens:
    consumed 57.26 - weights 56.93 = 0.33 GiB = non-torch + the 0.07 GiB workspace."""
    bench = _bench()
    rec = _rec("t8", "A100-SXM4-80GB")
    rec["vllm_version"], rec["model"] = "0.27.1", "Qwen/Qwen3-Coder-30B-A3B-Instruct"
    rec["args"].update(max_model_len=131072, max_num_seqs=16)
    rec["observed_numeric"] = {"weights_gib": 56.93, "activation_peak_gib": 0.23, "kv_cache_gib": 13.84}
    rec["evidence"] = [
        "Free memory on device (78.84/79.25 GiB) on startup. Desired GPU memory utilization is (0.9, 71.33 GiB). "
        "Actual usage is 57.26 GiB for consumed memory (weights + non-torch), 0.23 GiB for peak activation, and "
        "0.11 GiB for CUDAGraph memory."
    ]
    p, why = bench.prepare(rec)
    assert p is not None, why
    assert p.sample.transient_activation and p.sample.obs["non_torch_gib"] == pytest.approx(0.33)
    t = activation_terms(p.sample.inp, 0, 1, 48)
    moved = t.moe_workspace / 2**30
    assert t.moe_persistent and moved == pytest.approx(2048 * 8 * 3 * 768 * 2 / 2**30)
    plain = copy.deepcopy(rec)
    plain["evidence"] = []
    q, _ = bench.prepare(plain)
    assert q is not None and not q.sample.transient_activation
    a, b = bench.score(p).pairs, bench.score(q).pairs
    assert a["activation"][0] == pytest.approx(b["activation"][0] - moved)
    assert a["kv_memory"][0] == pytest.approx(b["kv_memory"][0])


def _launch(rec: dict, gmu: float | None, evidence: list[str], notes: str = "synthetic", args_note=None) -> dict:
    r = copy.deepcopy(rec)
    r["args"]["gpu_memory_utilization"] = gmu
    r["evidence"], r["notes"], r["args_note"] = evidence, notes, args_note
    return r


def test_the_scoring_rule_reads_what_the_source_states() -> None:
    """The budget rule (gmu x the GPU's memory): scored only when the source states both for the run."""
    bench = _bench()
    kv = ["Available KV cache memory: 54.0 GiB"]
    base = _rec("t8", "H100 80GB")
    # the utilization stated by the record, or the launch's arguments shown (unset = vLLM's default)
    assert bench.budget_unstated(base) == ""
    assert bench.budget_unstated(_launch(base, None, ["non-default args: {'model': 'x'}", *kv])) == ""
    assert bench.budget_unstated(_launch(base, None, ["$ vllm serve meta-llama/Llama-3.1-8B-Instruct", *kv])) == ""
    assert bench.budget_unstated(_launch(base, None, kv, args_note="python -c 'from vllm import LLM;LLM(m)'")) == ""
    # nothing shows it, the arguments line is cut, or the value is presumed
    assert "no command" in bench.budget_unstated(_launch(base, None, kv))
    cut = _launch(base, None, ["non-default args: {'model': ...", *kv], notes="args line truncated in excerpt")
    assert "cut or not printed" in bench.budget_unstated(cut)
    assert "presumed" in bench.budget_unstated(_launch(base, 0.9, kv, args_note="gmu default (0.9) presumably"))
    # the GPU's memory: a named model or a logged total; a size class inferred from the budget is not stated
    assert "GPU's memory is not stated" in bench.budget_unstated(_rec("t9", "24 GB-class (RTX 3090/4090; inferred)"))
    assert bench.budget_unstated(_rec("t9", "24 GB-class (RTX 3090/4090; inferred)", total=23.56)) == ""
    assert bench.budget_unstated(_rec("t9", "16GB-class NVIDIA card (15.99 GiB total per log)")) == ""
    assert bench.budget_unstated(_rec("t9", "GH200 (96 GB)")) == ""


def test_the_scoring_rule_sets_aside_the_budget_terms_only(tmp_path: Path) -> None:
    """A record failing the rule keeps weights/activation/non-torch/graphs; its available KV, KV tokens and
    verdict leave the headline and it is listed with the reason (never silently dropped)."""
    bench = _bench()
    unstated = _launch(_rec("t10", "H100 80GB"), None, ["Available KV cache memory: 54.0 GiB"])
    p, _ = bench.prepare(unstated)
    assert p is not None and p.row.budget_unstated
    row = bench.score(p)
    assert "kv_memory" in row.pairs and row.verdict is not None  # everything scored
    (ruled,) = bench.under_rule([row])
    assert "kv_memory" not in ruled.pairs and ruled.verdict is None and "weights" in ruled.pairs
    assert bench.set_aside([row]) == [row] and bench.set_aside([ruled]) == []
    files = [_write(tmp_path / "h.jsonl", [_rec("t11", "H100 80GB"), unstated])]
    text = bench.render(files, bench.evaluate(bench.load_records(files)))
    assert "## Set aside by the scoring rule (1 + 0 with facts from the name)" in text
    assert "| t10 |" in text and "overall, everything scored (no scoring rule)" in text


def test_a_glossed_kv_cache_dtype_is_read_as_vllm_takes_it() -> None:
    """ "auto (bf16)" is --kv-cache-dtype auto: the gloss must not make vlint size an unknown 1-byte dtype."""
    bench = _bench()
    rec = _rec("t12", "H100 80GB")
    rec["kv_cache_dtype"] = "auto (bf16)"
    p, _ = bench.prepare(rec)
    assert p is not None and p.sample.inp.kv_cache_dtype == "auto"
    rec["kv_cache_dtype"] = "fp8_e4m3 (per BENCHMARKS row for this slug)"
    p, _ = bench.prepare(rec)
    assert p is not None and p.sample.inp.kv_cache_dtype == "fp8_e4m3"
