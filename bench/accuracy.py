"""Memory-model accuracy against real vLLM startup logs.

    python bench/accuracy.py [--logs PATH] [--markdown] [--verbose]

Runs vlint's memory model over the calibration records (default: ``../shared/calibration/
vllm-logs.jsonl`` next to the repository, or ``/work/shared/...``) and compares predicted with
logged weights, activation peak, non-torch memory, available KV memory, KV tokens and the
start/fail verdict. Records whose model is not in the bundled catalog, or whose GPU is neither
named in the GPU catalog nor given by its logged total, are skipped and listed. ``--markdown``
writes ``docs/accuracy.md``.

Only the deployment (model, GPU, version, args as logged) goes in; the logged numbers are used
solely for the comparison.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vlint.memory import estimate_memory, inputs_from_resolved  # noqa: E402
from vlint.resolve.defaults import resolve_defaults  # noqa: E402
from vlint.resolve.gpus import gpu_from_memory, lookup_gpu  # noqa: E402
from vlint.resolve.model_sources import lookup_catalog  # noqa: E402
from vlint.version import Version  # noqa: E402

QUANTITIES = (
    ("weights", "weights_gib", "weights_gib"),
    ("activation", "activation_peak_gib", "activation_gib"),
    ("non_torch", "non_torch_gib", "non_torch_gib"),
    ("kv_memory", "kv_cache_gib", "kv_cache_gib"),
    ("kv_tokens", "gpu_kv_cache_tokens", "kv_cache_tokens"),
)


def default_logs() -> Path | None:
    for p in (
        ROOT.parent / "shared" / "calibration" / "vllm-logs.jsonl",
        Path("/work/shared/calibration/vllm-logs.jsonl"),
    ):
        if p.is_file():
            return p
    return None


@dataclass
class Row:
    rid: str
    model: str
    gpu: str
    version: str
    dense: bool
    planner: bool
    pairs: dict[str, tuple[float, float]] = field(default_factory=dict)  # name → (pred, logged)
    verdict: tuple[bool, bool] | None = None  # (predicted starts, logged starts)
    failure_pred: str | None = None
    notes: list[str] = field(default_factory=list)


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


def _model_ref(rec: dict[str, Any]) -> str:
    return str(rec.get("model") or "").split(" ")[0]


def run_record(rec: dict[str, Any]) -> tuple[Row | None, str | None]:
    ref = _model_ref(rec)
    arch = lookup_catalog(ref) if ref else None
    if arch is None:
        return None, f"model not in catalog: {rec.get('model')!r}"
    obs = rec.get("observed_numeric") or {}
    gpu = lookup_gpu(rec.get("gpu") or "")
    if gpu is None and obs.get("total_gpu_memory_gib"):
        gpu = gpu_from_memory(float(obs["total_gpu_memory_gib"]), name=f"{obs['total_gpu_memory_gib']} GiB (logged)")
    if gpu is None:
        return None, f"GPU unknown: {rec.get('gpu')!r}"
    version, vnote = _version(rec)
    args = {k: v for k, v in (rec.get("args") or {}).items() if v is not None}
    user: dict[str, Any] = dict(args)
    for key in ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size"):
        if rec.get(key):
            user[key] = int(rec[key])
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
    est = estimate_memory(inp)
    row = Row(
        rid=rec["id"],
        model=ref,
        gpu=gpu.name,
        version=vnote,
        dense=arch.is_dense_full_attention,
        planner="llm-d-planner" in json.dumps(rec.get("source_detail", "")) + str(rec.get("source", ""))
        or "version-sweep" in str(rec.get("source_detail", "")),
    )
    for name, okey, pkey in QUANTITIES:
        if obs.get(okey) is not None:
            row.pairs[name] = (float(getattr(est, pkey)), float(obs[okey]))
    if obs.get("gpu_blocks") is not None and rec.get("engine") == "V0":
        row.pairs["kv_tokens"] = (float(est.kv_cache_tokens), float(obs["gpu_blocks"]) * est.block_size)
    outcome = str(rec.get("outcome") or "")
    if outcome.startswith("success"):
        row.verdict = (est.starts, True)
    elif outcome.startswith("failure"):
        row.verdict = (est.starts, False)
    row.failure_pred = est.failure_stage
    return row, None


def pct(pred: float, logged: float) -> float | None:
    if logged == 0:
        return None
    return abs(pred - logged) / abs(logged) * 100


def summarize(rows: list[Row], pick) -> dict[str, tuple[float, float, int]]:  # type: ignore[no-untyped-def]
    out = {}
    for name, _, _ in QUANTITIES:
        errs = [pct(*r.pairs[name]) for r in rows if pick(r) and name in r.pairs]
        errs = [e for e in errs if e is not None]
        if errs:
            out[name] = (sum(errs) / len(errs), max(errs), len(errs))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--logs", type=Path, default=None)
    ap.add_argument("--markdown", action="store_true", help="write docs/accuracy.md")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    logs = args.logs or default_logs()
    if logs is None or not logs.is_file():
        print("calibration logs not found (pass --logs PATH)", file=sys.stderr)
        return 2
    recs = [json.loads(line) for line in logs.read_text().splitlines() if line.strip()]
    rows: list[Row] = []
    skipped: list[tuple[str, str]] = []
    for rec in recs:
        row, why = run_record(rec)
        if row is None:
            skipped.append((rec["id"], why or ""))
        else:
            rows.append(row)
    lines: list[str] = []
    w = lines.append
    w("<!-- generated by bench/accuracy.py --markdown; do not edit by hand -->")
    w("# Memory-model accuracy")
    w("")
    w(
        f"Generated by `bench/accuracy.py` from `{logs.name}` ({len(recs)} records; {len(rows)} evaluated, "
        f"{len(skipped)} skipped). Errors are |predicted − logged| / logged. Values GiB unless noted."
    )
    w("")
    w("| record | model | GPU | vLLM | " + " | ".join(f"{n} pred/log" for n, _, _ in QUANTITIES) + " | verdict |")
    w("|---|---|---|---|" + "---|" * (len(QUANTITIES) + 1))
    for r in rows:
        cells = []
        for n, _, _ in QUANTITIES:
            if n in r.pairs:
                p, o = r.pairs[n]
                cells.append(f"{p:,.0f}/{o:,.0f}" if n == "kv_tokens" else f"{p:.2f}/{o:.2f}")
            else:
                cells.append("")
        if r.verdict is None:
            v = "n/a"
        else:
            ok = r.verdict[0] == r.verdict[1]
            v = ("start" if r.verdict[0] else f"fail ({r.failure_pred})") + (" ✓" if ok else " ✗")
        w(f"| {r.rid} | {r.model} | {r.gpu} | {r.version} | " + " | ".join(cells) + f" | {v} |")
    w("")
    groups = (
        ("dense full-attention", lambda r: r.dense),
        ("overall", lambda r: True),
        ("llm-d-planner H100 v0.19 subset (used to fit constants)", lambda r: r.planner),
        ("held out (all other sources)", lambda r: not r.planner),
    )
    w("## Totals: mean / max |error| % (n)")
    w("")
    w("| subset | " + " | ".join(n for n, _, _ in QUANTITIES) + " |")
    w("|---|" + "---|" * len(QUANTITIES))
    for title, pick in groups:
        s = summarize(rows, pick)
        w(
            f"| {title} | "
            + " | ".join(f"{s[n][0]:.2f} / {s[n][1]:.2f} ({s[n][2]})" if n in s else "–" for n, _, _ in QUANTITIES)
            + " |"
        )
    v_rows = [r for r in rows if r.verdict is not None]
    right = sum(1 for r in v_rows if r.verdict and r.verdict[0] == r.verdict[1])
    w("")
    w(
        f"Start/fail verdicts: {right} right, {len(v_rows) - right} wrong, of {len(v_rows)} records with a "
        "stated outcome."
    )
    wrong = [r for r in v_rows if r.verdict and r.verdict[0] != r.verdict[1]]
    for r in wrong:
        w(f"- wrong: {r.rid} {r.model} predicted {'start' if r.verdict and r.verdict[0] else r.failure_pred}")
    w("")
    w(f"## Skipped ({len(skipped)})")
    w("")
    for rid, why in skipped:
        w(f"- {rid}: {why}")
    text = "\n".join(lines) + "\n"
    print(text)
    if args.markdown:
        out = ROOT / "docs" / "accuracy.md"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text)
        print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
