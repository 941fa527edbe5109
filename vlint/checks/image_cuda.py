"""The official image's kernels versus the GPU (VL309): ``CUDA error: no kernel image is available for execution
on the device`` (vllm #18841, #16307, #4604)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from vlint.checks import CheckContext, Hit, check
from vlint.core.finding import Fix
from vlint.hardware.image_cuda import COVERED, PTX_ONLY, coverage, covering_releases, image_build
from vlint.sources.containers.images import parse_image

#: ``vllm/vllm-openai:v0.9.0`` (also ``0.9.0``): a plain release tag; suffixed tags (``-cu126``…) are other builds
_PLAIN_RELEASE = re.compile(r"^v?(\d+\.\d+\.\d+(?:\.post\d+|\.\d+)?)$")


def _official_release(image_text: str) -> str | None:
    """The release of the official CUDA image ``vllm/vllm-openai`` (also behind a registry or a mirror path)."""
    ref = parse_image(image_text)
    if ref is None:
        return None
    repo = ref.repository.lower()
    if repo != "vllm/vllm-openai" and not repo.endswith("/vllm/vllm-openai"):
        return None
    m = _PLAIN_RELEASE.match(ref.tag)
    return m.group(1) if m else None


@check("image_cuda.no_kernel_image")
def no_kernel_image(ctx: CheckContext) -> Iterator[Hit]:
    """The official image of a release whose ``TORCH_CUDA_ARCH_LIST`` has no machine code for the GPU's compute
    capability (``vlint/data/image_cuda.json``, from vLLM's Dockerfile at that release)."""
    dep = ctx.dep
    assert dep is not None
    fact = dep.invocation.facts.get("image")
    gpu = dep.gpu
    if fact is None or not isinstance(fact.value, str) or gpu is None or gpu.vendor != "nvidia":
        return
    cc = gpu.cc_major_minor
    release = _official_release(fact.value)
    build = image_build(release) if release is not None else None
    if cc is None or build is None:
        return
    verdict = coverage(build["arch_list"], cc)
    if verdict == COVERED:
        return
    arch = " ".join(build["arch_list"])
    ccs = f"{cc[0]}.{cc[1]}"
    better = covering_releases(cc)
    later = [r for r in better if _after(r, release)] or better[::-1]
    fix = None
    if later:
        other = image_build(later[0]) or {}
        fix = Fix(
            f"use vllm/vllm-openai:v{later[0]} (built with TORCH_CUDA_ARCH_LIST "
            f"'{' '.join(other.get('arch_list', []))}', {other.get('source', '')})"
        )
    where = f"{fact.value} is built with CUDA {build['cuda']} and TORCH_CUDA_ARCH_LIST '{arch}' ({build['source']})"
    if verdict == PTX_ONLY:
        message = (
            f"{where}: no machine code for the {gpu.name} (compute capability {ccs}), only PTX of a lower "
            "capability the driver may JIT-compile; kernels built without it fail with 'CUDA error: no kernel "
            "image is available for execution on the device'"
        )
        yield Hit(fact.span or dep.invocation.span, {"message": message}, message=message, fix=fix, severity="warning")
        return
    message = (
        f"{where}: nothing in it runs on the {gpu.name} (compute capability {ccs}); vLLM fails with 'CUDA error: "
        "no kernel image is available for execution on the device'"
    )
    yield Hit(fact.span or dep.invocation.span, {"message": message}, message=message, fix=fix)


def _after(candidate: str, release: str | None) -> bool:
    from vlint.core.version import Version

    a, b = Version.try_parse(candidate), Version.try_parse(release or "")
    return a is not None and b is not None and a > b
