"""The official image's kernels versus the GPU (VL309): ``CUDA error: no kernel image is available for execution
on the device`` (vllm #18841, #16307, #4604); its CUDA versus the node's NVIDIA driver (VL310)."""

from __future__ import annotations

from collections.abc import Iterator

from vlint.checks import CheckContext, Hit, check
from vlint.core.finding import Fix
from vlint.core.lazy_re import lazy_compile
from vlint.hardware.cuda_driver import (
    COMPAT_SOURCE,
    FORWARD_SOURCE,
    MINOR_COMPAT_FLOOR,
    SOURCE,
    TOOLKIT_DRIVER,
    below,
    cuda_key,
    lowest_build,
    parse_cuda,
    show,
)
from vlint.hardware.image_cuda import COVERED, PTX_ONLY, coverage, covering_releases, image_build
from vlint.sources.containers.images import parse_image

#: ``vllm/vllm-openai:v0.9.0`` (also ``0.9.0``): a plain release tag; suffixed tags (``-cu126``…) are other builds
_PLAIN_RELEASE = lazy_compile(r"^v?(\d+\.\d+\.\d+(?:\.post\d+|\.\d+)?)$")


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


#: the first release whose image loads the CUDA forward compatibility libraries only on request
#: (``VLLM_ENABLE_CUDA_COMPATIBILITY=1``: vllm-project/vllm@v0.17.0 vllm/env_override.py:39-84
#: ``_maybe_set_cuda_compatibility_path``, vllm/envs.py ``VLLM_ENABLE_CUDA_COMPATIBILITY``; not in 0.16.0's wheel)
_COMPAT_OPT_IN = "0.17.0"


def _driver(text: str) -> tuple[int, ...] | None:
    parts = text.split(".")
    return tuple(int(p) for p in parts) if parts and all(p.isdigit() for p in parts) else None


@check("image_cuda.driver_too_old")
def driver_too_old(ctx: CheckContext) -> Iterator[Hit]:
    """The node's NVIDIA driver, as the launch's node selection names it (GPU feature discovery labels), below
    what the CUDA of the official image needs (NVIDIA's toolkit driver table; minor version compatibility)."""
    dep = ctx.dep
    assert dep is not None
    facts = dep.invocation.facts
    image, named, named_cuda = facts.get("image"), facts.get("node_driver"), facts.get("node_driver_cuda")
    if image is None or not isinstance(image.value, str) or (named is None and named_cuda is None):
        return
    release = _official_release(image.value)
    build = image_build(release) if release is not None else None
    low = lowest_build(str(build["cuda"])) if build is not None else None
    if low is None:
        return
    floor = MINOR_COMPAT_FLOOR.get(low[0])
    toolkit = TOOLKIT_DRIVER.get(cuda_key(low))
    fact = named if named is not None else named_cuda
    assert fact is not None
    where = f"{image.value} is built with CUDA {build['cuda']} ({build['cuda_source']})"  # type: ignore[index]
    if named is not None:
        drv = _driver(str(named.value))
        if drv is None:
            return
        node = f"the node's driver {named.value}{'.x' if len(drv) < 3 else ''} ({named.detail})"
        outside = floor is not None and below(drv, floor)
        short = toolkit is not None and below(drv, toolkit)
        need = f"{show(toolkit)}, the driver of CUDA {cuda_key(low)} ({SOURCE})" if toolkit else ""
    else:
        cuda = parse_cuda(str(named_cuda.value))  # type: ignore[union-attr]
        if cuda is None:
            return
        node = f"the node's driver, which supports CUDA {named_cuda.value} ({named_cuda.detail}),"  # type: ignore[union-attr]
        outside = cuda[0] < low[0]
        short = not outside and cuda[:2] < low[:2]
        need = f"a driver for CUDA {low[0]}.{low[1]}"
    if outside and floor is not None:
        gpu = dep.gpu
        consumer = gpu is not None and gpu.vendor == "nvidia" and gpu.consumer
        opt_in = release is not None and not _after(_COMPAT_OPT_IN, release)
        env = dep.invocation.env.get("VLLM_ENABLE_CUDA_COMPATIBILITY")
        if consumer:
            assert gpu is not None
            compat = (
                f"the CUDA forward compatibility package, the only way below that range, does not run on the "
                f"{gpu.name}, a GeForce card ('Error 804: forward compatibility was attempted on non supported HW', "
                f"vllm #4940; {FORWARD_SOURCE})"
            )
        else:
            compat = (
                f"only the CUDA forward compatibility package runs it, and only on data center GPUs ({FORWARD_SOURCE})"
            )
            if opt_in:
                state = "set" if env is not None and env.text.strip().lower() in ("1", "true") else "not set"
                compat += f"; this image loads it only with VLLM_ENABLE_CUDA_COMPATIBILITY=1 ({state} here)"
        message = (
            f"{where}: {node} is below {show(floor)}, the lowest driver CUDA {low[0]}.x runs on ({COMPAT_SOURCE}); "
            f"CUDA fails to initialise ('CUDA driver version is insufficient for CUDA runtime version') or the "
            f"NVIDIA Container Toolkit refuses the container ('unsatisfied condition: cuda>={low[0]}.{low[1]}', "
            f"vllm #5635); {compat}"
        )
        yield Hit(
            fact.span or image.span or dep.invocation.span,
            {"message": message},
            message=message,
            severity="error" if consumer else None,
        )
        return
    if short and need:
        if named is not None:
            ga = TOOLKIT_DRIVER.get(f"{low[0]}.{low[1]}.0")
            older_cuda = ga is not None and below(drv, ga)
        else:
            older_cuda = True
        message = (
            f"{where}: {node} is below {need}; CUDA's minor version compatibility runs it on any CUDA "
            f"{low[0]}.x driver from {show(floor) if floor else 'its major range'} on, with a limited feature set "
            f"(PTX newer than the driver cannot be JIT-compiled; {COMPAT_SOURCE})"
        )
        if older_cuda:
            message += (
                f"; the image's NVIDIA_REQUIRE_CUDA (cuda>={low[0]}.{low[1]}, from its nvidia/cuda base, with "
                "exceptions for some driver branches) makes the NVIDIA Container Toolkit's legacy mode refuse a "
                "driver outside it unless NVIDIA_DISABLE_REQUIRE=true ('unsatisfied condition: cuda>=12.4', "
                "vllm #5635)"
            )
        yield Hit(
            fact.span or image.span or dep.invocation.span, {"message": message}, message=message, severity="info"
        )
