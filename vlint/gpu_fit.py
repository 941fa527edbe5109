"""When a launch names no GPU: the memory model over reference GPUs (``gpu_fit``).

A launch file rarely says which GPU it runs on (a shell script, a compose file without a node label).
Rather than say nothing, vlint runs the memory model for the launch as written — its own tensor and
pipeline parallel sizes, and the defaults the target release picks *for each GPU* — on a list of
reference GPUs (:data:`DEFAULT_REFERENCE_GPUS`, or ``[tool.vlint] reference-gpus``) and reports on which
it starts. ``[tool.vlint] gpu`` (or ``--gpu``) remains the way to say "our GPUs": then the launch gets
the full memory model instead.

Pure over a resolved :class:`~vlint.deployment.Deployment` (bundled data only). A GPU whose margin lies
inside the memory model's measured uncertainty is "too close to call", never a failure.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vlint.deployment import Deployment
    from vlint.memory import MemoryEstimate
    from vlint.resolve.gpus import GpuSpec

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

#: ``--device`` values and image words of platforms the memory model does not cover (it reproduces
#: the CUDA/ROCm workers' accounting)
_OTHER_DEVICES = ("cpu", "tpu", "hpu", "xpu", "neuron", "openvino")
_OTHER_IMAGE_WORDS = {
    "cpu": "CPU",
    "tpu": "TPU",
    "hpu": "Intel Gaudi (HPU)",
    "gaudi": "Intel Gaudi (HPU)",
    "xpu": "Intel XPU",
    "neuron": "AWS Neuron",
    "openvino": "OpenVINO",
}


@dataclass(frozen=True, slots=True)
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

    @property
    def verdict(self) -> str:
        return "too close to call" if self.too_close_to_call else "starts" if self.starts else "fails"


def reference_gpus(names: tuple[str, ...] | list[str] | None = None) -> list[tuple[str, GpuSpec]]:
    """(name as configured, spec) of the reference GPUs, smallest memory first; unknown names skipped
    (the configuration is validated where it is read)."""
    from vlint.resolve.gpus import lookup_gpu

    out = []
    for n in names or DEFAULT_REFERENCE_GPUS:
        spec = lookup_gpu(n)
        if spec is not None:
            out.append((n, spec))
    return sorted(out, key=lambda x: x[1].total_gib)


def not_a_gpu(dep: Deployment) -> str | None:
    """The platform, when the launch says it runs on something other than a CUDA/ROCm GPU."""
    device = dep.value("device")
    if isinstance(device, str) and device.lower() in _OTHER_DEVICES:
        return device.upper()
    target = dep.env.get("VLLM_TARGET_DEVICE")
    if isinstance(target, str) and target.lower() in _OTHER_DEVICES:
        return target.upper()
    if "VLLM_CPU_KVCACHE_SPACE" in dep.env:
        return "CPU"
    facts = dep.invocation.facts
    label = facts.get("gpu_label") or facts.get("gpu_type")
    if "tpu_count" in facts or (label is not None and str(label.value).lower().startswith("tpu")):
        return "TPU"
    if "accelerator_count" in facts:
        return "Intel Gaudi (HPU)"
    image = facts.get("image")
    if image is not None:
        import re

        words = set(re.split(r"[^a-z0-9]+", str(image.value).lower()))
        for w, name in _OTHER_IMAGE_WORDS.items():
            if w in words:
                return name
    return None


def why_no_fit(dep: Deployment) -> str | None:
    """Why the launch gets no ``gpu_fit`` (None: it gets one)."""
    if dep.gpu is not None:
        return "the GPU is known"
    other = not_a_gpu(dep)
    if other is not None:
        return f"it runs on {other}: the memory model reproduces vLLM's GPU workers"
    return None


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
    n = 1
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
        from vlint.resolve.memory_inputs import blocked_by as why_blocked

        return None, why_blocked(dep)
    why = why_no_fit(dep)
    if why is not None:
        return None, why
    from vlint.resolve.memory_inputs import blocked_by, estimate_on_gpu

    count = _ranks(dep)
    out: list[GpuFit] = []
    for name, spec in reference_gpus(dep.reference_gpus):
        m = estimate_on_gpu(dep, spec, count)
        if m is None:
            return None, blocked_by(dataclasses.replace(dep, gpu=spec))
        gmu = m.budget_gib / m.total_gib if m.total_gib > 0 else 0.9
        out.append(
            GpuFit(
                gpu=name,
                total_gib=spec.total_gib,
                count=count,
                starts=m.starts,
                too_close_to_call=m.too_close_to_call,
                kv_cache_tokens=int(m.kv_cache_tokens) if m.starts else 0,
                max_concurrency=float(m.max_concurrency) if m.starts else 0.0,
                failure=m.failure,
                need_gib=need_gib(m, gmu),
                gpu_memory_utilization=round(gmu, 4),
                memory=m,
            )
        )
    return out, None


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
    }


def label(f: GpuFit) -> str:
    return f"{f.count} × {f.gpu}" if f.count > 1 else f.gpu
