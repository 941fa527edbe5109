# ruff: noqa: E501  (the option tables: one JSON value per line)
"""Generate the option-group launch cases of the vLLM oracle (tests/data/oracle/generated.yaml).

For every option group (scheduler, cache, parallel, speculative, LoRA, multimodal, structured outputs,
compilation, kv-transfer, observability) this writes launch cases from the options' own parser facts in
the bundled schemas (``schemas/vllm/releases/<release>.json.gz``: which releases have the option, its
kind, its choices, its ``--no-`` form): valid values (the default, each choice, a typical value) and invalid
ones (a word where a number is expected, zero and negative numbers, a choice the release does not have,
malformed JSON), plus hand-written JSON values for the composite options (``--speculative-config``,
``--compilation-config``, ``--kv-transfer-config``…) taken from the validation code of ``vllm/config/*.py``.

Each case runs on a few of the oracle releases that have its option (at most ``PER_CASE``, spread over the
range and rotated by the case id, 0.20.0 left out: its cases take seconds each), so that every release
sees every group without every case running everywhere. The output is deterministic.

    python bench/oracle_cases.py            # (re)write tests/data/oracle/generated.yaml
    python bench/oracle_cases.py --check    # fail if the file is not what the generator writes
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import zlib
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "schemas" / "vllm"
OUT = ROOT / "tests" / "data" / "oracle" / "generated.yaml"
sys.path.insert(0, str(Path(__file__).resolve().parent))

from oracle import RELEASES, vkey  # noqa: E402  (bench/oracle.py)

#: how many releases one generated case runs on
PER_CASE = 4
#: releases generated cases do not run on (0.20.0 inspects the model classes for seconds per case)
SLOW = frozenset({"0.20.0"})
BASE = ["--max-model-len", "4096"]
MODEL = "llama-3.1-8b"
MOE = "qwen3-30b-a3b"


@cache
def schema(release: str) -> dict[str, Any]:
    index = json.loads((SCHEMAS / "index.json").read_text())
    name = index["aliases"].get(release, release)
    return json.loads(gzip.decompress((SCHEMAS / "releases" / f"{name}.json.gz").read_bytes()))


@cache
def option(release: str, flag: str) -> dict[str, Any] | None:
    for a in schema(release)["arguments"]:
        if flag in a["option_strings"]:
            return a
    return None


def releases_with(flag: str) -> list[str]:
    return [r for r in RELEASES if option(r, flag) is not None]


def pick(avail: list[str], cid: str, n: int = PER_CASE) -> list[str]:
    """At most n of avail (sorted), spread over the range, rotated by the case id."""
    pool = [r for r in avail if r not in SLOW] or list(avail)
    if len(pool) <= n:
        return pool
    off = zlib.crc32(cid.encode()) % len(pool)
    idx = sorted({(off + k * len(pool) // n) % len(pool) for k in range(n)})
    return [pool[i] for i in idx]


def slug(v: str) -> str:
    out = "".join(c if c.isalnum() else "-" for c in v.lower()).strip("-")
    while "--" in out:
        out = out.replace("--", "-")
    return out[:40] or "empty"


# ---------------------------------------------------------------------------------------------- the groups
# Per group: (case-id prefix, options). An option is a flag, or (flag, {"values": [...], "pre": [...argv before],
# "model": folder, "auto": False to skip the kind's automatic values}).
Opt = str | tuple[str, dict[str, Any]]

LORA = ["--enable-lora"]
#: the V0 n-gram speculative flags a speculative option needs beside it (0.6-0.7)
NGRAM = ["--speculative-model", "[ngram]", "--num-speculative-tokens", "3"]
NGRAM_MAX = [*NGRAM, "--ngram-prompt-lookup-max", "4"]
GROUPS: dict[str, tuple[str, list[Opt]]] = {
    "scheduler": (
        "gsched",
        [
            "--max-num-seqs",
            ("--max-num-batched-tokens", {"values": ["2048", "8192", "100"]}),
            ("--max-num-partial-prefills", {"values": ["2", "4"]}),
            ("--max-long-partial-prefills", {"values": ["2"], "pre": ["--max-num-partial-prefills", "4"]}),
            ("--long-prefill-token-threshold", {"values": ["512"]}),
            "--scheduling-policy",
            ("--num-scheduler-steps", {"values": ["8"]}),
            ("--scheduler-delay-factor", {"values": ["0.5"]}),
            "--preemption-mode",
            ("--num-lookahead-slots", {"values": ["4"]}),
            "--enable-chunked-prefill",
            "--disable-chunked-mm-input",
            "--disable-hybrid-kv-cache-manager",
            "--async-scheduling",
            ("--cuda-graph-sizes", {"values": ["256"]}),
            ("--max-num-scheduled-tokens", {"values": ["2048"]}),
            ("--stream-interval", {"values": ["4"]}),
            "--multi-step-stream-outputs",
            ("--max-num-queued-reqs", {"values": ["128"]}),
            "--long-prefill-token-threshold-adaptive",
        ],
    ),
    "cache": (
        "gcache",
        [
            "--block-size",
            ("--gpu-memory-utilization", {"values": ["0.8", "1.5"]}),
            ("--swap-space", {"values": ["8"]}),
            "--kv-cache-dtype",
            ("--num-gpu-blocks-override", {"values": ["1000"]}),
            "--enable-prefix-caching",
            "--prefix-caching-hash-algo",
            ("--cpu-offload-gb", {"values": ["4"]}),
            "--calculate-kv-scales",
            ("--kv-cache-memory-bytes", {"values": ["8G", "1000000000"]}),
            "--mamba-cache-dtype",
            "--mamba-ssm-cache-dtype",
            "--kv-sharing-fast-prefill",
            ("--kv-offloading-size", {"values": ["4"]}),
            ("--kv-offloading-backend", {"pre": ["--kv-offloading-size", "4"]}),
            ("--mamba-block-size", {"values": ["64"]}),
            "--mamba-cache-mode",
            ("--prefix-cache-retention-interval", {"values": ["10"]}),
        ],
    ),
    "parallel": (
        "gpar",
        [
            ("--tensor-parallel-size", {"values": ["2", "3", "8"]}),
            ("--pipeline-parallel-size", {"values": ["2", "3"]}),
            ("--data-parallel-size", {"values": ["2"]}),
            ("--data-parallel-size-local", {"values": ["1"], "pre": ["--data-parallel-size", "2"]}),
            ("--data-parallel-rank", {"values": ["1"], "pre": ["--data-parallel-size", "2"]}),
            ("--data-parallel-start-rank", {"values": ["1"], "pre": ["--data-parallel-size", "2", "--headless"]}),
            ("--data-parallel-rpc-port", {"values": ["13345"], "auto_bad_only": True}),
            ("--data-parallel-backend", {"values": ["mp", "nope"], "auto": False}),
            ("--enable-expert-parallel", {"model": MOE}),
            ("--enable-eplb", {"model": MOE, "pre": ["--enable-expert-parallel"]}),
            ("--num-redundant-experts", {"model": MOE, "values": ["2"], "pre": ["--enable-expert-parallel"]}),
            (
                "--eplb-config",
                {
                    "model": MOE,
                    "pre": ["--enable-expert-parallel", "--enable-eplb"],
                    "values": ['{"window_size": 100}', '{"num_redundant_experts": -1}', '{"nope": 1}'],
                },
            ),
            ("--distributed-executor-backend", {"values": ["mp", "uni", "nope"], "auto": False}),
            ("--max-parallel-loading-workers", {"values": ["2"]}),
            "--disable-custom-all-reduce",
            ("--decode-context-parallel-size", {"values": ["2"], "pre": ["--tensor-parallel-size", "2"]}),
            ("--dcp-kv-cache-interleave-size", {"values": ["16"]}),
            ("--cp-kv-cache-interleave-size", {"values": ["16"]}),
            ("--prefill-context-parallel-size", {"values": ["2"]}),
            ("--expert-placement-strategy", {"model": MOE, "pre": ["--enable-expert-parallel"]}),
            ("--all2all-backend", {"model": MOE, "pre": ["--enable-expert-parallel"]}),
            "--enable-dbo",
            ("--dbo-decode-token-threshold", {"values": ["16"]}),
            ("--ubatch-size", {"values": ["2"]}),
            ("--nnodes", {"values": ["2"]}),
            ("--node-rank", {"values": ["1"], "pre": ["--nnodes", "2"]}),
            ("--api-server-count", {"values": ["2"]}),
            ("--data-parallel-hybrid-lb", {"pre": ["--data-parallel-size", "2"]}),
            ("--data-parallel-external-lb", {"pre": ["--data-parallel-size", "2"]}),
            "--enable-multimodal-encoder-data-parallel",
        ],
    ),
    "speculative": (
        "gspec",
        [
            (
                "--speculative-config",
                {
                    "auto": False,
                    "values": [
                        "{bad",
                        "{}",
                        '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3}',
                        '{"method": "ngram", "num_speculative_tokens": 5, "prompt_lookup_max": 5, "prompt_lookup_min": 2}',
                        '{"method": "ngram", "num_speculative_tokens": -1, "prompt_lookup_max": 3}',
                        '{"method": "ngram", "num_speculative_tokens": 2}',
                        '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 0}',
                        '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3, "max_model_len": 1024}',
                        '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3, "max_model_len": 0}',
                        '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3, "disable_by_batch_size": 4}',
                        '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3, "nope": 1}',
                        '{"method": "eagle", "num_speculative_tokens": 2}',
                        '{"method": "medusa", "num_speculative_tokens": 2}',
                        '{"method": "mtp", "num_speculative_tokens": 1}',
                        '{"method": "suffix", "num_speculative_tokens": 4}',
                        '{"method": "ngram_gpu", "num_speculative_tokens": 2, "prompt_lookup_max": 3}',
                        '{"method": "NGRAM", "num_speculative_tokens": 2, "prompt_lookup_max": 3}',
                        '{"num_speculative_tokens": 2, "prompt_lookup_max": 3}',
                        '{"model": "[ngram]", "num_speculative_tokens": 2, "prompt_lookup_max": 3}',
                        '{"method": "ngram", "num_speculative_tokens": "two", "prompt_lookup_max": 3}',
                    ],
                },
            ),
            ("--speculative-model", {"values": ["[ngram]"], "auto": False}),
            ("--num-speculative-tokens", {"values": ["3"]}),
            (
                "--ngram-prompt-lookup-max",
                {"values": ["4"], "pre": NGRAM},
            ),
            (
                "--ngram-prompt-lookup-min",
                {
                    "values": ["2"],
                    "pre": NGRAM_MAX,
                },
            ),
            (
                "--speculative-disable-by-batch-size",
                {
                    "values": ["4"],
                    "pre": NGRAM_MAX,
                },
            ),
            (
                "--speculative-max-model-len",
                {
                    "values": ["1024"],
                    "pre": NGRAM_MAX,
                },
            ),
            (
                "--spec-decoding-acceptance-method",
                {"pre": NGRAM_MAX},
            ),
            ("--spec-method", {"pre": ["--spec-tokens", "2"]}),
            ("--spec-tokens", {"values": ["2"], "pre": ["--spec-method", "ngram"]}),
            "--speculative-disable-mqa-scorer",
        ],
    ),
    "lora": (
        "glora",
        [
            ("--enable-lora", {"values": []}),
            ("--max-loras", {"pre": LORA, "values": ["4"]}),
            ("--max-lora-rank", {"pre": LORA, "values": ["64", "256", "24"]}),
            ("--max-cpu-loras", {"pre": LORA, "values": ["8"]}),
            ("--lora-dtype", {"pre": LORA}),
            ("--lora-extra-vocab-size", {"pre": LORA, "values": ["512", "100"]}),
            ("--fully-sharded-loras", {"pre": LORA}),
            ("--enable-lora-bias", {"pre": LORA}),
            ("--long-lora-scaling-factors", {"pre": LORA, "values": ["4.0", "4.0,8.0"], "auto": False}),
            ("--default-mm-loras", {"pre": LORA, "values": ['{"image": "/tmp/lora"}', "{bad"], "auto": False}),
            ("--lora-target-modules", {"pre": LORA, "values": ["q_proj", "nope_proj"], "auto": False}),
            ("--max-lora-cls-labels", {"pre": LORA, "values": ["4"]}),
            ("--specialize-active-lora", {"pre": LORA}),
            ("--enable-moe-shared-loras", {"pre": LORA, "model": MOE}),
            (
                "--speculative-config",
                {
                    "pre": LORA,
                    "auto": False,
                    "values": ['{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3}'],
                },
            ),
            (
                "--speculative-model",
                {
                    "pre": LORA,
                    "auto": False,
                    "values": ["[ngram]"],
                    "post": ["--num-speculative-tokens", "2", "--ngram-prompt-lookup-max", "3"],
                },
            ),
            ("--num-scheduler-steps", {"pre": LORA, "auto": False, "values": ["4"]}),
            ("--max-loras", {"auto": False, "values": ["4"], "id": "no-enable"}),
            ("--max-lora-rank", {"auto": False, "values": ["7"], "id": "no-enable"}),
        ],
    ),
    "multimodal": (
        "gmm",
        [
            (
                "--limit-mm-per-prompt",
                {"values": ['{"image": 2}', "image=2", '{"image": -1}', '{"nope": 1}'], "auto": False},
            ),
            ("--mm-processor-kwargs", {"values": ['{"num_crops": 4}', "{bad"], "auto": False}),
            ("--media-io-kwargs", {"values": ['{"video": {"num_frames": 8}}', "{bad"], "auto": False}),
            "--disable-mm-preprocessor-cache",
            ("--mm-processor-cache-gb", {"values": ["0", "8"]}),
            "--mm-processor-cache-type",
            "--mm-encoder-tp-mode",
            "--interleave-mm-strings",
            "--skip-mm-profiling",
            ("--video-pruning-rate", {"values": ["0.5", "1.5"]}),
            "--mm-hasher-algorithm",
            "--language-model-only",
            "--enable-mm-embeds",
            ("--mm-shm-cache-max-object-size-mb", {"values": ["256"]}),
            "--mm-encoder-only",
            ("--mm-encoder-attn-backend", {"values": ["TORCH_SDPA", "nope"], "auto": False}),
        ],
    ),
    "structured-outputs": (
        "gso",
        [
            "--guided-decoding-backend",
            (
                "--structured-outputs-config",
                {
                    "auto": False,
                    "values": [
                        '{"backend": "xgrammar"}',
                        '{"backend": "guidance"}',
                        '{"backend": "outlines"}',
                        '{"backend": "auto"}',
                        '{"backend": "nope"}',
                        '{"backend": "lm-format-enforcer"}',
                        '{"disable_any_whitespace": true}',
                        '{"backend": "xgrammar", "disable_any_whitespace": true}',
                        '{"backend": "guidance", "disable_additional_properties": true}',
                        '{"backend": "xgrammar", "disable_additional_properties": true}',
                        '{"reasoning_parser": "deepseek_r1"}',
                        '{"reasoning_parser": "nope"}',
                        '{"nope": 1}',
                        "{bad",
                    ],
                },
            ),
            ("--reasoning-parser", {"values": ["deepseek_r1", "qwen3", "nope"], "auto": False}),
            ("--enable-reasoning", {"pre": ["--reasoning-parser", "deepseek_r1"]}),
            "--guided-decoding-disable-fallback",
            "--guided-decoding-disable-any-whitespace",
            "--guided-decoding-disable-additional-properties",
        ],
    ),
    "compilation": (
        "gcomp",
        [
            (
                "--compilation-config",
                {
                    "auto": False,
                    "values": [
                        "{bad",
                        "3",
                        "0",
                        "5",
                        '{"level": 3}',
                        '{"level": 0}',
                        '{"level": 4}',
                        '{"level": "PIECEWISE"}',
                        '{"mode": 3}',
                        '{"mode": "VLLM_COMPILE"}',
                        '{"mode": "NONE"}',
                        '{"mode": "nope"}',
                        '{"mode": 9}',
                        '{"cudagraph_mode": "FULL_AND_PIECEWISE"}',
                        '{"cudagraph_mode": "PIECEWISE"}',
                        '{"cudagraph_mode": "FULL_DECODE_ONLY"}',
                        '{"cudagraph_mode": "NONE"}',
                        '{"cudagraph_mode": "full"}',
                        '{"cudagraph_mode": "nope"}',
                        '{"cudagraph_capture_sizes": [1, 2, 4, 8]}',
                        '{"cudagraph_capture_sizes": [8, 4, 2, 1]}',
                        '{"cudagraph_capture_sizes": []}',
                        '{"max_cudagraph_capture_size": 64}',
                        '{"max_capture_size": 64}',
                        '{"cudagraph_capture_sizes": [1, 2, 4], "max_cudagraph_capture_size": 8}',
                        '{"use_cudagraph": false}',
                        '{"full_cuda_graph": true}',
                        '{"splitting_ops": []}',
                        '{"backend": "eager"}',
                        '{"custom_ops": ["none"]}',
                        '{"custom_ops": ["+rms_norm", "-silu_and_mul"]}',
                        '{"pass_config": {"enable_fusion": true}}',
                        '{"pass_config": {"nope": true}}',
                        '{"compile_sizes": [1, 2]}',
                        '{"nope": 1}',
                        '{"cudagraph_num_of_warmups": 2}',
                        '{"use_inductor": false}',
                    ],
                },
            ),
            ("-O", {"values": ["0", "1", "2", "3", "4"], "auto": False, "joined": True}),
            ("--cudagraph-capture-sizes", {"values": ["1", "abc"], "auto": False}),
            ("--max-cudagraph-capture-size", {"values": ["64", "0", "abc"], "auto": False}),
            ("--max-seq-len-to-capture", {"values": ["4096", "abc"], "auto": False}),
            ("--enforce-eager", {}),
            ("--optimization-level", {"values": ["0", "3", "9"], "auto": False}),
        ],
    ),
    "kv-transfer": (
        "gkvt",
        [
            (
                "--kv-transfer-config",
                {
                    "auto": False,
                    "values": [
                        "{bad",
                        "{}",
                        '{"kv_connector": "SharedStorageConnector", "kv_role": "kv_both"}',
                        '{"kv_connector": "SharedStorageConnector", "kv_role": "kv_producer"}',
                        '{"kv_connector": "SharedStorageConnector", "kv_role": "nope"}',
                        '{"kv_connector": "SharedStorageConnector"}',
                        '{"kv_connector": "NixlConnector", "kv_role": "kv_both"}',
                        '{"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}',
                        '{"kv_connector": "PyNcclConnector", "kv_role": "kv_producer", "kv_rank": 0, "kv_parallel_size": 2}',
                        '{"kv_connector": "PyNcclConnector", "kv_role": "kv_consumer", "kv_rank": 1, "kv_parallel_size": 2}',
                        '{"kv_connector": "PyNcclConnector", "kv_role": "kv_producer", "kv_parallel_size": 2}',
                        '{"kv_connector": "OffloadingConnector", "kv_role": "kv_both"}',
                        '{"kv_connector": "NopeConnector", "kv_role": "kv_both"}',
                        '{"kv_role": "kv_both"}',
                        '{"kv_connector": "SharedStorageConnector", "kv_role": "kv_both", "nope": 1}',
                        '{"kv_connector": "ExampleConnector", "kv_role": "kv_both"}',
                        '{"kv_connector": "P2pNcclConnector", "kv_role": "kv_producer"}',
                        '{"kv_connector": "MultiConnector", "kv_role": "kv_both"}',
                    ],
                },
            ),
            (
                "--kv-events-config",
                {
                    "auto": False,
                    "values": [
                        '{"enable_kv_cache_events": true}',
                        '{"enable_kv_cache_events": true, "publisher": "zmq"}',
                        '{"publisher": "nope"}',
                        '{"enable_kv_cache_events": true, "publisher": "null"}',
                        '{"nope": 1}',
                        "{bad",
                    ],
                },
            ),
            ("--kv-offloading-size", {"values": ["2"], "auto": False, "id": "kvt"}),
        ],
    ),
    "observability": (
        "gobs",
        [
            ("--otlp-traces-endpoint", {"values": ["http://localhost:4317"], "auto": False}),
            (
                "--collect-detailed-traces",
                {"values": ["all", "model", "worker", "model,worker", "nope"], "auto": False},
            ),
            (
                "--collect-detailed-traces",
                {
                    "values": ["all", "model"],
                    "auto": False,
                    "pre": ["--otlp-traces-endpoint", "http://localhost:4317"],
                    "id": "otlp",
                },
            ),
            ("--show-hidden-metrics-for-version", {"values": ["0.7", "0.6", "nope", "1.0"], "auto": False}),
            "--disable-log-stats",
            "--enable-per-request-metrics",
            ("--enable-per-request-metrics", {"pre": ["--disable-log-stats"], "id": "no-stats"}),
            "--kv-cache-metrics",
            ("--kv-cache-metrics-sample", {"values": ["0.5", "1.5"], "pre": ["--kv-cache-metrics"]}),
            "--cudagraph-metrics",
            "--enable-mfu-metrics",
            "--enable-layerwise-nvtx-tracing",
            "--disable-log-requests",
            "--enable-log-requests",
            ("--max-log-len", {"values": ["100"]}),
            "--enable-log-outputs",
            ("--enable-log-outputs", {"pre": ["--enable-log-requests"], "id": "with-requests"}),
            "--per-request-spec-decode-metrics",
            (
                "--custom-histogram-buckets",
                {"values": ['{"e2e_request_latency": [0.1, 1, 10]}', "{bad"], "auto": False},
            ),
            "--enable-logging-iteration-details",
            "--aggregate-engine-logging",
        ],
    ),
}

#: option kinds that take a number
_INT = ("int", "human_int", "human_int_or_auto")


def auto_values(a: dict[str, Any]) -> list[str]:
    """Values from the option's parser facts: its choices and a word outside them, a number's default, a
    word, zero and a negative number; nothing for store-true flags (the flag alone is the case)."""
    if a.get("nargs") == 0 or a["kind"] == "none":
        return []
    ch = a.get("choices")
    if ch:
        vals = [str(c) for c in ch if c is not None][:6]
        return [*vals, "nope"]
    kind = a["kind"]
    d = a.get("default")
    if kind in _INT:
        out = ["abc", "0", "-1"]
        if isinstance(d, int) and not isinstance(d, bool) and d > 0:
            out.append(str(d))
        return out
    if kind == "float":
        out = ["abc", "-0.5"]
        if isinstance(d, (int, float)) and not isinstance(d, bool):
            out.append(str(d))
        return out
    if kind == "bool":  # old `type=bool`-style options with nargs="?"
        return ["true", "false"]
    return []


def flag_forms(flag: str, a: dict[str, Any]) -> list[list[str]]:
    """A store-true flag alone; a boolean-optional one also as --no-flag."""
    out: list[list[str]] = []
    if a.get("nargs") == 0 or a["kind"] == "none":
        out.append([flag])
        for neg in a.get("negative_option_strings") or []:
            out.append([neg])
            break
    return out


def generate() -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    seen: set[str] = set()
    for group, (prefix, opts) in GROUPS.items():
        for o in opts:
            flag, spec = (o, {}) if isinstance(o, str) else o
            avail = releases_with(flag) if flag != "-O" else [r for r in RELEASES if vkey(r) >= vkey("0.10.0")]
            if not avail:
                continue
            newest = option(avail[-1], flag) or {"kind": "str", "option_strings": [flag]}
            forms: list[list[str]] = []
            values = list(spec.get("values", []))
            if spec.get("auto", True):
                forms += flag_forms(flag, newest)
                auto = auto_values(newest)
                if spec.get("auto_bad_only"):
                    auto = [v for v in auto if v in ("abc", "-1", "nope")]
                values = values + [v for v in auto if v not in values]
            for v in values:
                forms.append([flag + v] if spec.get("joined") else [flag, v])
            model = spec.get("model", MODEL)
            for words in forms:
                argv = [*BASE, *spec.get("pre", []), *words, *spec.get("post", [])]
                tail = "-".join(slug(w) for w in words)
                cid = f"{prefix}-{spec['id']}-{tail}" if spec.get("id") else f"{prefix}-{tail}"
                cid = cid[:80]
                if cid in seen:
                    continue
                seen.add(cid)
                rels = pick(avail, cid)
                src = (
                    f"generated ({group}): {flag} from the release's parser (schemas/vllm), "
                    f"{'value ' + repr(words[-1]) if len(words) > 1 or spec.get('joined') else 'flag'}; "
                    "the verdict is vLLM's own"
                )
                case: dict[str, Any] = {"id": cid, "group": group, "model": model, "argv": argv}
                case["releases"] = rels
                case["source"] = src
                cases.append(case)
    return cases


def dump(cases: list[dict[str, Any]]) -> str:
    lines = [
        "# GENERATED by bench/oracle_cases.py from the option groups' parser facts (schemas/vllm); do not edit.",
        "# Fields as in cases.yaml; `group` names the option group the agreement is reported under.",
    ]
    for c in cases:
        lines.append(f"- id: {c['id']}")
        lines.append(f"  group: {c['group']}")
        lines.append(f"  model: {c['model']}")
        lines.append(f"  argv: {json.dumps(c['argv'])}")
        lines.append(f"  releases: {json.dumps(c['releases'])}")
        lines.append(f"  source: {json.dumps(c['source'])}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    text = dump(generate())
    if args.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT} is not what bench/oracle_cases.py writes", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT} ({text.count(chr(10) + '- id:') + text.startswith('- id:')} cases)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
