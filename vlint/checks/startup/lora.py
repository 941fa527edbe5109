"""LoRAConfig (VL120)."""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks import CheckContext, Hit, check
from vlint.core.typing_names import TYPE_CHECKING
from vlint.core.version import V

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment


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


#: (first release, first release without, the allowed values)
Allowed = tuple[tuple[str, str, tuple[int, ...]], ...]


#: LoRAConfig.max_lora_rank must be one of these (with --enable-lora) until 0.11.1, where the parser's choices
#: take over ([0.6.6.post1] vllm/config.py:2028, [0.8.0] vllm/config.py:2326, [0.10.2] vllm/config/lora.py:104)
LORA_RANKS: Allowed = (
    ("0.6.0", "0.8.0", (8, 16, 32, 64, 128, 256)),
    ("0.8.0", "0.11.1", (8, 16, 32, 64, 128, 256, 320, 512)),
)


def _one_of(dep: Deployment, dest: str, table: Allowed, key: str) -> Iterator[Hit]:
    """LoRAConfig's "``dest`` must be one of …" check (with --enable-lora) in the releases of ``table``."""
    if dep.value("enable_lora") is not True:
        return
    value = _num(_user(dep, dest))
    if value is None:
        return
    for since, until, allowed in table:
        if _since(dep, since) and dep.version < V(until) and value not in allowed:
            yield Hit(
                dep.span_of(dest),
                {dest: value, key: list(allowed)},
                message=_refuse(f"{dest} ({_fmt(value)}) must be one of {allowed}."),
            )


@check("startup.lora_rank_invalid")
def lora_rank_invalid(ctx: CheckContext) -> Iterator[Hit]:
    assert ctx.dep is not None
    yield from _one_of(ctx.dep, "max_lora_rank", LORA_RANKS, "ranks")


#: LoRAConfig.lora_extra_vocab_size must be one of these (with --enable-lora) while the check exists
#: ([0.6.4.post1] vllm/config.py:1684-1691, [0.7.3] :2185-2192, [0.8.2] :2348-2355,
#: [0.10.2] vllm/config/lora.py:105-112; not in 0.11.2's sampled source)
LORA_EXTRA_VOCAB: Allowed = (
    ("0.6.0", "0.8.0", (0, 256, 512)),
    ("0.8.0", "0.11.0", (256, 512)),
)


@check("startup.lora_extra_vocab_invalid")
def lora_extra_vocab_invalid(ctx: CheckContext) -> Iterator[Hit]:
    assert ctx.dep is not None
    yield from _one_of(ctx.dep, "lora_extra_vocab_size", LORA_EXTRA_VOCAB, "sizes")
