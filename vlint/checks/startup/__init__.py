"""vLLM's startup validation that needs no GPU: the checks ``EngineArgs.create_engine_config()``, the
``vllm/config/*.py`` validators and ``vllm serve`` run before the engine touches a device.

Every check here is proven against the releases themselves: ``bench/oracle.py`` runs the launch cases of
``tests/data/oracle/cases.yaml`` through each release's own code and ``tests/test_oracle.py`` asserts
that vlint refuses what vLLM refuses, with vLLM's message. Release boundaries cite the first release
whose source has the check (``[X.Y.Z] vllm/path.py:LINE``).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vlint.checks import CheckContext, Hit, check
from vlint.core.unresolved import UNRESOLVED
from vlint.core.version import V, Version

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment


# -- reading settings ------------------------------------------------------------------------------


def _num(v: Any) -> int | float | None:
    if v is None or v is UNRESOLVED or isinstance(v, bool):
        return None
    if isinstance(v, int | float):
        return v if not (isinstance(v, float) and not math.isfinite(v)) else None
    return None


def _int(dep: Deployment, dest: str) -> int | None:
    v = _num(dep.value(dest))
    if isinstance(v, int):
        return v
    return int(v) if v is not None and v.is_integer() else None


def _user(dep: Deployment, dest: str) -> Any:
    """What the launch wrote (None when not written or unresolved)."""
    s = dep.setting(dest)
    return None if s is None or s.value is UNRESOLVED else s.value


def _json(dep: Deployment, dest: str) -> Mapping[str, Any] | None:
    v = _user(dep, dest)
    return v if isinstance(v, Mapping) else None


def _since(dep: Deployment, version: str) -> bool:
    return dep.version >= V(version)


def _refuse(message: str) -> str:
    return f"vLLM will not start: {message}"


# -- numeric bounds of scheduler, cache, LoRA and model settings (VL106) -------------------------------


@dataclass(frozen=True)
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
    Bound(
        "data_parallel_size",
        ">=",
        1,
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


def _fmt(v: float) -> str:
    return str(v) if isinstance(v, int) or not v.is_integer() else str(int(v))


@check("startup.value_out_of_range")
def value_out_of_range(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    for b in (*BOUNDS, *FIELD_BOUNDS, *PARALLEL_BEFORE_FIELDS, *JSON_FIELD_BOUNDS):
        if not b.applies(dep.version) or dep.setting(b.dest) is None:
            continue
        if b.needs is not None and dep.value(b.needs) is not True:
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


# -- vllm serve's own checks (VL030-VL034) -------------------------------------------------------------


@check("startup.auto_tool_choice_without_parser")
def auto_tool_choice_without_parser(ctx: CheckContext) -> Iterator[Hit]:
    """``validate_parsed_serve_args``: every release ([0.6.6.post1] vllm/entrypoints/openai/cli_args.py:266,
    [0.33.0] vllm/entrypoints/common/cli_args.py:554)."""
    dep = ctx.dep
    assert dep is not None
    if dep.invocation.program != "vllm serve" or _user(dep, "enable_auto_tool_choice") is not True:
        return
    parser = dep.setting("tool_call_parser")
    if parser is not None and (parser.value is UNRESOLVED or parser.value):
        return
    yield Hit(dep.span_of("enable_auto_tool_choice"), {}, message=_refuse(AUTO_TOOL_MESSAGE))


AUTO_TOOL_MESSAGE = (
    "Error: --enable-auto-tool-choice requires --tool-call-parser (name the parser of the model's tool-call format, "
    "e.g. --tool-call-parser hermes)"
)

#: ``--enable-log-outputs`` needs request logging from 0.11.0 ([0.11.0] vllm/entrypoints/openai/cli_args.py:280-282)
LOG_OUTPUTS_CHECKED_SINCE = "0.11.0"


@check("startup.log_outputs_without_requests")
def log_outputs_without_requests(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    if not _since(dep, LOG_OUTPUTS_CHECKED_SINCE) or _user(dep, "enable_log_outputs") is not True:
        return
    if dep.setting("enable_log_requests") is not None and _user(dep, "enable_log_requests") is not False:
        return  # set (or unresolved)
    if dep.value("enable_log_requests") is True:
        return
    yield Hit(
        dep.span_of("enable_log_outputs"),
        {},
        message=_refuse("Error: --enable-log-outputs requires --enable-log-requests"),
    )


@check("startup.lora_modules_malformed")
def lora_modules_malformed(ctx: CheckContext) -> Iterator[Hit]:
    """``LoRAParserAction``: ``name=path`` or a JSON object with ``name`` and ``path`` (and optionally
    ``base_model_name``); anything else stops the parser ([0.33.0] vllm/entrypoints/common/cli_args.py:52-68)."""
    import json

    dep = ctx.dep
    assert dep is not None
    s = dep.setting("lora_modules")
    if s is None or s.value is UNRESOLVED:
        return
    items = s.value if isinstance(s.value, list | tuple) else [s.value]
    for item in items:
        if not isinstance(item, str) or item == "" or ("=" in item and "," not in item):
            continue
        try:
            obj = json.loads(item)
        except (json.JSONDecodeError, RecursionError):
            yield Hit(s.full_span, {"item": item}, message=_refuse(f"Invalid JSON format for --lora-modules: {item}"))
            continue
        problem = None
        if not isinstance(obj, dict):
            problem = "LoRAModulePath() argument after ** must be a mapping"
        else:
            missing = [k for k in ("name", "path") if k not in obj]
            unknown = sorted(set(obj) - {"name", "path", "base_model_name"})
            if unknown:
                problem = f"LoRAModulePath.__init__() got an unexpected keyword argument '{unknown[0]}'"
            elif missing:
                problem = (
                    f"LoRAModulePath.__init__() missing {len(missing)} required positional argument"
                    f"{'s' if len(missing) > 1 else ''}: " + " and ".join(f"'{m}'" for m in missing)
                )
        if problem:
            yield Hit(
                s.full_span,
                {"item": item},
                message=_refuse(f"Invalid fields for --lora-modules: {item} - {problem}"),
            )


@check("startup.chat_template_missing")
def chat_template_missing(ctx: CheckContext) -> Iterator[Hit]:
    """``validate_chat_template``: a value without Jinja characters (``{``, ``}``, newline) is a path, and
    it must exist ([0.6.6.post1] vllm/entrypoints/chat_utils.py:608-627). vlint looks for it relative to the
    launch script (as for ``--config``), only inside the script's folder: a path with ``..``, an absolute
    path or ``~`` is not checked."""
    from pathlib import Path, PurePosixPath

    dep = ctx.dep
    assert dep is not None
    s = dep.setting("chat_template")
    base = dep.base_dir
    if s is None or not isinstance(s.value, str) or base is None or dep.invocation.source != "shell":
        return
    tpl = s.value
    if any(c in tpl for c in "{}\n") or not ("/" in tpl or tpl.endswith((".jinja", ".j2", ".jinja2"))):
        return  # a template string, or a name vLLM may resolve among its bundled templates
    rel = PurePosixPath(tpl)
    if rel.is_absolute() or tpl.startswith("~") or ".." in rel.parts or "$" in tpl:
        return
    if (Path(base) / rel).exists():
        return
    yield Hit(
        s.full_span,
        {"chat_template": tpl},
        message=_refuse(
            f"The supplied chat template string ({tpl}) appears path-like, but doesn't exist! "
            f"(looked for it next to {dep.path}, where vLLM would look when started from there)"
        ),
    )


# -- parallel layout (VL301-VL311) --------------------------------------------------------------------


def _dp(dep: Deployment) -> int:
    return _int(dep, "data_parallel_size") or 1


def _tp(dep: Deployment) -> int:
    return _int(dep, "tensor_parallel_size") or 1


def _pp(dep: Deployment) -> int:
    return _int(dep, "pipeline_parallel_size") or 1


#: ``data_parallel_size_local <= data_parallel_size`` from 0.9.0 ([0.9.0] vllm/config.py:1818;
#: [0.33.0] vllm/config/parallel.py)
DP_LOCAL_SINCE = "0.9.0"


@check("startup.dp_local_over_dp")
def dp_local_over_dp(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    local = _num(_user(dep, "data_parallel_size_local"))
    dp_unresolved = dep.setting("data_parallel_size") is not None and _user(dep, "data_parallel_size") is None
    if not _since(dep, DP_LOCAL_SINCE) or local is None or dp_unresolved:
        return
    dp = _dp(dep)
    if local <= dp:
        return
    yield Hit(
        dep.span_of("data_parallel_size_local"),
        {"local": local, "dp": dp},
        message=_refuse(f"data_parallel_size_local ({_fmt(local)}) must be <= data_parallel_size ({dp})"),
    )


#: the world size must split evenly over ``--nnodes`` and ``--node-rank`` must name one of them, from 0.11.1
#: (asserts in [0.11.1] vllm/engine/arg_utils.py:1477; "Invalid data-parallel launch options" from 0.27.0)
NNODES_SINCE = "0.11.1"
NNODES_MESSAGES_SINCE = "0.27.0"


@check("startup.nnodes_layout")
def nnodes_layout(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    nnodes = _int(dep, "nnodes")
    if not _since(dep, NNODES_SINCE) or nnodes is None or nnodes <= 1 or _user(dep, "nnodes") is None:
        return
    new = _since(dep, NNODES_MESSAGES_SINCE)
    world = _dp(dep) * _pp(dep) * _tp(dep) * (_int(dep, "prefill_context_parallel_size") or 1)
    if world % nnodes:
        msg = (
            f"Invalid data-parallel launch options: `--nnodes {nnodes}` must evenly divide the total world size "
            f"({world}). Adjust `--nnodes`, `--data-parallel-size`, `--pipeline-parallel-size`, "
            "`--tensor-parallel-size`, or `--prefill-context-parallel-size`."
            if new
            else f"AssertionError: world_size={world} must be divisible by nnodes={nnodes}."
        )
        yield Hit(dep.span_of("nnodes"), {"nnodes": nnodes, "world_size": world}, message=_refuse(msg))
        return
    rank = _int(dep, "node_rank")
    if rank is not None and not 0 <= rank < nnodes:
        msg = (
            f"Invalid data-parallel launch options: `--node-rank` must be between 0 and {nnodes - 1}; got "
            f"`--node-rank {rank}`. Set it to this node's zero-based index."
            if new
            else f"AssertionError: node_rank={rank} must be less than nnodes={nnodes}."
        )
        yield Hit(dep.span_of("node_rank", "nnodes"), {"nnodes": nnodes, "node_rank": rank}, message=_refuse(msg))


#: TP must be divisible by the decode-context-parallel size: an assert in create_engine_config from 0.10.2
#: ([0.10.2] vllm/engine/arg_utils.py:1177), a ValueError in ParallelConfig from 0.16.0
#: ([0.26.0] vllm/config/parallel.py:513)
DCP_SINCE = "0.10.2"
DCP_VALUE_ERROR_SINCE = "0.16.0"
#: DCP with GQA/MQA needs TP above the KV-head count: an assertion from 0.11.1 ([0.11.1] vllm/config/model.py:1172),
#: a ValueError with another wording from 0.27.0 ([0.27.0] vllm/config/model.py:1339)
DCP_KV_HEADS_SINCE = "0.11.1"
DCP_KV_HEADS_MESSAGE_SINCE = "0.27.0"


@check("startup.dcp_layout")
def dcp_layout(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    dcp = _int(dep, "decode_context_parallel_size")
    if not _since(dep, DCP_SINCE) or dcp is None or dcp <= 1 or _user(dep, "decode_context_parallel_size") is None:
        return
    tp = _tp(dep)
    if tp % dcp:
        text = (
            f"tp_size={tp} must be divisible by dcp_size={dcp}."
            if _since(dep, DCP_VALUE_ERROR_SINCE)
            else f"AssertionError: tp_size={tp} must be divisible bydcp_size={dcp}."
        )
        yield Hit(dep.span_of("decode_context_parallel_size"), {"tp": tp, "dcp": dcp}, message=_refuse(text))
        return
    arch = dep.arch
    if _since(dep, DCP_KV_HEADS_SINCE) and arch is not None and arch.kv_lora_rank is None:
        kv = arch.num_kv_heads
        if kv and kv < arch.num_attention_heads and tp <= kv:
            text = (
                f"Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` ({tp}) to be greater "
                f"than the model's total number of KV heads ({kv}). Increase `--tensor-parallel-size` or "
                "disable decode context parallelism."
                if _since(dep, DCP_KV_HEADS_MESSAGE_SINCE)
                else f"AssertionError: tensor parallel size {tp} must be greater than total num kv heads {kv} when "
                "enable decode context parallel for GQA/MQA"
            )
            yield Hit(
                dep.span_of("decode_context_parallel_size", "tensor_parallel_size"),
                {"tp": tp, "dcp": dcp, "kv_heads": kv},
                message=_refuse(text),
            )


#: expert parallel on a model without experts, from 0.8.0 ([0.8.0] vllm/config.py:717)
EP_DENSE_SINCE = "0.8.0"


@check("startup.expert_parallel_dense")
def expert_parallel_dense(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    if not _since(dep, EP_DENSE_SINCE) or _user(dep, "enable_expert_parallel") is not True or dep.arch is None:
        return
    if dep.arch.num_experts > 0:
        return
    yield Hit(
        dep.span_of("enable_expert_parallel"),
        {"model": dep.model},
        message=_refuse(
            "Number of experts in the model must be greater than 0 when expert parallelism is enabled "
            f"({dep.model} is a dense model)."
        ),
    )


#: EPLB needs expert parallel (from 0.10.0, [0.10.0] vllm/config.py:2132) and, until 0.26.0, TP or DP > 1
#: ([0.10.2] vllm/config/parallel.py:363)
EPLB_SINCE = "0.10.0"
EPLB_TPDP_UNTIL = "0.26.0"


#: redundant experts without EPLB: ParallelConfig's wording until 0.10.1 ([0.10.0] vllm/config.py:2139-2143)
#: and from 0.10.2 ([0.10.2] vllm/config/parallel.py:368-375)
REDUNDANT_MESSAGE_SINCE = "0.10.2"
#: EPLB's experts (routed + redundant) must split evenly over the EP ranks: an assertion in FusedMoE until
#: 0.21 ([0.21.0] vllm/model_executor/layers/fused_moe/layer.py:387-391), a ValueError with the counts from
#: 0.22.0 ([0.22.0] layer.py:204-210; [0.33.0] layer.py:270-280)
EPLB_EVEN_VALUE_ERROR_SINCE = "0.22.0"


@check("startup.eplb_layout")
def eplb_layout(ctx: CheckContext) -> Iterator[Hit]:
    from vlint.launch.memory_inputs import redundant_experts

    dep = ctx.dep
    assert dep is not None
    if not _since(dep, EPLB_SINCE):
        return
    spare = redundant_experts(dep)
    if _user(dep, "enable_eplb") is not True:
        if spare and dep.value("enable_eplb") is not True:
            where = dep.span_of("eplb_config", "num_redundant_experts")
            if _since(dep, REDUNDANT_MESSAGE_SINCE):
                text = (
                    f"num_redundant_experts is set to {spare} but EPLB is not enabled. Either enable EPLB or unset "
                    "num_redundant_experts."
                )
            else:
                text = f"num_redundant_experts should be used with EPLB.{spare}."
            yield Hit(where, {"redundant": spare}, message=_refuse(text))
        return
    if dep.value("enable_expert_parallel") is not True:
        yield Hit(dep.span_of("enable_eplb"), {}, message=_refuse("enable_expert_parallel must be True to use EPLB."))
        return
    tp, dp = _tp(dep), _dp(dep)
    if dep.version < V(EPLB_TPDP_UNTIL) and tp * dp <= 1:
        yield Hit(
            dep.span_of("enable_eplb"),
            {"tp": tp, "dp": dp},
            message=_refuse(
                "EPLB requires tensor_parallel_size or data_parallel_size to be greater than 1, "
                f"but got TP={tp},DP={dp}."
            ),
        )
        return
    arch = dep.arch
    ep = tp * dp * (_int(dep, "prefill_context_parallel_size") or 1)
    if arch is None or arch.num_experts <= 0 or ep <= 1:
        return
    experts = arch.num_experts + spare
    if experts % ep:
        if _since(dep, EPLB_EVEN_VALUE_ERROR_SINCE):
            text = (
                "EPLB currently only supports even distribution of experts across ranks. "
                f"Got {experts} experts and {ep} EP ranks."
            )
        else:
            text = "AssertionError: EPLB currently only supports even distribution of experts across ranks."
        yield Hit(
            dep.span_of("enable_eplb"),
            {"experts": experts, "ep": ep},
            message=_refuse(
                f"{text} ({dep.model}: {arch.num_experts} routed"
                + (f" + {spare} redundant" if spare else "")
                + f" experts over TP × DP = {ep} expert-parallel ranks, while the model is built)"
            ),
        )


#: pipeline parallel needs the ray/mp executor or the external launcher on V1 ([0.8.3]
#: vllm/engine/arg_utils.py:1525 "Pipeline Parallelism without Ray distributed executor"); before 0.11 an unset
#: VLLM_USE_V1 falls back to V0, which runs it
PP_EXECUTOR_SINCE = "0.8.3"


@check("startup.pipeline_parallel_executor")
def pipeline_parallel_executor(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    backend = _user(dep, "distributed_executor_backend")
    if not _since(dep, PP_EXECUTOR_SINCE) or _pp(dep) <= 1 or backend not in ("uni",):
        return
    engine = dep.resolved.get("engine")
    if engine is not None and engine.value != "V1":
        return
    if dep.version < V("0.11.0") and "VLLM_USE_V1" not in dep.env:
        return  # the V1 oracle falls back to V0 (_raise_or_fallback)
    name = "Pipeline Parallelism without Ray distributed executor or multiprocessing executor or external launcher"
    yield Hit(
        dep.span_of("distributed_executor_backend", "pipeline_parallel_size"),
        {"backend": backend},
        message=_refuse(
            f"NotImplementedError: {name} is not supported. We recommend to remove {name} from your config."
        ),
    )


#: vllm serve refuses a headless launch with API servers from 0.15.1 ([0.15.1] vllm/entrypoints/cli/serve.py:55-59;
#: [0.33.0] vllm/entrypoints/cli/serve.py:66-72)
HEADLESS_API_SINCE = "0.15.1"


@check("startup.headless_api_servers")
def headless_api_servers(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    count = _int(dep, "api_server_count")
    if not _since(dep, HEADLESS_API_SINCE) or _user(dep, "headless") is not True or not count or count <= 0:
        return
    yield Hit(
        dep.span_of("api_server_count"),
        {"api_server_count": count},
        message=_refuse(
            f"--api-server-count={count} cannot be used with --headless (no API servers are started in headless mode)."
        ),
    )


# -- speculative decoding (VL111-VL115) ---------------------------------------------------------------

#: SpeculativeConfig validates with pydantic from 0.11.1 (num_speculative_tokens gt=0, prompt_lookup_* ge=1,
#: [0.11.1] vllm/config/speculative.py:61,107,110); before, ``__post_init__``/``_verify_args`` raise ValueErrors
#: ([0.8.5.post1] vllm/config.py:2303-2338, 2543-2549)
SPEC_PYDANTIC_SINCE = "0.11.1"
#: the --speculative-config JSON option exists from 0.8.0 (0.6/0.7 have --speculative-model & co.)
SPEC_JSON_SINCE = "0.8.0"
_SPEC_NO_MODEL_METHODS = ("ngram", "[ngram]", "ngram_gpu", "suffix", "extract_hidden_states", "mtp")


#: from 0.10.0 SpeculativeConfig is a pydantic dataclass and ``method`` a Literal of the release's methods
#: ([0.10.0] vllm/config.py SpeculativeMethod; [0.10.2] vllm/config/__init__.py; vllm/config/speculative.py from
#: 0.11.0); every value any release's SpeculativeMethod/EagleModelTypes/MTPModelTypes Literal holds, 0.10.0-0.33.0.
#: A method outside all of them is refused by every release; one that only some releases have is not judged.
SPEC_METHOD_LITERAL_SINCE = "0.10.0"
SPEC_METHODS_ANY = frozenset(
    [
        "bailing_hybrid_mtp",
        "bailing_hybrid_v3_mtp",
        "custom_class",
        "deepseek_mtp",
        "dflash",
        "dots3_note_mtp",
        "draft_model",
        "dspark",
        "eagle",
        "eagle3",
        "ernie_mtp",
        "exaone4_5_mtp",
        "exaone_moe_mtp",
        "extract_hidden_states",
        "fly",
        "gemma4_mtp",
        "glm4_moe_lite_mtp",
        "glm4_moe_mtp",
        "glm5_next_mtp",
        "glm_ocr_mtp",
        "hy_v3_mtp",
        "hy_v4_mtp",
        "inkling_mtp",
        "kimi_k3_mtp",
        "longcat_flash_mtp",
        "medusa",
        "mimo_mtp",
        "mimo_v2_mtp",
        "minimax_m3_mtp",
        "mlp_speculator",
        "mtp",
        "nemotron_h_mtp",
        "ngram",
        "ngram_gpu",
        "pangu_ultra_moe_mtp",
        "qwen3_5_mtp",
        "qwen3_next_mtp",
        "qwen4_exp_mtp",
        "step3p5_mtp",
        "step5_mtp",
        "suffix",
    ]
)


def _spec(dep: Deployment) -> Mapping[str, Any] | None:
    if not _since(dep, SPEC_JSON_SINCE):
        return None
    return _json(dep, "speculative_config")


@check("startup.speculative_config_invalid")
def speculative_config_invalid(ctx: CheckContext) -> Iterator[Hit]:
    """The checks SpeculativeConfig runs on its own fields (no draft model needed)."""
    dep = ctx.dep
    assert dep is not None
    if not _since(dep, SPEC_JSON_SINCE):
        yield from _v0_speculative_flags_invalid(dep)
        return
    spec = _spec(dep)
    if spec is None:
        return
    span = dep.span_of("speculative_config")
    pyd = _since(dep, SPEC_PYDANTIC_SINCE)
    method, model = spec.get("method"), spec.get("model")
    n = spec.get("num_speculative_tokens")
    n_ok = isinstance(n, int) and not isinstance(n, bool)

    def hit(msg: str, **data: Any) -> Hit:
        return Hit(span, {"speculative_config": dict(spec), **data}, message=_refuse(msg))

    if n_ok and n <= 0:
        if pyd:
            yield hit(f"num_speculative_tokens {n}: Input should be greater than 0 (SpeculativeConfig)")
        else:  # [0.8.5.post1] vllm/config.py SpeculativeConfig._verify_args
            yield hit(f"Expected num_speculative_tokens to be greater than zero ({n}).")
        return
    if dep.version >= V(SPEC_METHOD_LITERAL_SINCE) and isinstance(method, str) and method not in SPEC_METHODS_ANY:
        yield hit(
            f"method {method!r}: Input should be one of the release's speculative methods ('ngram', 'eagle', "
            f"'eagle3', 'draft_model', 'suffix', 'mtp', ...); {method!r} is not a method of any vLLM release "
            f"{SPEC_METHOD_LITERAL_SINCE}-0.33.0"
        )
        return
    known = method in _SPEC_NO_MODEL_METHODS or method in ("eagle", "eagle3", "medusa", "mlp_speculator", "draft_model")
    if dep.version < V("0.10.0") and model is None and n is not None and method is not None and not known:
        # before 0.10 an unknown method sets no model: the same refusal as no method at all (from 0.10 the
        # method is a pydantic Literal of the release's methods)
        yield hit("num_speculative_tokens was provided without speculative model.")
        return
    if model is None and method is None and n is not None:
        new = "was provided but without speculative model." if pyd else "was provided without speculative model."
        yield hit(f"num_speculative_tokens {new} (set 'method' or 'model' in --speculative-config)")
        return
    is_ngram = method in ("ngram", "[ngram]", "ngram_gpu") or (method is None and model in ("ngram", "[ngram]"))
    if is_ngram:
        lo, hi = spec.get("prompt_lookup_min"), spec.get("prompt_lookup_max")
        for name, v in (("prompt_lookup_min", lo), ("prompt_lookup_max", hi)):
            if isinstance(v, int) and not isinstance(v, bool) and v < 1:
                text = f"{name} {v}: Input should be greater than or equal to 1" if pyd else f"{name}={v} must be > 0"
                yield hit(text)
                return
        if lo is not None and hi is None:
            hi = lo
        if hi is not None and lo is None:
            lo = hi
        if isinstance(lo, int) and isinstance(hi, int) and lo > hi:
            yield hit(f"prompt_lookup_min={lo} must be <= prompt_lookup_max={hi}")
            return
        if n is None:
            yield hit(
                "num_speculative_tokens must be provided with speculative model unless the draft model config "
                "contains an n_predict parameter."
            )
            return


def _v0_speculative_flags_invalid(dep: Deployment) -> Iterator[Hit]:
    """0.6/0.7's flags: SpeculativeConfig.maybe_create_spec_config ([0.6.6.post1] vllm/config.py:1650-1678,
    [0.7.3] vllm/config.py:1818-1830): tokens without a model; the ngram lookup window."""
    model = _user(dep, "speculative_model")
    if model is None:
        if _num(_user(dep, "num_speculative_tokens")) is not None:
            yield Hit(
                dep.span_of("num_speculative_tokens"),
                {},
                message=_refuse("num_speculative_tokens was provided without speculative_model."),
            )
        return
    if model != "[ngram]":
        return
    lo, hi = _num(_user(dep, "ngram_prompt_lookup_min")), _num(_user(dep, "ngram_prompt_lookup_max"))
    lo = 1 if lo is None else lo
    text = None
    if hi is None or hi < 1:
        text = f"ngram_prompt_lookup_max={None if hi is None else _fmt(hi)} must be > 0"
    elif lo < 1:
        text = f"ngram_prompt_lookup_min={_fmt(lo)} must be > 0"
    elif lo > hi:
        text = f"ngram_prompt_lookup_min={_fmt(lo)} cannot be larger than ngram_prompt_lookup_max={_fmt(hi)}"
    if text is not None:
        dest = "ngram_prompt_lookup_max" if dep.setting("ngram_prompt_lookup_max") is not None else "speculative_model"
        yield Hit(dep.span_of(dest), {}, message=_refuse(f"{text} (--speculative-model [ngram], vLLM {dep.version})"))


#: 'tensor_parallel_size' inside --speculative-config is refused with a pointer to draft_tensor_parallel_size
#: from 0.15.1 ([0.15.1] vllm/config/speculative.py:643); the 0.8-0.9 dataclass refuses any unknown key
#: (TypeError); 0.10-0.14 accept it (vLLM's oracle data)
SPEC_TP_KEY_SINCE = "0.15.1"
SPEC_DATACLASS_UNTIL = "0.10.0"


@check("startup.speculative_tensor_parallel_key")
def speculative_tensor_parallel_key(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    spec = _spec(dep)
    if spec is None or "tensor_parallel_size" not in spec:
        return
    if _since(dep, SPEC_TP_KEY_SINCE):
        text = (
            "'tensor_parallel_size' is not a valid argument in the speculative_config. "
            "Please pass 'draft_tensor_parallel_size' instead."
        )
    elif dep.version < V(SPEC_DATACLASS_UNTIL):
        text = "TypeError: SpeculativeConfig.__init__() got an unexpected keyword argument 'tensor_parallel_size'"
    else:
        return
    yield Hit(dep.span_of("speculative_config"), {}, message=_refuse(text))


@check("startup.speculative_ngram_async")
def speculative_ngram_async(ctx: CheckContext) -> Iterator[Hit]:
    """Async scheduling with ngram speculative decoding: refused from 0.10.0 ([0.10.0]
    vllm/engine/arg_utils.py:1142 "Async scheduling is not supported with ..."; [0.33.0] vllm/config/vllm.py
    "… by the V1 model runner with ngram-based speculative decoding")."""
    dep = ctx.dep
    assert dep is not None
    spec = _spec(dep)
    if spec is None or _user(dep, "async_scheduling") is not True or not _since(dep, "0.10.0"):
        return
    method = spec.get("method") or spec.get("model")
    if method not in ("ngram", "[ngram]"):
        return
    if dep.version < V("0.11.1"):  # [0.10.2] vllm/engine/arg_utils.py:1295-1300
        text = "Currently, speculative decoding is not supported with async scheduling."
    elif dep.version < V("0.33.0"):  # [0.11.1]/[0.19.1]/[0.30.0] vllm/config/vllm.py (the list grows per release)
        text = (
            "Currently, async scheduling is only supported with EAGLE/MTP/Draft Model/NGram GPU kind of "
            "speculative decoding"
        )
    else:
        text = "Async scheduling is not supported by the V1 model runner with ngram-based speculative decoding."
    yield Hit(dep.span_of("async_scheduling"), {"method": method}, message=_refuse(text))


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
    if cpu is None or cpu >= gpu:
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


# -- mutually exclusive spellings (VL035) ------------------------------------------------------------

#: (shorthand dest, config dest, key inside it, since, until, vLLM's message)
EXCLUSIVE: tuple[tuple[str, str, str, str, str | None, str], ...] = (
    # [0.13.0] vllm/engine/arg_utils.py: attention_backend vs attention_config.backend
    (
        "attention_backend",
        "attention_config",
        "backend",
        "0.13.0",
        None,
        "attention_backend and attention_config.backend are mutually exclusive",
    ),
    # [0.11.1] vllm/engine/arg_utils.py:1751 cuda_graph_sizes vs compilation_config.cudagraph_capture_sizes
    (
        "cuda_graph_sizes",
        "compilation_config",
        "cudagraph_capture_sizes",
        "0.11.1",
        "0.13.0",
        "cuda_graph_sizes and compilation_config.cudagraph_capture_sizes are mutually exclusive",
    ),
    (
        "max_cudagraph_capture_size",
        "compilation_config",
        "max_cudagraph_capture_size",
        "0.11.1",
        None,
        "max_cudagraph_capture_size and compilation_config.max_cudagraph_capture_size are mutually exclusive",
    ),
    (
        "cudagraph_capture_sizes",
        "compilation_config",
        "cudagraph_capture_sizes",
        "0.11.1",
        None,
        "cudagraph_capture_sizes and compilation_config.cudagraph_capture_sizes are mutually exclusive",
    ),
)


@check("startup.mutually_exclusive_spellings")
def mutually_exclusive_spellings(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    for short, cfg, key, since, until, msg in EXCLUSIVE:
        if not _since(dep, since) or (until is not None and dep.version >= V(until)):
            continue
        if dep.setting(short) is None or _user(dep, short) is None:
            continue
        conf = _json(dep, cfg)
        if conf is None or conf.get(key) is None:
            continue
        yield Hit(dep.span_of(short), {"option": short, "config": f"{cfg}.{key}"}, message=_refuse(msg))


# -- quantization vs the GPU (VL307) -------------------------------------------------------------------

#: ``QuantizationConfig.get_min_capability()`` of the base methods (the Marlin variants vLLM switches to
#: only where the GPU supports them), as (method, since, until, capability) —
#: ``vllm/model_executor/layers/quantization/<method>.py`` of each release
MIN_CAPABILITY: tuple[tuple[str, str, str | None, int], ...] = (
    ("awq", "0.6.0", None, 75),  # awq.py "The AWQ kernel only supports Turing or newer GPUs."
    ("gptq", "0.6.0", None, 60),  # gptq.py
    ("fp8", "0.6.0", "0.14.1", 80),  # fp8.py (Ampere; FP8 Marlin below Ada)
    ("fp8", "0.14.1", None, 75),  # [0.14.1] fp8.py: Turing and newer
    ("compressed-tensors", "0.6.0", None, 70),  # compressed_tensors/compressed_tensors.py
    ("bitsandbytes", "0.6.0", "0.28.0", 70),  # bitsandbytes.py
)


@check("startup.quantization_gpu_capability")
def quantization_gpu_capability(ctx: CheckContext) -> Iterator[Hit]:
    """``VllmConfig._get_quantization_config``: the method's minimum compute capability against the GPU
    (``The quantization method awq is not supported for the current GPU. Minimum capability: 75. Current
    capability: 70.``; [0.10.2] vllm/config/__init__.py:3283-3293, [0.33.0] vllm/config/vllm.py:925-936)."""
    dep = ctx.dep
    assert dep is not None
    gpu = dep.gpu
    cc = gpu.cc_major_minor if gpu is not None and gpu.vendor == "nvidia" else None
    method = dep.value("quantization")
    if cc is None or not isinstance(method, str):
        return
    current = cc[0] * 10 + cc[1]
    for name, since, until, need in MIN_CAPABILITY:
        if name != method or not _since(dep, since) or (until is not None and dep.version >= V(until)):
            continue
        if current >= need:
            return
        assert gpu is not None
        where = (
            "--quantization" if dep.is_set("quantization") else f"the checkpoint's quantization_config ({dep.model})"
        )
        yield Hit(
            dep.span_of("quantization"),
            {"method": method, "minimum": need, "current": current, "gpu": gpu.name},
            message=_refuse(
                f"The quantization method {method} is not supported for the current GPU. Minimum capability: "
                f"{need}. Current capability: {current}. ({gpu.name}; the method comes from {where})"
            ),
        )
        return


# -- compilation / optimization level (VL039) ----------------------------------------------------------

#: ``CompilationConfig.mode`` and ``--optimization-level`` are enums 0-3 validated by pydantic from 0.13.0
#: ([0.13.0] vllm/config/compilation.py CompilationMode, vllm/config/vllm.py OptimizationLevel)
LEVELS_VALIDATED_SINCE = "0.13.0"


@check("startup.compilation_level_invalid")
def compilation_level_invalid(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    if not _since(dep, LEVELS_VALIDATED_SINCE):
        return
    cc = _json(dep, "compilation_config")
    mode = cc.get("mode") if cc is not None else None
    if mode is not None and (isinstance(mode, bool) or mode not in (0, 1, 2, 3)):
        yield Hit(
            dep.span_of("compilation_config"),
            {"mode": mode},
            message=_refuse(
                f"argument --compilation-config/-cc: 1 validation error for CompilationConfig mode: "
                f"Input should be 0, 1, 2 or 3 (got {mode!r})"
            ),
        )
    level = _user(dep, "optimization_level")
    if level is not None and str(level).strip() not in ("0", "1", "2", "3"):
        s = dep.setting("optimization_level")
        written = s.option if s is not None else "--optimization-level"
        yield Hit(
            dep.span_of("optimization_level"),
            {"optimization_level": level},
            message=_refuse(
                f"1 validation error for VllmConfig optimization_level: Input should be 0, 1, 2 or 3 "
                f"(got {str(level)!r} from {written})"
            ),
        )


# -- data-parallel launch modes (VL308) ----------------------------------------------------------------


def _dp_launch_problem(dep: Deployment) -> str | None:
    """The first refusal vLLM gives a data-parallel launch (serve's mode check, then create_engine_config's
    and ParallelConfig's), in its own words for this release; None when it starts."""
    v = dep.version
    ext_flag = _user(dep, "data_parallel_external_lb") is True
    hyb_flag = _user(dep, "data_parallel_hybrid_lb") is True
    multi = _user(dep, "data_parallel_multi_port_external_lb") is True
    rank = _int(dep, "data_parallel_rank") if dep.setting("data_parallel_rank") is not None else None
    start_rank = dep.setting("data_parallel_start_rank") is not None
    is_ext = ext_flag or rank is not None
    is_hyb = hyb_flag or start_rank
    # vllm serve ([0.15.1] vllm/entrypoints/cli/serve.py:68-80; [0.22.1] serve.py:88-98)
    if v >= V("0.22.1") and sum((is_ext, is_hyb and not multi, multi)) > 1:
        return (
            "Cannot use more than one data parallel load balancing mode. Choose one of: "
            "--data-parallel-multi-port-external-lb, --data-parallel-external-lb (or --data-parallel-rank), "
            "--data-parallel-hybrid-lb (or --data-parallel-start-rank)."
        )
    if V("0.15.1") <= v < V("0.22.1") and is_ext and is_hyb:
        return (
            "Cannot use both external and hybrid data parallel load balancing modes. External LB is enabled via "
            "--data-parallel-external-lb or --data-parallel-rank. Hybrid LB is enabled via --data-parallel-hybrid-lb "
            "or --data-parallel-start-rank. Use one mode or the other."
        )
    if V("0.11.1") <= v < V("0.15.1") and ext_flag and hyb_flag:  # [0.11.1] vllm/engine/arg_utils.py:1459
        return "AssertionError: data_parallel_hybrid_lb and data_parallel_external_lb cannot both be True."
    dp = _dp(dep)
    moe = dep.arch.num_experts > 0 if dep.arch is not None else None
    # [0.21.0] vllm/engine/arg_utils.py:1802: external DP is for MoE models only
    if v >= V("0.21.0") and dp > 1 and is_ext and moe is False:
        return (
            "Non-MoE models do not support external data parallel mode. For external load balancing, launch "
            "independent vLLM instances without --data-parallel-* arguments."
        )
    nnodes = _int(dep, "nnodes") or 1
    if v >= V("0.11.1") and ext_flag and rank is None and nnodes <= 1:
        if v >= V("0.27.0"):
            return (
                "Invalid data-parallel launch options: `--data-parallel-external-lb` requires a data-parallel rank. "
                "Set `--data-parallel-rank`, or set `--data-parallel-size` greater than 1 and use `--nnodes` with "
                "`--node-rank`."
            )
        word = "spefified" if v < V("0.12.0") else "specified"  # vLLM's own typo in 0.11.x
        return f"AssertionError: data_parallel_rank or node_rank must be {word} if data_parallel_external_lb is enable."
    # ParallelConfig ([0.9.2] vllm/config.py:1971)
    if v >= V("0.9.2") and rank is not None and dp > 1 and not 0 <= rank < dp:
        return f"data_parallel_rank ({rank}) must be in the range [0, {dp})"
    return None


@check("startup.data_parallel_launch")
def data_parallel_launch(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    names = (
        "data_parallel_external_lb",
        "data_parallel_hybrid_lb",
        "data_parallel_multi_port_external_lb",
        "data_parallel_rank",
        "data_parallel_start_rank",
    )
    if not any(dep.setting(n) is not None for n in names):
        return
    if any(dep.setting(n) is not None and dep.setting(n).value is UNRESOLVED for n in (*names, "data_parallel_size")):  # type: ignore[union-attr]
        return
    problem = _dp_launch_problem(dep)
    if problem is not None:
        yield Hit(dep.span_of(*names), {}, message=_refuse(problem))


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
