"""CacheConfig: the Mamba block size (VL110), V0 prefix caching with a sliding window (VL121)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from vlint.checks import CheckContext, Hit, check
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
