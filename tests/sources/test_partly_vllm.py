"""Partly-vLLM files (issue 15 item 4): a YAML file read as a vLLM config because most of its keys
are vLLM options, but that no launch passes with --config, gets findings for the vLLM options only;
its other keys are one VL051 note, not VL001 errors. Passed with --config, every key is checked."""

from __future__ import annotations

from pathlib import Path

from tests.sources.render.helpers import lint, write

BENCH = """\
    # sweep settings for benchmarks/run_sweep.py; the vLLM settings are passed through
    model: meta-llama/Llama-3.1-8B-Instruct
    tensor_parallel_size: 1
    max_model_len: 300000
    gpu_memory_utilization: 0.9
    enable_prefix_caching: true
    num_prompts: 500
    request_rate: 8
    """


def test_a_vllm_config_with_one_unknown_key_keeps_the_error(tmp_path: Path) -> None:
    # eleven vLLM options and vllm-release: a vLLM config file (the corpus's worker-vllm gemma config)
    text = BENCH.replace("    num_prompts: 500\n    request_rate: 8\n", "    vllm-release: v2.24.0\n")
    write(tmp_path, {"configs/llama.yaml": text})
    found = {(f.code, f.span.line) for f in lint(tmp_path, "configs/llama.yaml")}
    assert ("VL001", 7) in found and not any(code == "VL051" for code, _ in found)


def test_a_sniffed_config_checks_only_the_vllm_options(tmp_path: Path) -> None:
    write(tmp_path, {"bench/llama-8b.yaml": BENCH})
    found = {(f.code, f.span.line) for f in lint(tmp_path, "bench/llama-8b.yaml")}
    assert ("VL051", 7) in found and ("VL204", 4) in found  # the vLLM option is still checked
    assert not any(code == "VL001" for code, _ in found)


def test_the_same_file_passed_with_config_checks_every_key(tmp_path: Path) -> None:
    write(tmp_path, {"bench/llama-8b.yaml": BENCH, "serve.sh": "vllm serve --config bench/llama-8b.yaml\n"})
    found = {(f.code, f.span.path, f.span.line) for f in lint(tmp_path, ".")}
    assert ("VL001", "bench/llama-8b.yaml", 7) in found  # vLLM refuses num_prompts
    assert not any(code == "VL051" for code, _, _ in found)


FLAGS = (
    "# use with: vllm serve <model> $(tr '\\n' ' ' < configs/vllm_args.yaml)\n"
    "--max-model-len: 131072\n--max-num-seqs: 64\n"
)


def test_a_list_of_flags_is_no_launch_and_says_it_was_not_checked(tmp_path: Path) -> None:
    write(tmp_path, {"configs/vllm_args.yaml": FLAGS})
    found = [(f.code, f.span.line, f.severity) for f in lint(tmp_path, "configs/vllm_args.yaml")]
    assert found == [("VL051", 2, "info")]


def test_a_list_of_flags_passed_with_config_is_refused_key_by_key(tmp_path: Path) -> None:
    """vLLM's --config puts -- before every key: ----max-model-len is unrecognized ([0.19.1]
    vllm/utils/argparse_utils.py:501-517)."""
    write(tmp_path, {"configs/vllm_args.yaml": FLAGS, "start.sh": "vllm serve m --config configs/vllm_args.yaml\n"})
    found = {(f.code, f.path.endswith("vllm_args.yaml"), f.span.line) for f in lint(tmp_path, ".")}
    assert {("VL001", True, 2), ("VL001", True, 3)} <= found and not any(c == "VL051" for c, _, _ in found)
