"""tools/gen_encoder_tp_data.py on a hand-made vLLM source tree, and the bundled data it produced."""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import gen_encoder_tp_data as gen  # noqa: E402

REGISTRY = """
_MULTIMODAL_MODELS = {
    "VisionA": ("vis_a", "VisionA"),
    "VisionAMoe": (
        "vis_a_moe",
        "VisionAMoe",
    ),
    "Plain": ("plain", "Plain"),
}
"""


def _tree(root: Path, version: str, *, moe_inherits: bool, plain_supports: bool) -> None:
    models = root / version / "vllm" / "model_executor" / "models"
    models.mkdir(parents=True)
    (models / "registry.py").write_text(REGISTRY)
    (models / "vis_a.py").write_text("class VisionA(nn.Module):\n    supports_encoder_tp_data = True\n")
    base = "VisionA" if moe_inherits else "nn.Module"
    (models / "vis_a_moe.py").write_text(f"class VisionAMoe({base}):\n    pass\n")
    flag = "True" if plain_supports else "False"
    (models / "plain.py").write_text(f"class Plain(nn.Module):\n    supports_encoder_tp_data: bool = {flag}\n")


def test_supported_architectures_follow_inheritance_and_releases(tmp_path: Path) -> None:
    _tree(tmp_path, "0.10.2", moe_inherits=False, plain_supports=False)
    _tree(tmp_path, "0.9.2", moe_inherits=False, plain_supports=True)
    _tree(tmp_path, "0.12.0", moe_inherits=True, plain_supports=False)
    data = gen.build(tmp_path)
    assert data["scanned"] == ["0.9.2", "0.10.2", "0.12.0"]  # by version, not by name
    assert data["supported"] == {
        "Plain": ["0.9.2"],  # an annotated True counts, and a later release that drops it is not listed
        "VisionA": ["0.9.2", "0.10.2", "0.12.0"],
        "VisionAMoe": ["0.12.0"],  # inherits the class attribute from 0.12.0
    }


def test_bundled_data_is_consistent() -> None:
    data = json.loads((ROOT / "vlint" / "data" / "encoder_tp_data.json").read_text())
    scanned = data["scanned"]
    assert scanned == sorted(scanned, key=gen._version_key)
    assert all(set(v) <= set(scanned) for v in data["supported"].values())
    assert "0.10.2" in data["supported"]["Qwen2_5_VLForConditionalGeneration"]
    assert "LlavaForConditionalGeneration" not in data["supported"]
