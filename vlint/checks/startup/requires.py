"""Settings that need another setting (VL040): vLLM refuses one option without the other."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from vlint.checks import CheckContext, Hit, check
from vlint.core.record import record
from vlint.core.typing_names import TYPE_CHECKING
from vlint.core.version import V

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment
from vlint.checks.startup.common import _json, _refuse, _user
from vlint.checks.startup.speculative import is_mtp_method, no_mtp_layers
from vlint.core.unresolved import UNRESOLVED
from vlint.resolve.defaults import WARN_ONLY_FALLBACKS, _truthy, v1_fallback


def _on(dep: Deployment, dest: str) -> bool:
    """The launch set ``dest`` to something other than off/empty/"none"."""
    v = _user(dep, dest)
    return v not in (None, False, "", "none", [], {}) and v != ()


def _unset(dep: Deployment, *dests: str) -> bool:
    """None of ``dests`` is set (a setting vlint could not resolve counts as set)."""
    return all(dep.setting(d) is None for d in dests)


#: --spec-method values that draft with a model of their own (vLLM's oracle data: dflash refused without one
#: in 0.22.1 and 0.27.1)
_DRAFT_METHODS = frozenset({"eagle", "eagle3", "medusa", "mlp_speculator", "draft_model", "dflash"})


def _int_of(dep: Deployment, dest: str) -> int | None:
    v = _user(dep, dest)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def _text_only(dep: Deployment) -> bool:
    return dep.arch is not None and not dep.arch.is_multimodal


def _kvt(dep: Deployment) -> dict[str, object]:
    return dict(_json(dep, "kv_transfer_config") or {})


def _backend_011(dep: Deployment) -> object:
    """The structured-outputs backend of a 0.11 launch: the JSON option's, the deprecated flag's, or auto."""
    obj = _json(dep, "structured_outputs_config") or {}
    return obj.get("backend") or _user(dep, "guided_decoding_backend") or "auto"


def _so(dep: Deployment, key: str, backends: tuple[str, ...]) -> bool:
    """--structured-outputs-config sets ``key`` with a backend outside ``backends`` (default ``auto``)."""
    obj = _json(dep, "structured_outputs_config") or {}
    return obj.get(key) is True and obj.get("backend", "auto") not in backends


@record(frozen=True)
class Requirement:
    """``dest`` set while ``missing(dep)`` holds is refused from release ``since`` (until ``until``)."""

    dest: str
    missing: Callable[[Deployment], bool]
    since: str
    until: str | None
    message: str
    where: str
    #: also when the setting is given empty (``--kv-transfer-config '{}'``)
    empty_counts: bool = False


def _hybrid_lb_without_local_size(dep: Deployment) -> bool:
    """--data-parallel-hybrid-lb without what says the ranks of this node (its two release wordings below)."""
    return (
        _unset(dep, "data_parallel_size_local", "data_parallel_rank", "nnodes", "data_parallel_start_rank")
        and _user(dep, "data_parallel_external_lb") is not True
    )


#: Each row: the first and last release whose source has the refusal (sampled with vLLM's oracle data,
#: tests/data/oracle/), the message vLLM raises, and where.
REQUIREMENTS: tuple[Requirement, ...] = (
    Requirement(
        "collect_detailed_traces",
        lambda dep: _unset(dep, "otlp_traces_endpoint"),
        "0.11.1",
        None,
        "collect_detailed_traces requires `--otlp-traces-endpoint` to be set.",
        "[0.11.2] vllm/config/observability.py:119-122 (ObservabilityConfig._validate_tracing_config)",
    ),
    Requirement(
        "enable_per_request_metrics",
        lambda dep: _user(dep, "disable_log_stats") is True,
        "0.25.0",
        None,
        "Error: --enable-per-request-metrics requires engine statistics logging; remove --disable-log-stats to "
        "enable per-request metrics.",
        "[0.25.1] vllm/entrypoints/openai/cli_args.py:400-406, [0.33.0] vllm/entrypoints/common/cli_args.py:565-570",
    ),
    Requirement(
        "per_request_spec_decode_metrics",
        lambda dep: _unset(dep, "speculative_config", "spec_method", "spec_model", "spec_tokens"),
        "0.30.0",
        None,
        "--per-request-spec-decode-metrics requires speculative decoding to be enabled (via --speculative-config).",
        "[0.30.0] vllm/config/vllm.py:1515-1521, [0.33.0] vllm/config/vllm.py:1734-1741",
    ),
    Requirement(
        "limit_mm_per_prompt",
        _text_only,
        "0.6.0",
        "0.10.0",
        "`limit_mm_per_prompt` is only supported for multimodal models.",
        "[0.6.4.post1] vllm/config.py:280-282, [0.9.2] vllm/config.py:707-709 (ModelConfig._init_multimodal_config)",
    ),
    Requirement(
        "mm_processor_kwargs",
        _text_only,
        "0.9.2",
        "0.10.0",
        "`mm_processor_kwargs` is only supported for multimodal models.",
        "[0.9.2] vllm/config.py:710-712",
    ),
    Requirement(
        "disable_mm_preprocessor_cache",
        _text_only,
        "0.9.2",
        "0.10.0",
        "`disable_mm_preprocessor_cache` is only supported for multimodal models.",
        "[0.9.2] vllm/config.py:713-715",
    ),
    Requirement(
        "structured_outputs_config",
        lambda dep: _so(dep, "disable_any_whitespace", ("xgrammar", "guidance")),
        "0.11.1",
        None,
        "disable_any_whitespace is only supported for xgrammar and guidance backends.",
        "[0.11.2] vllm/config/structured_outputs.py:82-86 (StructuredOutputsConfig._validate_structured_output_config)",
    ),
    Requirement(
        "structured_outputs_config",
        lambda dep: _so(dep, "disable_additional_properties", ("guidance",)),
        "0.11.1",
        None,
        "disable_additional_properties is only supported for the guidance backend.",
        "[0.11.2] vllm/config/structured_outputs.py:87-91",
    ),
    Requirement(
        "kv_transfer_config",
        lambda dep: isinstance(_kvt(dep).get("kv_connector"), str) and _kvt(dep).get("kv_role") is None,
        "0.11.1",
        None,
        "Please specify kv_role when kv_connector is set, supported roles are ('kv_producer', 'kv_both', "
        "'kv_consumer')",
        "[0.11.2] vllm/config/kv_transfer.py:96-99",
    ),
    Requirement(
        "kv_transfer_config",
        lambda dep: _kvt(dep).get("kv_connector") is None and _kvt(dep).get("kv_connector_module_path") is None,
        "0.27.0",
        None,
        "Connector name is not set in KVTransferConfig",
        "[0.27.1] vllm/distributed/kv_transfer/kv_connector/factory.py:101",
        empty_counts=True,
    ),
    Requirement(
        "guided_decoding_disable_any_whitespace",
        lambda dep: _backend_011(dep) not in ("xgrammar", "guidance"),
        "0.11.1",
        "0.12.0",
        "disable_any_whitespace is only supported for xgrammar and guidance backends.",
        "[0.11.2] vllm/engine/arg_utils.py:1726-1728 (the deprecated flag is copied into StructuredOutputsConfig), "
        "vllm/config/structured_outputs.py:82-86",
        empty_counts=True,
    ),
    Requirement(
        "guided_decoding_disable_additional_properties",
        lambda dep: _backend_011(dep) != "guidance",
        "0.11.1",
        "0.12.0",
        "disable_additional_properties is only supported for the guidance backend.",
        "[0.11.2] vllm/engine/arg_utils.py:1730-1732, vllm/config/structured_outputs.py:87-91",
        empty_counts=True,
    ),
    Requirement(
        "num_redundant_experts",
        lambda dep: _user(dep, "enable_eplb") is not True and _user(dep, "num_redundant_experts") not in (0, None),
        "0.9.2",
        "0.10.0",
        "num_redundant_experts should be used with EPLB.",
        "[0.9.2] vllm/config.py:1999-2002",
    ),
    Requirement(
        "num_scheduler_steps",
        lambda dep: (
            (_int_of(dep, "num_scheduler_steps") or 1) > 1
            and (dep.setting("speculative_model") is not None or dep.setting("speculative_config") is not None)
        ),
        "0.6.0",
        "0.10.0",
        "Speculative decoding is not supported with multi-step (--num-scheduler-steps > 1)",
        "[0.6.4.post1] vllm/engine/arg_utils.py:1058-1061, [0.8.2] vllm/engine/arg_utils.py:1376",
    ),
    Requirement(
        "num_scheduler_steps",
        lambda dep: (
            (_int_of(dep, "num_scheduler_steps") or 1) > 1
            and dep.value("enable_chunked_prefill") is True
            and (_int_of(dep, "pipeline_parallel_size") or 1) > 1
        ),
        "0.6.0",
        "0.10.0",
        "Multi-Step Chunked-Prefill is not supported for pipeline-parallel-size > 1",
        "[0.6.4.post1] vllm/engine/arg_utils.py:1062-1064",
    ),
    Requirement(
        "default_mm_loras",
        _text_only,
        "0.10.2",
        None,
        "Default modality-specific LoRA(s) were provided for a non multimodal model",
        "[0.10.2] vllm/engine/arg_utils.py:1377, [0.33.0] vllm/engine/arg_utils.py:2685-2689",
    ),
    Requirement(
        "spec_method",
        lambda dep: (
            _user(dep, "spec_method") in _DRAFT_METHODS
            and _unset(dep, "spec_model", "speculative_config")
            and dep.setting("spec_tokens") is not None
        ),
        "0.22.0",
        None,
        "num_speculative_tokens was provided but without speculative model (--spec-method needs --spec-model).",
        "[0.22.1] vllm/config/speculative.py:579",
    ),
    Requirement(
        "spec_method",
        lambda dep: (
            is_mtp_method(_user(dep, "spec_method"))
            and _unset(dep, "spec_model", "speculative_config")
            and no_mtp_layers(dep)
        ),
        "0.22.0",
        None,
        "Unsupported speculative method: 'mtp' (an MTP method drafts with the target's MTP layers, and this model "
        "has none)",
        "[0.25.1] vllm/config/speculative.py:874, [0.33.0] vllm/config/speculative.py:1499",
    ),
    Requirement(
        "spec_method",
        lambda dep: _user(dep, "spec_method") == "custom_class" and _unset(dep, "spec_model", "speculative_config"),
        "0.27.0",
        None,
        "method='custom_class' requires 'model' to contain the custom proposer module path "
        "(e.g., 'my_module.MyProposer').",
        "[0.27.1] vllm/config/speculative.py:732",
    ),
    Requirement(
        "data_parallel_hybrid_lb",
        _hybrid_lb_without_local_size,
        "0.11.1",
        "0.27.0",
        "AssertionError: data_parallel_size_local must be set to use data_parallel_hybrid_lb.",
        "[0.11.2] vllm/engine/arg_utils.py:1543-1546, [0.25.1] vllm/engine/arg_utils.py:2033",
    ),
    Requirement(
        "data_parallel_hybrid_lb",
        _hybrid_lb_without_local_size,
        "0.27.0",
        "0.28.0",
        "Invalid data-parallel launch options: `--data-parallel-hybrid-lb` requires `--data-parallel-size-local`. "
        "Set it to the number of data-parallel ranks on this node.",
        "[0.27.1] vllm/engine/arg_utils.py:2021-2030",
    ),
)


@check("startup.setting_requires")
def setting_requires(ctx: CheckContext) -> Iterator[Hit]:
    dep = ctx.dep
    assert dep is not None
    for r in REQUIREMENTS:
        if dep.version < V(r.since) or (r.until is not None and dep.version >= V(r.until)):
            continue
        given = dep.setting(r.dest) is not None and _user(dep, r.dest) is not None
        if not (_on(dep, r.dest) or (r.empty_counts and given)) or not r.missing(dep):
            continue
        yield Hit(
            dep.span_of(r.dest),
            {"setting": r.dest, "where": r.where},
            message=_refuse(f"{r.message} ({r.where}, vLLM {dep.version})"),
        )


@check("startup.v1_unsupported_feature")
def v1_unsupported_feature(ctx: CheckContext) -> Iterator[Hit]:
    """0.8.0-0.10.x with VLLM_USE_V1=1: a feature the V1 engine does not support is refused instead of
    falling back to V0 (``_raise_or_fallback``: "VLLM_USE_V1=1 is not supported with {feature}.",
    [0.9.2] vllm/engine/arg_utils.py:1726-1733, [0.10.2] :1794)."""
    dep = ctx.dep
    assert dep is not None
    flag = dep.env.get("VLLM_USE_V1")
    if not V("0.8.0") <= dep.version < V("0.11.0") or not isinstance(flag, str) or not _truthy(flag):
        return
    user = {d: s.value for d, s in dep.args.settings.items() if s.value is not UNRESOLVED}
    feature = v1_fallback(dep.version, user, dep.gpu)
    if feature is None or feature in WARN_ONLY_FALLBACKS:
        return
    yield Hit(
        dep.invocation.span,
        {"feature": feature},
        message=_refuse(f"VLLM_USE_V1=1 is not supported with {feature}. (vLLM {dep.version})"),
    )
