"""Chunked prefill and the token budget (VL1xx).

vLLM's startup checks: ``SchedulerConfig.verify_max_model_len`` (vllm/config/scheduler.py, 0.33.0
lines 317-362). Defaults come from the target version (:mod:`vlint.resolve.defaults`).
"""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks import CheckContext, Hit, check
from vlint.checks.changes import remove_setting, set_value, with_changes
from vlint.core.finding import Fix
from vlint.core.typing_names import TYPE_CHECKING
from vlint.core.unresolved import UNRESOLVED

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment

#: a max_model_len at or above this is "long context": V0 turned chunked prefill on by itself above
#: 32768 tokens ([0.6.6.post1] vllm/engine/arg_utils.py:1080-1110)
LONG_CONTEXT = 32768


def _int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None


@check("prefill.chunking_disabled")
def chunking_disabled(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    s = dep.setting("enable_chunked_prefill")
    if s is None or s.value is not False or dep.value("enable_chunked_prefill") is True:
        return  # not written, or vLLM turns it back on (V1 before 0.11.1, vlint.resolve.defaults)
    mml = _int(dep.value("max_model_len"))
    mnbt = _int(dep.value("max_num_batched_tokens"))
    tokens = max(x for x in (mml, mnbt, 0) if x is not None)
    long = mml is not None and mml >= LONG_CONTEXT
    if mml is not None:
        detail = (
            f"one prefill step may carry a whole {mml:,}-token prompt, so the activation peak grows "
            f"with the prompt instead of a fixed chunk"
        )
    else:
        detail = "one prefill step carries a whole prompt, so the activation peak grows with prompt length"
    yield Hit(
        s.full_span,
        {"tokens": tokens, "max_model_len": mml, "long_context": long, "option": s.option, "detail": detail},
        severity="warning" if long or mml is None else "info",
        fix=Fix(
            f"remove {s.option} (chunked prefill is on by default in vLLM's V1 engine)",
            s.full_span,
            "",
            unsafe=True,  # turns chunked prefill back on: a change of behaviour
            changes=remove_setting(dep, "enable_chunked_prefill"),
        ),
    )


#: VL102 reports a budget that covers the whole context when the larger activation peak takes at least this
#: share of the KV cache the default chunk would leave (the memory model decides; without it, long contexts)
MATERIAL_KV_SHARE = 0.05
MATERIAL_KV_GIB = 0.25


def _chunk_cost(dep: Deployment, chunk: int) -> tuple[float, float] | None:
    """(KV GiB lost to the larger activation peak, KV GiB with the default chunk)."""
    from vlint.checks.memory_fixes import base_inputs, estimate

    m = dep.memory
    base = base_inputs(dep)
    if m is None or base is None or not m.starts:
        return None
    alt = estimate(base, max_num_batched_tokens=chunk, enable_chunked_prefill=True)
    if alt is None or not alt.starts:
        return None
    return alt.kv_cache_gib - m.kv_cache_gib, alt.kv_cache_gib


@check("prefill.budget_covers_context")
def budget_covers_context(ctx: CheckContext) -> Iterator[Hit]:
    """Chunking on, but max_num_batched_tokens ≥ max_model_len: no prompt is ever split. Reported when the
    memory model shows the larger activation peak costs a material share of the KV cache, or (when it cannot
    run) for long contexts."""
    dep = ctx.dep
    assert dep is not None
    s = dep.setting("max_num_batched_tokens")
    if s is None or dep.value("enable_chunked_prefill") is not True:
        return
    mnbt = _int(s.value)
    mml = _int(dep.value("max_model_len"))
    if mnbt is None or mml is None or mnbt < mml:
        return
    from vlint.checks.memory_fixes import default_chunk

    chunk = default_chunk(dep)
    cost = _chunk_cost(dep, chunk) if chunk and chunk < mnbt else None
    if cost is not None:
        lost, kv_alt = cost
        if lost < MATERIAL_KV_GIB or lost < MATERIAL_KV_SHARE * kv_alt:
            return
        cost_text = (
            f"; the activation peak of a {mnbt:,}-token step takes {lost:.2f} GiB of KV cache "
            f"({lost / kv_alt:.0%} of the {kv_alt:.2f} GiB a {chunk:,}-token chunk leaves)"
        )
    elif mml < int(ctx.option("long-context")):
        return
    else:
        lost, cost_text = None, ""
    change = set_value(dep, "max_num_batched_tokens", chunk) if chunk and chunk < mml else None
    yield Hit(
        s.full_span,
        {
            "max_num_batched_tokens": mnbt,
            "max_model_len": mml,
            "option": s.option,
            "kv_gib_lost": round(lost, 2) if lost is not None else None,
            "cost": cost_text,
        },
        fix=Fix(
            f"use --max-num-batched-tokens {chunk} (vLLM {dep.version}'s default chunk for this GPU)"
            if change is not None
            else "use a chunk of 8192-16384 tokens (vLLM's defaults), e.g. --max-num-batched-tokens 16384",
            unsafe=True,
            changes=(change,) if change is not None else (),
        ),
    )


@check("prefill.prefix_caching_disabled")
def prefix_caching_disabled(ctx: CheckContext) -> Iterator[Hit]:
    """The launch turns prefix caching off (or a chart does it for it): every request recomputes the prefix
    it shares with earlier ones (system prompt, chat history, few-shot examples)."""
    dep = ctx.dep
    assert dep is not None
    s = dep.setting("enable_prefix_caching")
    if s is None or s.value is not False or dep.value("enable_prefix_caching") is not False:
        return
    mml = _int(dep.value("max_model_len"))
    chart = dep.invocation.source == "helm" and s.option == "--no-enable-prefix-caching"
    how = (
        "the production-stack chart renders --no-enable-prefix-caching whenever vllmConfig has no "
        "`enablePrefixCaching: true`"
        if chart
        else f"{s.option} turns it off"
    )
    m = dep.memory
    kv = f"; the {m.kv_cache_tokens:,}-token KV cache would hold those prefixes" if m is not None and m.starts else ""
    length = f"up to {mml:,} tokens" if mml else "the whole conversation"
    yield Hit(
        s.full_span,
        {"how": how, "max_model_len": mml, "chart": chart, "cost": f"{length} of prefill per request{kv}"},
        # advice only: turning it back on is the user's call (a workload without shared prefixes)
        fix=Fix(
            "set `enablePrefixCaching: true` under vllmConfig"
            if chart
            else f"remove {s.option} (vLLM {dep.version} enables prefix caching by default) unless prompts never "
            "share a prefix",
            unsafe=True,
        ),
    )


@check("prefill.budget_below_context_unchunked")
def budget_below_context_unchunked(ctx: CheckContext) -> Iterator[Hit]:
    """Chunking off and a user-set max_num_batched_tokens < max_model_len: vLLM refuses to start."""
    dep = ctx.dep
    assert dep is not None
    s = dep.setting("max_num_batched_tokens")
    if s is None or dep.value("enable_chunked_prefill") is not False:
        return
    mnbt = _int(s.value)
    mml = _int(dep.value("max_model_len"))
    if mnbt is None or mml is None or mnbt >= mml:
        return
    yield Hit(
        s.full_span,
        {"max_num_batched_tokens": mnbt, "max_model_len": mml, "chunked_why": dep.why("enable_chunked_prefill")},
        fix=with_changes(
            Fix(f"raise --max-num-batched-tokens to {mml} (max_model_len), or enable chunked prefill", unsafe=True),
            set_value(dep, "max_num_batched_tokens", mml),
        ),
    )


@check("prefill.budget_below_max_seqs")
def budget_below_max_seqs(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    mnbt = dep.value("max_num_batched_tokens")
    mns = dep.value("max_num_seqs")
    if mnbt is UNRESOLVED or mns is UNRESOLVED:
        return
    mnbt, mns = _int(mnbt), _int(mns)
    if mnbt is None or mns is None or mnbt >= mns:
        return
    if not (dep.is_set("max_num_batched_tokens") or dep.is_set("max_num_seqs")):
        return
    s = dep.setting("max_num_seqs") or dep.setting("max_num_batched_tokens")
    assert s is not None
    yield Hit(
        s.full_span,
        {
            "max_num_batched_tokens": mnbt,
            "max_num_seqs": mns,
            "mnbt_why": dep.why("max_num_batched_tokens"),
            "mns_why": dep.why("max_num_seqs"),
        },
        fix=with_changes(
            Fix(f"set --max-num-batched-tokens to {mns} (max_num_seqs) or lower --max-num-seqs", unsafe=True),
            set_value(dep, "max_num_batched_tokens", mns),
        ),
    )
