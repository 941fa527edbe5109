"""Launches that spread a model over data-, expert- and context-parallel ranks, linted end to end:
the memory model splits the routed experts and the KV cache as vLLM does."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from vlint.cli import main


def run(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(main, list(args))
    return r.exit_code, r.stdout


def test_deepseek_r1_data_parallel_expert_parallel_starts(tmp_path: Path) -> None:
    """The published DP8 + EP recipe: each H200 holds 32 of the 256 experts and the whole attention."""
    f = tmp_path / "serve.sh"
    f.write_text(
        "vllm serve deepseek-ai/DeepSeek-R1 --data-parallel-size 8 --enable-expert-parallel --max-model-len 32768\n"
    )
    code, out = run(str(f), "--gpu", "H200", "--no-color")
    assert code == 0, out
    assert "VL210" not in out and "No problems found" in out
    code, out = run("explain", str(f), "--gpu", "H200", "--no-color")
    assert "TP 1 × PP 1 × DP 8, expert parallel" in out
    assert "expert parallel: 32 routed experts per rank (256 over EP size 8)" in out
    weights = next(line for line in out.splitlines() if line.strip().startswith("model weights"))
    assert 85 < float(weights.split()[2]) < 110  # not the whole 630 GiB checkpoint


def test_the_same_model_on_one_gpu_without_data_parallelism_does_not_start(tmp_path: Path) -> None:
    f = tmp_path / "serve.sh"
    f.write_text("vllm serve deepseek-ai/DeepSeek-R1 --max-model-len 32768\n")
    code, out = run(str(f), "--gpu", "H200", "--no-color")
    assert code == 1 and "VL210" in out


def test_eplb_redundant_experts_add_to_each_rank(tmp_path: Path) -> None:
    f = tmp_path / "serve.sh"
    f.write_text(
        "vllm serve deepseek-ai/DeepSeek-R1 --data-parallel-size 8 --enable-expert-parallel --enable-eplb "
        "--eplb-config '{\"num_redundant_experts\": 32}' --max-model-len 32768\n"
    )
    code, out = run("explain", str(f), "--gpu", "H200", "--no-color")
    assert code == 0, out
    assert "36 routed experts per rank (256 + 32 redundant for EPLB over EP size 8)" in out


def test_decode_context_parallel_multiplies_the_kv_tokens(tmp_path: Path) -> None:
    plain, dcp = tmp_path / "plain.sh", tmp_path / "dcp.sh"
    plain.write_text("vllm serve deepseek-ai/DeepSeek-R1 --tensor-parallel-size 8 --max-model-len 163840\n")
    dcp.write_text(
        "vllm serve deepseek-ai/DeepSeek-R1 --tensor-parallel-size 8 --decode-context-parallel-size 8 "
        "--max-model-len 163840\n"
    )

    def tokens(path: Path) -> int:
        _, out = run("explain", str(path), "--gpu", "H200", "--vllm-version", "0.19.1", "--no-color")
        line = next(x for x in out.splitlines() if x.strip().startswith("GPU KV cache size"))
        return int(line.split()[4].replace(",", ""))

    assert tokens(dcp) == 8 * tokens(plain)


def test_reference_gpus_count_the_data_parallel_ranks(tmp_path: Path) -> None:
    f = tmp_path / "serve.sh"
    f.write_text("vllm serve deepseek-ai/DeepSeek-R1 --data-parallel-size 8 --enable-expert-parallel\n")
    code, out = run("explain", str(f), "--no-color")
    assert code == 0, out
    assert "reference GPUs (8 per replica)" in out
    h200 = next(line for line in out.splitlines() if line.strip().startswith("8 × H200"))
    assert "starts" in h200


def _vl305(tmp_path: Path, line: str, version: str) -> str:
    f = tmp_path / "start.sh"
    f.write_text(line + "\n")
    _, out = run(str(f), "--vllm-version", version, "--no-color")
    hits = [x for x in out.splitlines() if "VL305" in x]
    assert len(hits) == 1, out
    return hits[0]


def test_eplb_uneven_experts_in_each_release_wording(tmp_path: Path) -> None:
    line = (
        "vllm serve mistralai/Mixtral-8x7B-v0.1 --max-model-len 8192 -tp 2 --data-parallel-size 3 "
        "--enable-expert-parallel --enable-eplb"
    )
    new = _vl305(tmp_path, line, "0.22.0")
    assert "Got 8 experts and 6 EP ranks." in new and "AssertionError" not in new
    old = _vl305(tmp_path, line, "0.21.0")
    assert "AssertionError: EPLB currently only supports even distribution of experts across ranks." in old
    assert "Got 8 experts" not in old


def test_redundant_experts_without_eplb_in_each_release_wording(tmp_path: Path) -> None:
    new = _vl305(
        tmp_path,
        "vllm serve deepseek-ai/DeepSeek-V2-Lite -tp 2 --enable-expert-parallel "
        "--eplb-config '{\"num_redundant_experts\": 3}'",
        "0.19.1",
    )
    assert "num_redundant_experts is set to 3 but EPLB is not enabled" in new
    old = _vl305(
        tmp_path,
        "vllm serve deepseek-ai/DeepSeek-V2-Lite -tp 2 --enable-expert-parallel --num-redundant-experts 3",
        "0.10.0",
    )
    assert "num_redundant_experts should be used with EPLB.3." in old


def test_deepseek_v4_under_another_model_type_is_not_modelled(tmp_path: Path) -> None:
    """sgl-project's DeepSeek-V4 FP8 copies say model_type deepseek_ref; vLLM picks the class by
    architectures (DeepseekV4ForCausalLM), so they are DeepSeek-V4 and get no made-up KV numbers."""
    f = tmp_path / "serve.sh"
    f.write_text("vllm serve sgl-project/DeepSeek-V4-Flash-FP8 -tp 4\n")
    code, out = run("explain", str(f), "--gpu", "H200", "--no-color")
    assert code == 0, out
    assert "does not reproduce deepseek_v4 models' KV cache" in out
    assert "GPU KV cache size" not in out
