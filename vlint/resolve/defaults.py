"""Fill unset engine arguments the way a given vLLM version does.

``resolve_defaults(version, gpu=…, usage_context=…, arch=…, user=…)`` returns one
:class:`ResolvedValue` per setting the memory model and the rules need. ``user`` holds what the
launch set, keyed by ``EngineArgs`` dest names (``max_model_len``, ``max_num_seqs`` …); the
environment is passed as ``user["env"]`` (a mapping) or as ``env_<NAME>`` keys
(``env_VLLM_USE_V1="1"``).

Every default says where it comes from (``why``), citing the wheel source it reproduces.
Source summary: shared reference ``vllm-behavior.md`` §2.1–2.3, re-checked against the 0.6.6.post1,
0.8.5.post1, 0.10.2, 0.19.1, 0.20.0, 0.28.0 and 0.33.0 wheels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from vlint.core.record import record
from vlint.core.typing_names import Any, Literal
from vlint.core.version import V, Version
from vlint.hardware.gpus import GpuSpec
from vlint.resolve.dtypes import AUTO_DTYPE_FALLBACK_SINCE, refuses_float16
from vlint.resolve.model_arch import (
    MAMBA,
    NO_KV,
    STATE_KINDS,
    ModelArch,
    checkpoint_kv_cache_dtype,
    default_max_model_len,
    derived_max_model_len,
    dtype_bytes,
    normalize_dtype,
)

#: ``user``: as the launch wrote it; ``default``: the release's default; ``forced``: vLLM replaces what the
#: launch wrote (V1 before 0.11.1 turns chunked prefill back on); ``resolved``: what the launch's value
#: becomes (``--max-model-len auto``). :meth:`Deployment.value` prefers forced/resolved values.
Origin = Literal["user", "default", "forced", "resolved"]
OVERRIDING: frozenset[str] = frozenset({"forced", "resolved"})

#: V1 honours --no-enable-chunked-prefill from 0.11.1 ([0.11.1] vllm/engine/arg_utils.py:1955-1971); before,
#: ``_set_default_args_v1`` sets it True for every non-pooling model ([0.10.2] vllm/engine/arg_utils.py:1619-1623,
#: [0.11.0] same; [0.6.6.post1] vllm/engine/arg_utils.py:1264 "V1 always uses chunked prefills")
CHUNKED_CHOICE_HONOURED_SINCE = V("0.11.1")
#: the default max_num_batched_tokens is capped at max_num_seqs x max_model_len from 0.11.1
#: ([0.11.1] vllm/engine/arg_utils.py:2020-2026); in 0.9.0-0.11.0 the same cap sits in SchedulerConfig and
#: only applies when the budget is still unset there, which vllm serve never leaves it
#: ([0.10.2] vllm/config/scheduler.py:211-216)
MNBT_CAP_SINCE = V("0.11.1")
#: the default max_num_seqs is lowered to max_num_batched_tokens from 0.10.1
#: ([0.10.1.1] vllm/engine/arg_utils.py:1711-1712; [0.11.1] vllm/engine/arg_utils.py:2036)
MNS_LOWERED_SINCE = V("0.10.1")
#: --max-model-len -1 / auto (fit to the KV memory, the derived length at configuration time) from 0.14.1
#: ([0.14.1] vllm/config/model.py:175 Field(ge=-1), vllm/engine/arg_utils.py:2121 human_readable_int_or_auto);
#: before, -1 is taken literally
MML_AUTO_SINCE = V("0.14.1")
#: hybrid (attention + Mamba/linear-attention) models get prefix caching by default from 0.28.0; supported but
#: opt-in in 0.26 and 0.27, unsupported before (see the prefix-caching default below)
HYBRID_PREFIX_CACHING_DEFAULT_SINCE = "0.28.0"
GIB = 2**30


@record(frozen=True)
class ResolvedValue:
    value: Any
    origin: Origin
    why: str


def _env(user: Mapping[str, object]) -> dict[str, str]:
    env: dict[str, str] = {}
    e = user.get("env")
    if isinstance(e, Mapping):
        env.update({str(k): str(v) for k, v in e.items()})
    for k, v in user.items():
        if k.startswith("env_") and v is not None:
            env[k[4:]] = str(v)
    return env


def _as_int(v: object) -> int | None:
    """User values arrive typed from the argv parser, but never crash on a stray string."""
    if v is None or isinstance(v, bool):
        return None
    try:
        return int(str(v).strip()) if not isinstance(v, (int, float)) else int(v)
    except ValueError:
        return None


_INT_KEYS = (
    "max_model_len",
    "max_num_seqs",
    "max_num_batched_tokens",
    "block_size",
    "tensor_parallel_size",
    "pipeline_parallel_size",
    "data_parallel_size",
    "max_cudagraph_capture_size",
    "num_gpu_blocks_override",
    "kv_cache_memory_bytes",
)


def _truthy(s: str | None) -> bool | None:
    if s is None:
        return None
    return s.strip().lower() in ("1", "true", "yes", "on")


def _json_mapping(v: object) -> Mapping[str, Any] | None:
    """A JSON option's value as a mapping: parsed already, or the JSON text (``--hf-overrides`` is typed
    ``union_dict_and_str``: a JSON object, or any other string)."""
    if isinstance(v, Mapping):
        return v
    if isinstance(v, str) and v.lstrip().startswith("{"):
        import json

        try:
            parsed = json.loads(v)
        except (ValueError, RecursionError):
            return None
        return parsed if isinstance(parsed, Mapping) else None
    return None


def _truthy_value(v: object) -> bool:
    """A boolean setting: 0.6.x's StoreBoolean options take the words True/False (``--enable-chunked-prefill
    False``), which arrive as strings."""
    if isinstance(v, str):
        return v.strip().lower() in ("1", "true", "yes", "on")
    return bool(v)


#: what _is_v1_supported_oracle only warns about (``_warn_or_fallback``): with VLLM_USE_V1=1 the launch runs
#: on V1; every other reason is a ``_raise_or_fallback`` that VLLM_USE_V1=1 turns into a refusal
#: ([0.8.2] vllm/engine/arg_utils.py _warn_or_fallback / _raise_or_fallback)
WARN_ONLY_FALLBACKS = frozenset({"LORA", "PP", "ngram", "[ngram]", "eagle", "eagle3", "Eagle"})


def v1_fallback(version: Version, user: Mapping[str, object], gpu: GpuSpec | None) -> str | None:
    """Why 0.8.0-0.10.x's ``EngineArgs._is_v1_supported_oracle`` falls back to the V0 engine for this launch
    (only when VLLM_USE_V1 is unset), or None. The features it checks, each in the releases that check it
    ([0.8.5.post1] vllm/engine/arg_utils.py:1292-1499; [0.10.2] vllm/engine/arg_utils.py:1380-1560)."""
    if not V("0.8.0") <= version < V("0.11.0"):
        return None
    mnp, mlp = _as_int(user.get("max_num_partial_prefills")), _as_int(user.get("max_long_partial_prefills"))
    if (mnp is not None and mnp != 1) or (mlp is not None and mlp != 1):
        return "Concurrent Partial Prefill"
    lptt = user.get("long_prefill_token_threshold")
    if version < V("0.8.3") and isinstance(lptt, int | float) and not isinstance(lptt, bool) and lptt != 0:
        return "Concurrent Partial Prefill"  # [0.8.2] vllm/engine/arg_utils.py:1625-1630 (also the threshold)
    pp = _as_int(user.get("pipeline_parallel_size")) or 1
    backend = user.get("distributed_executor_backend")
    if pp > 1 and version < V("0.9.0") and backend != "ray":  # [0.8.5.post1] vllm/engine/arg_utils.py:1522-1527
        return "Pipeline Parallelism without Ray distributed executor"
    if pp > 1 and backend not in (None, "ray", "mp", "external_launcher"):  # [0.9.2] vllm/engine/arg_utils.py:1482
        return "Pipeline Parallelism without Ray distributed executor or multiprocessing executor or external launcher"
    dtype = str(user.get("dtype") or "auto").lower()
    if version < V("0.9.2") and dtype in ("float32", "float"):
        return f"--dtype {dtype}"
    cc = gpu.cc_major_minor if gpu is not None and gpu.vendor == "nvidia" else None
    if version < V("0.10.2") and cc is not None and cc < (8, 0):
        return "Compute Capability < 8.0"
    steps = _as_int(user.get("num_scheduler_steps"))
    if version < V("0.10.1") and steps is not None and steps != 1:
        return "--num-scheduler-steps"
    if user.get("preemption_mode") is not None:
        return "--preemption-mode"
    delay = user.get("scheduler_delay_factor")
    if isinstance(delay, int | float) and not isinstance(delay, bool) and delay != 0.0:
        # [0.8.2] vllm/engine/arg_utils.py:1530, [0.10.2] :1461 (SchedulerConfig.delay_factor defaults to 0.0)
        return "--scheduler-delay-factor"
    if version < V("0.9.2") and user.get("scheduling_policy") not in (None, "fcfs"):
        return "--scheduling-policy"
    kv = user.get("kv_cache_dtype")
    if kv not in (None, "auto") and not (str(kv).startswith("fp8") and cc is not None and cc >= (9, 0)):
        return "--kv-cache-dtype"  # fp8 stays on V1 only where FlashAttention 3 supports it (Hopper)
    if version < V("0.8.3"):
        # 0.8.0-0.8.2 run these on V0 unless VLLM_USE_V1=1 ([0.8.2] vllm/engine/arg_utils.py _is_v1_supported_oracle:
        # _warn_or_fallback("LORA"/"PP"/"ngram") and _raise_or_fallback for the V0 speculative flags, CPU
        # offload and --additional-config); 0.8.5.post1 no longer checks them
        if _truthy_value(user.get("enable_lora")):
            return "LORA"
        if pp > 1:
            return "PP"
        sm = user.get("speculative_model")
        if sm is not None:
            return "ngram" if sm in ("ngram", "[ngram]") else "Speculative Decoding"
        if user.get("cpu_offload_gb") not in (None, 0, 0.0):
            return "--cpu-offload-gb"
        if user.get("additional_config"):
            return "--additional-config"
        if user.get("kv_transfer_config"):
            return "--kv-transfer-config"
    if version < V("0.10.0") and (user.get("otlp_traces_endpoint") or user.get("collect_detailed_traces")):
        return "--otlp-traces-endpoint"  # [0.8.2] arg_utils.py _is_v1_supported_oracle, [0.9.2] :1416-1420
    spec = user.get("speculative_config")  # a JSON string in 0.8.0-0.8.2: the oracle reads only the V0 flags there
    if version < V("0.9.0") and isinstance(spec, Mapping):
        # 0.8.x: other methods are unsupported; ngram and EAGLE are "supported but off by default"
        # (_warn_or_fallback: [0.8.5.post1] vllm/engine/arg_utils.py:1530-1536), so any of them falls back
        method = spec.get("method") or spec.get("model")
        return "Speculative Decoding" if method not in ("ngram", "[ngram]", "eagle", "eagle3") else str(method)
    return None


def resolve_engine(
    version: Version,
    env: Mapping[str, str],
    user: Mapping[str, object] | None = None,
    gpu: GpuSpec | None = None,
) -> tuple[str, str]:
    """``("V0"|"V1", why)`` for a version, environment and (optionally) the launch's settings."""
    use_v1 = _truthy(env.get("VLLM_USE_V1"))
    if version < V("0.6.4"):
        return "V0", f"vLLM {version} has only the V0 engine"
    if version < V("0.8.0"):
        if use_v1:
            return "V1", f"VLLM_USE_V1=1 opts into V1 on {version} ([0.6.4.post1] vllm/envs.py:475-476)"
        return "V0", f"V0 is the default engine before 0.8.0 (VLLM_USE_V1 defaults to 0 on {version})"
    if version < V("0.11.0"):
        if use_v1 is False:
            return "V0", f"VLLM_USE_V1=0 selects V0 on {version}"
        reason = v1_fallback(version, user or {}, gpu) if use_v1 is None else None
        if reason is not None:
            return "V0", (
                f"{reason} is not supported by the V1 engine of {version}: with VLLM_USE_V1 unset vLLM falls back "
                "to V0 (_is_v1_supported_oracle, [0.10.2] vllm/engine/arg_utils.py:1380-1560)"
            )
        return "V1", f"V1 is the default engine from 0.8.0 ([0.8.0] vllm/envs.py:522-523) on {version}"
    return "V1", f"only the V1 engine exists from 0.11.0 (VLLM_USE_V1 removed in 0.11.1); {version}"


def _tier(version: Version, gpu: GpuSpec | None, usage: str, engine: str) -> tuple[int | None, int | None, str]:
    """Default (max_num_batched_tokens, max_num_seqs) for V1 before clamping, and why."""
    ctx_llm = usage == "LLM_CLASS"
    if gpu is None:
        mem, name, cc = 0.0, "", None
        gpu_note = "unknown GPU (vLLM falls back to the small-GPU tier when the device query fails)"
    else:
        mem, name, cc = gpu.total_gib, (gpu.device_name or gpu.name).lower(), gpu.cc_major_minor
        gpu_note = f"{gpu.name} ({gpu.total_gib:.2f} GiB)"
    h100_by_name = any(t in name for t in ("h100", "h200"))
    if version < V("0.7.0"):
        mnbt = 8192 if ctx_llm else 2048
        return (
            mnbt,
            1024,
            (
                f"V1 on {version}: LLM 8192 / serve 2048 tokens, 1024 seqs "
                "([0.6.6.post1] vllm/engine/arg_utils.py:1265-1279, :213)"
            ),
        )
    if version < V("0.8.5"):
        mnbt = (16384 if ctx_llm else 8192) if h100_by_name else (8192 if ctx_llm else 2048)
        mns = 1024
        if version >= V("0.8.4") and not h100_by_name:
            mns = 256
        return (
            mnbt,
            mns,
            (
                f"{version} picks by device name (H100/H200 vs other) for {gpu_note} "
                "([0.7.3] vllm/engine/arg_utils.py:1355-1390)"
            ),
        )
    big = mem >= 70
    why_tier = ">= 70 GiB"
    if version >= V("0.9.0") and "a100" in name:
        big, why_tier = False, "A100 excluded from the large tier by name (PR #17885)"
    if version >= V("0.33.0") and cc == (12, 1):
        big, why_tier = False, "GB10 (compute capability 12.1) excluded from the large tier"
    elif cc == (12, 1):
        # before 0.33.0 NvmlCudaPlatform.get_device_total_memory asks NVML, which does not implement the
        # device memory query on GB10 (DGX Spark known issue "nvidia-smi reports memory usage: Not
        # Supported"): it raises, get_batch_defaults' except sets device_memory = 0, the small tier
        # ([0.19.0] vllm/platforms/cuda.py:575, vllm/engine/arg_utils.py:2043-2047; [0.13.0] cuda.py:526,
        # arg_utils.py:1787-1791; 0.33.0 falls back to torch, [0.33.0] cuda.py:807-814)
        big, why_tier = False, "GB10: NVML's memory query is not supported there, vLLM reads 0 GiB (small tier)"
    if version >= V("0.28.0") and mem >= 160:
        return (
            16384,
            1024,
            (
                f"{gpu_note} >= 160 GiB: 16384 tokens / 1024 seqs for every usage context "
                "([0.28.0] vllm/engine/arg_utils.py:2582-2591)"
            ),
        )
    if big:
        mnbt = 16384 if ctx_llm else 8192
        return (
            mnbt,
            1024,
            (
                f"{gpu_note} {why_tier}: {'LLM' if ctx_llm else 'vllm serve'} {mnbt} tokens / 1024 seqs "
                "([0.19.1] vllm/engine/arg_utils.py:2053-2062)"
            ),
        )
    mnbt = 8192 if ctx_llm else 2048
    reason = why_tier if "excluded" in why_tier else "< 70 GiB"
    return (
        mnbt,
        256,
        (
            f"{gpu_note} {reason}: {'LLM' if ctx_llm else 'vllm serve'} {mnbt} tokens / 256 seqs "
            "([0.19.1] vllm/engine/arg_utils.py:2063-2072)"
        ),
    )


def _v0_sizes(max_num_seqs: int) -> list[int]:
    """V0's ``[1, 2, 4] + [8 * i for i in range(1, 1025)]`` up to the first size >= max_num_seqs (all of
    them past 8192), without building the 1,027 candidates."""
    if max_num_seqs > 8192:
        top = 8192
    elif max_num_seqs <= 4:
        top = next(x for x in (1, 2, 4) if x >= max_num_seqs)
    else:
        top = 8 * -(-max_num_seqs // 8)
    return [x for x in (1, 2, 4) if x <= top] + list(range(8, top + 1, 8))


def cudagraph_sizes(
    version: Version,
    *,
    engine: str,
    max_num_seqs: int,
    max_num_batched_tokens: int,
    gpu: GpuSpec | None,
    num_speculative_tokens: int = 0,
    user_sizes: list[int] | None = None,
    user_max: int | None = None,
    performance_mode: str | None = None,
    cuda_graph_sizes: list[int] | None = None,
    architectures: Sequence[str] = (),
) -> tuple[list[int], str]:
    """The CUDA-graph capture sizes a version uses (empty for eager), per release:

    * V0: ``[1, 2, 4] + [8 * i for i in range(1, 1025)]`` up to the first size >= max_num_seqs
      ([0.6.6.post1] vllm/config.py VllmConfig._set_cudagraph_sizes, the same through 0.10);
    * V1 before 0.9: ``[1, 2, 4] + range(8, 513, 8)``, from 0.8 only sizes <= max_num_batched_tokens
      ([0.8.5.post1] vllm/config.py);
    * 0.9: ``--cuda-graph-sizes`` (default ``[512]``): one value N is ``[1, 2, 4] + range(8, N + 1, 8)``, more
      values are the list ([0.9.2] vllm/config.py:1972, 4727-4735); 0.10.0-0.11.0: default
      ``[min(2 x max_num_seqs, 512)]`` ([0.10.2] vllm/config/scheduler.py:239-244);
    * from 0.11.1: max capture size min(max_num_seqs x (1 + speculative tokens) x 2, 512 (1024 on Blackwell
      from 0.28)), step 8 below 256 and 16 above ([0.19.1] vllm/config/vllm.py:1389-1440);
    * sizes the user gives in compilation_config are used as given (deduplicated), by V0 too
      (``CompilationConfig.init_with_cudagraph_sizes`` keeps them: [0.7.3] vllm/config.py:3044-3056), filtered
      to <= max_num_batched_tokens from 0.11.1;
    * gpt-oss raises the default (:func:`model_capture_override`).
    """
    override = model_capture_override(version, architectures, user_sizes, user_max, cuda_graph_sizes)
    if override is not None and engine == "V1":
        sizes, why = cudagraph_sizes(
            version,
            engine=engine,
            max_num_seqs=max_num_seqs,
            max_num_batched_tokens=max_num_batched_tokens,
            gpu=gpu,
            num_speculative_tokens=num_speculative_tokens,
            user_max=override[0][0] if version >= V("0.11.1") else None,
            performance_mode=performance_mode,
            cuda_graph_sizes=None if version >= V("0.11.1") else override[0],
        )
        return sizes, f"{override[1]}; {why}"
    if user_sizes:
        # only the sizes vlint knows (an unresolved item of the list is left out)
        known = sorted({s for s in user_sizes if isinstance(s, int) and not isinstance(s, bool)})
        if version >= V("0.11.1"):
            return [s for s in known if s <= max_num_batched_tokens], (
                "user cudagraph_capture_sizes (sizes above max_num_batched_tokens dropped)"
            )
        return known, "user cudagraph_capture_sizes, as given"
    if engine == "V0":
        return _v0_sizes(max_num_seqs), "V0: [1,2,4] + 8..8192 step 8, up to the first size >= max_num_seqs"
    if version < V("0.9.0"):
        sizes = [1, 2, 4, *range(8, 513, 8)]
        if version >= V("0.8.0"):
            sizes = [s for s in sizes if s <= max_num_batched_tokens]
        return sizes, "V1 before 0.9: [1,2,4] + 8..512 step 8 ([0.8.5.post1] vllm/config.py _set_cudagraph_sizes)"
    if version < V("0.11.1"):
        default = [512] if version < V("0.10.0") else [min(max_num_seqs * 2, 512)]
        cgs = [int(x) for x in (cuda_graph_sizes or default) if isinstance(x, int) and not isinstance(x, bool)]
        if not cgs:
            cgs = default
        sizes = [1, 2, 4, *range(8, cgs[0] + 1, 8)] if len(cgs) == 1 else sorted(cgs)
        sizes = [s for s in sizes if s <= max_num_batched_tokens]
        return sizes, (
            f"cuda_graph_sizes {cgs} ([0.9.2] vllm/config.py:4727-4735; default "
            f"{'[512]' if version < V('0.10.0') else 'min(2 x max_num_seqs, 512)'})"
        )
    blackwell = gpu is not None and gpu.is_blackwell_datacenter and version >= V("0.28.0")
    cap = 1024 if blackwell else 512
    mx = user_max if user_max else min(max_num_seqs * (1 + num_speculative_tokens) * 2, cap)
    mx = max(1, min(mx, max_num_batched_tokens))
    if performance_mode == "interactivity":
        sizes = list(range(1, min(mx, 32) + 1))
    else:
        sizes = [s for s in [1, 2, 4] if s <= mx]
    if mx >= 8:
        sizes += list(range(8, min(mx + 1, 256), 8))
    if mx >= 256:
        sizes += list(range(256, mx + 1, 16))
    why = (
        f"max capture size min(2 x max_num_seqs, {cap}, max_num_batched_tokens) = {mx}; "
        "step 8 below 256, step 16 above ([0.19.1] vllm/config/vllm.py:1389-1440)"
    )
    return sorted(set(sizes)), why


#: architectures whose model config raises the default CUDA-graph capture sizes, and from which release
GPT_OSS_CAPTURE_OVERRIDE_SINCE = "0.10.1"


def model_capture_override(
    version: Version,
    architectures: Sequence[str],
    user_sizes: list[int] | None,
    user_max: int | None,
    cuda_graph_sizes: list[int] | None,
) -> tuple[list[int], str] | None:
    """The capture sizes gpt-oss's model config sets when the launch leaves them to vLLM, as
    ([max capture size] from 0.11.1, else the size list) and why; None when it does not apply.

    ``GptOssForCausalLMConfig.verify_and_update_config``: 0.10.1-0.10.2 replaces a single
    ``cuda_graph_sizes`` value below 1024 with ``[1, 2, 4] + range(8, 256, 8) + range(256, 1025, 16)``
    ([0.10.1.1] / [0.10.2] vllm/model_executor/models/config.py:258-275 / :269-286); 0.11.0 does the same up
    to 992 (81 graphs, [0.11.0] config.py:256-273); from 0.11.1, when neither cudagraph_capture_sizes nor
    max_cudagraph_capture_size is set, max_cudagraph_capture_size = 1024 ([0.11.1] config.py:261-274,
    [0.19.0] :119-133, [0.33.0] :549-562), which _set_cudagraph_sizes then caps at max_num_batched_tokens
    only, not at 2 x max_num_seqs ([0.19.0] vllm/config/vllm.py:1389-1403). Logged: "Overriding max cuda
    graph capture size to 1024 for performance." and 83 capture sizes to 1024 (r100, 0.19.0)."""
    if "GptOssForCausalLM" not in architectures or version < V(GPT_OSS_CAPTURE_OVERRIDE_SINCE):
        return None
    why = "gpt-oss's model config raises the max capture size to {} (vllm/model_executor/models/config.py)"
    if version >= V("0.11.1"):
        if user_sizes or user_max:
            return None
        return [1024], why.format(1024)
    if user_sizes:
        return None
    top = 992 if version >= V("0.11.0") else 1024
    given = [x for x in (cuda_graph_sizes or []) if isinstance(x, int) and not isinstance(x, bool)]
    if len(given) > 1 or (given and given[0] >= top):
        return None
    return [1, 2, 4, *range(8, 256, 8), *range(256, top + 1, 16)], why.format(top)


def _compile_level(user: Mapping[str, object]) -> int | None:
    """The compilation level/mode the launch asks for (``-O0``, ``-cc.mode=0``, ``--optimization-level 0``)."""
    cc = user.get("compilation_config")
    if isinstance(cc, bool):
        return None
    if isinstance(cc, int):
        return cc
    if isinstance(cc, str) and cc.strip().isdigit():
        return int(cc)
    if isinstance(cc, Mapping):
        for key in ("mode", "level"):
            v = cc.get(key)
            if isinstance(v, int) and not isinstance(v, bool):
                return v
            if key == "mode" and isinstance(v, str) and v.upper() in _MODE_BY_NAME:
                return _MODE_BY_NAME[v.upper()]  # CompilationConfig.validate_mode_before ([0.11.2] compilation.py:561)
    lvl = user.get("optimization_level")
    # --optimization-level (-O1/-O2/-O3 from 0.12) keeps CUDA graphs on; only O0 compiles nothing
    # ([0.13.0] vllm/config/vllm.py OptimizationLevel; vLLM's oracle data: -O1/-O2 capture 512 in 0.12.0, 0.22.1)
    if isinstance(lvl, int | str) and str(lvl).strip() == "0":
        return 0
    return None


#: CompilationMode's names ([0.33.0] vllm/config/compilation.py:41-48)
_MODE_BY_NAME = {"NONE": 0, "STOCK_TORCH_COMPILE": 1, "DYNAMO_TRACE_ONCE": 2, "VLLM_COMPILE": 3}


def resolve_defaults(
    version: Version,
    *,
    gpu: GpuSpec | None,
    usage_context: str,
    arch: ModelArch | None,
    user: Mapping[str, object],
) -> dict[str, ResolvedValue]:
    """Every memory/scheduling setting as ``version`` resolves it."""
    out: dict[str, ResolvedValue] = {}
    env = _env(user)
    user = dict(user)
    for k in _INT_KEYS:
        if k in user and not (k == "max_model_len" and str(user[k]).strip().lower() == "auto"):
            user[k] = _as_int(user[k])
    usage = usage_context if usage_context in ("OPENAI_API_SERVER", "LLM_CLASS") else "OTHER"

    u = user.get  # what the launch sets (None: not set)

    def put(key: str, value: Any, why: str, origin: Origin = "default") -> None:
        out[key] = ResolvedValue(value, origin, why)

    def set_user(key: str) -> bool:
        if u(key) is not None:
            put(key, u(key), "set by the user", "user")
            return True
        return False

    engine, ewhy = resolve_engine(version, env, user, gpu)
    put("engine", engine, ewhy)

    for key in ("tensor_parallel_size", "pipeline_parallel_size", "data_parallel_size"):
        if not set_user(key):
            put(key, 1, "default 1")

    # dtype
    ck = normalize_dtype(arch.dtype) if arch else None
    if not set_user("dtype") or str(u("dtype")).lower() == "auto":
        d = arch.serving_dtype_default if arch else "bfloat16"
        why = f"--dtype auto: the checkpoint dtype ({ck})" if arch else "--dtype auto; model unknown, bf16 assumed"
        cc = gpu.cc_major_minor if gpu else None
        if d == "bfloat16" and cc is not None and cc < (8, 0):
            model_type = arch.model_type if arch else None
            lacks = f"; the {gpu.name if gpu else 'GPU'} lacks bf16"
            if version < AUTO_DTYPE_FALLBACK_SINCE:  # kept: the worker's dtype check then stops (VL206)
                why += f"{lacks} and vLLM {version} has no fallback before {AUTO_DTYPE_FALLBACK_SINCE}"
            elif refuses_float16(model_type, version):
                d, why = "float32", why + f"{lacks} and vLLM keeps {model_type} off float16"
            else:
                d, why = "float16", why + f"{lacks}, vLLM falls back to float16"
        if ck == "float32":
            why += "; float32 checkpoints are served in bfloat16"
        put("dtype", d, why)
    else:
        put("dtype", normalize_dtype(str(u("dtype"))), "set by the user", "user")

    # max_model_len
    overrides = _json_mapping(u("hf_overrides"))
    if arch is not None:
        derived, dkey = derived_max_model_len(arch, version, hf_overrides=overrides)
        dflt, key = default_max_model_len(arch, version, hf_overrides=overrides)
        if overrides and any(k in overrides for k in ("max_position_embeddings", "rope_scaling", "max_seq_len")):
            dkey += " (with --hf-overrides)"
        sw = arch.sliding_window
        if u("disable_sliding_window") is True and isinstance(sw, int) and sw > 0 and sw < derived:
            # _get_and_verify_max_len caps the derived length at the window when it is disabled
            # ([0.10.2] vllm/config/__init__.py _get_and_verify_max_len; [0.33.0] vllm/config/model.py)
            derived, dkey = sw, "sliding_window (--disable-sliding-window)"
            dflt, key = min(dflt, sw), dkey
        put("derived_max_model_len", derived, f"from config.json {dkey} (vllm/config/model.py:2545-2684)")
    else:
        derived, dflt, key = None, None, ""
    mml = u("max_model_len")
    auto_words = ("-1", "auto") if version >= MML_AUTO_SINCE else ()
    if mml is not None and str(mml).strip().lower() not in auto_words:
        put("max_model_len", int(mml), "set by the user", "user")
    elif dflt is not None:
        auto = mml is not None
        put(
            "max_model_len",
            dflt,
            f"derived from the model config ({key})"
            + ("; -1/auto also fits it to KV memory at startup" if auto else ""),
            "resolved" if auto else "default",
        )
    else:
        put("max_model_len", None, "model unknown: cannot derive max_model_len")
    max_model_len = out["max_model_len"].value

    # gpu_memory_utilization: 0.9 → 0.92 in 0.20.0 ([0.19.1] vllm/config/cache.py:41,
    # [0.20.0] vllm/config/cache.py:66)
    if not set_user("gpu_memory_utilization"):
        if version >= V("0.20.0"):
            put("gpu_memory_utilization", 0.92, "default 0.92 since 0.20.0 ([0.20.0] vllm/config/cache.py:66)")
        else:
            put("gpu_memory_utilization", 0.9, "default 0.9 before 0.20.0 ([0.19.1] vllm/config/cache.py:41)")

    # enforce_eager
    if not set_user("enforce_eager"):
        put("enforce_eager", False, "default False")

    # kv cache dtype
    kvd = u("kv_cache_dtype")
    if kvd is not None and str(kvd) != "auto":
        put("kv_cache_dtype", str(kvd), "set by the user", "user")
    elif arch is not None and checkpoint_kv_cache_dtype(arch, version):
        put(
            "kv_cache_dtype",
            "fp8",
            f"auto: the checkpoint declares an fp8 KV cache ({arch.quant_method} "
            f"kv_cache_quant_algo/kv_cache_scheme; vllm/utils/torch_utils.py resolve_kv_cache_dtype_string "
            "from 0.14.0, vllm/attention/layer.py for compressed-tensors from 0.15.0)",
        )
    else:
        put("kv_cache_dtype", "auto", "auto = the model dtype (vllm/config/cache.py:235)")

    # block size
    if not set_user("block_size"):
        why = "DEFAULT_BLOCK_SIZE 16 (vllm/config/cache.py:185)"
        bs = 16
        if arch is not None and arch.has_state_layers and engine == "V1":
            why += "; hybrid Mamba/linear models enlarge the attention block to align pages (computed later)"
        put("block_size", bs, why)

    # prefix caching
    if not set_user("enable_prefix_caching"):
        if engine == "V1" and version >= V("0.8.0"):
            ok = not (arch is not None and arch.is_encoder_decoder)
            why = (
                "V1 enables prefix caching for decoder models "
                "(model_config.is_prefix_caching_supported, [0.19.1] vllm/engine/arg_utils.py:2107-2150)"
            )
            if arch is not None and MAMBA in arch.layer_types and version < V("0.12.0"):
                ok = False
            elif arch is not None and arch.has_state_layers and version >= V("0.12.0"):
                attention = any(t not in STATE_KINDS and t != NO_KV for t in arch.layer_types)
                if not attention:
                    ok, why = (
                        False,
                        (
                            "attention-free (state-only) models: prefix caching off by default "
                            "([0.33.0] vllm/config/model.py:2280-2284, is_prefix_caching_supported)"
                        ),
                    )
                elif version < V("0.26.0"):
                    ok, why = (
                        False,
                        (
                            "hybrid attention + Mamba/linear-attention models: prefix caching off by default before "
                            "0.26.0 ('Hybrid models do not support prefix caching since the feature is still "
                            "experimental', [0.19.1] vllm/config/model.py:1784-1790; [0.25.1] :1883-1887)"
                        ),
                    )
                elif version < V(HYBRID_PREFIX_CACHING_DEFAULT_SINCE):
                    ok, why = (
                        False,
                        (
                            "hybrid attention + Mamba/linear-attention models: prefix caching supported from 0.26.0 "
                            "('Generative hybrid models support prefix caching', [0.26.0] vllm/config/model.py:"
                            "1895-1897) but opt-in in 0.26 and 0.27 ('Hybrid models support prefix caching but keep "
                            "it opt-in for now', default_prefix_caching = is_prefix_caching_supported and not "
                            "is_hybrid, [0.26.0] vllm/engine/arg_utils.py:2518-2522; [0.27.1] :2602-2606)"
                        ),
                    )
                else:
                    why = (
                        "hybrid models: prefix caching on by default from 0.28.0 ([0.28.0] vllm/engine/arg_utils.py:"
                        "2650, vllm/config/model.py:2071-2074; vllm-project/vllm#50991 'enable prefix cache for "
                        "hybrid model by default and change the default mode to align')"
                    )
            put("enable_prefix_caching", ok, why)
        elif engine == "V1":
            put("enable_prefix_caching", True, "V1 (opt-in before 0.8.0) turns prefix caching on")
        else:
            put("enable_prefix_caching", False, "V0 default: prefix caching off")

    # chunked prefill
    user_chunked = u("enable_chunked_prefill")
    generative = not (arch is not None and arch.is_encoder_decoder)
    if user_chunked is False and engine == "V1" and generative and version < CHUNKED_CHOICE_HONOURED_SINCE:
        put(
            "enable_chunked_prefill",
            True,
            f"vLLM {version} ignores --no-enable-chunked-prefill: the V1 engine turns chunked prefill back on for "
            "every generative model before 0.11.1 ([0.10.2] vllm/engine/arg_utils.py:1619-1623)",
            "forced",
        )
    elif user_chunked is not None:
        put("enable_chunked_prefill", _truthy_value(user_chunked), "set by the user", "user")
    elif engine == "V1":
        on = not (arch is not None and arch.is_encoder_decoder)
        put(
            "enable_chunked_prefill",
            on,
            "V1 always uses chunked prefill for generative models "
            "(model_config.is_chunked_prefill_supported, [0.19.1] vllm/engine/arg_utils.py:2107-2120)",
        )
    else:
        on = False
        why = "V0 default off"
        if version >= V("0.5.0") and max_model_len is not None and max_model_len > 32768:
            sw = arch is not None and any(t != "full_attention" for t in arch.layer_types)
            mm = arch is not None and arch.is_multimodal
            spec = u("speculative_config") is not None
            rocm = gpu is not None and gpu.vendor == "amd"
            if not (sw or mm or spec or rocm):
                on, why = (
                    True,
                    (
                        "V0 turns chunked prefill on for max_model_len > 32768 (no sliding window, "
                        "spec decode, LoRA, multimodal; CUDA) "
                        "([0.6.6.post1] vllm/engine/arg_utils.py:1080-1110)"
                    ),
                )
            else:
                why = "V0: long context, but the >32K auto-on rule skips sliding window/multimodal/spec/ROCm"
        put("enable_chunked_prefill", on, why)
    chunked = bool(out["enable_chunked_prefill"].value)

    # max_num_seqs / max_num_batched_tokens
    mns_user, mnbt_user = u("max_num_seqs"), u("max_num_batched_tokens")
    perf = u("performance_mode")
    if engine == "V0":
        if mns_user is not None:
            put("max_num_seqs", int(mns_user), "set by the user", "user")
        else:
            put("max_num_seqs", 256, "V0 SchedulerConfig default 256 ([0.6.6.post1] vllm/engine/arg_utils.py)")
        if mnbt_user is not None:
            put("max_num_batched_tokens", int(mnbt_user), "set by the user", "user")
        else:
            steps = _as_int(user.get("num_scheduler_steps")) or 1
            if chunked and steps > 1 and version < V("0.7.0"):  # from 0.7 the usage-context default (2048) comes first
                n = max(int(max_model_len or 2048), 2048)
                nwhy = "V0 multi-step chunked prefill: max(max_model_len, 2048) ([0.6.4.post1] vllm/config.py:1105)"
            elif chunked:
                n = 2048 if version >= V("0.6.5") else 512
                nwhy = f"V0 chunked-prefill default {n} ([0.6.6.post1] vllm/config.py:1438)"
            else:
                n = max(int(max_model_len or 2048), 2048)
                nwhy = "V0 without chunked prefill: max(max_model_len, 2048) ([0.6.6.post1] vllm/config.py:1427-1442)"
            if arch is not None and arch.is_multimodal and version < V("0.9.0"):
                # SchedulerConfig: at least _MULTIMODAL_MODEL_MAX_NUM_BATCHED_TOKENS (5120) for a multimodal model
                # ([0.8.2] vllm/config.py:1686-1690; gone in 0.9.2)
                n, nwhy = max(n, 5120), nwhy + ", at least 5120 for a multimodal model ([0.8.2] vllm/config.py:1686)"
            put("max_num_batched_tokens", n, nwhy)
    else:
        mnbt, mns, twhy = _tier(version, gpu, usage, engine)
        if usage == "OTHER":
            mnbt, mns, twhy = 2048, 128, "no usage context: SchedulerConfig.DEFAULT_* 2048 / 128"
        if perf == "throughput" and version >= V("0.17.0"):
            mnbt, mns = (mnbt or 0) * 2, (mns or 0) * 2
            twhy += "; --performance-mode throughput doubles both"
        if mnbt_user is not None:
            put("max_num_batched_tokens", int(mnbt_user), "set by the user", "user")
        else:
            val = int(mnbt or 2048)
            why = twhy
            if version >= V("0.10.0") and max_model_len and not chunked:
                val = max(int(max_model_len), val)
                why += "; chunked prefill off: raised to max_model_len"
            if version >= MNBT_CAP_SINCE and max_model_len:
                mns_eff = int(mns_user) if mns_user is not None else int(mns or 256)
                if mns_eff * int(max_model_len) < val:
                    val = mns_eff * int(max_model_len)
                    why += "; capped at max_num_seqs x max_model_len ([0.11.1] vllm/engine/arg_utils.py:2020-2026)"
            put("max_num_batched_tokens", val, why)
        if mns_user is not None:
            put("max_num_seqs", int(mns_user), "set by the user", "user")
        else:
            val = int(mns or 256)
            why = twhy
            if version >= MNS_LOWERED_SINCE:
                mnbt_v = int(out["max_num_batched_tokens"].value)
                if version < MNBT_CAP_SINCE and mnbt_v == 0:
                    mnbt_v = val  # 0.10.1-0.11.0: min(default, max_num_batched_tokens or sys.maxsize)
                if mnbt_v < val:
                    val, why = mnbt_v, twhy + "; lowered to max_num_batched_tokens"
            put("max_num_seqs", val, why)

    # async scheduling: default on from 0.14 ([0.14.1] vllm/config/scheduler.py:133)
    if not set_user("async_scheduling"):
        on = engine == "V1" and version >= V("0.14.0")
        pp = int(out["pipeline_parallel_size"].value)
        if on and pp > 1 and version < V("0.33.0"):
            on = False
        put(
            "async_scheduling",
            on,
            "auto: on from 0.14.0 for V1 (off with PP on the V1 runner)"
            if on or version >= V("0.14.0")
            else "off before 0.14.0 (opt-in)",
        )

    # CUDA graphs
    eager = bool(out["enforce_eager"].value)
    spec = u("speculative_config")
    nspec = 0
    if isinstance(spec, Mapping):
        nspec = max(0, _as_int(spec.get("num_speculative_tokens")) or 0)  # not a number: the parser says so
    level = _compile_level(user)
    ccfg0 = _json_mapping(u("compilation_config"))
    # from 0.11.1 CUDA graphs default to NONE unless the compilation mode is VLLM_COMPILE (3)
    # ([0.11.2] vllm/config/vllm.py:466-472)
    no_graphs_level = (
        engine == "V1"
        and version >= V("0.11.1")
        and level is not None
        and level != 3
        and not (ccfg0 is not None and ccfg0.get("cudagraph_mode"))
    )
    # cudagraph_mode NONE given explicitly: no graphs to capture (vLLM's oracle data: max capture size 0 in
    # 0.15.1 and 0.19.1 with '{"cudagraph_mode": "NONE"}')
    cg_mode = ccfg0.get("cudagraph_mode") if ccfg0 is not None else None
    no_graphs_mode = (
        engine == "V1" and version >= V("0.11.1") and isinstance(cg_mode, str) and cg_mode.upper() == "NONE"
    )
    if eager or no_graphs_level or no_graphs_mode:
        why_none = (
            "enforce_eager: no CUDA graphs"
            if eager
            else f"compilation mode {level}: cudagraph_mode NONE"
            if no_graphs_level
            else "cudagraph_mode NONE"
        )
        put("cudagraph_capture_sizes", [], why_none)
        put("max_cudagraph_capture_size", 0, why_none)
    else:
        us = u("cudagraph_capture_sizes")
        ccfg = _json_mapping(u("compilation_config"))
        if not isinstance(us, (list, tuple)) and ccfg is not None:
            us = ccfg.get("cudagraph_capture_sizes")
        umax = u("max_cudagraph_capture_size")
        if not umax and ccfg is not None and isinstance(ccfg.get("max_cudagraph_capture_size"), int):
            umax = ccfg["max_cudagraph_capture_size"]
        cgs = u("cuda_graph_sizes")
        if version >= V("0.11.1") and isinstance(cgs, (list, tuple)) and not us:
            us = cgs  # 0.11.1-0.12: --cuda-graph-sizes is compilation_config.cudagraph_capture_sizes
        sizes, gwhy = cudagraph_sizes(
            version,
            engine=engine,
            max_num_seqs=int(out["max_num_seqs"].value),
            max_num_batched_tokens=int(out["max_num_batched_tokens"].value),
            gpu=gpu,
            num_speculative_tokens=nspec,
            user_sizes=list(us) if isinstance(us, (list, tuple)) else None,
            user_max=int(umax) if isinstance(umax, int) and not isinstance(umax, bool) and umax > 0 else None,
            performance_mode=str(perf) if perf else None,
            cuda_graph_sizes=list(cgs) if isinstance(cgs, (list, tuple)) else None,
            architectures=arch.architectures if arch is not None else (),
        )
        origin: Origin = "user" if us else "default"
        put("cudagraph_capture_sizes", sizes, gwhy, origin)
        put("max_cudagraph_capture_size", max(sizes) if sizes else 0, gwhy, origin)
    if engine == "V1" and not eager:
        mode = "FULL_AND_PIECEWISE" if version >= V("0.11.0") else "PIECEWISE"
        put("cudagraph_mode", mode, f"default cudagraph_mode on {version}")
    else:
        put("cudagraph_mode", "NONE" if eager else "V0", "eager" if eager else "V0 graphs")

    # graph memory in the KV budget: env default "1" from 0.20.0 ([0.20.0] vllm/envs.py:1724)
    est_env = _truthy(env.get("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS"))
    if est_env is not None:
        put(
            "estimate_cudagraphs",
            est_env and engine == "V1",
            "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS set",
            "user",
        )
    else:
        on = engine == "V1" and version >= V("0.20.0")
        put(
            "estimate_cudagraphs",
            on,
            "CUDA-graph memory subtracted from the KV budget by default from 0.20.0 ([0.20.0] vllm/envs.py:1724)"
            if on
            else "CUDA-graph memory not budgeted by default before 0.20.0",
        )

    # swap space (V0 CPU blocks; flag removed in 0.18.0)
    if not set_user("swap_space"):
        put(
            "swap_space",
            4 if version < V("0.18.0") else None,
            "default 4 GiB (CPU blocks, V0 only)" if version < V("0.18.0") else "--swap-space removed in 0.18.0",
        )
    for key, dflt_v in (
        ("cpu_offload_gb", 0),
        ("kv_cache_memory_bytes", None),
        ("num_gpu_blocks_override", None),
        # a method taken from another checkpoint by the name (model_names) is not asserted to vLLM
        ("quantization", arch.quant_method if arch and not arch.inferred_from_name else None),
        ("disable_hybrid_kv_cache_manager", False),
        ("performance_mode", "balanced"),
    ):
        if not set_user(key):
            put(key, dflt_v, "default")
    if (
        arch is not None
        and arch.attention_chunk_size
        and u("disable_hybrid_kv_cache_manager") is None
        and engine == "V1"
        and _truthy(env.get("VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE")) is not True
    ):
        put(
            "disable_hybrid_kv_cache_manager",
            True,
            "chunked local attention disables the hybrid KV cache manager by default (vllm/config/vllm.py:2240-2257)",
        )
    put("env", dict(env), "environment passed with the launch")
    put("usage_context", usage, "OPENAI_API_SERVER for vllm serve, LLM_CLASS for LLM(...)")
    if derived is not None:
        out.setdefault("derived_max_model_len", ResolvedValue(derived, "default", "derived"))
    _ = dtype_bytes, GIB
    return out


__all__ = ["ResolvedValue", "cudagraph_sizes", "resolve_defaults", "resolve_engine"]
