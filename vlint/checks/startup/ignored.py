"""Settings vLLM accepts and then ignores, logging a warning at startup (VL115): the launch asks for something
it does not get. Each case cites the first and last release read that log it ([X.Y.Z] vllm/path.py:LINE)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

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
    if _since(dep, KV_EVENTS_SINCE) and isinstance(events, Mapping):
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
