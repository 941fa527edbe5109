"""What `vlint fix` may change (issue 17, item 3), in a scratch git repository: safe fixes never change
what vLLM does; of a finding's alternatives only the first is applied (the others are named); every
fix re-lints clean; `vlint size --write` without --concurrency does not write max-num-seqs: 1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from userrepo import ROOT, Repo

L4_MANIFEST = (ROOT / "examples" / "k8s" / "llama-l4.yaml").read_text(encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "app")


def test_plain_fix_changes_nothing_vllm_does(repo: Repo) -> None:
    script = (
        "vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 8192 --max-num-seq 64 \\\n"
        "  --no-enable-chunked-prefill --swap-space 4\n"
    )
    repo.write("start.sh", script)
    res = repo.vlint("fix", "--vllm-version", "0.19.1", "start.sh")
    text = (repo.root / "start.sh").read_text()
    # spelling (VL005) and a flag that does nothing on 0.19.1 (VL002: --swap-space) are safe ...
    assert "--max-num-seqs 64" in text and "--swap-space" not in text, res.out
    # ... turning chunked prefill back on is not
    assert "--no-enable-chunked-prefill" in text and "VL101 fixed" not in res.out
    assert "more with --unsafe-fixes" in res.out


def test_unsafe_fixes_apply_one_way_out_and_relint_clean(repo: Repo) -> None:
    repo.write("k8s/chat.yaml", L4_MANIFEST)
    before = repo.lint_json("k8s").json
    assert [f["code"] for f in before["findings"]] == ["VL210"]
    (vl210,) = before["findings"]
    assert "; or " in vl210["fix"]["description"], "the finding offers alternatives"
    res = repo.vlint("fix", "--unsafe-fixes", "k8s")
    assert res.code == 0, res.out + res.err
    # one fix (VL210's first way), the others named, not applied ...
    fixed = [line for line in res.out.splitlines() if " fixed: " in line]
    assert len(fixed) == 1 and "VL210 fixed: set --max-model-len" in fixed[0], res.out
    assert "not applied, another way: --max-model-len" in res.out
    text = (repo.root / "k8s" / "chat.yaml").read_text()
    assert "--kv-cache-dtype" not in text, "fp8 KV cache is another way, not applied together with it"
    # ... and nothing else reported after it: VL211 / VL214 are not traded in for VL210
    after = repo.lint_json("k8s").json
    assert after["findings"] == [], after["findings"]


def test_size_write_without_concurrency_keeps_vllms_max_num_seqs(repo: Repo) -> None:
    log = repo.write(
        "requests.jsonl",
        "\n".join(
            json.dumps(
                {"model": "m", "messages": [{"role": "user", "content": "hello " * (40 + i)}], "max_tokens": 256}
            )
            for i in range(50)
        )
        + "\n",
    )
    args = ["size", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--requests", str(log)]
    res = repo.vlint(*args, "--write", "serve.yaml")
    assert res.code == 0, res.out + res.err
    written = (repo.root / "serve.yaml").read_text()
    assert "max-num-seqs" not in written, written
    assert "at least one request at a time" in res.out
    res = repo.vlint(*args, "--concurrency", "16", "--write", "serve16.yaml")
    assert "max-num-seqs: 16" in (repo.root / "serve16.yaml").read_text()
    # the written config lints clean on that GPU
    assert repo.lint_json("--gpu", "L4", "serve.yaml").json["findings"] == []
