"""When a launch names no GPU: the memory model over reference GPUs (``gpu_fit``).

A launch file rarely says which GPU it runs on (a shell script, a compose file without a node label).
Rather than say nothing, vlint runs the memory model for the launch as written — its own tensor and
pipeline parallel sizes, and the defaults the target release picks *for each GPU* — on a list of
reference GPUs (:data:`DEFAULT_REFERENCE_GPUS`, or ``[tool.vlint] reference-gpus``) and reports on which
it starts. ``[tool.vlint] gpu`` (or ``--gpu``) remains the way to say "our GPUs": then the launch gets
the full memory model instead.

Pure over a resolved :class:`~vlint.launch.deployment.Deployment` (bundled data only). A GPU whose margin lies
inside the memory model's measured uncertainty is "too close to call", never a failure.
"""

from __future__ import annotations

from vlint.core.record import record, replace
from vlint.core.typing_names import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vlint.hardware.gpus import GpuSpec
    from vlint.launch.deployment import Deployment
    from vlint.memory import MemoryEstimate

#: the GPUs people serve on, one of each memory class (issue 12), as vlint's GPU catalog names them
DEFAULT_REFERENCE_GPUS = (
    "T4",
    "L4",
    "A10G",
    "RTX-4090",
    "A100-40GB",
    "L40S",
    "A100-80GB",
    "H100",
    "H200",
    "B200",
    "MI300X",
)


@record(frozen=True, slots=True)
class GpuFit:
    """The launch on one reference GPU type (× the GPUs one replica uses)."""

    gpu: str
    total_gib: float
    count: int
    starts: bool
    #: the margin lies inside the memory model's measured uncertainty
    too_close_to_call: bool
    kv_cache_tokens: int
    max_concurrency: float
    failure: str | None
    #: GPU memory one GPU needs for the launch to start at its gpu_memory_utilization: (weights +
    #: activation peak + non-torch + CUDA graphs in the budget + one max_model_len request of KV) / gmu
    need_gib: float
    gpu_memory_utilization: float = 0.9
    memory: MemoryEstimate | None = None
    #: what the reference devices are: ``GPU``, ``TPU``, ``Gaudi device``, ``CPU host`` (whose
    #: ``total_gib`` is the host memory per NUMA node) or ``accelerator option`` (one of the GPU types and
    #: counts a SkyPilot task may launch on)
    kind: str = "GPU"

    @property
    def verdict(self) -> str:
        return "too close to call" if self.too_close_to_call else "starts" if self.starts else "fails"


def reference_gpus(names: tuple[str, ...] | list[str] | None = None) -> list[tuple[str, GpuSpec]]:
    """(name as configured, spec) of the reference GPUs, smallest memory first; unknown names skipped
    (the configuration is validated where it is read)."""
    from vlint.hardware.gpus import lookup_gpu

    out = []
    for n in names or DEFAULT_REFERENCE_GPUS:
        spec = lookup_gpu(n)
        if spec is not None:
            out.append((n, spec))
    return sorted(out, key=lambda x: x[1].total_gib)


def not_a_gpu(dep: Deployment) -> str | None:
    """The platform, when the launch says it runs on something other than a CUDA/ROCm GPU."""
    from vlint.launch.platform import platform_of

    return platform_of(dep)


def why_no_fit(dep: Deployment) -> str | None:
    """Why the launch gets no ``gpu_fit`` (None: it gets one)."""
    from vlint.launch.platform import CPU, DISPLAY, HPU, TPU

    if dep.gpu is not None:
        return "the GPU is known"
    other = not_a_gpu(dep)
    if other is not None and other not in (CPU, TPU, HPU):
        return (
            f"it runs on {DISPLAY.get(other, other)}: the memory model reproduces vLLM's CUDA/ROCm, CPU, TPU "
            "and Gaudi workers"
        )
    return None


#: host memory per NUMA node a CPU launch that leaves VLLM_CPU_KVCACHE_SPACE unset is answered over
#: (vLLM 0.13+ takes half of it for the KV cache)
REFERENCE_HOST_GIB = (16, 32, 64, 128, 256, 512)


def unknown_gpu_label(dep: Deployment) -> str | None:
    """The GPU type the files state when vlint's GPU catalog does not know it (a node label, a
    resource profile such as KubeAI's ``rtx4070-8gb``): the launch then gets ``gpu_fit`` over the
    reference GPUs, worded as such (never as if the stated GPU were one of them)."""
    if dep.gpu is not None:
        return None
    facts = dep.invocation.facts
    label = facts.get("gpu_label") or facts.get("gpu_type")
    return str(label.value) if label is not None else None


def _ranks(dep: Deployment) -> int:
    """GPUs one replica of the launch takes: TP × PP × the data-parallel ranks it starts itself."""
    n = dep.local_data_parallel() or 1
    for d in ("tensor_parallel_size", "pipeline_parallel_size"):
        v = dep.value(d)
        if isinstance(v, int) and not isinstance(v, bool) and v > 1:
            n *= v
    return n


def need_gib(m: MemoryEstimate, gmu: float) -> float:
    """GPU memory one GPU needs for the launch to start at ``gmu`` (see :attr:`GpuFit.need_gib`)."""
    graphs = m.cuda_graph_gib if m.cuda_graph_in_budget else 0.0
    used = m.weights_gib + m.activation_gib + m.non_torch_gib + graphs + max(m.request_kv_gib, 0.0)
    return used / gmu if gmu > 0 else float("inf")


def compute_gpu_fit(dep: Deployment) -> tuple[list[GpuFit] | None, str | None]:
    """(one entry per reference GPU, None) or (None, why there is none)."""
    if dep.arch is None:
        from vlint.launch.memory_inputs import blocked_by as why_blocked

        return None, why_blocked(dep)
    why = why_no_fit(dep)
    if why is not None:
        return None, why
    from vlint.launch.memory_inputs import not_modelled

    why = not_modelled(dep)
    if why is not None:
        return None, why
    from vlint.launch.platform import CPU, HPU, TPU

    platform = not_a_gpu(dep)
    if platform in (TPU, HPU):
        return _accelerator_fit(dep, platform)
    if platform == CPU:
        return _host_fit(dep)
    if "accelerator_options" in dep.invocation.facts:
        return _options_fit(dep)
    from vlint.launch.memory_inputs import blocked_by, estimate_on_gpu, feature_inputs

    count = _ranks(dep)
    out: list[GpuFit] = []
    features = feature_inputs(dep)  # the same on every GPU
    for name, spec in reference_gpus(dep.reference_gpus):
        m = estimate_on_gpu(dep, spec, count, features=features)
        if m is None:
            return None, blocked_by(replace(dep, gpu=spec))
        gmu = m.budget_gib / m.total_gib if m.total_gib > 0 else 0.9
        out.append(_entry(name, spec.total_gib, count, m, need_gib(m, gmu), gmu, "GPU"))
    return out, None


#: the kind of a gpu_fit entry for one of a SkyPilot task's accelerator options
OPTION = "accelerator option"
#: SkyPilot sets this to the GPUs per node of the accelerators it picked
_GPUS_PER_NODE = "SKYPILOT_NUM_GPUS_PER_NODE"


def _options_fit(dep: Deployment) -> tuple[list[GpuFit] | None, str | None]:
    """A SkyPilot task that may run on any of several accelerators (``{L4:8, A100:4, A100-80GB:2}``):
    the memory model on each as written, ``$SKYPILOT_NUM_GPUS_PER_NODE`` being that option's count."""
    from vlint.hardware.gpus import lookup_gpu
    from vlint.launch.memory_inputs import estimate_on_gpu

    out = []
    for name, count in dep.invocation.facts["accelerator_options"].value:
        spec = lookup_gpu(name)
        if spec is None:
            continue
        probe = _with_gpus_per_node(dep, count)
        m = estimate_on_gpu(probe, spec, count)
        if m is None:
            from vlint.launch.memory_inputs import blocked_by

            return None, blocked_by(replace(probe, gpu=spec))
        gmu = m.budget_gib / m.total_gib if m.total_gib > 0 else 0.9
        out.append(_entry(name, spec.total_gib, _ranks(probe), m, need_gib(m, gmu), gmu, OPTION))
    if not out:
        return None, "none of the task's accelerators is in vlint's GPU catalog"
    return sorted(out, key=lambda f: (f.total_gib * f.count, f.total_gib)), None


def _with_gpus_per_node(dep: Deployment, count: int) -> Deployment:
    """``dep`` with the settings written as ``$SKYPILOT_NUM_GPUS_PER_NODE`` set to ``count``."""
    from vlint.core.unresolved import UNRESOLVED

    settings = dict(dep.args.settings)
    changed = False
    for dest, st in settings.items():
        if st.value is UNRESOLVED and _GPUS_PER_NODE in (st.raw or ""):
            settings[dest] = replace(st, value=count)
            changed = True
    if not changed:
        return dep
    return replace(dep, args=replace(dep.args, settings=settings), _memory_status=None)


def _accelerator_fit(dep: Deployment, platform: str) -> tuple[list[GpuFit] | None, str | None]:
    """A TPU or Gaudi launch whose device type is not named: the reference devices of its platform."""
    from vlint.hardware.accelerators import reference_accelerators
    from vlint.launch.memory_inputs import (
        accelerator_of,
        estimate_on_accelerator,
        hpu_graph_reserved,
        settings_blocked,
    )
    from vlint.memory.platforms import device_memory_needed

    why = settings_blocked(dep)
    if why is not None or accelerator_of(dep) is not None:
        return None, why or "the device is known"
    count = _ranks(dep)
    kind = "TPU" if platform == "TPU" else "Gaudi device"
    out = []
    for acc in reference_accelerators(platform):
        m = estimate_on_accelerator(dep, acc)
        gmu = m.budget_gib / m.total_gib if m.total_gib > 0 else 0.9
        need = device_memory_needed(m, acc.platform, gmu, hpu_graph_reserved(dep))
        out.append(_entry(acc.name, acc.hbm_gib, count, m, need, gmu, kind))
    return out, None


def _host_fit(dep: Deployment) -> tuple[list[GpuFit] | None, str | None]:
    """A CPU launch on vLLM 0.13+ without VLLM_CPU_KVCACHE_SPACE: vLLM takes half the host's memory per
    NUMA node, which vlint does not know, so the answer is over reference host sizes."""
    from vlint.launch.memory_inputs import cpu_space, estimate_on_cpu, settings_blocked
    from vlint.memory.platforms import KvSpace

    space = cpu_space(dep)
    why = settings_blocked(dep)
    if why is not None or space.bytes is not None or space.why.endswith("not resolved"):
        return None, why or space.why
    count = _ranks(dep)
    out = []
    for host in REFERENCE_HOST_GIB:
        half = KvSpace("cpu", host * 2**29, f"half of {host} GiB per NUMA node, {space.why}")
        m = estimate_on_cpu(dep, half)
        out.append(_entry(f"{host} GiB host", float(host), count, m, 2 * m.request_kv_gib, 1.0, "CPU host"))
    return out, None


def _entry(name: str, gib: float, count: int, m: MemoryEstimate, need: float, gmu: float, kind: str) -> GpuFit:
    return GpuFit(
        gpu=name,
        total_gib=gib,
        count=count,
        starts=m.starts,
        too_close_to_call=m.too_close_to_call,
        kv_cache_tokens=int(m.kv_cache_tokens) if m.starts else 0,
        max_concurrency=float(m.max_concurrency) if m.starts else 0.0,
        failure=m.failure,
        need_gib=need,
        gpu_memory_utilization=round(gmu, 4),
        memory=m,
        kind=kind,
    )


def gpu_fit(dep: Deployment) -> list[GpuFit] | None:
    """:func:`compute_gpu_fit`'s entries, computed once per deployment."""
    if dep._gpu_fit is None:
        dep._gpu_fit = compute_gpu_fit(dep)
    return dep._gpu_fit[0]


def gpu_fit_unavailable(dep: Deployment) -> str | None:
    if dep._gpu_fit is None:
        dep._gpu_fit = compute_gpu_fit(dep)
    return dep._gpu_fit[1]


def fit_dict(f: GpuFit) -> dict[str, Any]:
    """One ``deployments[].gpu_fit`` entry of ``vlint explain --format json``."""
    return {
        "gpu": f.gpu,
        "total_gib": round(f.total_gib, 2),
        "count": f.count,
        "starts": f.starts,
        "too_close_to_call": f.too_close_to_call,
        "kv_cache_tokens": f.kv_cache_tokens,
        "max_concurrency": round(f.max_concurrency, 2),
        "gpu_memory_needed_gib": round(f.need_gib, 2),
        "gpu_memory_utilization": f.gpu_memory_utilization,
        "failure": f.failure,
        "kind": f.kind,
    }


def label(f: GpuFit) -> str:
    return f"{f.count} × {f.gpu}" if f.count > 1 else f.gpu
