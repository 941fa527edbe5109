"""What the memory model is asked: one launch's model, GPU, release and every setting its arithmetic
reads (:class:`MemoryInputs`). The estimate and the terms it sums (weights, KV, extras) all read it."""

from __future__ import annotations

from collections.abc import Mapping

from vlint.core.record import field, record
from vlint.core.typing_names import Any
from vlint.core.version import Version
from vlint.hardware.gpus import GpuSpec
from vlint.resolve.model_arch import ModelArch


@record(frozen=True)
class MemoryInputs:
    arch: ModelArch
    gpu: GpuSpec
    version: Version
    max_model_len: int
    engine: str = "V1"
    gpu_count: int | None = None
    tensor_parallel_size: int = 1
    pipeline_parallel_size: int = 1
    data_parallel_size: int = 1
    prefill_context_parallel_size: int = 1
    decode_context_parallel_size: int = 1
    expert_parallel: bool = False  # --enable-expert-parallel
    redundant_experts: int = 0  # EPLB's num_redundant_experts
    all2all_backend: str | None = None  # --all2all-backend (None: VLLM_ALL2ALL_BACKEND, else the default)
    gpu_memory_utilization: float = 0.9
    max_num_seqs: int = 256
    max_num_batched_tokens: int = 2048
    enable_chunked_prefill: bool = True
    enable_prefix_caching: bool = True
    mamba_cache_mode: str | None = None  # --mamba-cache-mode as given (None: the release picks it)
    mamba_block_size: int | None = None  # --mamba-block-size as given
    kv_cache_dtype: str = "auto"
    block_size: int = 16
    enforce_eager: bool = False
    dtype: str | None = None  # serving dtype; None = checkpoint dtype (fp32 → bf16)
    quantization: str | None = None  # --quantization (online quantization of a bf16 checkpoint)
    cpu_offload_gb: float = 0.0
    kv_cache_memory_bytes: int | None = None
    num_gpu_blocks_override: int | None = None
    cudagraph_capture_sizes: tuple[int, ...] | None = None  # None = version default for the inputs
    cudagraph_mode: str | None = None  # None = the release's default (PIECEWISE before 0.11.0, then FULL_AND_PIECEWISE)
    estimate_cudagraphs: bool | None = None  # None = version default (on from 0.20.0)
    async_scheduling: bool = True
    disable_hybrid_kv_cache_manager: bool = False
    num_speculative_tokens: int = 0
    auto_fit_max_model_len: bool = False  # --max-model-len -1 / auto (fit to KV memory at startup)
    other_gpu_usage_gib: float = 0.0  # memory other processes hold on the same GPU at start
    other_instances_gmu: tuple[float, ...] = ()  # gpu_memory_utilization of co-located vLLMs
    limit_mm_per_prompt: Mapping[str, Any] | None = field(default=None, hash=False, compare=False)
    language_model_only: bool = False
    #: vLLM's runner: "generate", or "pooling" (--runner pooling / --task embed…, or what vLLM resolves
    #: --runner auto to for an embedding checkpoint): no lm_head, no sampler warm-up
    runner: str = "generate"
    skip_mm_profiling: bool = False
    mm_encoder_tp_mode: str | None = None  # --mm-encoder-tp-mode ("weights" default, "data")
    spec_method: str | None = None  # speculative_config.method (ngram, eagle, eagle3, mtp, draft_model…)
    draft_arch: ModelArch | None = field(default=None, hash=False, compare=False)  # draft model / EAGLE head
    max_loras: int = 0  # 0 = LoRA off; else --max-loras slots preallocated
    max_lora_rank: int = 16
    lora_dtype: str | None = None
    #: whether the flashinfer package is importable (None: not known, as for a pip install of a release
    #: that lists it only as an extra; True: vLLM's CUDA server image, which installs it)
    flashinfer_installed: bool | None = None
    env: Mapping[str, str] = field(default_factory=dict, hash=False, compare=False)
