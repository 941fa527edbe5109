"""vlint explain: the memory budget per deployment (text and the documented JSON shape)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from vlint.cli import main

REQUIRED = {
    "source": {"file", "line"},
    "gpu": {"name", "count", "total_gib"},
    "parallel": {"tp", "pp", "dp"},
    "settings": {
        "max_model_len",
        "gpu_memory_utilization",
        "max_num_seqs",
        "max_num_batched_tokens",
        "kv_cache_dtype",
        "block_size",
    },
    "memory": {
        "budget_gib",
        "weights_gib",
        "activation_gib",
        "non_torch_gib",
        "cuda_graph_gib",
        "kv_cache_gib",
        "kv_bytes_per_token",
        "kv_cache_tokens",
        "max_concurrency",
        "starts",
        "failure",
        "estimated_max_model_len",
    },
}


def _json(args: list[str]) -> dict:
    r = CliRunner().invoke(main, ["explain", *args, "--format", "json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def test_json_shape_without_a_file() -> None:
    doc = _json(["--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--set", "max_model_len=8192"])
    (d,) = doc["deployments"]
    for key, fields in REQUIRED.items():
        assert fields <= set(d[key]), (key, fields - set(d[key]))
    assert d["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert d["settings"]["max_model_len"] == 8192
    m = d["memory"]
    assert m["kv_bytes_per_token"] == 131072  # 32 layers x 8 KV heads x 128 x 2 (K,V) x 2 B
    # the budget equation vLLM uses (graphs inside the budget from 0.20)
    parts = m["weights_gib"] + m["activation_gib"] + m["non_torch_gib"] + m["cuda_graph_gib"] + m["kv_cache_gib"]
    assert abs(parts - m["budget_gib"]) < 0.05
    assert m["starts"] is True and m["failure"] is None


def test_set_overrides_and_failure_with_estimated_length() -> None:
    doc = _json(["--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "L4", "--set", "max_model_len=131072"])
    m = doc["deployments"][0]["memory"]
    assert m["starts"] is False
    assert "To serve at least one request" in m["failure"]
    assert 0 < m["estimated_max_model_len"] < 131072
    changes = [w["change"] for w in doc["deployments"][0]["what_if"]]
    assert f"--max-model-len {m['estimated_max_model_len']}" in changes
    fixed = next(w for w in doc["deployments"][0]["what_if"] if w["change"].startswith("--max-model-len"))
    assert fixed["memory"]["starts"] is True


def test_tensor_parallel_halves_kv_bytes_per_token() -> None:
    one = _json(["--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--set", "max_model_len=8192"])
    two = _json(
        [
            "--model",
            "meta-llama/Llama-3.1-8B-Instruct",
            "--gpu",
            "H100:2",
            "--set",
            "max_model_len=8192",
            "--set",
            "tensor_parallel_size=2",
        ]
    )
    assert (
        two["deployments"][0]["memory"]["kv_bytes_per_token"] * 2
        == one["deployments"][0]["memory"]["kv_bytes_per_token"]
    )


def test_file_explain_text_and_unknown_gpu(tmp_path: Path) -> None:
    f = tmp_path / "start.sh"
    f.write_text("vllm serve Qwen/Qwen2.5-7B-Instruct --max-model-len 16384\n")
    r = CliRunner().invoke(main, ["explain", str(f), "--no-color"])
    assert r.exit_code == 0
    assert "no GPU is named: the memory model on the reference GPUs" in r.output  # gpu_fit (issue 12)
    r = CliRunner().invoke(main, ["explain", str(f), "--gpu", "A100-40GB", "--no-color"])
    assert "available KV cache memory" in r.output and "starts" in r.output


def test_bad_set_is_a_usage_error() -> None:
    r = CliRunner().invoke(main, ["explain", "--model", "x/y", "--set", "no-such-option=3"])
    assert r.exit_code == 2
    assert "no option --no-such-option" in r.output
    r = CliRunner().invoke(main, ["explain", "--model", "x/y", "--set", "max_model_len=lots"])
    assert r.exit_code == 2


def test_bar_segments_legend_colour_and_columns(tmp_path: Path) -> None:
    """Issue 17 item 10: distinct glyphs without colour, colour on terminals / FORCE_COLOR (never with
    NO_COLOR), CUDA graphs drawn where vLLM puts them (outside the budget on 0.10.2, after `|`), a
    legend of what is drawn, and labelled columns."""
    from userrepo import ROOT, invoke

    manifest = ROOT / "examples" / "k8s" / "llama-l4.yaml"

    def explain(*args: str, env: dict[str, str] | None = None) -> str:
        res = invoke(tmp_path, ["explain", "--isolated", *args], env=env)  # stdout is not a terminal
        assert res.code == 0, res.err
        return res.out

    plain = explain(str(manifest)).splitlines()
    bar_line = plain[2].strip()
    assert bar_line.startswith("[") and bar_line.endswith("]")
    inside, outside = bar_line[1:-1].split("|")
    assert set(inside) == {"#", "+", "%", "="}, "weights, activation, non-torch, KV cache inside the budget"
    assert set(outside) == {"~", ":", "."}, "0.10.2: CUDA graphs outside the budget, the CUDA context, what is left"
    legend = plain[3]
    for item in (
        "# weights",
        "+ activation",
        "% non-torch",
        "~ CUDA graphs",
        "= KV cache",
        ": CUDA context, other processes",
        ". left outside the budget",
        "| end of the budget",
    ):
        assert item in legend, legend
    # one name and one number for the spare memory: the bar's legend and the table agree
    spare = re.search(r"\. left outside the budget (\d+\.\d+) GiB", legend)
    row = next(line for line in plain if line.strip().startswith("left outside the budget"))
    assert spare and f"{spare.group(1)} GiB" in row, (legend, row)
    assert "free" not in "\n".join(plain[:4])
    header = plain[5].split()
    assert header[:3] == ["per", "GPU", "value"] and "where it comes from" in plain[5]
    weights = next(line for line in plain if line.strip().startswith("model weights"))
    assert 'log "Model loading took … GiB"' in weights
    # 0.33: CUDA graphs inside the budget, so only the CUDA context and what is left after `|`
    new = explain("--model", "meta-llama/Llama-3.1-8B-Instruct", "--gpu", "H100", "--vllm-version", "0.33.0")
    inside, outside = new.splitlines()[2].strip()[1:-1].split("|")
    assert "~" in inside and set(outside) == {":", "."}
    colored = explain(str(manifest), env={"FORCE_COLOR": "1"})
    assert "\x1b[35m" in colored and "█" in colored, "weights in magenta full blocks"
    assert "\x1b[" not in explain(str(manifest), env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
