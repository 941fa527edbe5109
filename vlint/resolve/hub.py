"""Optional Hugging Face hub look-up (``--online``): ``config.json`` + safetensors metadata only.

``huggingface_hub`` is an optional dependency (``pip install vlint[online]``) and is imported
lazily here. Only small files are downloaded (the config, the safetensors index or, for
single-file checkpoints, the header via the hub's metadata API); never tensor data. Downloads
go to the hub's own cache.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from vlint.resolve.model_arch import ModelArch, model_arch_from_config


@cache
def fetch_model_arch(repo_id: str) -> ModelArch | None:
    try:
        import huggingface_hub  # type: ignore[import-not-found]
    except ImportError:
        return None
    repo, _, revision = repo_id.partition("@")
    rev = revision or None
    try:
        cfg_path = huggingface_hub.hf_hub_download(repo, "config.json", revision=rev)
        with open(cfg_path) as fh:
            config: dict[str, Any] = json.load(fh)
    except Exception:  # network, gated repo, missing file: unknown model
        return None
    weight_bytes: int | None = None
    source = "hub"
    try:
        idx = huggingface_hub.hf_hub_download(repo, "model.safetensors.index.json", revision=rev)
        with open(idx) as fh:
            weight_bytes = int(json.load(fh)["metadata"]["total_size"])
        source = "hub model.safetensors.index.json"
    except Exception:
        try:
            meta = huggingface_hub.get_safetensors_metadata(repo, revision=rev)
            weight_bytes = 0
            for fm in meta.files_metadata.values():
                for t in fm.tensors.values():
                    n = 1
                    for s in t.shape:
                        n *= s
                    weight_bytes += n * _DT.get(t.dtype, 2)
            source = "hub safetensors metadata"
        except Exception:
            weight_bytes = None
    arch = model_arch_from_config(config, name=repo_id, weight_bytes=weight_bytes, source=source)
    return arch


_DT = {"F32": 4, "F16": 2, "BF16": 2, "F8_E4M3": 1, "F8_E5M2": 1, "I8": 1, "U8": 1, "I32": 4, "I64": 8}
