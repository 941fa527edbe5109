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

from vlint.argspec.parse import UNRESOLVED
from vlint.checks import CheckContext, Hit, check
from vlint.span import Span
from vlint.version import V, Version

if TYPE_CHECKING:
    from vlint.deployment import Deployment


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


def _span(dep: Deployment, *dests: str) -> Span:
    """Where the first of ``dests`` the launch writes is (the launch itself otherwise)."""
    for d in dests:
        s = dep.setting(d)
        if s is not None:
            return s.full_span
    return dep.invocation.span


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

    def applies(self, version: Version) -> bool:
        return version >= V(self.since) and (self.until is None or version < V(self.until))

    def violated(self, value: float) -> bool:
        return value < self.bound if self.op == ">=" else value <= self.bound


_GE = "Input should be greater than or equal to {bound}"
_GT = "Input should be greater than {bound}"
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
    # max_num_partial_prefills >= 1: _verify_args from 0.7.3 ([0.7.3] vllm/config.py:1605), Field(ge=1)
    # from 0.11.1 ([0.11.1] vllm/config/scheduler.py:51); the option is gone in 0.27.0
    Bound(
        "max_num_partial_prefills",
        ">=",
        1,
        "0.7.3",
        "0.11.1",
        "max_num_partial_prefills ({value}) must be greater than or equal to 1.",
        "vllm/config.py:1605",
    ),
    Bound(
        "max_num_partial_prefills",
        ">=",
        1,
        "0.11.1",
        "0.27.0",
        "max_num_partial_prefills {value}: " + _GE,
        "vllm/config/scheduler.py:51",
    ),
    Bound(
        "max_long_partial_prefills",
        ">=",
        1,
        "0.11.1",
        "0.27.0",
        "max_long_partial_prefills {value}: " + _GE,
        "vllm/config/scheduler.py:55",
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
    # ModelConfig.max_logprobs >= -1 (-1 = the vocabulary) from 0.25.1 ([0.25.1] vllm/config/model.py:222)
    Bound("max_logprobs", ">=", -1, "0.25.1", None, "max_logprobs {value}: " + _GE, "vllm/config/model.py:222"),
    # CacheConfig.block_size Field(gt=0) from 0.11.1 (before, a choices list the parser checks)
    Bound("block_size", ">", 0, "0.11.1", None, "block_size {value}: " + _GT, "vllm/config/cache.py"),
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
    for b in BOUNDS:
        if not b.applies(dep.version) or dep.setting(b.dest) is None:
            continue
        if b.needs is not None and dep.value(b.needs) is not True:
            continue
        v = _num(_user(dep, b.dest))
        if v is None or not b.violated(v):
            continue
        msg = b.message.format(value=_fmt(v), bound=_fmt(b.bound))
        yield Hit(
            _span(dep, b.dest),
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
    yield Hit(_span(dep, "enable_auto_tool_choice"), {}, message=_refuse(AUTO_TOOL_MESSAGE))


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
        _span(dep, "enable_log_outputs"),
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
        _span(dep, "data_parallel_size_local"),
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
        yield Hit(_span(dep, "nnodes"), {"nnodes": nnodes, "world_size": world}, message=_refuse(msg))
        return
    rank = _int(dep, "node_rank")
    if rank is not None and not 0 <= rank < nnodes:
        msg = (
            f"Invalid data-parallel launch options: `--node-rank` must be between 0 and {nnodes - 1}; got "
            f"`--node-rank {rank}`. Set it to this node's zero-based index."
            if new
            else f"AssertionError: node_rank={rank} must be less than nnodes={nnodes}."
        )
        yield Hit(_span(dep, "node_rank", "nnodes"), {"nnodes": nnodes, "node_rank": rank}, message=_refuse(msg))


#: TP must be divisible by the decode-context-parallel size: an assert in create_engine_config from 0.10.2
#: ([0.10.2] vllm/engine/arg_utils.py:1177), a ValueError in ParallelConfig from 0.16.0
#: ([0.26.0] vllm/config/parallel.py:513)
DCP_SINCE = "0.10.2"
DCP_VALUE_ERROR_SINCE = "0.16.0"
#: DCP with GQA/MQA needs TP above the KV-head count from 0.27.0 ([0.27.0] vllm/config/model.py:1339)
DCP_KV_HEADS_SINCE = "0.27.0"


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
        yield Hit(_span(dep, "decode_context_parallel_size"), {"tp": tp, "dcp": dcp}, message=_refuse(text))
        return
    arch = dep.arch
    if _since(dep, DCP_KV_HEADS_SINCE) and arch is not None and arch.kv_lora_rank is None:
        kv = arch.num_kv_heads
        if kv and kv < arch.num_attention_heads and tp <= kv:
            yield Hit(
                _span(dep, "decode_context_parallel_size", "tensor_parallel_size"),
                {"tp": tp, "dcp": dcp, "kv_heads": kv},
                message=_refuse(
                    f"Decode context parallelism for GQA/MQA requires `--tensor-parallel-size` ({tp}) to be greater "
                    f"than the model's total number of KV heads ({kv}). Increase `--tensor-parallel-size` or "
                    "disable decode context parallelism."
                ),
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
        _span(dep, "enable_expert_parallel"),
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


@check("startup.eplb_layout")
def eplb_layout(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    if not _since(dep, EPLB_SINCE) or _user(dep, "enable_eplb") is not True:
        return
    if dep.value("enable_expert_parallel") is not True:
        yield Hit(_span(dep, "enable_eplb"), {}, message=_refuse("enable_expert_parallel must be True to use EPLB."))
        return
    tp, dp = _tp(dep), _dp(dep)
    if dep.version < V(EPLB_TPDP_UNTIL) and tp * dp <= 1:
        yield Hit(
            _span(dep, "enable_eplb"),
            {"tp": tp, "dp": dp},
            message=_refuse(
                "EPLB requires tensor_parallel_size or data_parallel_size to be greater than 1, "
                f"but got TP={tp},DP={dp}."
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
        _span(dep, "distributed_executor_backend", "pipeline_parallel_size"),
        {"backend": backend},
        message=_refuse(
            f"NotImplementedError: {name} is not supported. We recommend to remove {name} from your config."
        ),
    )


#: vllm serve refuses a headless launch with API servers ([0.33.0] vllm/entrypoints/cli/serve.py:66-72)
HEADLESS_API_SINCE = "0.33.0"


@check("startup.headless_api_servers")
def headless_api_servers(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    count = _int(dep, "api_server_count")
    if not _since(dep, HEADLESS_API_SINCE) or _user(dep, "headless") is not True or not count or count <= 0:
        return
    yield Hit(
        _span(dep, "api_server_count"),
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


def _spec(dep: Deployment) -> Mapping[str, Any] | None:
    if not _since(dep, SPEC_JSON_SINCE):
        return None
    return _json(dep, "speculative_config")


@check("startup.speculative_config_invalid")
def speculative_config_invalid(ctx: CheckContext) -> Iterator[Hit]:
    """The checks SpeculativeConfig runs on its own fields (no draft model needed)."""
    dep = ctx.dep
    assert dep is not None
    spec = _spec(dep)
    if spec is None:
        return
    span = _span(dep, "speculative_config")
    pyd = _since(dep, SPEC_PYDANTIC_SINCE)
    method, model = spec.get("method"), spec.get("model")
    n = spec.get("num_speculative_tokens")
    n_ok = isinstance(n, int) and not isinstance(n, bool)

    def hit(msg: str, **data: Any) -> Hit:
        return Hit(span, {"speculative_config": dict(spec), **data}, message=_refuse(msg))

    if n_ok and n <= 0 and pyd:
        yield hit(f"num_speculative_tokens {n}: Input should be greater than 0 (SpeculativeConfig)")
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


#: 'tensor_parallel_size' inside --speculative-config is refused with a pointer to draft_tensor_parallel_size
#: from 0.15.1 ([0.15.1] vllm/config/speculative.py:643)
SPEC_TP_KEY_SINCE = "0.15.1"


@check("startup.speculative_tensor_parallel_key")
def speculative_tensor_parallel_key(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    spec = _spec(dep)
    if spec is None or "tensor_parallel_size" not in spec or not _since(dep, SPEC_TP_KEY_SINCE):
        return
    yield Hit(
        _span(dep, "speculative_config"),
        {},
        message=_refuse(
            "'tensor_parallel_size' is not a valid argument in the speculative_config. "
            "Please pass 'draft_tensor_parallel_size' instead."
        ),
    )


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
    yield Hit(
        _span(dep, "async_scheduling"),
        {"method": method},
        message=_refuse("Async scheduling is not supported with ngram-based speculative decoding."),
    )


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
        _span(dep, "max_cpu_loras"),
        {"max_cpu_loras": cpu, "max_loras": gpu},
        message=_refuse(f"max_cpu_loras ({_fmt(cpu)}) must be >= max_loras ({gpu})"),
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
        yield Hit(_span(dep, short), {"option": short, "config": f"{cfg}.{key}"}, message=_refuse(msg))
