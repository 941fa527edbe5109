"""SchedulerConfig: partial prefills and the long-prefill threshold (VL108)."""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks import CheckContext, Hit, check
from vlint.core.typing_names import TYPE_CHECKING
from vlint.core.version import V

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment
from vlint.checks.startup.common import _int, _refuse

# -- partial prefills and the long-prefill threshold (VL108) ------------------------------------------


def _partial_prefill_problem(dep: Deployment) -> tuple[str, str] | None:
    """(dest, vLLM's refusal) for the partial-prefill settings, per release."""
    v = dep.version
    mnp, mlp = _int(dep, "max_num_partial_prefills"), _int(dep, "max_long_partial_prefills")
    written = (
        dep.setting("max_num_partial_prefills") is not None or dep.setting("max_long_partial_prefills") is not None
    )
    mml = _int(dep, "max_model_len")
    thr = _int(dep, "long_prefill_token_threshold")
    n_set = mnp if mnp is not None else 1
    l_set = mlp if mlp is not None else 1
    if written and V("0.11.1") <= v < V("0.27.0") and (n_set != 1 or l_set != 1):
        # V1 only: EngineArgs._check_feature_supported ([0.11.1] vllm/engine/arg_utils.py:1796-1803)
        return "max_num_partial_prefills", (
            "NotImplementedError: Concurrent Partial Prefill is not supported. We recommend to remove Concurrent "
            "Partial Prefill from your config."
        )
    engine = dep.resolved.get("engine")
    if written and V("0.7.3") <= v < V("0.11.1") and engine is not None and engine.value == "V0":
        # the V0 SchedulerConfig ([0.7.3] vllm/config.py:1600-1625): by default before 0.8, else when the V1
        # oracle falls back (vlint.resolve.defaults.v1_fallback)
        n, lng = mnp if mnp is not None else 1, mlp if mlp is not None else 1
        if n < 1:
            return "max_num_partial_prefills", f"max_num_partial_prefills ({n}) must be greater than or equal to 1."
        if n > 1:
            if dep.value("enable_chunked_prefill") is not True:
                return (
                    "max_num_partial_prefills",
                    "Chunked prefill must be enabled to set max_num_partial_prefills > 1.",
                )
            if thr is not None and mml is not None and thr > mml:
                return "long_prefill_token_threshold", (
                    f"long_prefill_token_threshold ({thr}) cannot be greater than the max_model_len ({mml})."
                )
        if lng < 1 or lng > n:
            return "max_long_partial_prefills", (
                f"max_long_partial_prefills ({lng}) must be greater than or equal to 1 and less than or equal to "
                f"max_num_partial_prefills ({n})."
            )
        return None
    if v >= V("0.27.0") and dep.setting("long_prefill_token_threshold") is not None and thr and mml and thr > mml:
        # checked for every launch from 0.27.0 ([0.27.0] vllm/config/scheduler.py:278)
        return "long_prefill_token_threshold", (
            f"long_prefill_token_threshold ({thr}) cannot be greater than the max_model_len ({mml})."
        )
    return None


@check("startup.partial_prefill_settings")
def partial_prefill_settings(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    found = _partial_prefill_problem(dep)
    if found is not None:
        dest, msg = found
        yield Hit(dep.span_of(dest, "max_num_partial_prefills", "max_long_partial_prefills"), {}, message=_refuse(msg))
