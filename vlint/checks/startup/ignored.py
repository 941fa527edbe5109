"""Settings vLLM accepts and then ignores, logging a warning at startup (VL115): the launch asks for something
it does not get. Each case cites the first and last release read that log it ([X.Y.Z] vllm/path.py:LINE)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from vlint.argspec.dynamo import PROGRAM as DYNAMO_PROGRAM
from vlint.checks import CheckContext, Hit, check
from vlint.checks.startup.common import _since, _user

#: ``ParallelConfig.__post_init__``: ``if self.max_parallel_loading_workers is not None: logger.warning(...)``
#: ([0.13.0] vllm/config/parallel.py:594-598 … [0.34.0] vllm/config/parallel.py:1194-1198; 0.11.0 has no warning)
LOADING_WORKERS_SINCE = "0.13.0"
LOADING_WORKERS_LOG = "max_parallel_loading_workers is currently not supported and will be ignored."

#: ``VllmConfig.__post_init__``: a publisher other than "null" with ``enable_kv_cache_events`` False
#: ([0.9.2] vllm/config.py:4617-4622 … [0.34.0] vllm/config/vllm.py:1969-1977; not in 0.8.5). From 0.13.0 an
#: unset publisher follows enable_kv_cache_events ([0.34.0] vllm/config/kv_events.py:52-54), so only a
#: publisher the launch names triggers it.
KV_EVENTS_SINCE = "0.9.2"
KV_EVENTS_LOG = (
    "KV cache events are disabled, but the scheduler is configured to publish them. Modify "
    "KVEventsConfig.enable_kv_cache_events to True to enable."
)


#: ``VllmConfig.__post_init__``: ``if self.model_config.enforce_eager:`` sets ``compilation_config.mode = NONE`` and
#: ``cudagraph_mode = NONE`` whatever the launch asked for ([0.17.0] vllm/config/vllm.py:780-786, [0.30.0]
#: vllm/config/vllm.py:1546-; from [0.33.0] vllm/config/vllm.py:1766-1784 a second wording that also turns JIT warmup
#: off, [0.34.0] :1697-1714). 0.13.0-0.16.0 log "Enforce eager set, overriding optimization level to -O0" and only
#: lower the level ([0.13.0] vllm/config/vllm.py:617-623), so vlint starts at 0.17.0.
EAGER_SINCE = "0.17.0"
EAGER_LOG = (
    "Enforce eager set, disabling torch.compile and CUDAGraphs. This is equivalent to setting -cc.mode=none "
    "-cc.cudagraph_mode=none"
)
EAGER_LOG_033 = (
    "Enforce eager set, disabling torch.compile, CUDAGraphs, and JIT kernel warmup. This is equivalent to setting "
    "-cc.mode=none -cc.cudagraph_mode=none and --kernel_config.enable_jit_warmup=False"
)
#: compilation-config keys that ask for torch.compile or CUDA graphs, which --enforce-eager turns off
_COMPILE_KEYS = (
    "mode",
    "level",
    "cudagraph_mode",
    "cudagraph_capture_sizes",
    "max_cudagraph_capture_size",
    "max_capture_size",
    "use_cudagraph",
    "full_cuda_graph",
    "compile_sizes",
    "use_inductor",
)


def _ignored(log: str, what: str) -> str:
    return f"{what}; vLLM starts and logs '{log}'"


@check("startup.setting_ignored")
def setting_ignored(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    if _since(dep, LOADING_WORKERS_SINCE) and _user(dep, "max_parallel_loading_workers") is not None:
        message = _ignored(
            LOADING_WORKERS_LOG,
            f"vLLM {dep.version} ignores --max-parallel-loading-workers: it does not load the weights in batches "
            "to cap host memory",
        )
        yield Hit(dep.span_of("max_parallel_loading_workers"), {"message": message}, message=message)
    events = _user(dep, "kv_events_config")
    # Dynamo's vLLM worker sets its own events config in some releases ([v0.4.0] args.py:204-232 overwrite_args forces
    # enable_kv_cache_events=True; [v1.6.1] components/src/dynamo/vllm/args.py:538-557 drops it without prefix
    # caching): what vLLM gets is not what the launch wrote, so it is not judged there
    dynamo = dep.invocation.program == DYNAMO_PROGRAM
    if _since(dep, KV_EVENTS_SINCE) and isinstance(events, Mapping) and not dynamo:
        publisher = events.get("publisher")
        enabled = events.get("enable_kv_cache_events")
        on = enabled is True or enabled == 1 or (isinstance(enabled, str) and enabled.lower() in ("true", "1"))
        if isinstance(publisher, str) and publisher != "null" and not on:
            message = _ignored(
                KV_EVENTS_LOG,
                f"--kv-events-config names the publisher '{publisher}' but not \"enable_kv_cache_events\": true, "
                "so no KV cache event is published (a KV-aware router that subscribes to them, such as llm-d's "
                "or Dynamo's, sees none)",
            )
            yield Hit(dep.span_of("kv_events_config"), {"message": message}, message=message)
    if _since(dep, EAGER_SINCE) and _user(dep, "enforce_eager") is True:
        cc = _user(dep, "compilation_config")
        asked = [k for k in _COMPILE_KEYS if isinstance(cc, Mapping) and cc.get(k) not in (None, 0, "NONE", "none")]
        level = _user(dep, "optimization_level")
        if isinstance(level, int | str) and str(level) not in ("0", "O0", "-O0"):
            asked.append(f"-O{level}")
        if asked:
            log = EAGER_LOG_033 if _since(dep, "0.33.0") else EAGER_LOG
            message = _ignored(
                log,
                f"--enforce-eager turns torch.compile and CUDA graphs off, so what the launch asks of them "
                f"({', '.join(asked)}) has no effect",
            )
            where = (
                "compilation_config" if isinstance(cc, Mapping) and asked[0] in _COMPILE_KEYS else "optimization_level"
            )
            yield Hit(dep.span_of(where), {"message": message}, message=message)
