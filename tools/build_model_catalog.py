"""Build ``vlint/data/models.json`` from the shared model catalog (maintainer script).

    python tools/build_model_catalog.py [--shared ../shared] [--out vlint/data/models.json]

Input: ``<shared>/models/catalog.json`` (+ verbatim ``configs/*.json``). For every record the
output keeps a compact HF-style ``config`` (the verbatim config.json when the catalog has one,
else the catalog's config fields; long module lists trimmed), the exact ``weight_bytes`` with
how it was obtained, ``params``, ``aliases``, ``confidence`` and the ``source`` citations.
The shared folder is not shipped; the package data is self-contained.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# catalog fields that are not config.json fields
_META = {
    "source",
    "params",
    "params_source",
    "weight_bytes",
    "weight_bytes_source",
    "derived",
    "confidence",
    "aliases",
    "notes",
    "config_file",
    "kv_layout_derived",
    "active_params_derived",
    "params_text_only_derived",
    "layer_types_rule",
    "attention_sinks",
    "chatglm_raw",
    "text_config_nested",
}
# config keys that carry no memory-relevant fact and only bloat the file
_DROP = {
    "id2label",
    "label2id",
    "task_specific_params",
    "auto_map",
    "transformers_version",
    "_name_or_path",
    "bos_token_id",
    "eos_token_id",
    "pad_token_id",
    "architectures_note",
    "initializer_range",
    "rms_norm_eps",
    "layer_norm_eps",
    "hidden_act",
    "use_cache",
    "attention_dropout",
    "output_router_logits",
    "router_aux_loss_coef",
    "router_jitter_noise",
    "vision_config",
    "audio_config",
}


def _trim(value: Any) -> Any:
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in _DROP:
                continue
            if k in ("modules_to_not_convert", "ignore", "exclude_modules") and isinstance(v, list) and len(v) > 8:
                # keep the patterns that tell which module kinds stay unquantized
                kinds = sorted({p.split(".")[-1] if "." in p else p for p in v})[:8]
                v = [f"*{x}" for x in kinds]
            out[k] = _trim(v)
        return out
    if isinstance(value, list) and len(value) > 512:
        return value[:512]
    return value


def build(shared: Path) -> dict[str, Any]:
    cat = json.loads((shared / "models" / "catalog.json").read_text())
    models: dict[str, Any] = {}
    for mid, rec in sorted(cat.items()):
        cfg = {k: v for k, v in rec.items() if k not in _META}
        if rec.get("chatglm_raw"):
            cfg.update({k: v for k, v in rec["chatglm_raw"].items() if k not in cfg})
        if rec.get("config_file"):
            verb = json.loads((shared / "models" / rec["config_file"]).read_text())
            # the verbatim config wins; catalog-only fills stay (e.g. gemma defaults)
            merged = dict(cfg)
            merged.update(verb)
            if isinstance(verb.get("text_config"), dict):
                for k in list(merged):
                    if k in verb["text_config"] and k not in ("architectures", "model_type"):
                        merged.pop(k, None)
            cfg = merged
            hq = shared / "models" / rec["config_file"].replace(".json", ".hf_quant_config.json")
            if hq.is_file() and "quantization_config" not in verb:
                hqd = json.loads(hq.read_text())
                cfg["quantization_config"] = {"quant_method": "modelopt", **hqd.get("quantization", hqd)}
        if isinstance(rec.get("rope_scaling"), dict):
            rs = dict(cfg.get("rope_scaling") or rec["rope_scaling"])
            for k in ("long_factor", "short_factor"):
                if isinstance(rs.get(k), (list, str)):
                    rs[k] = "<omitted>"
            cfg["rope_scaling"] = rs
        entry: dict[str, Any] = {
            "config": _trim(cfg),
            "params": rec.get("params"),
            "weight_bytes": rec.get("weight_bytes"),
            "weight_bytes_source": rec.get("weight_bytes_source"),
            "aliases": rec.get("aliases", []),
            "confidence": rec.get("confidence"),
            "source": rec.get("source", []),
        }
        if rec.get("params_text_only_derived") and rec.get("params"):
            vp = int(rec["params"]) - int(rec["params_text_only_derived"])
            if vp > 0 and "official" not in str(rec.get("params_source", "")):
                entry["vision_params"] = vp
        if rec.get("notes"):
            entry["notes_short"] = [str(rec["notes"])[:300]]
        models[mid] = entry
    return {
        "generated_by": "tools/build_model_catalog.py from shared/models/catalog.json; do not edit by hand",
        "models": models,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    default_shared = ROOT.parent / "shared"
    ap.add_argument("--shared", type=Path, default=default_shared if default_shared.is_dir() else Path("/work/shared"))
    ap.add_argument("--out", type=Path, default=ROOT / "vlint" / "data" / "models.json")
    args = ap.parse_args()
    data = build(args.shared)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(data, separators=(",", ":"), sort_keys=False) + "\n")
    print(f"wrote {args.out} ({len(data['models'])} models, {args.out.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
