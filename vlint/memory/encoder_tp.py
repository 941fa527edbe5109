"""Whether a launch's multimodal encoder runs data-parallel (``--mm-encoder-tp-mode data``).

vLLM replicates the encoder's weights on every tensor-parallel rank and splits the images over the
ranks instead, but only for architectures whose class supports it; for the others it falls back to
``weights`` (sharded like the language model) with a warning ([0.33.0] vllm/config/model.py:836-843).
Which architectures support it, per release, is generated from vLLM's code by
``tools/gen_encoder_tp_data.py`` into ``vlint/data/encoder_tp_data.json`` (read lazily).
"""

from __future__ import annotations

import json
from functools import cache

from vlint.core.paths import data_dir
from vlint.core.typing_names import Any
from vlint.core.version import Version


@cache
def _data() -> dict[str, Any]:
    return json.loads((data_dir() / "encoder_tp_data.json").read_text())


def supports_encoder_data_parallel(architectures: tuple[str, ...], version: Version) -> bool:
    """True when ``version``'s code runs these architectures' encoder data-parallel. A release between
    two scanned ones is taken as the scanned release before it."""
    data = _data()
    scanned = sorted((Version.parse(v) for v in data["scanned"]), reverse=True)
    at = next((v for v in scanned if v <= version), None)
    if at is None:
        return False
    supported = data["supported"]
    return any(str(at) in {str(Version.parse(r)) for r in supported.get(a, ())} for a in architectures)


__all__ = ["supports_encoder_data_parallel"]
