"""The NVIDIA driver a CUDA toolkit needs, and what a launch's node selection says of the node's driver.

Both tables are NVIDIA's, from the CUDA Toolkit Release Notes
(https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html, "CUDA Driver": the table "CUDA Toolkit
and Corresponding Driver Versions", Linux x86_64 column, and the table of the driver range for minor version
compatibility) and the CUDA Compatibility guide
(https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html, Table 1):

- the *toolkit driver* of a CUDA release is the driver packaged with it: a driver at or above it runs
  everything that toolkit builds;
- from CUDA 11 on, *minor version compatibility* runs an application built with any toolkit of a major
  release on a driver of that major's range (12.x: >= 525, 13.x: >= 580, 11.x: >= 450.80.02), "with limited
  feature-set": PTX newer than the driver cannot be JIT-compiled
  (https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html);
- below that range only the CUDA *forward compatibility* package (``cuda-compat-X-Y``) runs it, and only on
  NVIDIA data center GPUs, select NGC Server Ready RTX SKUs and Jetson
  (https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html).
"""

from __future__ import annotations

Driver = tuple[int, ...]

#: CUDA release -> its toolkit driver (Linux x86_64), from the release notes' "CUDA Toolkit and
#: Corresponding Driver Versions" (the releases the official vLLM images are built with, and their neighbours)
TOOLKIT_DRIVER: dict[str, Driver] = {
    "11.8.0": (520, 61, 5),
    "12.0.0": (525, 60, 13),
    "12.0.1": (525, 85, 12),
    "12.1.0": (530, 30, 2),
    "12.1.1": (530, 30, 2),
    "12.2.0": (535, 54, 3),
    "12.2.1": (535, 86, 9),
    "12.2.2": (535, 104, 5),
    "12.3.0": (545, 23, 6),
    "12.3.1": (545, 23, 8),
    "12.4.0": (550, 54, 14),
    "12.4.1": (550, 54, 15),
    "12.5.0": (555, 42, 2),
    "12.5.1": (555, 42, 6),
    "12.6.0": (560, 28, 3),
    "12.6.1": (560, 35, 3),
    "12.6.2": (560, 35, 3),
    "12.6.3": (560, 35, 5),
    "12.8.0": (570, 26),
    "12.8.1": (570, 124, 6),
    "12.9.0": (575, 51, 3),
    "12.9.1": (575, 57, 8),
    "13.0.0": (580, 65, 6),
    "13.0.1": (580, 82, 7),
    "13.0.2": (580, 95, 5),
    "13.1.0": (590, 44, 1),
}

#: CUDA major -> the lowest driver of its minor version compatibility range (release notes, "Driver Range for
#: Minor Version Compatibility"; 11.x: the footnote's Tesla Recommended Driver 450.80.02)
MINOR_COMPAT_FLOOR: dict[int, Driver] = {11: (450, 80, 2), 12: (525,), 13: (580,)}

SOURCE = "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html (Toolkit Driver Version table)"
COMPAT_SOURCE = "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html (Table 1)"
FORWARD_SOURCE = "https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html"


def parse_cuda(text: str) -> tuple[int, int, int] | None:
    """``"12.9.1"`` / ``"13.4"`` → (12, 9, 1) / (13, 4, 0)."""
    parts = text.strip().split(".")
    if not 2 <= len(parts) <= 3 or not all(p.isdigit() for p in parts):
        return None
    nums = [int(p) for p in parts] + [0] * (3 - len(parts))
    return nums[0], nums[1], nums[2]


def cuda_key(cuda: tuple[int, int, int]) -> str:
    return f"{cuda[0]}.{cuda[1]}.{cuda[2]}"


def show(driver: Driver) -> str:
    """``(575, 57, 8)`` → ``575.57.08`` (NVIDIA writes the third part with two digits)."""
    out = [str(driver[0])]
    if len(driver) > 1:
        out.append(str(driver[1]))
    if len(driver) > 2:
        out.append(f"{driver[2]:02d}")
    return ".".join(out)


def below(bound: Driver, need: Driver) -> bool:
    """Whether every driver whose version starts with ``bound`` (a prefix: ``(535,)`` is any 535.x) is below
    ``need``: only then is the node's driver known to be too old."""
    for i, part in enumerate(bound):
        want = need[i] if i < len(need) else 0
        if part != want:
            return part < want
    # every given part equals need's: an unnamed lower part may still reach need (or need has no more parts)
    return False


def lowest_build(cuda_text: str) -> tuple[int, int, int] | None:
    """The lowest CUDA of a release's image builds (``"12.9.1 / 13.0.2"`` → (12, 9, 1)): vlint reports a driver
    only when it is too old for every build of the release."""
    found = [c for c in (parse_cuda(p) for p in cuda_text.split("/")) if c is not None]
    return min(found) if found else None
