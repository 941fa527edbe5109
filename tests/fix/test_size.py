"""vlint size: workload from numbers or a request log, the option table, and a written config whose
numbers the memory model confirms and that vlint lints clean."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner

from vlint.cli import main
from vlint.fix.sizing import CHARS_PER_TOKEN, TOKENS_PER_MESSAGE, TOKENS_PER_REPLY, percentile, workload_from_requests

MODEL = "meta-llama/Llama-3.1-8B-Instruct"


def run(*args: str) -> tuple[int, str, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.stdout, r.stderr


def synthetic_log(path: Path, n: int = 200) -> list[int]:
    """n chat requests whose prompt lengths (under the 4-characters-per-token approximation) are known;
    every tenth is an OpenAI batch line, every seventh a completions request. Returns the lengths."""
    lengths = []
    with path.open("w") as f:
        for i in range(n):
            text = "abc " * (40 * (i % 50 + 1))  # 160 to 8,000 characters
            if i % 7 == 3:
                body = {"model": MODEL, "prompt": text, "max_tokens": 256 + i}
                lengths.append(math.ceil(len(text) / CHARS_PER_TOKEN))
            else:
                body = {
                    "model": MODEL,
                    "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": text}],
                    "max_tokens": 256 + i,
                }
                joined = "be brief\n" + text
                lengths.append(math.ceil(len(joined) / CHARS_PER_TOKEN) + 2 * TOKENS_PER_MESSAGE + TOKENS_PER_REPLY)
            line = {"custom_id": str(i), "method": "POST", "url": "/v1/chat/completions", "body": body}
            f.write(json.dumps(line if i % 10 == 0 else body) + "\n")
            if i % 25 == 0:
                f.write("\n")  # blank lines are skipped
    return lengths


def test_percentile_is_nearest_rank() -> None:
    assert percentile(list(range(1, 101)), 99) == 99
    assert percentile([5], 99) == 5
    assert percentile(list(range(1, 201)), 99) == 198


def test_workload_from_a_request_log(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    lengths = synthetic_log(log)
    w = workload_from_requests(log, MODEL, concurrency=8)
    assert w.requests == 200
    assert w.prompt_p99 == percentile(lengths, 99)
    assert w.max_tokens == percentile([256 + i for i in range(200)], 99)
    assert "approximated as 4 characters per token" in w.source and w.tokenizer is None
    w2 = workload_from_requests(log, MODEL, max_tokens=100)
    assert w2.max_tokens == 100 and w2.max_model_len == w2.prompt_p99 + 100


def test_size_writes_a_config_the_memory_model_confirms(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    log = tmp_path / "requests.jsonl"
    lengths = synthetic_log(log)
    code, out, err = run(
        "size",
        "--model",
        MODEL,
        "--gpu",
        "H100,A100-80GB:2,L4:4",
        "--requests",
        str(log),
        "--max-tokens",
        "512",
        "--concurrency",
        "16",
        "--write",
        "serve.yaml",
        "--format",
        "json",
    )
    assert code == 0, out + err
    doc = json.loads(out)
    w = doc["workload"]
    assert w["prompt_p99"] == percentile(lengths, 99) and w["max_model_len"] == w["prompt_p99"] + 512
    best = next(r for r in doc["rows"] if r["best"])
    assert best["fits"] and best["max_concurrency"] >= 16 and best["max_model_len"] == w["max_model_len"]
    # the rows are ranked: every fitting row before the others, fewest GPU memory first
    fits = [r["fits"] for r in doc["rows"]]
    assert fits == sorted(fits, reverse=True)
    text = (tmp_path / "serve.yaml").read_text()
    assert f"max-model-len: {w['max_model_len']}\n" in text and f"max-num-seqs: {best['max_num_seqs']}\n" in text
    gpu = f"{best['gpu']}:{best['tensor_parallel_size']}"
    # vlint lints the written config clean for that GPU
    code, out, _ = run("check", "--isolated", "--format", "json", "serve.yaml", "--gpu", gpu)
    assert code == 0 and json.loads(out)["findings"] == []
    # and the memory model, reading the file, predicts the numbers of the chosen row
    code, out, _ = run("explain", "serve.yaml", "--gpu", gpu, "--format", "json")
    (d,) = json.loads(out)["deployments"]
    assert d["memory"]["starts"]
    assert d["memory"]["kv_cache_tokens"] == best["kv_cache_tokens"]
    assert d["memory"]["max_concurrency"] == best["max_concurrency"]
    assert d["settings"]["max_num_batched_tokens"] == best["max_num_batched_tokens"]


def test_size_text_table_and_numbers(tmp_path: Path) -> None:
    code, out, _ = run(
        "size",
        "--model",
        MODEL,
        "--gpu",
        "L4:2,H100",
        "--prompt-p99",
        "1500",
        "--max-tokens",
        "512",
        "--concurrency",
        "16",
        "--no-color",
    )
    assert code == 0
    assert "prompt P99 1,500 + max_tokens 512 = max_model_len 2,012 tokens; 16 concurrent requests" in out
    assert "* L4 × 1" in out and "best: L4 × 1" in out
    for col in ("TP", "kv-cache", "max_model_len", "max_num_seqs", "max_batched_tokens", "KV tokens", "headroom"):
        assert col in out


def test_nothing_fits_and_all_says_why() -> None:
    code, out, _ = run(
        "size", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--gpu", "L4:1", "--prompt-p99", "1000",
        "--max-tokens", "100", "--all", "--no-color",
    )  # fmt: skip
    assert code == 1
    assert "L4 × 1" in out and "out of memory" in out.lower()


def test_bad_inputs(tmp_path: Path) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text('{"messages": [{"role": "user", "content": "hi"}], "max_tokens": 5}\nnot json\n')
    code, _, err = run("size", "--model", MODEL, "--gpu", "H100", "--requests", str(log))
    assert code == 2 and "bad.jsonl:2: not JSON" in err
    code, _, err = run("size", "--model", MODEL, "--gpu", "Z9000", "--prompt-p99", "10", "--max-tokens", "10")
    assert code == 2 and "unknown GPU 'Z9000'" in err
    code, _, err = run("size", "--model", MODEL, "--gpu", "H100")
    assert code == 2 and "--prompt-p99" in err
    nomax = tmp_path / "nomax.jsonl"
    nomax.write_text('{"prompt": "hello there"}\n')
    code, _, err = run("size", "--model", MODEL, "--gpu", "H100", "--requests", str(nomax))
    assert code == 2 and "give --max-tokens" in err


def test_prompt_lengths_with_a_real_tokenizer(tmp_path: Path) -> None:
    pytest.importorskip("tokenizers", reason="the optional `tokenizers` package is not installed")
    tok = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": None,
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": None,
        "decoder": None,
        "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "hello": 1, "world": 2}, "unk_token": "[UNK]"},
    }
    (tmp_path / "tokenizer.json").write_text(json.dumps(tok))
    log = tmp_path / "r.jsonl"
    log.write_text(
        json.dumps({"prompt": "hello world hello world hello", "max_tokens": 7})
        + "\n"
        + json.dumps({"prompt": "hello", "max_tokens": 7})
        + "\n"
    )
    w = workload_from_requests(log, MODEL, tokenizer=tmp_path)
    assert w.prompt_p99 == 5 and w.max_tokens == 7
    assert w.tokenizer == str(tmp_path / "tokenizer.json") and "counted with the tokenizer" in w.source


def test_without_concurrency_vllm_default_max_num_seqs_and_no_headroom() -> None:
    """No --concurrency: max_num_seqs is vLLM's own default for the GPU (not 1), and with no target there is no
    headroom (not "+2405%"); the table shows the fewest GPUs per type and KV dtype, at most MAX_ROWS rows."""
    from vlint.commands.size import MAX_ROWS

    args = ("size", "--model", MODEL, "--prompt-p99", "1500", "--max-tokens", "512")
    code, out, _ = run(*args, "--gpu", "L4:4,H100:2", "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["workload"]["concurrency"] is None
    seqs = {(r["gpu"], r["max_num_seqs"]) for r in doc["rows"]}
    # vLLM's default max_num_seqs (resolved as vlint resolves any launch): 256, 1024 on an 80 GiB GPU in 0.33
    assert seqs == {("L4", 256), ("H100", 1024)}, seqs
    assert all(r["headroom"] is None for r in doc["rows"])
    code, out, _ = run(*args, "--no-color")
    assert code == 0
    table = [line for line in out.splitlines() if " × " in line and "best:" not in line]
    assert len(table) == MAX_ROWS, out
    kinds = {(line.lstrip(" *").split(" × ")[0], line.split()[-7]) for line in table}
    assert len(kinds) == MAX_ROWS, kinds  # one row per GPU type and KV-cache dtype
    assert all(line.rstrip().endswith("-") for line in table) and "%" not in out
    assert "more options fit" in out and "--all lists every option" in out
    assert " 1  auto              2,012             1 " not in out
