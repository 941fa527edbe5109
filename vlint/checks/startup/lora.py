"""LoRAConfig (VL120)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from vlint.checks import CheckContext, Hit, check
from vlint.core.version import V

if TYPE_CHECKING:
    pass
from vlint.checks.startup.common import _fmt, _int, _num, _refuse, _since, _user

# -- LoRA (VL120) -------------------------------------------------------------------------------------


@check("startup.lora_cpu_loras_below_max_loras")
def lora_cpu_loras_below_max_loras(ctx: CheckContext) -> Iterator[Hit]:
    """LoRAConfig: ``max_cpu_loras >= max_loras`` in every release ([0.6.6.post1] vllm/config.py:2044;
    [0.33.0] vllm/config/lora.py:123-127)."""
    dep = ctx.dep
    assert dep is not None
    if dep.value("enable_lora") is not True:
        return
    cpu = _num(_user(dep, "max_cpu_loras"))
    gpu = _int(dep, "max_loras") or 1
    # EngineArgs passes max_cpu_loras only when it is > 0 (else None: max_loras), so 0 and negative values
    # pass ([0.6.4.post1] vllm/engine/arg_utils.py:1107-1108, [0.33.0] vllm/engine/arg_utils.py:2704-2706)
    if cpu is None or cpu <= 0 or cpu >= gpu:
        return
    yield Hit(
        dep.span_of("max_cpu_loras"),
        {"max_cpu_loras": cpu, "max_loras": gpu},
        message=_refuse(f"max_cpu_loras ({_fmt(cpu)}) must be >= max_loras ({gpu})"),
    )


#: LoRAConfig.max_lora_rank must be one of these (with --enable-lora) until 0.11.1, where the parser's choices
#: take over ([0.6.6.post1] vllm/config.py:2028, [0.8.0] vllm/config.py:2326, [0.10.2] vllm/config/lora.py:104)
LORA_RANKS: tuple[tuple[str, str, tuple[int, ...]], ...] = (
    ("0.6.0", "0.8.0", (8, 16, 32, 64, 128, 256)),
    ("0.8.0", "0.11.1", (8, 16, 32, 64, 128, 256, 320, 512)),
)


@check("startup.lora_rank_invalid")
def lora_rank_invalid(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    if dep.value("enable_lora") is not True:
        return
    rank = _num(_user(dep, "max_lora_rank"))
    if rank is None:
        return
    for since, until, ranks in LORA_RANKS:
        if _since(dep, since) and dep.version < V(until) and rank not in ranks:
            yield Hit(
                dep.span_of("max_lora_rank"),
                {"max_lora_rank": rank, "ranks": list(ranks)},
                message=_refuse(f"max_lora_rank ({_fmt(rank)}) must be one of {ranks}."),
            )


#: LoRAConfig.lora_extra_vocab_size must be one of these (with --enable-lora) while the check exists
#: ([0.6.4.post1] vllm/config.py:1684-1691, [0.7.3] :2185-2192, [0.8.2] :2348-2355,
#: [0.10.2] vllm/config/lora.py:105-112; not in 0.11.2's sampled source)
LORA_EXTRA_VOCAB: tuple[tuple[str, str, tuple[int, ...]], ...] = (
    ("0.6.0", "0.8.0", (0, 256, 512)),
    ("0.8.0", "0.11.0", (256, 512)),
)


@check("startup.lora_extra_vocab_invalid")
def lora_extra_vocab_invalid(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    if dep.value("enable_lora") is not True:
        return
    size = _num(_user(dep, "lora_extra_vocab_size"))
    if size is None:
        return
    for since, until, sizes in LORA_EXTRA_VOCAB:
        if _since(dep, since) and dep.version < V(until) and size not in sizes:
            yield Hit(
                dep.span_of("lora_extra_vocab_size"),
                {"lora_extra_vocab_size": size, "sizes": list(sizes)},
                message=_refuse(f"lora_extra_vocab_size ({_fmt(size)}) must be one of {sizes}."),
            )
