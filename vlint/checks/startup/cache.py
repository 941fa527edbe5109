"""CacheConfig: the Mamba block size (VL110), V0 prefix caching with a sliding window (VL121)."""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks import CheckContext, Hit, check
from vlint.core.typing_names import TYPE_CHECKING
from vlint.core.version import V

if TYPE_CHECKING:
    pass
from vlint.checks.startup.common import _int, _num, _refuse, _since, _user

# -- Mamba block size (VL110) -----------------------------------------------------------------------------

#: ``VllmConfig.validate_mamba_block_size`` from 0.11.1 ([0.11.1] vllm/config/vllm.py:1056-1066;
#: [0.33.0] vllm/config/vllm.py:3440-3451)
MAMBA_BLOCK_SINCE = "0.11.1"


@check("startup.mamba_block_size_without_prefix_caching")
def mamba_block_size_without_prefix_caching(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    size = _num(_user(dep, "mamba_block_size"))
    if not _since(dep, MAMBA_BLOCK_SINCE) or size is None:
        return
    if size == _int(dep, "max_model_len") or dep.value("enable_prefix_caching") is not False:
        return
    yield Hit(
        dep.span_of("mamba_block_size"),
        {"mamba_block_size": size},
        message=_refuse(
            "--mamba-block-size can only be set with --enable-prefix-caching "
            f"(prefix caching is off: {dep.why('enable_prefix_caching')})"
        ),
    )


# -- V0 prefix caching with a sliding window (VL121) -----------------------------------------------------

#: V0's CacheConfig._verify_prefix_caching ([0.6.6.post1] vllm/config.py:1026-1034; with ``not envs.VLLM_USE_V1``
#: in [0.10.2] vllm/config/cache.py:183-189; gone in 0.11.1)
PREFIX_SW_UNTIL = "0.11.1"


@check("startup.v0_prefix_caching_sliding_window")
def v0_prefix_caching_sliding_window(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    engine = dep.resolved.get("engine")
    if dep.version >= V(PREFIX_SW_UNTIL) or engine is None or engine.value != "V0":
        return
    arch = dep.arch
    if _user(dep, "enable_prefix_caching") is not True or arch is None or not arch.sliding_window:
        return
    # only an all-sliding-window model sets CacheConfig.sliding_window; --disable-sliding-window clears it
    if set(arch.layer_types) != {"sliding_attention"} or _user(dep, "disable_sliding_window") is True:
        return
    yield Hit(
        dep.span_of("enable_prefix_caching"),
        {"sliding_window": arch.sliding_window},
        message=_refuse(
            "NotImplementedError: Prefix caching is not supported with sliding window. Run with "
            f"--disable-sliding-window to use prefix caching. ({dep.model}: a {arch.sliding_window}-token window "
            f"on every layer; the V0 engine of {dep.version})"
        ),
    )


# -- prefix caching that can never hit on a hybrid model (VL114) -------------------------------------------

#: from 0.12.0 vLLM keeps prefix caching on for hybrid (Mamba/linear-attention) models when asked
#: (``MambaModelConfig.verify_and_update_config``: Mamba cache mode 'align' or 'all', [0.19.1]
#: vllm/model_executor/models/config.py:436-472); before, it logged "Hybrid or mamba-based model detected:
#: disabling prefix caching since it is not yet supported." and turned it off
HYBRID_PREFIX_CACHING_SINCE = "0.12.0"


@check("startup.prefix_caching_inert_hybrid")
def prefix_caching_inert_hybrid(ctx: CheckContext) -> Iterator[Hit]:
    """VL114: --enable-prefix-caching on a hybrid model whose attention block is longer than max_model_len.

    vLLM enlarges the attention block of a hybrid model until one attention page holds a Mamba state
    (at least ``16 × ceil(mamba page / (16 × attention bytes per token))`` tokens; the 'all' Mamba cache mode
    rounds it up further, [0.19.1] vllm/model_executor/models/config.py:246-284), and prefix caching hashes
    only full blocks ([0.19.1] vllm/v1/core/kv_cache_utils.py:574-596): no request of at most max_model_len
    tokens fills one, so the cache never hits (vllm-project/vllm#48401). The block size is the memory model's
    (the launch's GPU, else the first reference GPU it runs on: it does not depend on the GPU)."""
    dep = ctx.dep
    assert dep is not None
    engine = dep.resolved.get("engine")
    arch = dep.arch
    if engine is None or engine.value != "V1" or not _since(dep, HYBRID_PREFIX_CACHING_SINCE):
        return
    if arch is None or not arch.has_state_layers or _user(dep, "enable_prefix_caching") is not True:
        return
    mml = _int(dep, "max_model_len")
    m = dep.memory
    if m is None:
        from vlint.launch.gpu_fit import gpu_fit

        m = next((f.memory for f in gpu_fit(dep) if f.memory is not None and f.kind == "GPU"), None)
    if m is None or mml is None or m.num_kv_groups < 1 or m.block_size <= mml:
        return
    yield Hit(
        dep.span_of("enable_prefix_caching"),
        {"block_size": m.block_size, "max_model_len": mml, "model": dep.model, "vllm_version": str(dep.version)},
        message=(
            f"prefix caching can never hit here: vLLM {dep.version} enlarges the attention block of {dep.model} "
            f"(a hybrid model) to at least {m.block_size} tokens so that an attention page holds a Mamba state "
            "('Setting attention block size to … tokens to ensure that attention page size is >= mamba page "
            f"size'), prefix caching caches only full blocks, and no request is longer than max_model_len "
            f"{mml}; vLLM accepts the flag and keeps the Mamba cache blocks it costs"
        ),
    )
