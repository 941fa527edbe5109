"""Term fixes found by bench/accuracy.py, each pinned to the vLLM code it mirrors (small, in-process)."""

from __future__ import annotations

import pytest

from tests.conftest import load_script
from tests.memory.helpers import inputs
from vlint.core.record import replace
from vlint.core.version import V
from vlint.hardware.gpus import lookup_gpu
from vlint.memory import MemoryInputs, estimate_memory
from vlint.memory.constants import overridden
from vlint.memory.estimate import _cuda_graph, activation_terms
from vlint.resolve.catalog import lookup_catalog
from vlint.resolve.defaults import _tier


def _hybrid(version: str = "0.26.0", **kw) -> MemoryInputs:  # type: ignore[no-untyped-def]
    # Qwen3.8-27B NVFP4 on one RTX 5090 at 8K context: a KV pool of ~30-90 blocks, fewer than the
    # default 256 sequences (the recipe's "1x RTX 5090" launch)
    return inputs("Inferact/Qwen3.8-27B-NVFP4", "RTX 5090", version, **{"kv_cache_dtype": "fp8", **kw})


def test_mamba_block_check_needs_full_cuda_graphs():
    # [0.26.0] vllm/config/compilation.py:1366-1369 returns before the check with cudagraph_mode NONE
    graphs = estimate_memory(_hybrid())
    assert 0 < graphs.num_blocks < 256
    assert graphs.failure_stage == "mamba_blocks"
    assert "CUDA graph capture cannot proceed" in (graphs.failure or "")
    assert any("--enforce-eager" in r for r in graphs.risks)
    eager = estimate_memory(_hybrid(enforce_eager=True))
    assert eager.failure_stage is None and eager.starts


def test_mamba_block_check_from_0_20():
    # [0.19.0] vllm/config/compilation.py:1282-1330 only caps the capture sizes (a warning)
    inp = _hybrid()
    assert estimate_memory(replace(inp, version=V("0.19.0"))).failure_stage != "mamba_blocks"
    assert estimate_memory(replace(inp, version=V("0.20.0"))).failure_stage == "mamba_blocks"


def test_bench_passes_logged_other_args():
    # a record's other_args that are vLLM arguments reach the memory model (h017: DCP 8)
    bench = load_script("vlint_bench_accuracy", "bench/accuracy.py")
    rec = {
        "id": "t1",
        "model": "Qwen/Qwen3-8B",
        "gpu": "H100 80GB",
        "vllm_version": "0.19.0",
        "tensor_parallel_size": 8,
        "args": {"max_model_len": 8192},
        "other_args": {"decode_context_parallel_size": 8, "language_model_only": True, "speculative_config": "MTP"},
        "observed_numeric": {"kv_cache_gib": 10.0},
    }
    p, why = bench.prepare(rec)
    assert p is not None, why
    assert p.sample.inp.decode_context_parallel_size == 8
    assert p.sample.inp.language_model_only is True


def test_qwen3_5_ssm_state_dtype_from_config():
    # [0.17.0]/[0.26.0] vllm/model_executor/models/config.py Qwen3_5ForConditionalGenerationConfig sets
    # mamba_ssm_cache_dtype from text_config.mamba_ssm_dtype; the GDN recurrent state is then float32
    # ([0.26.0] vllm/model_executor/layers/mamba/mamba_utils.py:84-96), the conv state the model dtype
    from vlint.memory.kv import layer_specs
    from vlint.resolve.model_arch import model_arch_from_config

    a = lookup_catalog("Qwen/Qwen3.8-27B-FP8")
    assert a is not None and a.state_ssm_dtype_bytes == 4
    specs = layer_specs(
        a,
        layer_range=(0, 4),
        tp=2,
        kv_bytes=1,
        model_dtype_bytes=2,
        kv_cache_dtype="fp8",
        treat_windowed_as_full=False,
    )
    mamba = next(s for s in specs if s.kind == "mamba")
    conv = 3 * (16 * 128 * 2 + 48 * 128)
    ssm = 48 * 128 * 128
    assert mamba.state_bytes == (conv * 2 + ssm * 4) / 2
    # another hybrid family with the same field keeps the model dtype (no such hook in vLLM)
    cfg = {
        "architectures": ["Qwen3NextForCausalLM"],
        "model_type": "qwen3_next",
        "hidden_size": 2048,
        "num_hidden_layers": 4,
        "num_attention_heads": 16,
        "num_key_value_heads": 2,
        "head_dim": 256,
        "intermediate_size": 5120,
        "vocab_size": 151936,
        "layer_types": ["linear_attention"] * 3 + ["full_attention"],
        "linear_num_key_heads": 16,
        "linear_num_value_heads": 32,
        "linear_key_head_dim": 128,
        "linear_value_head_dim": 128,
        "linear_conv_kernel_dim": 4,
        "mamba_ssm_dtype": "float32",
    }
    assert model_arch_from_config(cfg, name="toy-next", source="test").state_ssm_dtype_bytes is None


def test_flashinfer_sampler_when_the_image_installs_it():
    # [0.10.1.1] vllm/v1/sample/ops/topk_topp_sampler.py:34-50: FlashInfer top-k/top-p whenever the
    # package imports and VLLM_USE_FLASHINFER_SAMPLER is unset; vLLM's CUDA image installs it
    from vlint.memory.estimate import sampler_bytes_per_element
    from vlint.sources.containers.images import parse_image, ships_flashinfer

    base = inputs("Qwen/Qwen3-8B", version="0.11.0")
    assert sampler_bytes_per_element(base)[1] == "pytorch_sort"  # a pip install: flashinfer is an extra
    assert sampler_bytes_per_element(replace(base, flashinfer_installed=True))[1] == "flashinfer"
    off = replace(base, flashinfer_installed=True, env={"VLLM_USE_FLASHINFER_SAMPLER": "0"})
    assert sampler_bytes_per_element(off)[1] == "pytorch_sort"
    # from 0.11.2 FlashInfer sampling is opt-in even where installed
    assert sampler_bytes_per_element(replace(base, version=V("0.11.2"), flashinfer_installed=True))[1] == (
        "pytorch_sort"
    )
    for ref, ships in (
        ("vllm/vllm-openai:v0.11.0", True),
        ("docker.io/vllm/vllm-openai:latest", True),
        ("vllm/vllm-openai-rocm:v0.11.0", False),
        ("nvcr.io/nvidia/vllm:26.01-py3", False),
    ):
        image = parse_image(ref)
        assert image is not None and ships_flashinfer(image) is ships, ref


def test_gb10_gets_the_small_default_tier():
    # before 0.33.0 vLLM's NVML query of GB10's memory raises ("Not Supported"), so get_batch_defaults
    # takes device_memory 0: 2048 tokens / 256 seqs for vllm serve ([0.19.0] vllm/platforms/cuda.py:575,
    # vllm/engine/arg_utils.py:2043-2047); 0.33.0 excludes GB10 by capability (arg_utils.py:2963,2986)
    from vlint.resolve.defaults import resolve_defaults

    arch = lookup_catalog("Qwen/Qwen3-8B")
    for version in ("0.13.0", "0.19.0", "0.33.0"):
        gb10 = lookup_gpu("GB10")
        out = resolve_defaults(V(version), gpu=gb10, usage_context="OPENAI_API_SERVER", arch=arch, user={})
        assert (out["max_num_batched_tokens"].value, out["max_num_seqs"].value) == (2048, 256), version
    h100 = resolve_defaults(V("0.13.0"), gpu=lookup_gpu("H100"), usage_context="OPENAI_API_SERVER", arch=arch, user={})
    assert (h100["max_num_batched_tokens"].value, h100["max_num_seqs"].value) == (8192, 1024)


def test_in_flight_bitsandbytes_is_double_quantized():
    # BitsAndBytesModelLoader quantizes with compress_statistics=True ([0.6.6.post1]
    # vllm/model_executor/model_loader/loader.py:965-969; [0.19.0] bitsandbytes_loader.py:434-438):
    # uint8 absmax per 64 weights plus an fp32 nested absmax per 256 blocks
    from vlint.memory.weights import _online_scheme

    s = _online_scheme("bitsandbytes")
    assert s is not None and s.double_quant
    n, k = 4096, 4096
    assert s.linear_bytes(n, k) == n * k / 2 + n * k / 64 + n * k / 64 / 256 * 4
    # h163: Llama-3.1-8B with --quantization bitsandbytes on an L4 (0.6.6.post1) logs 5.34 GiB
    inp = inputs("meta-llama/Llama-3.1-8B-Instruct", "L4", "0.6.6.post1", engine="V0", quantization="bitsandbytes")
    assert abs(estimate_memory(inp).weights_gib - 5.34) < 0.05


def test_tp_non_torch_nvlink_figure_only_where_symm_mem_runs():
    # [0.19.0] vllm/distributed/device_communicators/all_reduce_utils.py:52-71 serves CC 9.0/10.x; an
    # NVLink A100 (8.0) logs "SymmMemCommunicator: Device capability 8.0 not supported" and h141's
    # summary line puts its TP2 non-torch at 0.17 GiB
    from vlint.memory.estimate import _non_torch, multi_gpu_nvlink_class

    a100, h100 = lookup_gpu("A100-SXM4-80GB"), lookup_gpu("H100")
    assert a100 is not None and h100 is not None and a100.nvlink and h100.nvlink
    assert multi_gpu_nvlink_class(h100) and not multi_gpu_nvlink_class(a100)
    base = MemoryInputs(
        arch=lookup_catalog("Qwen/Qwen3-8B"), gpu=h100, version=V("0.19.0"), max_model_len=8192, tensor_parallel_size=2
    )
    assert _non_torch(base)[0] > 1.5
    assert _non_torch(replace(base, gpu=a100))[0] < 0.5


def test_qwen3_5_family_hybrid_block_matches_a_log():
    # h141 (0.27.1, Qwen3.6-27B, TP2, bf16 KV) logs "Setting attention block size to 784 tokens to ensure
    # that attention page size is >= mamba page size": with the float32 recurrent state; the model dtype
    # would give 400. Qwen3.8-27B has the same text layout.
    m = estimate_memory(
        inputs(
            "Qwen/Qwen3.8-27B",
            "A100-SXM4-80GB",
            "0.27.0",
            max_model_len=65536,
            tensor_parallel_size=2,
            gpu_memory_utilization=0.92,
        )
    )
    assert m.block_size == 784


def test_v0_graph_cost_is_fitted_from_the_logged_captures():
    # V0 captures one decode graph per size after the KV cache, in one shared pool, and logs "Graph capturing
    # finished in N secs, took X GiB" ([0.6.6.post1] vllm/worker/model_runner.py:1401-1535): Llama-3.1-8B (32
    # layers, 35 sizes) took 0.64 GiB on an L4 (h163), 0.43 at TP4 and 0.23 at TP2 on L40S (h190, h191);
    # the per-layer cost per 35 sizes is their median, 0.43 / 32 = 0.0134 GiB, not the 0.03 prior
    load_script("vlint_bench_accuracy", "bench/accuracy.py")
    fitting = load_script("fitting", "bench/fitting.py")
    arch, gpu = lookup_catalog("meta-llama/Llama-3.1-8B-Instruct"), lookup_gpu("L40S")
    samples = [
        fitting.Sample(
            rid,
            MemoryInputs(
                arch=arch, gpu=gpu, version=V("0.6.6"), engine="V0", max_model_len=8192, tensor_parallel_size=tp
            ),
            {"cuda_graph_actual_gib": took},
        )
        for rid, tp, took in (("h163", 1, 0.64), ("h190", 4, 0.43), ("h191", 2, 0.23))
    ]
    assert all(s.engine == "V0" for s in samples)
    values = fitting.fit(samples)
    per_layer = values[fitting.CG_V0]["per_layer_gib"]
    assert per_layer == pytest.approx(0.43 / 32, abs=1e-4)
    with overridden({fitting.CG_V0: values[fitting.CG_V0]}):
        assert _cuda_graph(samples[0].inp, 32) / 2**30 == pytest.approx(0.43, abs=0.005)
    # no logged capture: the prior stays
    assert fitting.fit([])[fitting.CG_V0]["per_layer_gib"] == 0.03


def test_hybrid_kv_manager_from_0_9_1():
    # [0.9.1] vllm/v1/core/kv_cache_utils.py:942-958 groups gemma-3-27b's 10 full and 52 sliding-window
    # layers into 7 groups of 10 (one memory pool of 10 tensors) and logs num_blocks // 7 x 16 tokens
    # (:867-870); [0.9.0] has no grouping (every layer its own tensor). h228 (0.9.1, B200): 122.65 GiB /
    # (10 x 128 KiB) = 100,474 blocks -> 100,474 // 7 x 16 = 229,648 tokens, the logged figure
    base = inputs(
        "google/gemma-3-27b-it", "B200", "0.9.1", max_model_len=2048, max_num_batched_tokens=16384, max_num_seqs=1024
    )
    grouped = estimate_memory(base)
    assert grouped.num_kv_groups == 7 and grouped.stages[0].bytes_per_block == 10 * 128 * 1024
    assert grouped.kv_cache_tokens == grouped.num_blocks // 7 * 16
    assert int(122.65 * 2**30 // (10 * 128 * 1024)) // 7 * 16 == 229_648
    flat = estimate_memory(replace(base, version=V("0.9.0")))
    assert flat.num_kv_groups == 1 and flat.stages[0].bytes_per_block == 62 * 128 * 1024


def test_an_a800_takes_the_large_default_tier():
    # [0.13.0] vllm/engine/arg_utils.py:1797: >= 70 GiB and no "a100" in the device name -> 8192 tokens /
    # 1024 sequences for the API server; an A100-80GB gets 2048 / 256. h086 (CC 8.0, defaults) logged 8192:
    # its 1024-row sampler pass (Llama-3 128,256 vocab) is the ~3.5 GiB its KV was over-predicted by
    a800, a100 = lookup_gpu("A800 80GB"), lookup_gpu("A100 80GB")
    assert a800 is not None and a800.name == "A800-SXM4-80GB" and a800.cc_major_minor == (8, 0)
    assert a100 is not None and a100.name == "A100-SXM4-80GB"
    assert _tier(V("0.13.0"), a800, "OPENAI_API_SERVER", "V1")[:2] == (8192, 1024)
    assert _tier(V("0.13.0"), a100, "OPENAI_API_SERVER", "V1")[:2] == (2048, 256)


def test_moe_caches_stay_through_the_sampler_pass_only_from_0_14():
    # [0.13.0] the unquantized MoE runs the fused_experts function, whose caches are torch.empty temporaries
    # (vllm/model_executor/layers/fused_moe/fused_moe.py:1838-1847); [0.14.0] a modular kernel takes them
    # from the persistent workspace manager (unquantized_fused_moe_method.py:283-287, modular_kernel.py:
    # 818-860). h140 (0.10.2, Qwen3-30B-A3B, 8192 tokens, 1024 sampler rows x 151,936 vocab x 38 B = 5.51
    # GiB) logged a 5.58 GiB peak: the sampler pass, not the sampler plus the 0.28 GiB of MoE caches
    arch, gpu = lookup_catalog("Qwen/Qwen3-30B-A3B-Instruct-2507"), lookup_gpu("H100")

    def terms(version: str):  # type: ignore[no-untyped-def]
        inp = MemoryInputs(
            arch=arch, gpu=gpu, version=V(version), max_model_len=6144, max_num_batched_tokens=8192, max_num_seqs=1024
        )
        return activation_terms(inp, 0, 1, arch.num_layers)

    old, new = terms("0.13.0"), terms("0.14.0")
    gib = 2**30
    assert old.sampler / gib == pytest.approx(5.51, abs=0.01) and old.moe_workspace / gib == pytest.approx(
        0.28, abs=0.01
    )
    assert not old.moe_persistent and old.core == pytest.approx(max(old.forward + old.moe_workspace, old.sampler))
    assert old.core == pytest.approx(old.sampler)
    assert new.moe_persistent and new.core == pytest.approx(max(new.forward, new.sampler) + new.moe_workspace)


def test_tp_non_torch_without_symmetric_memory_is_fitted_where_logged():
    # h141 (0.27.1, A100 TP2: 'SymmMemCommunicator: Device capability 8.0 not supported') and h183 (0.31.0,
    # L40S TP2) log consumed memory 25.86 / 25.87 GiB over 25.69 GiB of weights: 0.17 / 0.18 GiB of
    # non-torch where the estimate had only the V0 consumer figure 0.35
    load_script("vlint_bench_accuracy", "bench/accuracy.py")
    fitting = load_script("fitting", "bench/fitting.py")
    arch = lookup_catalog("Qwen/Qwen3-8B")
    samples = [
        fitting.Sample(
            rid,
            MemoryInputs(arch=arch, gpu=lookup_gpu(gpu), version=V(v), max_model_len=8192, tensor_parallel_size=2),
            {"non_torch_gib": nt},
        )
        for rid, gpu, v, nt in (("h141", "A100-SXM4-80GB", "0.27.1", 0.17), ("h183", "L40S", "0.31.0", 0.18))
    ]
    assert fitting.fit(samples)[fitting.NT_V1]["multi_gpu_pcie"] == pytest.approx(0.175)
    # without such a log: the TP1 figure (the prior, or the fitted TP1), not V0's absolute 0.35
    assert fitting.fit([])[fitting.NT_V1]["multi_gpu_pcie"] == fitting.PRIORS[fitting.NT_V1]["tp1"]
    tp1 = [
        fitting.Sample(
            f"t{i}",
            MemoryInputs(arch=arch, gpu=lookup_gpu("H100"), version=V("0.19.0"), max_model_len=8192),
            {"non_torch_gib": nt},
        )
        for i, nt in enumerate((0.24, 0.26))
    ]
    fitted = fitting.fit(tp1)[fitting.NT_V1]
    assert fitted["tp1"] == pytest.approx(0.25) and fitted["multi_gpu_pcie"] == pytest.approx(0.25)


def test_v1_tp_non_torch_on_pcie_grows_as_tp1():
    """V1 takes the start snapshot after NCCL and the custom all-reduce are set up ([0.13.0]
    vllm/v1/worker/gpu_worker.py:221-240): their buffers are not non-torch growth, so a TP2 launch on
    PCIe GPUs takes the TP1 figure (h206, 0.13.0 TP2 on RTX 4090s: 0.09 GiB of activation and non-torch
    together; h175, 0.10.2 TP8 on L40S: 0.18 logged)."""
    from vlint.memory.estimate import _non_torch

    arch = lookup_catalog("Qwen/Qwen3-8B")
    for v in ("0.13.0", "0.19.0"):
        tp1 = MemoryInputs(arch=arch, gpu=lookup_gpu("RTX 4090"), version=V(v), max_model_len=8192)
        assert _non_torch(replace(tp1, tensor_parallel_size=2))[0] == _non_torch(tp1)[0]
    # must not: NVLink Hopper keeps its ~2 GiB multi-GPU figure; V0 keeps its absolute figure
    h100 = MemoryInputs(arch=arch, gpu=lookup_gpu("H100"), version=V("0.13.0"), max_model_len=8192)
    assert _non_torch(replace(h100, tensor_parallel_size=2))[0] > 1.5
    v0 = MemoryInputs(arch=arch, gpu=lookup_gpu("RTX 4090"), version=V("0.6.4"), max_model_len=8192, engine="V0")
    assert (
        _non_torch(replace(v0, tensor_parallel_size=2))[0]
        > _non_torch(replace(v0, version=V("0.13.0"), engine="V1", tensor_parallel_size=2))[0]
    )
