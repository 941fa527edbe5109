"""ParallelConfig: the parallel layout (VL301-VL311) and data-parallel launch modes (VL308)."""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks import CheckContext, Hit, check
from vlint.core.typing_names import TYPE_CHECKING
from vlint.core.unresolved import UNRESOLVED
from vlint.core.version import V

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment
from vlint.checks.startup.common import _fmt, _int, _num, _refuse, _since, _user

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
