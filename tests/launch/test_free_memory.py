"""vlint.launch.free_memory: the consumer-GPU test and the grouping of notes."""

from __future__ import annotations

from vlint.hardware.gpus import lookup_gpu
from vlint.launch.free_memory import Note, note_lines


def test_consumer_is_the_geforce_line() -> None:
    for name in ("RTX4090", "RTX-3090", "RTX-5090", "RTX-4060-8GB", "RTX-2080-Ti"):
        gpu = lookup_gpu(name)
        assert gpu is not None and gpu.consumer, name
    for name in ("H100", "L4", "T4", "A100-40GB", "RTX-A6000", "L40S", "MI300X", "GB10"):
        gpu = lookup_gpu(name)
        assert gpu is not None and not gpu.consumer, name


def test_note_lines_one_per_kind() -> None:
    a = Note("free_capped", "--gpu-free-gib 90 is above the L4's 22.03 GiB", "…: capped at it")
    b = Note("free_capped", "--gpu-free-gib 90 is above the T4's 14.58 GiB", "…")
    lines = note_lines([("a.sh:1", a), ("b.sh:2", b), ("c.sh:3", a)])
    assert lines == [
        "note: --gpu-free-gib 90 is above the L4's 22.03 GiB; --gpu-free-gib 90 is above the T4's 14.58 GiB: "
        "capped at it (3 launches: a.sh:1, b.sh:2, c.sh:3)."
    ]
    assert note_lines([]) == []
