"""Fixes computed by the memory model: the value that clears a memory finding, found by re-running
vLLM's startup arithmetic (:func:`vlint.memory.estimate_memory`) with the change, never from a table.

* will not start (VL210): the largest ``max_model_len`` that fits (vLLM's own binary search), the
  smallest tensor-parallel size whose weights fit, the largest ``gpu_memory_utilization`` the free
  memory allows, the largest ``max_num_seqs`` whose Mamba state blocks fit;
* few concurrent requests (VL211) or a small KV cache (VL212): an fp8 KV cache (and the factor it
  gains), the tensor-parallel size that fits the context at ≥ 2× concurrency, or the longest
  ``max_model_len`` with 2× concurrency;
* a large activation peak (VL213): the chunk size vLLM defaults to for this GPU and version, and the
  activation peak that results.

All of these change behaviour (shorter context, other precision, more GPUs), so they are unsafe fixes.
"""

from __future__ import annotations

from collections.abc import Callable

from vlint.checks.changes import remove_setting, set_value, with_changes
from vlint.core.finding import Fix, SettingChange
from vlint.core.record import replace
from vlint.core.typing_names import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment
    from vlint.memory import MemoryEstimate, MemoryInputs

#: a KV cache that holds fewer requests of max_model_len than this is reported (VL211): the default of
#: its ``min-concurrency`` option
MIN_CONCURRENCY = 2.0
#: the KV cache's share of the budget below which VL212 reports (the default of ``min-kv-share``)
MIN_KV_SHARE = 0.10


def base_inputs(dep: Deployment) -> MemoryInputs | None:
    """The memory model's inputs for the deployment as written (None when it cannot be estimated)."""
    if dep.memory is None or dep.arch is None or dep.gpu is None:
        return None
    from vlint.launch.memory_inputs import gpu_inputs

    return gpu_inputs(dep)


def estimate(base: MemoryInputs, **changes: Any) -> MemoryEstimate | None:
    from vlint.memory import estimate_memory

    try:
        return estimate_memory(replace(base, **changes))
    except (ValueError, ZeroDivisionError, KeyError):
        return None


def largest(lo: int, hi: int, ok: Callable[[int], bool]) -> int | None:
    """The largest x in [lo, hi] with ok(x), for a predicate true up to some point (binary search)."""
    if hi < lo or not ok(lo):
        return None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo


def fp8_applies(dep: Deployment, base: MemoryInputs) -> bool:
    return (
        dep.arch is not None
        and not dep.arch.is_mla
        and str(base.kv_cache_dtype) == "auto"
        and "fp8" in dep.spec.kv_cache_dtypes
        and not dep.arch.kv_cache_quant_algo
    )


def tp_candidates(dep: Deployment, base: MemoryInputs) -> list[int]:
    """Tensor-parallel sizes above the current one that the model's heads divide, within the GPUs
    the launch has when vlint knows how many (vLLM must be able to split the heads: resolve/parallel.py)."""
    from vlint.resolve.parallel import TP_SIZES, tp_splits

    assert dep.arch is not None
    cur = base.tensor_parallel_size * base.pipeline_parallel_size
    limit = dep.gpu_count if dep.gpu_count else max(TP_SIZES)
    out = []
    for tp in TP_SIZES:
        if tp <= base.tensor_parallel_size or tp * base.pipeline_parallel_size > max(limit, cur):
            continue
        if tp_splits(dep.arch, tp):
            out.append(tp)
    return out


def _first_tp(dep: Deployment, base: MemoryInputs, ok: Callable[[MemoryEstimate], bool]) -> tuple[int, Any] | None:
    for tp in tp_candidates(dep, base):
        est = estimate(base, tensor_parallel_size=tp)
        if est is not None and ok(est):
            return tp, est
    return None


def _clear(e: MemoryEstimate) -> bool:
    """Starts by a margin larger than the memory model's uncertainty (what clears VL210)."""
    return e.starts and not e.too_close_to_call


def _fix(description: str, *changes: SettingChange | None, alternatives: list[str] | None = None) -> Fix:
    """An unsafe fix applying ``changes``; ``alternatives`` are the other ways, named (after ``; or``)
    in the description but not applied."""
    alts = tuple(alternatives or ())
    return with_changes(Fix(_with_alternatives(description, list(alts)), unsafe=True, alternatives=alts), *changes)


def _no_new_finding(e: MemoryEstimate) -> bool:
    """Starts clear of the uncertainty margin with nothing the other memory rules report: room for
    MIN_CONCURRENCY requests (VL211) and no thin margin after the KV cache (VL214). A fix that lands
    here re-lints clean instead of trading its finding for another."""
    return _clear(e) and e.max_concurrency >= MIN_CONCURRENCY and not e.risks


def _len(n: int) -> str:
    return f"{n:,}"


def _alternatives(dep: Deployment, base: MemoryInputs, *, starts_only: bool) -> list[str]:
    """Other ways out, with their numbers: fp8 KV cache and more tensor parallelism."""
    out = []
    mml = base.max_model_len

    def good(e: MemoryEstimate) -> bool:
        return _clear(e) and (starts_only or e.max_concurrency >= MIN_CONCURRENCY)

    if fp8_applies(dep, base):
        e = estimate(base, kv_cache_dtype="fp8")
        if e is not None and good(e):
            out.append(f"--kv-cache-dtype fp8 fits {_len(mml)} tokens at {e.max_concurrency:.1f}× concurrency")
    hit = _first_tp(dep, base, good)
    if hit is not None:
        tp, e = hit
        out.append(f"--tensor-parallel-size {tp} fits {_len(mml)} tokens at {e.max_concurrency:.1f}× concurrency")
    return out


def _with_alternatives(text: str, alts: list[str]) -> str:
    return text + ("; or " + "; or ".join(alts) if alts else "")


# -- VL210 -------------------------------------------------------------------------------------
def will_not_start_fix(dep: Deployment, m: MemoryEstimate) -> Fix | None:
    base = base_inputs(dep)
    if base is None:
        return None
    stage = m.failure_stage or ""
    if stage == "kv_cache_check":
        fits = _fitting_max_model_len(base, m)
        alts = _alternatives(dep, base, starts_only=True)
        if fits:
            e = estimate(base, max_model_len=fits)
            conc = f" at {e.max_concurrency:.2f}× concurrency" if e is not None else ""
            edge = m.estimated_max_model_len
            how = (
                "as vLLM computes it"
                if not edge or edge == fits
                else f"with the memory model's uncertainty margin; vLLM's own estimate at the edge is {edge}"
            )
            longest = f"--max-model-len {fits} (the largest that starts{conc}, {how})"
            clean = _clean_context(dep, base, fits)
            if clean is not None:
                return _fix(clean[0], *clean[1], alternatives=[longest, *alts] if clean[2] != fits else alts)
            return _fix(f"set {longest}", set_value(dep, "max_model_len", fits), alternatives=alts)
        clean = _clean_context(dep, base, base.max_model_len - 1)
        if clean is not None:
            return _fix(clean[0], *clean[1], alternatives=alts)
        lowered = _lower_budget_and_fit(dep, base)
        if lowered is not None:
            return lowered
    if stage in ("kv_cache_check", "no_kv_memory"):
        chunked = _chunking_fix(dep, base)
        if chunked is not None:
            return chunked
    if stage in ("kv_cache_check", "no_kv_memory", "weights"):
        hit = _first_tp(dep, base, _clear)
        if hit is not None:
            tp, e = hit
            return _fix(
                f"--tensor-parallel-size {tp} fits the weights ({e.weights_gib:.2f} GiB per GPU) and "
                f"{_len(base.max_model_len)} tokens at {e.max_concurrency:.1f}× concurrency (needs {tp} GPUs)",
                set_value(dep, "tensor_parallel_size", tp),
            )
        return Fix(
            "the weights leave no room: use more GPUs (--tensor-parallel-size), a quantized checkpoint, or a "
            "GPU with more memory",
            unsafe=True,
        )
    if stage == "startup_free_memory":
        top = int(m.max_gmu_free * 100)
        best = largest(1, top, lambda p: _starts(base, gpu_memory_utilization=p / 100))
        if best is None:
            return None
        return _fix(
            f"lower --gpu-memory-utilization to {best / 100:.2f} (the most the free memory at startup allows)",
            set_value(dep, "gpu_memory_utilization", best / 100),
        )
    if stage == "cuda_graph_capture":
        cur = round(base.gpu_memory_utilization * 100)
        best = largest(1, cur - 1, lambda p: _starts(base, gpu_memory_utilization=p / 100))
        if best is None:
            return None
        return _fix(
            f"lower --gpu-memory-utilization to {best / 100:.2f} (V0 captures CUDA graphs outside the budget)",
            set_value(dep, "gpu_memory_utilization", best / 100),
        )
    if stage == "mamba_blocks":
        best = largest(1, base.max_num_seqs - 1, lambda n: _starts(base, max_num_seqs=n))
        if best is None:
            return None
        return _fix(f"lower --max-num-seqs to {best} (Mamba blocks)", set_value(dep, "max_num_seqs", best))
    return None


def _clean_context(
    dep: Deployment, base: MemoryInputs, fits: int
) -> tuple[str, list[SettingChange | None], int] | None:
    """The longest max_model_len (up to ``fits``) at which the launch starts with nothing else to
    report (:func:`_no_new_finding`), lowering gpu_memory_utilization with it when what vLLM allocates
    after the KV cache leaves too thin a margin at the written one: (description, changes, length)."""
    probe = min(fits, 256)
    gmu = base.gpu_memory_utilization
    first = estimate(base, max_model_len=probe)
    if first is None or not _no_new_finding(first):
        lowered = _highest_gmu(base, _no_new_finding, max_model_len=probe)
        if lowered is None:
            return None
        gmu = lowered
    best = largest(probe, fits, lambda x: _ok(base, _no_new_finding, gpu_memory_utilization=gmu, max_model_len=x))
    if best is None:
        return None
    e = estimate(base, gpu_memory_utilization=gmu, max_model_len=best)
    conc = f"{e.max_concurrency:.1f}× concurrency" if e is not None else "room"
    what = f"set --max-model-len {best} (the longest with {conc} and nothing else to report)"
    changes: list[SettingChange | None] = [set_value(dep, "max_model_len", best)]
    if gmu != base.gpu_memory_utilization:
        what += f" and lower --gpu-memory-utilization to {gmu:.2f} (room for what vLLM allocates after the KV cache)"
        changes.append(set_value(dep, "gpu_memory_utilization", gmu))
    return what, changes, best


def _ok(base: MemoryInputs, pred: Callable[[MemoryEstimate], bool], **changes: Any) -> bool:
    e = estimate(base, **changes)
    return e is not None and pred(e)


#: how many points below the current gpu_memory_utilization :func:`_highest_gmu` looks (0.01 each)
GMU_STEPS = 49


def _highest_gmu(base: MemoryInputs, ok: Callable[[MemoryEstimate], bool], **changes: Any) -> float | None:
    """The highest gpu_memory_utilization below the current one (down to 50 points lower) at which
    ``ok`` holds. Not a binary search: too high leaves no room outside the budget, too low no KV cache."""
    cur = round(base.gpu_memory_utilization * 100)
    for p in range(cur - 1, max(cur - GMU_STEPS - 1, 0), -1):
        e = estimate(base, gpu_memory_utilization=p / 100, **changes)
        if e is not None and ok(e):
            return p / 100
    return None


def _clean(e: MemoryEstimate) -> bool:
    return _clear(e) and not e.risks


def _lower_budget_and_fit(dep: Deployment, base: MemoryInputs) -> Fix | None:
    """No max_model_len starts at this gpu_memory_utilization because what vLLM allocates outside
    the budget after the KV cache (CUDA graphs, the sampler warm-up) does not fit beside it: the
    highest utilization at which a short request starts (without a post-startup risk when there is
    one), with the longest max_model_len that fits there."""
    probe = min(base.max_model_len, 256)
    first = estimate(base, max_model_len=probe)
    if first is None or first.starts or first.failure_stage != "cuda_graph_capture":
        return None
    gmu = _highest_gmu(base, _clean, max_model_len=probe) or _highest_gmu(base, _clear, max_model_len=probe)
    if gmu is None:
        return None
    fits = largest(probe, base.max_model_len, lambda x: _starts(base, gpu_memory_utilization=gmu, max_model_len=x))
    if fits is None:
        return None
    e = estimate(base, gpu_memory_utilization=gmu, max_model_len=fits)
    conc = f" at {e.max_concurrency:.2f}× concurrency" if e is not None else ""
    why = "CUDA graphs"
    what = f"lower --gpu-memory-utilization to {gmu:.2f}"
    changes = [set_value(dep, "gpu_memory_utilization", gmu)]
    if fits < base.max_model_len:
        what += f" and set --max-model-len {fits} (the largest that fits there{conc})"
        changes.append(set_value(dep, "max_model_len", fits))
    return _fix(f"{what}: at {base.gpu_memory_utilization:.2f} {why} do not fit outside the budget", *changes)


# -- VL214 -------------------------------------------------------------------------------------
def tight_headroom_fix(dep: Deployment, m: MemoryEstimate) -> Fix | None:
    """It starts, with a thin margin for what comes after the KV cache: the highest
    gpu_memory_utilization that leaves room for it, where the launch still starts as written."""
    base = base_inputs(dep)
    if base is None or not m.risks:
        return None
    # the lowest utilization the search would try: a risk that is still there when the launch starts with
    # the most room left after the KV cache does not depend on that room (NCCL in the graphs, buffers vlint
    # does not count), and no utilization in between clears it
    lowest = max(round(base.gpu_memory_utilization * 100) - GMU_STEPS, 1) / 100
    floor = estimate(base, gpu_memory_utilization=lowest)
    if floor is not None and _clear(floor) and len(floor.risks) >= len(m.risks):
        return None
    gmu = _highest_gmu(base, _clean)
    if gmu is None:
        return None
    return _fix(
        f"lower --gpu-memory-utilization to {gmu:.2f} (the highest that leaves room for what vLLM allocates "
        "after the KV cache)",
        set_value(dep, "gpu_memory_utilization", gmu),
    )


def _chunking_fix(dep: Deployment, base: MemoryInputs) -> Fix | None:
    """Chunked prefill turned off (or a huge token budget) makes the activation peak eat the KV cache:
    with the version's default chunk, does it start?"""
    if not (dep.user_value("enable_chunked_prefill") is False or dep.is_set("max_num_batched_tokens")):
        return None
    chunk = default_chunk(dep)
    if chunk is None or chunk >= base.max_num_batched_tokens:
        return None
    chunked = replace(base, max_num_batched_tokens=chunk, enable_chunked_prefill=True)
    e = estimate(chunked)
    if e is None:
        return None
    changes = _chunk_changes(dep, chunk)
    text = (
        f"prefill in chunks of {chunk} tokens (vLLM {dep.version}'s default here): the activation peak drops to "
        f"{e.activation_gib:.1f} GiB"
    )
    if _clear(e):
        return _fix(
            f"{text} and {_len(base.max_model_len)} tokens fit at {e.max_concurrency:.1f}× concurrency", *changes
        )
    if e.failure_stage != "kv_cache_check":
        return None
    fits = _fitting_max_model_len(chunked, e)
    if not fits:
        return None
    clean = largest(1, fits, lambda x: _ok(chunked, _no_new_finding, max_model_len=x))
    if clean is not None and clean < fits:
        c = estimate(chunked, max_model_len=clean)
        conc = f"{c.max_concurrency:.1f}× concurrency" if c is not None else "room"
        return _fix(
            f"{text}, and --max-model-len {clean} is the longest that then has {conc} and nothing else to report",
            *changes,
            set_value(dep, "max_model_len", clean),
            alternatives=[f"--max-model-len {fits}, the largest that then starts (as vLLM computes it)"],
        )
    return _fix(
        f"{text}, and --max-model-len {fits} is the largest that then fits (as vLLM computes it)",
        *changes,
        set_value(dep, "max_model_len", fits),
    )


def _concurrency(base: MemoryInputs, **changes: Any) -> float:
    e = estimate(base, **changes)
    return e.max_concurrency if e is not None and _clear(e) else 0.0


def _starts(base: MemoryInputs, **changes: Any) -> bool:
    e = estimate(base, **changes)
    return e is not None and _clear(e)


def _fitting_max_model_len(base: MemoryInputs, m: MemoryEstimate) -> int | None:
    """vLLM's estimated maximum model length, confirmed by the whole model (searched again if not)."""
    n = m.estimated_max_model_len
    if n and _starts(base, max_model_len=n):
        return n
    return largest(1, base.max_model_len - 1, lambda x: _starts(base, max_model_len=x))


# -- VL211 / VL212 -------------------------------------------------------------------------------
def low_concurrency_fix(dep: Deployment, m: MemoryEstimate, target: float = MIN_CONCURRENCY) -> Fix | None:
    """Ways to hold ``target`` requests of max_model_len (VL211's ``min-concurrency``)."""
    base = base_inputs(dep)
    if base is None:
        return None
    mml = base.max_model_len
    options: list[tuple[str, SettingChange | None]] = []
    if fp8_applies(dep, base):
        e = estimate(base, kv_cache_dtype="fp8")
        if e is not None and _clear(e) and m.kv_cache_tokens:
            factor = e.kv_cache_tokens / m.kv_cache_tokens
            text = (
                f"use --kv-cache-dtype fp8 to fit {factor:.1f}× the tokens ({_len(m.kv_cache_tokens)} → "
                f"{_len(e.kv_cache_tokens)}, {e.max_concurrency:.1f}× concurrency)"
            )
            if e.max_concurrency >= target:
                options.append((text, set_value(dep, "kv_cache_dtype", "fp8")))
            else:
                options.append((text, None))
    hit = _first_tp(dep, base, lambda e: _clear(e) and e.max_concurrency >= target)
    if hit is not None:
        tp, e = hit
        options.append(
            (
                f"--tensor-parallel-size {tp} fits {_len(mml)} tokens at {e.max_concurrency:.1f}× concurrency",
                set_value(dep, "tensor_parallel_size", tp),
            )
        )
    shorter = largest(1, mml - 1, lambda x: _concurrency(base, max_model_len=x) >= target)
    if shorter:
        options.append(
            (
                f"--max-model-len {shorter} holds {target:g} requests of that length",
                set_value(dep, "max_model_len", shorter),
            )
        )
    return _choose(options)


def small_kv_fix(dep: Deployment, m: MemoryEstimate, share: float = MIN_KV_SHARE) -> Fix | None:
    """Ways to give the KV cache ``share`` of the budget (VL212's ``min-kv-share``)."""
    base = base_inputs(dep)
    if base is None:
        return None
    options: list[tuple[str, SettingChange | None]] = []
    hit = _first_tp(dep, base, lambda e: _clear(e) and e.kv_cache_gib >= share * e.budget_gib)
    if hit is not None:
        tp, e = hit
        options.append(
            (
                f"--tensor-parallel-size {tp} gives the KV cache {e.kv_cache_gib:.1f} GiB per GPU "
                f"({_len(e.kv_cache_tokens)} tokens, {e.max_concurrency:.1f}× concurrency)",
                set_value(dep, "tensor_parallel_size", tp),
            )
        )
    if fp8_applies(dep, base):
        e2 = estimate(base, kv_cache_dtype="fp8")
        if e2 is not None and m.kv_cache_tokens:
            options.append(
                (
                    f"--kv-cache-dtype fp8 fits {e2.kv_cache_tokens / m.kv_cache_tokens:.1f}× the tokens in the same "
                    "memory",
                    None,
                )
            )
    if not options:
        return Fix("a quantized checkpoint or a GPU with more memory gives the KV cache room", unsafe=True)
    return _choose(options)


def _choose(options: list[tuple[str, SettingChange | None]]) -> Fix | None:
    """The first option with a change is applied; every option is named in the description."""
    if not options:
        return None
    applied = next((o for o in options if o[1] is not None), None)
    texts = [t for t, _ in options]
    if applied is None:
        return Fix("; or ".join(texts), unsafe=True)
    rest = [t for t in texts if t != applied[0]]
    return _fix(applied[0], applied[1], alternatives=rest)


# -- VL213 ---------------------------------------------------------------------------------------
def default_chunk(dep: Deployment) -> int | None:
    """The max_num_batched_tokens this vLLM version picks for this GPU with chunked prefill on."""
    from vlint.core.unresolved import UNRESOLVED
    from vlint.resolve.defaults import resolve_defaults

    user: dict[str, Any] = {
        d: s.value
        for d, s in dep.args.settings.items()
        if s.value is not UNRESOLVED and d not in ("max_num_batched_tokens", "enable_chunked_prefill")
    }
    user["env"] = {k: v for k, v in dep.env.items() if v is not UNRESOLVED}
    user["enable_chunked_prefill"] = True
    r = resolve_defaults(dep.version, gpu=dep.gpu, usage_context=dep.invocation.usage_context, arch=dep.arch, user=user)
    v = r.get("max_num_batched_tokens")
    return v.value if v is not None and isinstance(v.value, int) else None


def _chunk_changes(dep: Deployment, chunk: int) -> list[SettingChange | None]:
    """Prefill in chunks of ``chunk`` tokens: write the budget if the launch sets one, and drop a
    ``--no-enable-chunked-prefill`` (None where one of them cannot be written)."""
    changes: list[SettingChange | None] = []
    if dep.is_set("max_num_batched_tokens"):
        changes.append(set_value(dep, "max_num_batched_tokens", chunk))
    if dep.user_value("enable_chunked_prefill") is False:
        changes.extend(remove_setting(dep, "enable_chunked_prefill") or [None])
    return changes


def chunk_fix(dep: Deployment, m: MemoryEstimate) -> Fix | None:
    base = base_inputs(dep)
    chunk = default_chunk(dep)
    if base is None or chunk is None:
        return None
    e = estimate(base, max_num_batched_tokens=chunk, enable_chunked_prefill=True)
    if e is None:
        return None
    changes = _chunk_changes(dep, chunk)
    if not changes:
        changes.append(None)  # the budget is vLLM's own: nothing to write
    how = "with chunked prefill on, " if dep.value("enable_chunked_prefill") is False else ""
    return _fix(
        f"{how}--max-num-batched-tokens {chunk} (vLLM {dep.version}'s default chunk on this GPU) keeps the prefill "
        f"activation peak at {e.activation_gib:.1f} GiB (now {m.activation_gib:.1f} GiB) and gives the KV cache "
        f"{e.kv_cache_gib - m.kv_cache_gib:.1f} GiB more",
        *changes,
    )
