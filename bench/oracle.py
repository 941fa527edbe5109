"""vLLM as the oracle: run recorded launch cases through each release's own startup code.

For every case of ``tests/data/oracle/cases.yaml`` and every release it applies to, this runs
(inside that release's venv, the CPU platform forced as ``tools/gen_vllm_schema.py`` does):

1. the release's ``vllm serve`` parser (the real top-level ``vllm`` parser with ``--config`` expansion),
2. the serve-level checks (``validate_parsed_serve_args``, the serve subcommand up to starting the
   server, ``run_server`` up to building the engine client: tool-call parser, load-balancing modes…),
3. ``AsyncEngineArgs.from_cli_args(args).create_engine_config(UsageContext.OPENAI_API_SERVER)``,

and records accept/reject, the exception type and message, the raising line in vLLM's source, and
the resolved settings that matter (max_model_len, max_num_batched_tokens, max_num_seqs, chunked
prefill, prefix caching, block size, gpu_memory_utilization, CUDA-graph sizes…) into
``tests/data/oracle/<release>.jsonl``. ``tests/checks/test_oracle.py`` then runs vlint on every record.

What the CPU platform changes is kept out:

* the platform's own ``check_and_update_config`` (CPU forces eager mode, empties the CUDA-graph sizes,
  refuses block sizes other than 16 without IPEX…) runs *after* the values are snapshotted, and a
  refusal raised inside it is recorded as verdict ``platform`` (not compared);
* refusals raised from ``vllm/platforms/`` (e.g. ``verify_quantization``) are verdict ``platform`` too;
* the device queries vLLM's defaults read (``get_device_total_memory``, ``get_device_name``,
  ``get_device_capability``) answer for the case's GPU (``gpu:`` from vlint's GPU catalog, or "no GPU
  visible": the query raises, which is vLLM's own fallback path), and inside the EngineArgs methods that
  pick engine and defaults (``_is_v1_supported_oracle``, ``_set_default_args*``, ``get_batch_defaults``…)
  the platform answers ``is_cuda()`` / ``supports_v1`` as CUDA does: those methods have CPU-only
  branches (CPU batch-size table, V1 off on CPU before 0.9) that would otherwise decide;
* every other platform query made during a case is recorded (``platform_queries``) and the settings it
  may change are listed in ``platform_sensitive`` (table ``SENSITIVE``), which the CI test skips.

Usage (from the repository root, in vlint's own venv)::

    python bench/oracle.py                       # every release whose venv exists under --envs
    python bench/oracle.py --releases 0.10.2,0.33.0 --only sched-
    python bench/oracle.py --check               # rerun and compare with the recorded data

Per release it needs ``$VLLM_ENVS/<release>/bin/python`` with that vLLM (``tools/gen_all_schemas.sh``
builds them; default ``/work/cache/vllm-envs``). Time per release is printed and written to
``tests/data/oracle/timings.json``. See tests/data/oracle/README.md.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HARNESS_VERSION = 1
ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "oracle"
MODELS = DATA / "models"
DEFAULT_ENVS = os.environ.get("VLLM_ENVS", "/work/cache/vllm-envs")
CASE_TIMEOUT = 90  # seconds for one case (the model classes are inspected before the cases fork)

#: the releases the oracle data covers (their venvs must exist to regenerate)
RELEASES = (
    "0.6.4.post1",
    "0.6.6.post1",
    "0.7.3",
    "0.8.2",
    "0.8.5.post1",
    "0.9.2",
    "0.10.2",
    "0.11.2",
    "0.12.0",
    "0.13.0",
    "0.15.1",
    "0.17.1",
    "0.19.1",
    "0.20.0",
    "0.22.1",
    "0.24.0",
    "0.25.1",
    "0.27.1",
    "0.30.0",
    "0.31.0",
    "0.33.0",
)

#: what a platform query made outside PERSONA_SCOPE may change, by (query, calling function), with the
#: reason: those settings (or the verdict) are not compared. Queries vLLM makes while importing modules
#: (function ``<module>``) and those in BENIGN_QUERIES decide nothing the records hold.
SENSITIVE: dict[tuple[str, str], tuple[tuple[str, ...], str]] = {
    ("is_cpu", "override_quantization_method"): (
        ("verdict", "quantization"),
        "on the CPU the IPEX method claims AWQ/GPTQ checkpoints (IPEXConfig.override_quantization_method), so "
        "the quantization checks that follow see another method than on a GPU",
    ),
}
BENIGN_QUERIES = frozenset(
    {
        "pre_register_and_update",
        "log_warnings",
        "validate_environ",
        "uses_host_device_handling",
        "use_custom_allreduce",
        "is_pin_memory_available",
        "apply_config_platform_defaults",
        "get_default_ir_op_priority",
        "fp8_dtype",
        "is_fp8_fnuz",
        "import_kernels",
        "get_cpu_architecture",  # the CPU branches test for POWER/ARM/s390x/RISC-V; this machine is x86
        "is_neuron",
        "is_hpu",
        "is_tpu",
        "is_xpu",
        "is_unspecified",
        "get_compile_backend",
        "is_async_output_supported",
        "check_max_model_len",
        "support_hybrid_kv_cache",
    }
)


def decision_queries(queries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The platform queries that can decide something: not answered as CUDA (PERSONA_SCOPE), not made while
    importing, not in BENIGN_QUERIES."""
    return [
        q for q in queries if not q.get("scoped") and q["function"] != "<module>" and q["query"] not in BENIGN_QUERIES
    ]


# ------------------------------------------------------------------------------------------------
# Versions (no vlint import: the worker runs inside a vLLM venv)
# ------------------------------------------------------------------------------------------------


def vkey(v: str) -> tuple[int, ...]:
    """``0.8.5.post1`` → (0, 8, 5, 1); ``0.8.5`` → (0, 8, 5, 0)."""
    main, _, post = v.partition(".post")
    parts = [int(x) for x in main.split(".")]
    while len(parts) < 3:
        parts.append(0)
    return (*parts, int(post or 0))


def applies(case: dict[str, Any], release: str) -> bool:
    rel = case.get("releases", "all")
    if isinstance(rel, list):
        return release in [str(r) for r in rel]
    k = vkey(release)
    since, until = case.get("since"), case.get("until")
    if since is not None and k < vkey(str(since)):
        return False
    return not (until is not None and k >= vkey(str(until)))


# ------------------------------------------------------------------------------------------------
# Orchestrator
# ------------------------------------------------------------------------------------------------


#: the generated option-group cases (bench/oracle_cases.py), loaded with cases.yaml
GENERATED = "generated.yaml"


def load_cases(path: Path) -> list[dict[str, Any]]:
    """``path`` (cases.yaml) and, beside it, the generated option-group cases."""
    import yaml

    cases = yaml.safe_load(path.read_text())
    gen = path.parent / GENERATED
    if gen.exists():
        cases += yaml.safe_load(gen.read_text()) or []
    seen: set[str] = set()
    for c in cases:
        if c["id"] in seen:
            raise SystemExit(f"{path}: duplicate case id {c['id']}")
        seen.add(c["id"])
    return cases


def gpu_persona(name: str | None) -> dict[str, Any] | None:
    """What the device queries answer for ``name`` (vlint's GPU catalog: total memory as torch reports
    it, ``torch.cuda.get_device_name()``, compute capability)."""
    if not name:
        return None
    sys.path.insert(0, str(ROOT))
    from vlint.hardware.gpus import lookup_gpu

    g = lookup_gpu(name)
    if g is None:
        raise SystemExit(f"unknown GPU {name!r} (not in vlint/data/gpus.json)")
    cc = g.cc_major_minor
    return {"name": g.name, "total_bytes": g.total_bytes, "device_name": g.device_name, "cc": list(cc) if cc else None}


def worker_input(case: dict[str, Any]) -> dict[str, Any]:
    model = case.get("model")
    return {
        "id": case["id"],
        "argv": [str(a) for a in case.get("argv", [])],
        "model": str(MODELS / model) if model else None,
        "model_flag": bool(case.get("model_flag", False)),
        "config": case.get("config"),
        "config_name": case.get("config_name", "serve.yaml"),
        "env": {k: str(v) for k, v in (case.get("env") or {}).items()},
        "gpu": gpu_persona(case.get("gpu")),
        "files": case.get("files") or {},
    }


#: packages the schema environments leave out (tools/gen_all_schemas.sh SKIP_RE) that vLLM's startup
#: configuration imports: quantization cases load every quantization method, which imports these
PREPARE = ("compressed-tensors",)
#: and per release: 0.6.x imports triton for its AWQ kernels when quantization methods load
PREPARE_FOR = {"0.6.": ("triton==3.1.0",)}
#: their pure-Python dependencies the venvs lack (more are added while ``import`` reports them missing)
PREPARE_DEPS = ("loguru", "frozendict")


def prepare(release: str, envs: Path) -> None:
    """Install PREPARE into the release's venv, without dependencies, at the version vLLM requires."""
    py = envs / release / "bin" / "python"
    probe = (
        "import re,sys\nfrom importlib.metadata import requires\n"
        "for r in requires('vllm') or []:\n"
        "    n = re.split(r'[\\s\\[<>=!~;(]', r, maxsplit=1)[0]\n"
        "    if n.lower() in sys.argv[1:] and 'extra ==' not in r: print(r.split(';')[0].strip())\n"
    )
    reqs = subprocess.run([str(py), "-c", probe, *PREPARE], capture_output=True, text=True, check=True).stdout.split()
    reqs += list(PREPARE_DEPS)
    for prefix, extra in PREPARE_FOR.items():
        if release.startswith(prefix):
            reqs += list(extra)
    # the venvs have no pip of their own (uv builds them): this interpreter's pip installs into them
    cmd = ["uv", "pip", "install", "-q", "-p", str(py)] if shutil.which("uv") else [sys.executable, "-m", "pip"]
    if cmd[0] != "uv":
        cmd += ["--python", str(py), "install", "-q"]
    subprocess.run([*cmd, "--no-deps", *reqs], check=True)
    for _ in range(8):  # then whatever importing them still asks for, one module at a time
        probe_import = "import " + ", ".join(p.replace("-", "_") for p in PREPARE)
        res = subprocess.run([str(py), "-c", probe_import], capture_output=True, text=True)
        missing = re.findall(r"No module named '([^'.]+)", res.stderr)
        if res.returncode == 0 or not missing:
            return
        subprocess.run([*cmd, "--no-deps", missing[-1].replace("_", "-")], check=True)


def run_release(release: str, cases: list[dict[str, Any]], envs: Path) -> tuple[list[dict[str, Any]], float]:
    py = envs / release / "bin" / "python"
    if not py.exists():
        raise FileNotFoundError(py)
    env = dict(os.environ)
    env.update(
        {
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "VLLM_TARGET_DEVICE": "cpu",
            "VLLM_NO_USAGE_STATS": "1",
            "DO_NOT_TRACK": "1",
            "VLLM_LOGGING_LEVEL": "WARNING",
            "TOKENIZERS_PARALLELISM": "false",
            "VLLM_CACHE_ROOT": str(Path(os.environ.get("TMPDIR", "/tmp")) / f"vlint-oracle-cache-{release}"),
            "PYTHONWARNINGS": "ignore",
        }
    )
    ours = ("VLLM_TARGET_DEVICE", "VLLM_NO_USAGE_STATS", "VLLM_LOGGING_LEVEL", "VLLM_CACHE_ROOT")
    for k in [k for k in env if k.startswith("VLLM_") and k not in ours]:
        del env[k]  # a case states its own environment
    payload = json.dumps({"release": release, "cases": [worker_input(c) for c in cases]})
    t0 = time.monotonic()
    proc = subprocess.run(
        [str(py), str(Path(__file__).resolve()), "--worker"],
        input=payload,
        capture_output=True,
        text=True,
        env=env,
        cwd=str(ROOT),
        timeout=CASE_TIMEOUT * (len(cases) + 2),
    )
    dt = time.monotonic() - t0
    out: list[dict[str, Any]] = []
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            out.append(json.loads(line))
    if proc.returncode != 0 or len(out) != len(cases):
        sys.stderr.write(proc.stderr[-6000:])
        raise RuntimeError(f"worker for {release} failed (exit {proc.returncode}, {len(out)}/{len(cases)} records)")
    by_id = {c["id"]: c for c in cases}
    for r in out:
        stamp(r, by_id[r["id"]])
    return out, dt


def sensitive_fields(rec: dict[str, Any], case: dict[str, Any], release: str) -> set[str]:
    """Settings whose recorded value the CPU platform may have decided (not compared by the CI test)."""
    out: set[str] = set()
    for q in rec.get("platform_queries", []):
        hit = SENSITIVE.get((q["query"], q["function"]))
        if hit is not None:
            out.update(hit[0])
    out.update(case.get("platform_sensitive", []))
    vals = rec.get("values") or {}
    argv = " ".join(case.get("argv", [])) + " " + str(case.get("config") or "")
    if vals.get("engine") == "V0" and (vals.get("max_model_len") or 0) > 32768 and "chunked" not in argv:
        # V0 turns chunked prefill on above 32K only where device_type == "cuda"
        # ([0.6.6.post1] vllm/engine/arg_utils.py:1093, [0.8.5.post1] _set_default_args_v0 is_cuda())
        out.update(("enable_chunked_prefill", "max_num_batched_tokens"))
    return out


def stamp(r: dict[str, Any], c: dict[str, Any]) -> None:
    """The parts of a record that come from the harness's classification, not from vLLM."""
    if r.get("verdict") == "reject" and r.get("stage") != "parse":
        text = f"{r.get('exception', '')}: {r.get('message', '')}"
        if str(r.get("where", "")).startswith("vllm/platforms/") or PLATFORM_REFUSAL.search(text):
            r["verdict"] = "platform"
        elif HARNESS_LIMIT.search(text):
            r["verdict"] = "harness-error"
    r["case"] = {
        k: c[k]
        for k in ("argv", "model", "model_flag", "config", "config_name", "env", "gpu", "files")
        if c.get(k) is not None and c.get(k) != []
    }
    r["source"] = c.get("source", "")
    r["platform_queries"] = decision_queries(r.get("platform_queries", []))
    r["platform_sensitive"] = sorted(sensitive_fields(r, c, r["release"]))


def restamp(data: Path, cases: list[dict[str, Any]]) -> None:
    by_id = {c["id"]: c for c in cases}
    for path in sorted(data.glob("*.jsonl")):
        recs = [json.loads(x) for x in path.read_text().splitlines() if x.strip()]
        for r in recs:
            if r["id"] in by_id:
                stamp(r, by_id[r["id"]])
        path.write_text("\n".join(record_line(r) for r in recs if r["id"] in by_id) + "\n")


def record_line(r: dict[str, Any]) -> str:
    keys = (
        "id",
        "release",
        "harness",
        "case",
        "source",
        "verdict",
        "stage",
        "exception",
        "message",
        "where",
        "values",
        "platform_sensitive",
        "platform_changes",
        "platform_queries",
        "warnings",
    )
    return json.dumps({k: r[k] for k in keys if k in r}, sort_keys=False, ensure_ascii=False)


def compare(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    diffs = []
    for k in ("verdict", "stage", "exception", "message", "values"):
        if old.get(k) != new.get(k):
            diffs.append(f"{k}: {old.get(k)!r} -> {new.get(k)!r}")
    return diffs


#: the model folders the cases use: folder name → model id in vlint's catalog (vlint/data/models.jsonl,
#: each entry with its sources); ``--write-models`` writes their config.json from the catalog
MODEL_FIXTURES = {
    "llama-3.1-8b": "meta-llama/Llama-3.1-8B",
    "llama-2-7b": "meta-llama/Llama-2-7b-hf",
    "qwen2.5-7b-instruct": "Qwen/Qwen2.5-7B-Instruct",
    "qwen2.5-7b-instruct-awq": "Qwen/Qwen2.5-7B-Instruct-AWQ",
    "mixtral-8x7b": "mistralai/Mixtral-8x7B-v0.1",
    "mistral-7b-v0.1": "mistralai/Mistral-7B-v0.1",
    "gemma-2-2b-it": "google/gemma-2-2b-it",
    "qwen3-30b-a3b": "Qwen/Qwen3-30B-A3B",
    "llama-3.1-8b-fp8": "neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8",
    "qwen2-vl-2b-instruct": "Qwen/Qwen2-VL-2B-Instruct",
}


def write_models() -> None:
    sys.path.insert(0, str(ROOT))
    from vlint.resolve.catalog import catalog_record

    lines = [
        "# Model folders of the oracle cases",
        "",
        "Each `config.json` is the `config` of a model in vlint's catalog (`vlint/data/models.jsonl`), written by",
        "`python bench/oracle.py --write-models`; the catalog entry lists where the numbers come from. No weights:",
        "vLLM's startup configuration reads only `config.json`.",
        "",
        "| folder | catalog model | sources |",
        "|---|---|---|",
    ]
    for folder, model in MODEL_FIXTURES.items():
        entry = catalog_record(model)
        if entry is None:
            raise SystemExit(f"{model} is not in vlint's catalog")
        d = MODELS / folder
        d.mkdir(parents=True, exist_ok=True)
        (d / "config.json").write_text(json.dumps(entry["config"], indent=2) + "\n")
        src = "; ".join(entry.get("source", []))[:300].replace("|", "\\|")
        lines.append(f"| `{folder}` | {model} | {src} |")
    (MODELS / "README.md").write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--releases", default="", help="comma-separated releases (default: every one with a venv)")
    ap.add_argument("--envs", default=DEFAULT_ENVS, help="folder of per-release venvs (default: %(default)s)")
    ap.add_argument("--cases", default=str(DATA / "cases.yaml"))
    ap.add_argument("--out", default=str(DATA))
    ap.add_argument("--only", default="", help="only cases whose id starts with one of these (comma-separated)")
    ap.add_argument("--check", action="store_true", help="compare with the recorded data, write nothing")
    ap.add_argument("--write-models", action="store_true", help="(re)write the model folders from vlint's catalog")
    ap.add_argument("--prepare", action="store_true", help="install PREPARE into each release's venv first")
    ap.add_argument(
        "--restamp",
        action="store_true",
        help="re-apply the platform classification (SENSITIVE, BENIGN_QUERIES, cases.yaml) to the recorded data",
    )
    ap.add_argument(
        "--agreement", action="store_true", help="print vlint's agreement with the recorded data (markdown table)"
    )
    ap.add_argument(
        "--write-docs", action="store_true", help="with --agreement: write it as docs/accuracy.md's last section"
    )
    args = ap.parse_args(argv)
    if args.worker:
        return worker_main()
    if args.write_models:
        write_models()
        return 0
    if args.restamp:
        restamp(Path(args.out), load_cases(Path(args.cases)))
        return 0
    if args.agreement:
        table = agreement_table(Path(args.out))
        print(table)
        if args.write_docs:
            write_docs_section(table, Path(args.out))
        return 0
    cases = load_cases(Path(args.cases))
    if args.only:
        prefixes = tuple(p for p in args.only.split(",") if p)
        cases = [c for c in cases if c["id"].startswith(prefixes)]
    envs = Path(args.envs)
    releases = [r for r in args.releases.split(",") if r] or [r for r in RELEASES if (envs / r / "bin/python").exists()]
    out_dir = Path(args.out)
    timings_path = out_dir / "timings.json"
    timings = json.loads(timings_path.read_text()) if timings_path.exists() else {}
    failed = 0
    for rel in releases:
        todo = [c for c in cases if applies(c, rel)]
        if not todo:
            continue
        print(f"== vllm {rel}: {len(todo)} cases", file=sys.stderr, flush=True)
        try:
            if args.prepare:
                prepare(rel, envs)
            recs, dt = run_release(rel, todo, envs)
        except (FileNotFoundError, RuntimeError, subprocess.TimeoutExpired, subprocess.CalledProcessError) as e:
            print(f"   {rel}: {e}", file=sys.stderr)
            failed += 1
            continue
        counts: dict[str, int] = {}
        for r in recs:
            counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
        print(f"   {rel}: {dt:.0f} s, {counts}", file=sys.stderr, flush=True)
        path = out_dir / f"{rel}.jsonl"
        if args.check:
            old = {}
            if path.exists():
                old = {json.loads(x)["id"]: json.loads(x) for x in path.read_text().splitlines() if x.strip()}
            for r in recs:
                d = compare(old.get(r["id"], {}), r)
                if d:
                    failed += 1
                    print(f"   {rel} {r['id']}: " + "; ".join(d), file=sys.stderr)
            continue
        if args.only and path.exists():  # merge: replace the rerun cases only
            keep = {json.loads(x)["id"]: x for x in path.read_text().splitlines() if x.strip()}
            for r in recs:
                keep[r["id"]] = record_line(r)
            order = [c["id"] for c in load_cases(Path(args.cases)) if c["id"] in keep]
            lines = [keep[i] for i in order]
        else:
            lines = [record_line(r) for r in recs]
        path.write_text("\n".join(lines) + "\n")
        if not args.only:
            timings[rel] = {"cases": len(recs), "seconds": round(dt, 1), "harness": HARNESS_VERSION}
    if not args.check:
        timings_path.write_text(json.dumps(dict(sorted(timings.items(), key=lambda kv: vkey(kv[0]))), indent=2) + "\n")
    return 1 if failed else 0


# ------------------------------------------------------------------------------------------------
# vlint on a recorded case (tests/checks/test_oracle.py, --agreement): vlint's own venv
# ------------------------------------------------------------------------------------------------

#: settings compared with what ``vlint explain --format json`` shows (report/explain.py)
COMPARED = (
    "max_model_len",
    "max_num_batched_tokens",
    "max_num_seqs",
    "enable_chunked_prefill",
    "enable_prefix_caching",
    "block_size",
    "gpu_memory_utilization",
    "max_cudagraph_capture_size",
)


def load_records(data: Path = DATA) -> list[dict[str, Any]]:
    recs: list[dict[str, Any]] = []
    for path in sorted(data.glob("*.jsonl"), key=lambda p: vkey(p.stem)):
        recs.extend(json.loads(x) for x in path.read_text().splitlines() if x.strip())
    return recs


def _shell_quote(word: str) -> str:
    import shlex

    return shlex.quote(word)


def launch_files(rec: dict[str, Any]) -> dict[str, str]:
    """The files vlint lints for a record: ``start.sh`` (the launch as a shell script), the --config
    file, the extra files, and ``model/config.json``; paths relative to one scratch folder."""
    case = rec["case"]
    files: dict[str, str] = {}
    model = case.get("model")
    if model:
        files["model/config.json"] = (MODELS / model / "config.json").read_text()
    cfg_name = case.get("config_name", "serve.yaml")
    if case.get("config") is not None:
        files[cfg_name] = case["config"].replace("{model}", "./model")
    for name, text in (case.get("files") or {}).items():
        files[name] = text

    def sub(a: str) -> str:
        return a.replace("{config}", "./" + cfg_name).replace("{tmp}", ".").replace("{model}", "./model")

    words = ["vllm", "serve"]
    if model and not case.get("model_flag"):
        words.append("./model")
    words += [sub(a) for a in case.get("argv", [])]
    # the harness runs vLLM from this folder (run_case: os.chdir(tmp)); the script says so, as a launch
    # script that relies on its folder must (a relative --config or --chat-template is opened from there)
    lines = ["#!/bin/sh", 'cd "$(dirname "$0")"']
    for k, v in (case.get("env") or {}).items():
        lines.append(f"export {k}={_shell_quote(str(v))}")
    lines.append(" ".join(_shell_quote(w) for w in words))
    files["start.sh"] = "\n".join(lines) + "\n"
    return files


def _scratch_parent() -> str | None:
    """A memory-backed folder for the launch files when there is one (writing and removing a folder per
    record on an overlay disk is a good part of a replay)."""
    shm = Path("/dev/shm")
    return str(shm) if shm.is_dir() and os.access(shm, os.W_OK) else None


def write_launch(rec: dict[str, Any], root: Path) -> None:
    for name, text in launch_files(rec).items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


def vlint_outcomes(recs: list[dict[str, Any]], engine: Any = None) -> list[dict[str, Any]]:
    """:func:`vlint_outcome` of each record, the launch files of each distinct case written once (the same
    case recorded at several releases is linted once per release from the same folder)."""
    import tempfile

    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine
    from vlint.run.lint import LintOptions, Reader

    engine = engine or Engine(load_catalog())
    out: list[dict[str, Any]] = [{}] * len(recs)
    by_case: dict[str, list[int]] = {}
    for i, r in enumerate(recs):
        by_case.setdefault(json.dumps(r["case"], sort_keys=True), []).append(i)
    with tempfile.TemporaryDirectory(prefix="vlint-oracle-", dir=_scratch_parent()) as tmp:
        for n, idx in enumerate(by_case.values()):
            root = Path(tmp) / str(n)
            root.mkdir()
            write_launch(recs[idx[0]], root)
            reader = Reader(LintOptions(root=root))  # the case's files read and extracted once, for every release
            for i in idx:
                out[i] = vlint_outcome(recs[i], engine, root=root, reader=reader)
    return out


def vlint_outcome(
    rec: dict[str, Any], engine: Any = None, root: Path | None = None, reader: Any = None
) -> dict[str, Any]:
    """Run vlint on one record's launch: its error findings, file errors and explain-JSON settings
    (``root``: a folder that already holds the record's launch files; ``reader``: the lint reader of
    that folder, shared by the records of one case)."""
    import tempfile

    from vlint.core.version import Version
    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine
    from vlint.launch.resolver import ResolveOptions
    from vlint.report.explain import explain_dict
    from vlint.run.lint import LintOptions, lint_paths

    engine = engine or Engine(load_catalog())
    opts = ResolveOptions(vllm_version=Version.parse(rec["release"]), vllm_version_source="oracle record")
    gpu = rec["case"].get("gpu")
    if gpu:
        opts.gpu = gpu
    if root is not None:
        report = lint_paths([root / "start.sh"], engine, LintOptions(resolve=opts, root=root), reader=reader)
    else:
        with tempfile.TemporaryDirectory(prefix="vlint-oracle-", dir=_scratch_parent()) as tmp:
            write_launch(rec, Path(tmp))
            report = lint_paths([Path(tmp) / "start.sh"], engine, LintOptions(resolve=opts, root=Path(tmp)))
    errors = [(f.code, f.message) for f in report.findings if f.severity == "error"]
    file_errors = [fr.error.message for fr in report.files if fr.error is not None]
    deps = [d for fr in report.files for d in fr.deployments]
    settings: dict[str, Any] = {}
    if deps:
        settings = dict(explain_dict(deps[0])["settings"])
    return {
        "rejects": bool(errors or file_errors),
        "errors": errors,
        "file_errors": file_errors,
        "settings": settings,
        "findings": [(f.code, f.severity, f.message) for f in report.findings],
    }


_WORD = re.compile(r"--?[A-Za-z][\w.-]*|[A-Za-z][\w.]*(?:-[\w.]+)+|[A-Za-z_][A-Za-z0-9_.]*|\d+(?:\.\d+)?")
_STOP = frozenset(
    [
        "the",
        "a",
        "an",
        "and",
        "or",
        "of",
        "to",
        "in",
        "is",
        "be",
        "for",
        "with",
        "than",
        "must",
        "not",
        "are",
        "this",
        "that",
        "it",
        "as",
        "by",
        "on",
        "at",
        "from",
        "please",
        "value",
        "error",
        "input",
        "should",
        "type",
        "validation",
        "errors",
        "further",
        "information",
        "visit",
        "https",
        "errors",
        "pydantic",
        "dev",
    ]
)


def _norm(tok: str) -> str:
    t = tok.lower().lstrip("-").replace("-", "_")
    return t[:-2] if t.endswith(".0") else t


_PYDANTIC_HEAD = re.compile(r"\b\d+ validation errors? for \w+\s*")
#: pydantic's location line before a validator's own message ("structured_outputs_config\n  Value error, …"):
#: the validator's message names the facts itself
_PYDANTIC_VALUE_ERROR = re.compile(r"[\w.]+[ \t]*\n\s*Value error,")
_PYDANTIC_TAIL = re.compile(r"\[type=.*|For further information visit \S+|input_value=ArgsKwargs\(.*")


_ABS_PATH = re.compile(r"(?<![\w.])/[\w./+-]+")
_POSITION = re.compile(r"\b(?:at )?line \d+(?:,? column \d+)?|\bcolumn \d+|\(char \d+\)")
#: the release's list of valid values after a refusal of an unknown one ("Must be one of [...]", "(chose from
#: { ... })", "Valid options are: ..."): the registry, not a fact of the launch (vlint names the value and
#: suggests the nearest)
_CHOICES = re.compile(
    r"(?:Must be one of|chose from|choose from|Valid (?:options|values) are:?|Supported \w+(?: \w+)? are:?)\s*"
    r"(?:\[[^\]]*\]|\{[^}]*\}|\([^)]*\)|[^.]*)",
    re.IGNORECASE,
)
#: pydantic's list of a Literal's values ("Input should be 'ngram', 'eagle' or 'medusa'"): the registry too
_LITERAL_CHOICES = re.compile(r"Input should be '[^']*'(?:, '[^']*')*(?: or '[^']*')?")


def salient(message: str) -> set[str]:
    """The facts of a refusal message: option and field names, numbers, identifiers (pydantic's
    "1 validation error for X", "[type=…]" and links are framing, not facts)."""
    text = _PYDANTIC_TAIL.sub(" ", _PYDANTIC_HEAD.sub(" ", message))
    text = _PYDANTIC_VALUE_ERROR.sub(" ", text)
    text = _ABS_PATH.sub(" ", text)  # the harness's scratch folder, the venv's site-packages
    text = _POSITION.sub(" ", text)  # "at line 1 column 2" of a JSON error: where, not what
    text = _CHOICES.sub(" ", _LITERAL_CHOICES.sub(" ", text))
    unrecognized = re.match(r"\s*unrecognized arguments: (.*)", text, re.S)
    if unrecognized:  # argparse echoes the values too: the facts are the options
        opts = {_norm(t) for t in _WORD.findall(unrecognized.group(1)) if t.startswith("-") and len(t) > 1}
        if opts:
            return opts
    words = _WORD.findall(text)
    toks = {_norm(t) for t in words}
    key = {_norm(t) for t in words if t.startswith("-") and len(t) > 2}
    key |= {t for t in toks if "_" in t or t.replace(".", "").isdigit()}
    return key or {t for t in toks if t not in _STOP and len(t) > 3}


#: vLLM crashes (not a message written for the user): any vlint error explains it better
CRASHES = ("AttributeError", "IndexError", "UnboundLocalError", "RecursionError", "SyntaxError")


def message_consistent(vllm_message: str, vlint_messages: list[str], exception: str = "") -> bool:
    """vlint's error says what vLLM's says: at least half of the facts vLLM names appear in it."""
    if exception in CRASHES:
        return bool(vlint_messages)
    want = salient(vllm_message)
    if not want:
        return bool(vlint_messages)
    for m in vlint_messages:
        words = _WORD.findall(m)
        have = {_norm(t) for t in words}
        have |= {_norm(p) for t in words if "-" in t.strip("-") for p in t.strip("-").split("-")}  # tool-call
        if len(want & have) * 2 >= len(want):
            return True
    return False


def compare_values(rec: dict[str, Any], settings: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Settings where vlint's explain differs from vLLM's resolved value (skipping CPU-decided ones)."""
    out: dict[str, tuple[Any, Any]] = {}
    vals = rec.get("values") or {}
    skip = set(rec.get("platform_sensitive", []))
    for k in COMPARED:
        if k in skip or k not in vals or k not in settings:
            continue
        want, got = vals[k], settings[k]
        if want is None:
            continue  # not decided before the platform's own hook (block_size: the platform sets it)
        if k == "max_cudagraph_capture_size" and (vals.get("enforce_eager") or want is None):
            continue
        if want != got:
            out[k] = (want, got)
    return out


def judge(rec: dict[str, Any], outcome: dict[str, Any]) -> dict[str, Any]:
    """Agreement of vlint with one record: verdict, message, values."""
    verdict = rec["verdict"]
    if "verdict" in rec.get("platform_sensitive", []):
        verdict = "platform"  # decided by the CPU the oracle runs on: not compared
    res: dict[str, Any] = {"id": rec["id"], "release": rec["release"], "verdict": verdict}
    if verdict == "reject":
        msgs = [m for _, m in outcome["errors"]] + outcome["file_errors"]
        res["agree"] = outcome["rejects"]
        res["message_ok"] = outcome["rejects"] and message_consistent(
            rec.get("message", ""), msgs, rec.get("exception", "")
        )
    elif verdict == "accept":
        res["agree"] = not outcome["rejects"]
        res["value_diffs"] = compare_values(rec, outcome["settings"]) if not outcome["rejects"] else {}
    return res


DOCS_HEADING = "## Agreement with vLLM"


def write_docs_section(table: str, data: Path = DATA) -> None:
    """docs/accuracy.md's last section (bench/accuracy.py --markdown keeps everything from this heading on)."""
    timings = json.loads((data / "timings.json").read_text()) if (data / "timings.json").exists() else {}
    listed = (data / "disagreements.yaml").read_text().count("\n- id:") if (data / "disagreements.yaml").exists() else 0
    time_rows = ", ".join(f"{rel} {t['seconds']:.0f} s ({t['cases']} cases)" for rel, t in timings.items())
    section = f"""
{DOCS_HEADING}

Generated by `python bench/oracle.py --agreement --write-docs` from the recorded oracle data
(`tests/data/oracle/`, see its README): every launch case run through each release's own `vllm serve`
parser, serve checks and `EngineArgs.create_engine_config()` on a CPU, and vlint run on the same launch.
A refusal agrees when vlint reports an error whose message names at least half of the facts vLLM's
message names (option and field names, numbers); an acceptance agrees when vlint reports no error; the
settings are those `vlint explain --format json` shows, against the values vLLM resolved before its
platform hook. Outcomes the CPU platform decides are not compared (last column). `tests/checks/test_oracle.py`
asserts at least 95 % on refusals and 98 % on acceptances per release, and that each of the
{listed} disagreements left is listed with its reason in `tests/data/oracle/disagreements.yaml`.

{table}

To reproduce the data from scratch (vLLM's per-release venvs come from `tools/gen_all_schemas.sh`; see
`tests/data/oracle/README.md`):

```bash
VLLM_ENVS=/path/to/vllm-envs python bench/oracle.py --prepare   # every release with a venv: writes <release>.jsonl
python bench/oracle.py --check                                  # rerun and compare with the recorded data
python bench/oracle.py --agreement --write-docs                 # this table
```

Time to record the data (seconds per release, one release after the other, 2 shared cores):
{time_rows or "n/a"}.
"""
    out = ROOT / "docs" / "accuracy.md"
    old = out.read_text() if out.exists() else ""
    i = old.find("\n" + DOCS_HEADING)
    # a marked block another script keeps after this section (bench/reach.py's) stays where it is
    j = old.find("\n<!-- bench/", i + 1) if i >= 0 else -1
    out.write_text((old[:i] if i >= 0 else old.rstrip("\n") + "\n") + section + (old[j:] if j >= 0 else ""))


#: the option group a case id's family reports under (a case's own ``group:`` wins; generated ids start
#: with ``g`` + the family: ``gsched-``)
FAMILY_GROUPS = {
    "sched": "scheduler",
    "cache": "cache",
    "par": "parallel",
    "spec": "speculative",
    "lora": "lora",
    "mm": "multimodal",
    "so": "structured-outputs",
    "comp": "compilation",
    "kvt": "kv-transfer",
    "obs": "observability",
    "arg": "argument parsing",
    "cfg": "--config files",
    "serve": "serve checks",
    "model": "model & quantization",
    "dflt": "defaults",
    "v0": "V0 engine",
    "bnd": "config-class bounds",
    "misc": "misc",
}


def case_group(case_id: str, explicit: str | None = None) -> str:
    if explicit:
        return explicit
    fam = case_id.split("-", 1)[0]
    if fam not in FAMILY_GROUPS and fam.startswith("g") and fam[1:] in FAMILY_GROUPS:
        fam = fam[1:]
    return FAMILY_GROUPS.get(fam, fam)


def _table(title: str, rows: dict[str, list[int]], order: list[str]) -> list[str]:
    lines = [
        f"| {title} | refusals | vlint errors (message consistent) | acceptances | vlint passes | settings compared "
        "| settings equal | not compared (platform, harness) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def pct(a: int, b: int) -> str:
        return f"{a} ({a / b:.1%})" if b else "-"

    for key in order:
        t = rows[key]
        lines.append(
            f"| {key} | {t[0]} | {pct(t[1], t[0])} | {t[2]} | {pct(t[3], t[2])} | {t[4]} | {pct(t[5], t[4])} | {t[6]} |"
        )
    tot = [sum(t[i] for t in rows.values()) for i in range(7)]
    lines.append(
        f"| **all** | {tot[0]} | {pct(tot[1], tot[0])} | {tot[2]} | {pct(tot[3], tot[2])} | {tot[4]} "
        f"| {pct(tot[5], tot[4])} | {tot[6]} |"
    )
    return lines


def agreement_table(data: Path = DATA) -> str:
    """Per release and per option group: vLLM's refusals vlint reports as errors with a consistent message,
    vLLM's acceptances vlint passes, and the resolved settings ``vlint explain`` shows equal to vLLM's."""
    from vlint.engine.catalog import load_catalog
    from vlint.engine.runner import Engine

    engine = Engine(load_catalog())
    cases_file = data / "cases.yaml"
    groups = {c["id"]: c.get("group") for c in load_cases(cases_file)} if cases_file.exists() else {}
    by_rel: dict[str, list[int]] = {}
    by_group: dict[str, list[int]] = {}
    recs = load_records(data)
    judged = [r for r in recs if r["verdict"] in ("accept", "reject")]
    outcomes = {id(r): o for r, o in zip(judged, vlint_outcomes(judged, engine), strict=True)}
    for r in recs:
        g = case_group(r["id"], groups.get(r["id"]))
        ts = (by_rel.setdefault(r["release"], [0] * 7), by_group.setdefault(g, [0] * 7))
        if r["verdict"] not in ("accept", "reject"):
            for t in ts:
                t[6] += 1
            continue
        j = judge(r, outcomes[id(r)])
        vals = r.get("values") or {}
        compared = [k for k in COMPARED if vals.get(k) is not None and k not in r.get("platform_sensitive", [])]
        for t in ts:
            if j["verdict"] == "reject":
                t[0] += 1
                t[1] += bool(j["agree"] and j.get("message_ok"))
            elif j["verdict"] == "accept":
                t[2] += 1
                t[3] += bool(j["agree"])
                t[4] += len(compared)
                t[5] += len(compared) - len(j.get("value_diffs") or {})
            else:
                t[6] += 1
    cases = len({r["id"] for r in recs})
    lines = [f"{cases} distinct launch cases, {len(recs)} records, {len(by_rel)} releases.", "", "Per release:", ""]
    lines += _table("vLLM", by_rel, sorted(by_rel, key=vkey))
    lines += ["", "Per option group (the case families; generated cases name their group):", ""]
    lines += _table("group", by_group, sorted(by_group))
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------------
# Worker: runs inside one release's venv; reads {"release", "cases"} on stdin, prints one JSON per case
# ------------------------------------------------------------------------------------------------


class OracleParseError(Exception):
    """argparse's ``parser.error(message)`` (vLLM prints usage and exits 2)."""


class ReachedEngine(Exception):
    """The serve path got to building the engine client: everything before it passed."""


_STATE: dict[str, Any] = {
    "persona": None,
    "queries": [],
    "snapshots": {},
    "in_scope": 0,
    "in_hook": 0,
    "hook_error": None,
}

#: EngineArgs methods in which the platform answers as CUDA (they hold CPU-only branches that pick the
#: engine and the defaults; see the module docstring)
PERSONA_SCOPE = (
    "_is_v1_supported_oracle",
    "_set_default_args",
    "_set_default_args_v0",
    "_set_default_args_v1",
    "get_batch_defaults",
    "_set_default_max_num_seqs_and_batched_tokens_args",
    "_set_default_chunked_prefill_and_prefix_caching_args",
)


def _caller(depth: int = 2) -> tuple[str, str]:
    """(``vllm/x.py:LINE``, function) of the nearest vLLM frame above the platform method."""
    f = sys._getframe(depth)
    while f is not None:
        fn = f.f_code.co_filename.replace("\\", "/")
        if "/vllm/" in fn and "/vllm/platforms/" not in fn:
            return "vllm/" + fn.rsplit("/vllm/", 1)[1] + f":{f.f_lineno}", f.f_code.co_name
        f = f.f_back
    return "?", "?"


def _note(query: str) -> None:
    where, func = _caller(3)
    q = {"query": query, "function": func, "at": where}
    if _STATE["in_scope"]:
        q["scoped"] = True
    if q not in _STATE["queries"]:
        _STATE["queries"].append(q)


def _vllm_where(tb: Any) -> str:
    """The innermost frame in vLLM's own source (the raising line)."""
    where = ""
    while tb is not None:
        fn = tb.tb_frame.f_code.co_filename.replace("\\", "/")
        if "/vllm/" in fn and "site-packages" in fn:
            where = "vllm/" + fn.rsplit("/vllm/", 1)[1] + f":{tb.tb_lineno}"
        tb = tb.tb_next
    return where


#: answers the CUDA platform gives as constants (vllm/platforms/cuda.py), used in place of the CPU's
#: everywhere: they decide whether CUDA-graph sizes are computed at all
CUDA_CONSTANTS = {"support_static_graph_mode": True}
#: answers inside PERSONA_SCOPE (CUDA's, with a GPU of the case's kind)
SCOPED_ANSWERS = {
    "is_cpu": False,
    "is_cuda": True,
    "is_cuda_alike": True,
    "is_rocm": False,
    "supports_v1": True,
    "default_v1": True,
}


def install_platform_shims() -> None:
    """Record every platform query made from vLLM code; answer device queries for the case's GPU."""
    from vllm.platforms import current_platform

    cls = type(current_platform)
    names: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        for name, attr in vars(klass).items():
            if not name.startswith("__"):
                names[name] = attr

    def dev_memory(device_id: int = 0) -> int:
        if _STATE["persona"] is None:
            raise RuntimeError("no GPU visible (oracle: no gpu in this case)")
        return int(_STATE["persona"]["total_bytes"])

    def dev_name(device_id: int = 0) -> str:
        if _STATE["persona"] is None:
            raise RuntimeError("no GPU visible (oracle: no gpu in this case)")
        return str(_STATE["persona"]["device_name"])

    def dev_capability(device_id: int = 0) -> Any:
        from vllm.platforms.interface import DeviceCapability

        p = _STATE["persona"]
        if p is None or not p.get("cc"):
            return None
        return DeviceCapability(major=p["cc"][0], minor=p["cc"][1])

    persona = {
        "get_device_total_memory": dev_memory,
        "get_device_name": dev_name,
        "get_device_capability": dev_capability,
    }

    def make(name: str, orig: Any, kind: str) -> Any:
        def call(self_or_cls: Any, *a: Any, **k: Any) -> Any:
            inside = _caller(2)[0] != "?"
            if inside and not _STATE["in_hook"]:
                _note(name)
            if name in persona and not _STATE["in_hook"]:
                return persona[name](*a, **k)
            if _STATE["in_scope"] and name in SCOPED_ANSWERS:
                return SCOPED_ANSWERS[name]
            if name in CUDA_CONSTANTS and not _STATE["in_hook"]:
                return CUDA_CONSTANTS[name]
            return orig(*a, **k) if kind == "classmethod" else orig(self_or_cls, *a, **k)

        return call

    for name, attr in names.items():
        if name == "check_and_update_config":
            continue
        if isinstance(attr, classmethod):
            setattr(cls, name, classmethod(make(name, getattr(cls, name), "classmethod")))
        elif isinstance(attr, staticmethod):
            continue
        elif isinstance(attr, property) and attr.fget is not None:
            fget = attr.fget
            setattr(cls, name, property(make(name, fget, "method")))
        elif callable(attr) and getattr(attr, "__module__", "").startswith("vllm.platforms"):
            setattr(cls, name, make(name, attr, "method"))

    orig_hook = getattr(cls, "check_and_update_config", None)
    if orig_hook is None:  # 0.6.4.post1 and older: no platform hook in VllmConfig; the values are the final ones
        _scope_engine_args()
        return

    def hook(_cls: Any, vllm_config: Any) -> None:
        _note("check_and_update_config")
        _STATE["snapshots"][id(vllm_config)] = config_values(vllm_config)
        _STATE["in_hook"] += 1
        try:
            orig_hook(vllm_config)
        except Exception as e:
            _STATE["hook_error"] = e
            raise
        finally:
            _STATE["in_hook"] -= 1
        _STATE["snapshots"][(id(vllm_config), "after")] = config_values(vllm_config)

    cls.check_and_update_config = classmethod(hook)
    _scope_engine_args()


def _scope_engine_args() -> None:
    """Answer the platform queries inside PERSONA_SCOPE as CUDA does (see install_platform_shims)."""
    from vllm.engine.arg_utils import EngineArgs

    for name in PERSONA_SCOPE:
        fn = EngineArgs.__dict__.get(name)
        if fn is None:
            continue
        raw = fn.__func__ if isinstance(fn, (classmethod, staticmethod)) else fn

        def scoped(*a: Any, __raw: Any = raw, **k: Any) -> Any:
            _STATE["in_scope"] += 1
            try:
                return __raw(*a, **k)
            finally:
                _STATE["in_scope"] -= 1

        if isinstance(fn, classmethod):
            setattr(EngineArgs, name, classmethod(scoped))
        elif isinstance(fn, staticmethod):
            setattr(EngineArgs, name, staticmethod(scoped))
        else:
            setattr(EngineArgs, name, scoped)


def _get(obj: Any, *names: str) -> Any:
    for n in names:
        cur = obj
        ok = True
        for part in n.split("."):
            if cur is None or not hasattr(cur, part):
                ok = False
                break
            cur = getattr(cur, part)
        if ok:
            return cur
    return None


def _plain(v: Any) -> Any:
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple, set)):
        items = [_plain(x) for x in v]
        return sorted(items) if isinstance(v, set) else items
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    name = getattr(v, "name", None)
    if isinstance(name, str) and type(v).__module__.startswith(("vllm", "enum")):
        return name
    s = str(v)
    return s[len("torch.") :] if s.startswith("torch.") else s


def config_values(cfg: Any) -> dict[str, Any]:
    """The settings vlint resolves, read from a VllmConfig (attribute names differ per release)."""
    mc, sc, cc, pc = cfg.model_config, cfg.scheduler_config, cfg.cache_config, cfg.parallel_config
    comp = getattr(cfg, "compilation_config", None)
    spec = getattr(cfg, "speculative_config", None)
    sizes = _get(comp, "cudagraph_capture_sizes")
    vals: dict[str, Any] = {
        "max_model_len": _get(mc, "max_model_len"),
        "max_num_batched_tokens": _get(sc, "max_num_batched_tokens"),
        "max_num_seqs": _get(sc, "max_num_seqs"),
        "enable_chunked_prefill": _get(sc, "chunked_prefill_enabled", "enable_chunked_prefill"),
        "enable_prefix_caching": _get(cc, "enable_prefix_caching"),
        "block_size": _get(cc, "block_size"),
        "gpu_memory_utilization": _get(cc, "gpu_memory_utilization"),
        "kv_cache_dtype": _get(cc, "cache_dtype"),
        "dtype": _get(mc, "dtype"),
        "quantization": _get(mc, "quantization"),
        "enforce_eager": _get(mc, "enforce_eager"),
        "tensor_parallel_size": _get(pc, "tensor_parallel_size"),
        "pipeline_parallel_size": _get(pc, "pipeline_parallel_size"),
        "data_parallel_size": _get(pc, "data_parallel_size"),
        "cudagraph_capture_sizes": sorted(sizes) if isinstance(sizes, (list, tuple)) else None,
        "max_cudagraph_capture_size": _get(comp, "max_cudagraph_capture_size", "max_capture_size"),
        "cudagraph_mode": _get(comp, "cudagraph_mode"),
        "async_scheduling": _get(sc, "async_scheduling"),
        "num_speculative_tokens": _get(spec, "num_speculative_tokens"),
        "swap_space": _get(cc, "swap_space"),
        "max_logprobs": _get(mc, "max_logprobs"),
    }
    return {k: _plain(v) for k, v in vals.items()}


def _engine_version() -> str | None:
    try:
        import vllm.envs as envs

        if "VLLM_USE_V1" not in dir(envs) and not hasattr(envs, "VLLM_USE_V1"):
            return "V1"
        return "V1" if envs.VLLM_USE_V1 else "V0"
    except Exception:  # 0.11.1+ removed the switch
        return "V1"


def _patch_serve_path(rec: dict[str, Any]) -> None:
    """Let ``vllm serve``'s own code run up to building the engine client, with no socket and no engine."""
    import contextlib

    async_engine_args = _import_first(("vllm.engine.arg_utils", "AsyncEngineArgs"))

    @contextlib.asynccontextmanager
    async def fake_client(args: Any, *a: Any, **k: Any) -> Any:
        rec["stage"] = "engine-config"
        engine_stage(async_engine_args.from_cli_args(args), rec)
        raise ReachedEngine()
        yield None  # pragma: no cover

    class _Sock:
        def close(self) -> None:
            pass

        def fileno(self) -> int:
            return -1

        def getsockname(self) -> tuple[str, int]:
            return ("0.0.0.0", 8000)

    def fake_socket(*a: Any, **k: Any) -> Any:
        return _Sock()

    def fake_runner(name: str) -> Any:
        def run(args: Any, *a: Any, **k: Any) -> None:
            rec["dispatch"] = name
            rec["stage"] = "engine-config"
            validate = _import_first(
                ("vllm.entrypoints.common.cli_args", "validate_api_server_args"),
                ("vllm.entrypoints.openai.api_server", "validate_api_server_args"),
            )
            if validate is not None and name == "run_multi_api_server":
                validate(args)
            engine_stage(async_engine_args.from_cli_args(args), rec)
            raise ReachedEngine()

        return run

    class _Uvloop:
        @staticmethod
        def run(coro: Any, **k: Any) -> Any:
            import asyncio

            return asyncio.run(coro)

    for name, mod in list(sys.modules.items()):
        if not name.startswith("vllm.") or mod is None:
            continue
        d = getattr(mod, "__dict__", {})
        if "build_async_engine_client" in d and callable(d["build_async_engine_client"]):
            mod.build_async_engine_client = fake_client
        for sock_fn in ("create_server_socket", "create_server_unix_socket"):
            if sock_fn in d:
                setattr(mod, sock_fn, fake_socket)
        if "set_ulimit" in d:
            mod.set_ulimit = lambda *a, **k: None
        if name in ("vllm.entrypoints.cli.serve", "vllm.scripts"):
            if "uvloop" in d:
                mod.uvloop = _Uvloop
            for runner in ("run_headless", "run_multi_api_server", "run_dp_supervisor", "run_api_server_worker_proc"):
                if runner in d:
                    setattr(mod, runner, fake_runner(runner))


def _import_first(*cands: tuple[str, str]) -> Any:
    import importlib

    for mod, attr in cands:
        try:
            m = importlib.import_module(mod)
        except Exception:
            continue
        if hasattr(m, attr):
            return getattr(m, attr)
    return None


def engine_stage(engine_args: Any, rec: dict[str, Any]) -> None:
    from vllm.usage.usage_lib import UsageContext

    try:
        cfg = engine_args.create_engine_config(usage_context=UsageContext.OPENAI_API_SERVER)
    except TypeError as e:
        if "usage_context" not in str(e):
            raise
        try:
            cfg = engine_args.create_engine_config(UsageContext.OPENAI_API_SERVER)
        except TypeError as e2:  # 0.6.4.post1 and older: create_engine_config(self) takes no usage context
            if "positional argument" not in str(e2):
                raise
            cfg = engine_args.create_engine_config()
    snap = _STATE["snapshots"].get(id(cfg))
    after = _STATE["snapshots"].get((id(cfg), "after"))
    final = config_values(cfg)
    vals = dict(snap if snap is not None else final)
    vals["engine"] = _engine_version()
    rec["values"] = vals
    if snap is not None:
        changed = {k: [snap.get(k), (after or final).get(k)] for k in snap if snap.get(k) != (after or final).get(k)}
        if changed:
            rec["platform_changes"] = changed


#: refusals that come from running on the CPU platform, not from the launch
PLATFORM_REFUSAL = re.compile(
    r"only supported on (CUDA|GPU)|supported on CUDA devices|not supported (on|for) (the )?CPU|CPU backend"
    r"|on CPU platform|CPU platform|requires intel_extension_for_pytorch|Dual CUDA streams",
    re.IGNORECASE,
)
#: failures of the harness's environment or fixtures (no weights, no tokenizer files, packages the
#: schema venvs leave out): recorded as harness-error, never compared
HARNESS_LIMIT = re.compile(
    r"^(ModuleNotFoundError|ImportError): |Couldn't instantiate the backend tokenizer|Can't load tokenizer"
    r"|Unable to load Ray|tokenizer\.json|No such file or directory: '[^']*(tokenizer|vocab)"
    r"|failed to be inspected|Repo id must be in the form",
)


def run_case(case: dict[str, Any], parser: Any, tmp: Path) -> dict[str, Any]:
    rec: dict[str, Any] = {"id": case["id"], "verdict": "accept", "stage": "parse"}
    os.environ.update(case["env"])
    _STATE["persona"] = case["gpu"]
    for name, text in case["files"].items():
        p = tmp / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    argv = []
    cfg_path = None
    if case["config"] is not None:
        cfg_path = tmp / case["config_name"]
        cfg_path.write_text(case["config"].replace("{model}", case["model"] or ""))
    for a in case["argv"]:
        a = a.replace("{config}", str(cfg_path) if cfg_path else "").replace("{tmp}", str(tmp))
        a = a.replace("{model}", case["model"] or "")
        argv.append(a)
    full = ["serve"]
    if case["model"] and not case["model_flag"]:
        full.append(case["model"])
    full += argv
    os.chdir(tmp)
    logs: list[str] = []
    _capture_warnings(logs)
    try:
        args = parser.parse_args(full)
        rec["stage"] = "serve-validate"
        sub = getattr(args, "subparser", None)
        validate = None
        serve_cls = _import_first(("vllm.entrypoints.cli.serve", "ServeSubcommand"))
        if serve_cls is not None and hasattr(serve_cls, "validate"):
            validate = serve_cls().validate
        else:
            validate = _import_first(("vllm.entrypoints.openai.cli_args", "validate_parsed_serve_args"))
        if validate is not None and sub in (None, "serve"):
            validate(args)
        rec["stage"] = "serve"
        _patch_serve_path(rec)
        dispatch = getattr(args, "dispatch_function", None)
        if dispatch is None:
            raise RuntimeError("oracle: parsed args have no dispatch_function")
        dispatch(args)
        raise RuntimeError("oracle: the serve path returned without building an engine")
    except ReachedEngine:
        rec["verdict"] = "accept"
    except OracleParseError as e:
        rec.update(verdict="reject", exception="ArgumentError", message=str(e))
    except SystemExit as e:
        rec.update(verdict="reject", exception="SystemExit", message=f"exit {e.code}")
    except BaseException as e:
        where = _vllm_where(e.__traceback__)
        rec.update(verdict="reject", exception=type(e).__name__, message=str(e)[:2000], where=where)
        text = f"{type(e).__name__}: {e}"
        if _STATE["hook_error"] is e:
            rec["verdict"] = "platform"
            rec["stage"] = "platform-hook"
        elif where.startswith("vllm/platforms/") or PLATFORM_REFUSAL.search(text):
            rec["verdict"] = "platform"
        elif "oracle:" in str(e) or where == "" or HARNESS_LIMIT.search(text):
            rec["verdict"] = "harness-error"
    rec["platform_queries"] = _STATE["queries"]
    if logs:
        rec["warnings"] = logs[:12]
    return rec


def _capture_warnings(sink: list[str]) -> None:
    import logging

    class H(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            try:
                msg = record.getMessage()
            except Exception:
                msg = str(record.msg)
            if record.levelno >= logging.WARNING and msg not in sink:
                sink.append(msg[:400])

    lg = logging.getLogger("vllm")
    lg.addHandler(H(level=logging.WARNING))


def _warm_models(cases: list[dict[str, Any]]) -> None:
    """Inspect each model class once in the parent: vLLM does it in a subprocess (tens of seconds), keeps
    the answer in an lru_cache (and from 0.19 on disk), and every forked case inherits it."""
    try:
        from vllm.model_executor.models import ModelRegistry
    except Exception as e:
        print(f"oracle: no model registry to warm: {e}", file=sys.stderr)
        return
    try:  # vLLM inspects in a subprocess so that CUDA stays uninitialised; there is no CUDA here
        import vllm.model_executor.models.registry as registry

        in_subprocess = registry._run_in_subprocess

        def in_process(fn: Any) -> Any:
            try:
                return fn()
            except Exception:  # a model module that imports only in a fresh process: vLLM's own way
                return in_subprocess(fn)

        registry._run_in_subprocess = in_process
    except Exception as e:
        print(f"oracle: model inspection stays in a subprocess: {e}", file=sys.stderr)
    archs: set[str] = set()
    for c in cases:
        if c["model"]:
            with contextlib.suppress(OSError):
                archs.update(json.loads((Path(c["model"]) / "config.json").read_text()).get("architectures", []))
    for a in sorted(archs):
        try:
            ModelRegistry._try_inspect_model_cls(a)
        except Exception as e:
            print(f"oracle: warming {a}: {type(e).__name__}: {e}", file=sys.stderr)


def worker_main() -> int:
    import tempfile

    sys.path.insert(0, str(ROOT / "tools"))
    payload = json.loads(sys.stdin.read())
    real_stdout = sys.stdout
    sys.stdout = sys.stderr  # vLLM prints; keep stdout for records
    import gen_vllm_schema as gen  # tools/gen_vllm_schema.py: the same CPU forcing and parser capture

    gen.apply_torch_shims()
    with gen._quiet_argv():
        gen.force_cpu_platform()
        _, top, _info = gen.load_serve_parser()

    def error(self: argparse.ArgumentParser, message: str) -> Any:
        raise OracleParseError(message)

    argparse.ArgumentParser.error = error  # type: ignore[method-assign]
    install_platform_shims()
    t0 = time.monotonic()
    _warm_models(payload["cases"])
    print(f"oracle: warm-up {time.monotonic() - t0:.1f} s", file=sys.stderr, flush=True)
    base_env = dict(os.environ)
    for case in payload["cases"]:
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # child: one case, fresh copy of every global
            os.close(r)
            code = 0
            signal.alarm(CASE_TIMEOUT)
            try:
                with tempfile.TemporaryDirectory(prefix="oracle-") as tmp:
                    rec = run_case(case, top, Path(tmp))
            except BaseException as e:
                rec = {"id": case["id"], "verdict": "harness-error", "message": f"{type(e).__name__}: {e}"}
                code = 1
            rec["release"] = payload["release"]
            rec["harness"] = HARNESS_VERSION
            with os.fdopen(w, "w") as fh:
                fh.write(json.dumps(rec, default=str))
            os._exit(code)
        os.close(w)
        t_case = time.monotonic()
        with os.fdopen(r) as fh:
            data = fh.read()
        print(f"oracle: {case['id']} {time.monotonic() - t_case:.1f} s", file=sys.stderr, flush=True)
        os.waitpid(pid, 0)
        os.environ.clear()
        os.environ.update(base_env)
        if not data:
            data = json.dumps(
                {
                    "id": case["id"],
                    "verdict": "harness-error",
                    "message": "case process died",
                    "release": payload["release"],
                }
            )
        real_stdout.write(data + "\n")
        real_stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
