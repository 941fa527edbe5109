"""Which device a launch runs vLLM on, when it is not a CUDA/ROCm GPU.

vLLM picks its platform at import (``vllm/platforms/__init__.py``): a CPU build, a TPU host, Intel
Gaudi (HPU) and others account for memory their own way. A launch says so by ``--device``, by
``VLLM_TARGET_DEVICE``, by the CPU backend's ``VLLM_CPU_KVCACHE_SPACE``, by TPU or Gaudi resources and
node labels, or by its image (``vllm/vllm-tpu``, ``…-cpu``, ``…-gaudi``). Reads the resolved launch only.
"""

from __future__ import annotations

import re

from vlint.core.typing_names import TYPE_CHECKING

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment

CPU = "CPU"
TPU = "TPU"
HPU = "HPU"
#: how messages name a platform
DISPLAY = {HPU: "Intel Gaudi (HPU)"}

#: ``--device`` / ``VLLM_TARGET_DEVICE`` values of platforms other than CUDA/ROCm GPUs
_DEVICES = {"cpu": CPU, "tpu": TPU, "hpu": HPU, "xpu": "Intel XPU", "neuron": "AWS Neuron", "openvino": "OpenVINO"}
#: words of an image name that say which platform's build it is
_IMAGE_WORDS = {
    "cpu": CPU,
    "tpu": TPU,
    "hpu": HPU,
    "gaudi": HPU,
    "xpu": "Intel XPU",
    "neuron": "AWS Neuron",
    "openvino": "OpenVINO",
}


def platform_of(dep: Deployment) -> str | None:
    """The platform, when the launch says it runs on something other than a CUDA/ROCm GPU."""
    device = dep.value("device")
    if isinstance(device, str) and device.lower() in _DEVICES:
        return _DEVICES[device.lower()]
    target = dep.env.get("VLLM_TARGET_DEVICE")
    if isinstance(target, str) and target.lower() in _DEVICES:
        return _DEVICES[target.lower()]
    if "VLLM_CPU_KVCACHE_SPACE" in dep.env:
        return CPU
    facts = dep.invocation.facts
    label = facts.get("gpu_label") or facts.get("gpu_type")
    if "tpu_count" in facts or (label is not None and str(label.value).lower().startswith("tpu")):
        return TPU
    if "accelerator_count" in facts:
        return HPU
    image = facts.get("image")
    if image is not None:
        words = set(re.split(r"[^a-z0-9]+", str(image.value).lower()))
        for w, name in _IMAGE_WORDS.items():
            if w in words:
                return name
    return None
