from __future__ import annotations

import pytest

from vlint.hardware.gpus import all_gpus, gpu_from_memory, lookup_gpu


@pytest.mark.parametrize(
    ("name", "expected", "gib"),
    [
        ("H100", "H100-SXM-80GB", 79.19),
        ("h100-80gb", "H100-SXM-80GB", 79.19),
        ("NVIDIA-H100-80GB-HBM3", "H100-SXM-80GB", 79.19),  # k8s nvidia.com/gpu.product
        ("NVIDIA H100 PCIe", "H100-PCIe-80GB", 79.19),
        ("NVIDIA-H100-NVL", "H100-NVL-94GB", None),
        ("Tesla-T4", "T4", 14.75),
        ("NVIDIA-A100-SXM4-40GB", "A100-SXM4-40GB", 39.38),
        ("nvidia-tesla-a100", "A100-SXM4-40GB", 39.38),  # GKE accelerator label
        ("a100-80gb", "A100-SXM4-80GB", None),
        ("nvidia-l4", "L4", None),
        ("RTX 3090", "RTX-3090", 23.58),
        ("NVIDIA-GeForce-RTX-4090", "RTX-4090", None),
        ("GH200", "GH200-96GB", None),
        ("B200", "B200-180GB", None),
        ("MI300X", "MI300X", 191.98),
        ("DGX Spark", "GB10", 121.69),
    ],
)
def test_loose_matching(name, expected, gib):
    g = lookup_gpu(name)
    assert g is not None and g.name == expected
    if gib is not None:
        assert g.total_gib == pytest.approx(gib)


def test_unknown_and_empty():
    assert lookup_gpu("potato-9000") is None
    assert lookup_gpu("") is None
    assert lookup_gpu(None) is None


def test_catalog_coverage_and_evidence():
    names = {g.name for g in all_gpus()}
    for need in (
        "H200-141GB",
        "H20-96GB",
        "GB200-186GB",
        "A10G",
        "A10",
        "L40S",
        "L40",
        "V100-16GB",
        "V100-32GB",
        "RTX-5090",
        "RTX-A6000",
        "MI325X",
    ):
        assert need in names
    assert all(g.source for g in all_gpus())
    assert all(g.total_gib < 300 for g in all_gpus())


def test_gpu_from_memory():
    g = gpu_from_memory(23.5)
    assert g.total_gib == 23.5 and g.custom and g.total_bytes == int(23.5 * 2**30)
