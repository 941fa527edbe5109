"""Deployment wiring (VL601–VL603): what the container around vLLM gives it — GPUs, /dev/shm, the
image. These rules need the facts that the Kubernetes, Helm, compose and ``docker run`` sources
collect (``gpu_count``, ``cluster_gpu_count``, ``shm_mounted``/``shm_size``/``ipc``, ``image``)."""

from __future__ import annotations

from collections.abc import Iterator

from vlint.argspec.parse import Setting
from vlint.checks import CheckContext, Hit, check
from vlint.core.finding import Fix
from vlint.core.lazy_re import lazy_compile
from vlint.core.record import record
from vlint.core.span import Span
from vlint.core.unresolved import UNRESOLVED
from vlint.launch.deployment import Deployment
from vlint.sources.containers.images import ImageRef, parse_image, release_tag, unpinned_why

#: below this a /dev/shm is "small" for tensor/pipeline-parallel workers (NCCL's shared-memory
#: transport and PyTorch's inter-process tensors live there; Docker's default is 64 MiB)
SMALL_SHM = 2**30
_PARALLEL = ("tensor_parallel_size", "pipeline_parallel_size", "prefill_context_parallel_size")


def _int(dep: Deployment, dest: str) -> int | None:
    v = dep.value(dest)
    if v is UNRESOLVED or isinstance(v, bool) or not isinstance(v, int):
        return None
    return v


@record(slots=True)
class World:
    #: GPUs the launch's engine processes use on this node, and in all (multi-node)
    local: int
    total: int
    #: the settings that make it more than one, in argv order of importance
    settings: list[Setting]
    formula: str


def world(dep: Deployment) -> World | None:
    """GPUs one launch needs: TP × PP (× PCP) × the data-parallel ranks it starts itself.

    Data parallelism counts when this launch starts the ranks: all of ``--data-parallel-size`` on one
    node, ``--data-parallel-size-local`` per node, none when it is one rank of an external load
    balancer (``--data-parallel-rank`` / ``--data-parallel-external-lb``). ``--nnodes`` spreads the
    world over nodes (vllm/config/parallel.py, vllm/engine/arg_utils.py 0.33.0)."""
    # an option the target release does not have (prefill context parallelism before 0.2x) counts as 1
    sizes = {d: _int(dep, d) if d in dep.spec.by_dest or dep.is_set(d) else 1 for d in _PARALLEL}
    if any(v is None for v in sizes.values()):
        return None
    local_dp = dep.local_data_parallel()
    dp = _int(dep, "data_parallel_size") if "data_parallel_size" in dep.spec.by_dest else 1
    if local_dp is None or dp is None:
        return None
    dpl = dep.user_value("data_parallel_size_local")
    external = local_dp == 1 and dp > 1 and not isinstance(dpl, int)
    base = 1
    for v in sizes.values():
        base *= v or 1
    nnodes = _int(dep, "nnodes") or 1
    local = base * local_dp
    if nnodes > 1:
        local = max(1, local // nnodes)
    settings = [
        s
        for d in (*_PARALLEL, "data_parallel_size", "data_parallel_size_local")
        if (s := dep.setting(d)) is not None and isinstance(s.value, int) and s.value > 1
    ]
    parts = [f"{d.split('_parallel')[0].replace('_', '-')} {v}" for d, v in sizes.items() if v and v > 1]
    if local_dp > 1:
        parts.append(f"{'local ' if isinstance(dpl, int) else ''}data-parallel {local_dp}")
    formula = " × ".join(parts) or "no parallelism"
    return World(local, base * (1 if external else dp), settings, formula)


def _anchor(dep: Deployment, w: World, fallback: Span | None) -> Span:
    if w.settings:
        return w.settings[0].full_span
    return fallback or dep.invocation.span


@check("deployment.gpu_count")
def gpu_count(ctx: CheckContext) -> Iterator[Hit]:
    """VL601: the GPUs the pod (container, docker run) gets vs the GPUs the launch's world needs."""
    dep = ctx.dep
    assert dep is not None
    inv = dep.invocation
    w = world(dep)
    if w is None:
        return
    if dep.setting("tensor_parallel_size") is None and (inv.opaque_args or dep.args.opaque):
        return  # the parallelism may sit in arguments vlint cannot see
    cluster = inv.facts.get("cluster_gpu_count")
    fact = inv.facts.get("gpu_count") or inv.facts.get("tpu_count")
    if cluster is not None and isinstance(cluster.value, int):
        have, need, where, span = cluster.value, w.total, cluster.detail or "the group", cluster.span
    else:
        have = dep.gpu_count if dep.gpu_count is not None else (fact.value if fact is not None else None)
        if not isinstance(have, int) or isinstance(have, bool):
            return
        need, span = w.local, fact.span if fact is not None else None
        where = fact.detail if fact is not None and fact.detail else (dep.gpu_reason or "the GPU request")
    if need == have or have <= 0:
        return
    ray = dep.value("distributed_executor_backend") == "ray"
    data = {
        "need": need,
        "have": have,
        "formula": w.formula,
        "where": where,
        "unit": "chips" if "tpu" in where else "GPUs",
    }
    if need > have:
        if ray and cluster is None:
            return  # a Ray cluster may bring GPUs of other nodes
        yield Hit(
            _anchor(dep, w, span),
            {**data, "verdict": "fewer"},
            message=(
                f"the launch needs {need} {data['unit']} ({w.formula}) but gets {have} ({where}): vLLM refuses to "
                f'start with "World size ({need}) is larger than the number of available GPUs ({have}) in this '
                'node" (or waits for GPUs that never come)'
            ),
            severity="error",
            fix=Fix(f"request {need} GPUs for the container, or lower the parallelism to {have}"),
        )
    else:
        yield Hit(
            span or _anchor(dep, w, None),
            {**data, "verdict": "more"},
            message=(
                f"{have} {data['unit']} are requested ({where}) but the launch uses {need} ({w.formula}): "
                f"{have - need} stay idle while the scheduler reserves them"
            ),
            severity="warning",
            fix=Fix(f"request {need} GPUs, or raise --tensor-parallel-size to use all {have}"),
        )


# -- /dev/shm ----------------------------------------------------------------------------------
_QUANTITY = lazy_compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kKmMgGtTpPeE]?)(i?)([bB]?)\s*$")
_POWERS = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5, "e": 6}


def parse_quantity(text: str, *, docker: bool = False) -> int | None:
    """Bytes of a size: Kubernetes quantities (``15Gi`` binary, ``20G`` decimal) and Docker sizes
    (``1g``, ``64m``, ``2gb``: always binary). None when unreadable."""
    m = _QUANTITY.match(text)
    if m is None:
        return None
    number, unit, binary, b = m.groups()
    power = _POWERS[unit.lower()]
    # Docker's units (and a trailing b) are powers of 1024; Kubernetes' lower-case k and plain
    # M/G/T are powers of 1000 unless followed by i.
    base = 1024 if (binary or docker or b or unit in ("m", "g", "t")) else 1000
    if unit == "m" and not docker and not b:
        return None  # "m" is milli in Kubernetes: not a size anyone means for /dev/shm
    size = float(number) * base**power
    return int(size) if size < 2**63 else None  # 400 digits parse as inf: no size anyone means


def _gib(n: int) -> str:
    return f"{n / 2**30:.2f} GiB" if n >= 2**28 else f"{n / 2**20:.0f} MiB"


#: sources whose launches run in a Kubernetes pod (its /dev/shm is the pod's volumes, not Docker's 64 MiB
#: default; a values file's pod is written by a chart that is not here)
_POD_SOURCES = frozenset({"kubernetes", "helm", "helm-values"})


@check("deployment.dev_shm")
def dev_shm(ctx: CheckContext) -> Iterator[Hit]:
    """VL602: TP/PP > 1 in a container whose /dev/shm is missing or small."""
    dep = ctx.dep
    assert dep is not None
    facts = dep.invocation.facts
    w = world(dep)
    if w is None or w.local <= 1:
        return
    ipc = facts.get("ipc")
    if ipc is not None and str(ipc.value).strip().lower() == "host":
        return
    mounted = facts.get("shm_mounted")
    size = facts.get("shm_size")
    anchor = _anchor(dep, w, None)
    data = {"workers": w.local, "formula": w.formula}
    if size is not None and str(size.value) != "unlimited":
        n = parse_quantity(str(size.value), docker=mounted is None)
        if n is not None and n < SMALL_SHM:
            yield Hit(
                size.span or anchor,
                {**data, "size": str(size.value), "bytes": n},
                message=(
                    f"/dev/shm is only {_gib(n)} ({size.detail or size.value}) for {w.local} GPU workers "
                    f"({w.formula}): NCCL and PyTorch exchange tensors through shared memory and fail with "
                    "'No space left on device' or bus errors when it runs out"
                ),
                fix=Fix("give /dev/shm at least 1 GiB (an emptyDir with medium: Memory, or --shm-size / --ipc=host)"),
            )
        return
    if mounted is not None and mounted.value is False:
        where = "but nothing is mounted at /dev/shm: the container gets the runtime's default of 64 MiB"
        fix = "mount an emptyDir with medium: Memory at /dev/shm (sizeLimit of a few GiB)"
    elif mounted is None and size is None and "image" in facts and dep.invocation.source not in _POD_SOURCES:
        where = "in a container without --ipc=host or --shm-size: Docker gives it a 64 MiB /dev/shm"
        fix = "add --ipc=host (or --shm-size=8g) to the container"
    else:
        return
    yield Hit(
        anchor,
        {**data, "size": None},
        message=f"{w.local} GPU workers ({w.formula}) {where}, too small for NCCL's shared-memory transport",
        fix=Fix(fix),
    )


# -- image tag ---------------------------------------------------------------------------------
@check("deployment.unpinned_image")
def unpinned_image(ctx: CheckContext) -> Iterator[Hit]:
    """VL603: the vLLM image is ``latest``, a nightly, a branch, or has no tag."""
    dep = ctx.dep
    assert dep is not None
    fact = dep.invocation.facts.get("image")
    if fact is None or fact.span is None:
        return
    ref = parse_image(str(fact.value))
    why = unpinned_why(ref) if ref is not None else None
    if ref is None or why is None:
        return
    yield Hit(
        fact.span,
        {"image": ref.raw, "tag": ref.tag or None, "why": why},
        fix=Fix(_pin_advice(ref, dep)),
    )


def _pin_advice(ref: ImageRef, dep: Deployment) -> str:
    """Pin the release vlint checked the launch against (the configured one, else the newest bundled),
    so that what runs is what was checked — never a fixed example release."""
    tag = release_tag(ref, dep.version)
    if tag is not None:
        return f"pin the release this launch was checked against ({tag}) or a digest (@sha256:…)"
    return (
        f"pin a tag of {ref.repository} that ships vLLM {dep.version} (the release this launch was checked "
        "against) or a digest (@sha256:…)"
    )
