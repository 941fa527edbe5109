"""The official image's arch list versus a GPU (VL309) and the generator of its table."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import load_script
from vlint.core.paths import data_dir
from vlint.hardware.image_cuda import COVERED, NOT_COVERED, PTX_ONLY, coverage

ROOT = Path(__file__).resolve().parents[2]


def _tool():  # type: ignore[no-untyped-def]
    return load_script("gen_image_cuda", "tools/gen_image_cuda.py")


def test_coverage_same_major_and_ptx() -> None:
    arch = ["7.0", "7.5", "8.0", "8.9", "9.0+PTX"]
    assert coverage(arch, (8, 6)) == COVERED  # sm_80 machine code runs on 8.6
    assert coverage(arch, (7, 0)) == COVERED
    assert coverage(arch, (12, 0)) == PTX_ONLY  # only compute_90 PTX, JIT by the driver
    assert coverage(arch, (6, 0)) == NOT_COVERED  # older than every entry
    assert coverage(["7.5", "8.0", "9.0", "10.0", "12.0"], (7, 0)) == NOT_COVERED
    assert coverage(["9.0a"], (9, 0)) == COVERED
    assert coverage(["9.0a"], (10, 0)) == NOT_COVERED  # arch-specific code runs on that capability only


def test_parse_dockerfile_and_pipeline() -> None:
    tool = _tool()
    text = "ARG CUDA_VERSION=12.4.1\nFROM x\nARG torch_cuda_arch_list='7.0 8.0 9.0+PTX'\n"
    got = tool.parse_dockerfile(text)
    assert got == {"cuda": "12.4.1", "cuda_line": 1, "arch_list": ["7.0", "8.0", "9.0+PTX"], "arch_line": 3}
    assert tool.parse_dockerfile("FROM x\n") == "no ARG CUDA_VERSION default"
    pipeline = (
        'env:\n  CUDA_ARCH_X86: "7.5 8.0"\n  CUDA_ARCH_ARM: "8.0 8.7"\nsteps:\n'
        '  - "docker build --build-arg CUDA_VERSION=13.0.2 --build-arg torch_cuda_arch_list=\\"${CUDA_ARCH_X86}\\" '
        '--target vllm-openai ."\n'
        '  - |\n    docker build \\\n      --build-arg torch_cuda_arch_list="${CUDA_ARCH_ARM}" \\\n'
        "      --target vllm-openai .\n"
        '  - "docker build --build-arg CUDA_VERSION=11.8.0 --target build ."\n'
    )
    parsed = dict(got)
    assert tool.apply_pipeline(parsed, pipeline) is None
    assert parsed["cuda"] == "12.4.1 / 13.0.2"
    assert parsed["arch_list"] == ["7.5", "8.0", "8.7"]
    unknown = '  - "docker build --build-arg torch_cuda_arch_list=${NOPE} --target vllm-openai ."\n'
    assert "no literal value" in tool.apply_pipeline(dict(got), unknown)


def test_bundled_table_is_cited() -> None:
    data = json.loads((data_dir() / "image_cuda.json").read_text())
    assert data["releases"], "no release read"
    for release, row in data["releases"].items():
        assert row["source"].startswith(f"vllm-project/vllm@v{release} "), row
        assert row["arch_list"] and row["cuda"]
    assert "0.6.0" in data["missing"]  # its source distribution has no Dockerfile
