"""Numeric bounds of scheduler, cache, LoRA and model settings (VL106): the pydantic field
constraints of ``vllm/config/*.py`` per release."""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks import CheckContext, Hit, check
from vlint.core.record import record
from vlint.core.typing_names import TYPE_CHECKING
from vlint.core.version import V, Version

if TYPE_CHECKING:
    pass
from vlint.checks.startup.common import _fmt, _json, _num, _refuse, _user

# -- numeric bounds of scheduler, cache, LoRA and model settings (VL106) -------------------------------


@record(frozen=True)
class Bound:
    """``dest`` must satisfy ``op bound`` from release ``since`` (until ``until``), else vLLM refuses."""

    dest: str
    op: str  # ">=" or ">"
    bound: float
    since: str
    until: str | None
    #: vLLM's own message; {value} and {bound} are filled in
    message: str
    where: str
    #: only when this boolean setting is on (LoRA settings are validated only with --enable-lora)
    needs: str | None = None
    #: a field of the JSON option ``dest`` (--speculative-config's draft_tensor_parallel_size) rather than dest
    key: str | None = None

    def applies(self, version: Version) -> bool:
        return version >= V(self.since) and (self.until is None or version < V(self.until))

    def violated(self, value: float) -> bool:
        ops = {
            ">=": value < self.bound,
            ">": value <= self.bound,
            "<=": value > self.bound,
            "<": value >= self.bound,
            "!=": value == self.bound,
        }
        return ops[self.op]


_GE = "Input should be greater than or equal to {bound}"
_GT = "Input should be greater than {bound}"
_LE = "Input should be less than or equal to {bound}"
_LT = "Input should be less than {bound}"


def _field_bounds(cls_file: str, since: str, until: str | None, fields: str) -> tuple[Bound, ...]:
    """pydantic ``Field(ge=/gt=/le=/lt=)`` bounds of one config class: ``fields`` is
    "dest op bound line; ..." (the line in ``cls_file`` of release ``since``)."""
    msgs = {">=": _GE, ">": _GT, "<=": _LE, "<": _LT}
    out = []
    for part in fields.split(";"):
        dest, op, bound, line = part.split()
        num = float(bound) if "." in bound else int(bound)
        out.append(Bound(dest, op, num, since, until, f"{dest} {{value}}: " + msgs[op], f"{cls_file}:{line}"))
    return tuple(out)


#: Field bounds collected from each class's source: the first release whose vllm/config/<file>.py declares it
#: (the line there); before, the value passes the configuration or fails elsewhere (vLLM's oracle data)
FIELD_BOUNDS: tuple[Bound, ...] = (
    *_field_bounds("vllm/config/scheduler.py", "0.11.1", None, "stream_interval >= 1 147"),
    *_field_bounds("vllm/config/scheduler.py", "0.24.0", None, "watermark >= 0 146; watermark < 1 146"),
    *_field_bounds("vllm/config/scheduler.py", "0.24.0", None, "prefill_schedule_interval >= 1 153"),
    *_field_bounds("vllm/config/scheduler.py", "0.23.0", "0.32.0", "max_num_scheduled_tokens >= 0 56"),
    *_field_bounds("vllm/config/scheduler.py", "0.32.0", None, "max_num_scheduled_tokens >= 1 55"),
    *_field_bounds(
        "vllm/config/scheduler.py", "0.29.0", None, "max_num_queued_reqs >= 0 74; max_num_queued_tokens >= 0 81"
    ),
    *_field_bounds("vllm/config/scheduler.py", "0.31.0", None, "max_num_active_seqs >= 1 70"),
    *_field_bounds(
        "vllm/config/parallel.py",
        "0.23.0",
        None,
        "pipeline_parallel_size >= 1 112; tensor_parallel_size >= 1 115; prefill_context_parallel_size >= 1 117; "
        "data_parallel_size >= 1 119; data_parallel_size_local >= 0 122; data_parallel_rank >= 0 126; "
        "max_parallel_loading_workers >= 1 189; ubatch_size >= 0 203; dbo_decode_token_threshold >= 0 205; "
        "dbo_prefill_token_threshold >= 0 211; node_rank >= 0 266; nnodes >= 1 269; "
        "decode_context_parallel_size >= 1 323",
    ),
    *_field_bounds(
        "vllm/config/parallel.py",
        "0.28.0",
        None,
        "data_parallel_rpc_port >= 1 144; data_parallel_rpc_port <= 65535 144",
    ),
    *_field_bounds("vllm/config/parallel.py", "0.30.0", None, "dp_sync_interval >= 1 146"),
    *_field_bounds(
        "vllm/config/observability.py",
        "0.12.0",
        None,
        "kv_cache_metrics_sample > 0 55; kv_cache_metrics_sample <= 1 55",
    ),
    *_field_bounds("vllm/config/vllm.py", "0.18.0", None, "shutdown_timeout >= 0 330"),
    *_field_bounds("vllm/config/cache.py", "0.11.1", "0.18.0", "swap_space >= 0 59"),
)

_EXECUTOR = (
    " makes the world size (pipeline x tensor x prefill-context parallel) not positive, so no executor backend "
    "is chosen: Unknown distributed executor backend: None"
)
#: before the 0.23.0 Field bounds, the parallel sizes fail where vLLM first uses them (vLLM's oracle data,
#: 0.6.6.post1-0.20.0): a tensor-parallel size of 0 divides the model's heads by zero
#: ([0.13.0] vllm/config/model.py:1033 ``total_num_attention_heads % tensor_parallel_size``), so does a
#: decode-context-parallel size of 0 ([0.10.2] vllm/engine/arg_utils.py:1177); a data-parallel size of 0
#: leaves no valid rank (from 0.9.2: [0.9.2] vllm/config.py:1966-1972, [0.10.2] vllm/config/parallel.py:322-332);
#: from 0.19.0 VllmConfig asks for the executor class ([0.19.0] vllm/config/vllm.py:728), which a world size
#: <= 0 has none of ([0.19.0] vllm/v1/executor/abstract.py:84)
PARALLEL_BEFORE_FIELDS: tuple[Bound, ...] = (
    Bound(
        "tensor_parallel_size",
        "!=",
        0,
        "0.6.0",
        "0.23.0",
        "tensor_parallel_size {value}: ZeroDivisionError: integer modulo by zero (the attention heads are divided "
        "by it)",
        "vllm/config/model.py:1033",
    ),
    Bound(
        "decode_context_parallel_size",
        "!=",
        0,
        "0.6.0",
        "0.23.0",
        "decode_context_parallel_size {value}: ZeroDivisionError: integer modulo by zero",
        "vllm/engine/arg_utils.py:1177",
    ),
    # the rank check runs only when data_parallel_size > 1 or data_parallel_size_local == 0 (the local size
    # defaults to the total): 0 is refused, a negative size is not ([0.9.2] vllm/config.py:1965-1972,
    # [0.22.1] vllm/config/parallel.py:791-813; vLLM's oracle data accepts -1 in 0.9.2 and 0.22.1)
    Bound(
        "data_parallel_size",
        "!=",
        0,
        "0.9.2",
        "0.23.0",
        "data_parallel_size {value}: data_parallel_rank (0) must be in the range [0, {value})",
        "vllm/config/parallel.py:332",
    ),
    Bound(
        "tensor_parallel_size",
        ">=",
        0,
        "0.19.0",
        "0.23.0",
        "tensor_parallel_size {value}" + _EXECUTOR,
        "vllm/v1/executor/abstract.py:84",
    ),
    Bound(
        "pipeline_parallel_size",
        ">=",
        1,
        "0.19.0",
        "0.23.0",
        "pipeline_parallel_size {value}" + _EXECUTOR,
        "vllm/v1/executor/abstract.py:84",
    ),
    Bound(
        "prefill_context_parallel_size",
        ">=",
        1,
        "0.19.0",
        "0.23.0",
        "prefill_context_parallel_size {value}" + _EXECUTOR,
        "vllm/v1/executor/abstract.py:84",
    ),
)

#: fields of JSON options (--speculative-config, --eplb-config) with pydantic bounds from 0.11.1
JSON_FIELD_BOUNDS: tuple[Bound, ...] = (
    Bound(
        "speculative_config",
        ">=",
        1,
        "0.11.1",
        None,
        "draft_tensor_parallel_size {value}: " + _GE,
        "vllm/config/speculative.py:76",
        key="draft_tensor_parallel_size",
    ),
    Bound(
        "speculative_config",
        ">=",
        1,
        "0.11.1",
        None,
        "max_model_len {value}: " + _GE,
        "vllm/config/speculative.py:85",
        key="max_model_len",
    ),
    Bound(
        "speculative_config",
        ">=",
        2,
        "0.8.0",
        "0.11.1",
        "Expect the batch size threshold of disabling speculative decoding is > 1, but got "
        "self.disable_by_batch_size={value}",
        "vllm/config.py:2584 (0.8.5.post1)",
        key="disable_by_batch_size",
    ),
    Bound(
        "speculative_config",
        ">=",
        2,
        "0.11.1",
        "0.17.0",
        "disable_by_batch_size {value}: " + _GE,
        "vllm/config/speculative.py:98",
        key="disable_by_batch_size",
    ),
    Bound(
        "eplb_config",
        ">=",
        0,
        "0.11.1",
        None,
        "num_redundant_experts {value}: " + _GE,
        "vllm/config/parallel.py:56",
        key="num_redundant_experts",
    ),
)
BOUNDS: tuple[Bound, ...] = (
    # SchedulerConfig: pydantic Field(ge=1) from 0.11.1 ([0.11.1] vllm/config/scheduler.py:37,44)
    Bound("max_num_seqs", ">=", 1, "0.11.1", None, "max_num_seqs {value}: " + _GE, "vllm/config/scheduler.py:44"),
    Bound(
        "max_num_batched_tokens",
        ">=",
        1,
        "0.11.1",
        None,
        "max_num_batched_tokens {value}: " + _GE,
        "vllm/config/scheduler.py:37",
    ),
    # long_prefill_token_threshold >= 0 from 0.25.1 ([0.25.1] vllm/config/scheduler.py:80)
    Bound(
        "long_prefill_token_threshold",
        ">=",
        0,
        "0.25.1",
        None,
        "long_prefill_token_threshold {value}: " + _GE,
        "vllm/config/scheduler.py:80",
    ),
    # ModelConfig.max_model_len: gt=0 in 0.13.0 ([0.13.0] vllm/config/model.py:167), ge=-1 (-1 = fit to memory)
    # from 0.14.1 ([0.14.1] vllm/config/model.py:175); in 0.11.1-0.12 a -1 makes the default budget negative
    # and SchedulerConfig refuses that
    Bound(
        "max_model_len",
        ">",
        0,
        "0.11.1",
        "0.13.0",
        "max_model_len {value} makes the default max_num_batched_tokens (max_num_seqs x max_model_len) negative: "
        "max_num_batched_tokens Input should be greater than or equal to 1",
        "vllm/engine/arg_utils.py (default budget), vllm/config/scheduler.py:37",
    ),
    Bound("max_model_len", ">", 0, "0.13.0", "0.14.1", "max_model_len {value}: " + _GT, "vllm/config/model.py:167"),
    Bound("max_model_len", ">=", -1, "0.14.1", None, "max_model_len {value}: " + _GE, "vllm/config/model.py:175"),
    # max_model_len 0 (inside ge=-1): the default budgets follow it to 0, which SchedulerConfig refuses (0.14.1-
    # 0.19.1: "2 validation errors for SchedulerConfig max_num_batched_tokens ... max_num_seqs"), and
    # ModelConfig's after-validator refuses it ("max_model_len must be a positive integer", [0.19.1]
    # vllm/config/model.py:720-725, [0.25.1] :785-790; first in the oracle data from 0.25.1)
    Bound(
        "max_model_len",
        "!=",
        0,
        "0.14.1",
        None,
        "max_model_len must be a positive integer, got int: {value} (and the default max_num_batched_tokens and "
        "max_num_seqs follow it to 0: Input should be greater than or equal to 1)",
        "vllm/config/model.py:785-790",
    ),
    # ModelConfig.max_logprobs >= -1 (-1 = the vocabulary) from 0.25.1 ([0.25.1] vllm/config/model.py:222)
    Bound("max_logprobs", ">=", -1, "0.25.1", None, "max_logprobs {value}: " + _GE, "vllm/config/model.py:222"),
    # CacheConfig.block_size Field(gt=0) from 0.23.0 ([0.23.0] vllm/config/cache.py:48); before, the parser's
    # choices (BlockSize) or nothing: 0.18-0.22 accept 0 at startup
    Bound("block_size", ">", 0, "0.23.0", None, "block_size {value}: " + _GT, "vllm/config/cache.py:48"),
    # cpu_offload_gb: "CPU offload space must be non-negative" before 0.11.1 ([0.10.2] vllm/config/cache.py:160),
    # Field(ge=0) from 0.11.1 ([0.11.1] vllm/config/cache.py:84)
    Bound(
        "cpu_offload_gb",
        ">=",
        0,
        "0.6.0",
        "0.11.1",
        "CPU offload space must be non-negative, but got {value}",
        "vllm/config/cache.py:160",
    ),
    # SchedulerConfig.num_lookahead_slots: "must be greater than or equal to 0" once arg_utils passes the value
    # as given (0.10.1: [0.10.1.1] vllm/engine/arg_utils.py:1277, vllm/config/scheduler.py; before it was
    # max(value, num_scheduler_steps - 1) >= 0), Field(ge=0) from 0.11.1 ([0.11.1] vllm/config/scheduler.py:65)
    Bound(
        "num_lookahead_slots",
        ">=",
        0,
        "0.10.1",
        "0.11.1",
        "num_lookahead_slots ({value}) must be greater than or equal to 0.",
        "vllm/config/scheduler.py:275",
    ),
    Bound(
        "num_lookahead_slots",
        ">=",
        0,
        "0.11.1",
        None,
        "num_lookahead_slots {value}: " + _GE,
        "vllm/config/scheduler.py:65",
    ),
    Bound("cpu_offload_gb", ">=", 0, "0.11.1", None, "cpu_offload_gb {value}: " + _GE, "vllm/config/cache.py:84"),
    # SchedulerConfig: "num_scheduler_steps (0) must be greater than or equal to 1." while the option exists
    # ([0.6.4.post1] vllm/config.py:1176-1181, [0.9.2] vllm/config.py:2339-2342, [0.10.2]
    # vllm/config/scheduler.py:281-284; --num-scheduler-steps goes in 0.11.0)
    Bound(
        "num_scheduler_steps",
        ">=",
        1,
        "0.6.0",
        "0.11.0",
        "num_scheduler_steps ({value}) must be greater than or equal to 1.",
        "vllm/config/scheduler.py:281",
    ),
    # CacheConfig.mamba_block_size Field(gt=0) ([0.11.2] vllm/config/cache.py:102, [0.33.0] :293)
    Bound("mamba_block_size", ">", 0, "0.11.1", None, "mamba_block_size {value}: " + _GT, "vllm/config/cache.py:102"),
    # CacheConfig.prefix_cache_retention_interval Field(ge=0) ([0.30.0] vllm/config/cache.py:148)
    Bound(
        "prefix_cache_retention_interval",
        ">=",
        0,
        "0.30.0",
        None,
        "prefix_cache_retention_interval {value}: " + _GE,
        "vllm/config/cache.py:148",
    ),
    # LoRAConfig.max_lora_cls_labels Field(ge=1) ([0.31.0] vllm/config/lora.py:87); only with --enable-lora
    Bound(
        "max_lora_cls_labels",
        ">=",
        1,
        "0.31.0",
        None,
        "max_lora_cls_labels {value}: " + _GE,
        "vllm/config/lora.py:87",
        "enable_lora",
    ),
    # the V0 flag --speculative-disable-by-batch-size, checked once a speculative model is given
    # ([0.6.6.post1] vllm/config.py:1321; the flags go after 0.8.x)
    Bound(
        "speculative_disable_by_batch_size",
        ">=",
        2,
        "0.6.0",
        "0.9.0",
        "Expect the batch size threshold of disabling speculative decoding is > 1, but got "
        "speculative_disable_by_batch_size={value}",
        "vllm/config.py:1321 (0.6.6.post1)",
        "speculative_model",
    ),
    # --spec-tokens is SpeculativeConfig.num_speculative_tokens (Field(gt=0), [0.22.1]
    # vllm/config/speculative.py:80; the shorthand options come in 0.22.0)
    Bound(
        "spec_tokens",
        ">",
        0,
        "0.22.0",
        None,
        "--spec-tokens {value}: num_speculative_tokens " + _GT,
        "vllm/config/speculative.py:80 (0.22.1)",
    ),
    # LoRAConfig.max_loras >= 1: "max_loras (0) must be >= 1." before 0.11.1 ([0.10.2] vllm/config/lora.py:115),
    # Field(ge=1) from 0.11.1 ([0.11.1] vllm/config/lora.py:37); only with --enable-lora
    Bound(
        "max_loras",
        ">=",
        1,
        "0.6.0",
        "0.11.1",
        "max_loras ({value}) must be >= 1.",
        "vllm/config/lora.py:115",
        "enable_lora",
    ),
    Bound(
        "max_loras",
        ">=",
        1,
        "0.11.1",
        None,
        "max_loras {value}: " + _GE,
        "vllm/config/lora.py:37",
        "enable_lora",
    ),
)


@check("startup.value_out_of_range")
def value_out_of_range(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    for b in (*BOUNDS, *FIELD_BOUNDS, *PARALLEL_BEFORE_FIELDS, *JSON_FIELD_BOUNDS):
        if not b.applies(dep.version) or dep.setting(b.dest) is None:
            continue
        if b.needs is not None:
            nv = dep.value(b.needs)  # a switch that is on, or a setting that is given (a speculative model)
            if nv is not True and not (isinstance(nv, str) and nv):
                continue
        if b.key is not None:
            obj = _json(dep, b.dest)
            v = _num(obj.get(b.key)) if obj is not None else None
        else:
            v = _num(_user(dep, b.dest))
        if v is None or not b.violated(v):
            continue
        msg = b.message.format(value=_fmt(v), bound=_fmt(b.bound))
        yield Hit(
            dep.span_of(b.dest),
            {"setting": b.dest, "value": v, "bound": b.bound, "op": b.op, "where": b.where},
            message=_refuse(f"{msg} ({b.where}, vLLM {dep.version})"),
        )
