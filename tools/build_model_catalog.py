"""Build vlint's bundled model catalog from the shared model data (maintainer script).

    python tools/build_model_catalog.py [--shared ../shared] [--out-dir vlint/data] [--report FILE]

Inputs (nothing here is shipped; the package data is self-contained):

* ``<shared>/models/catalog.json`` — the curated catalog (one record per Hugging Face id, with
  exact ``params`` / ``weight_bytes`` and their provenance; see ``<shared>/models/README.md``),
  plus its verbatim ``configs/*.json``.
* ``<shared>/models/harvest/MANIFEST.json`` — verbatim ``config.json`` copies collected from public
  repositories (``harvest/files/<org>__<name>.config.json``), each with ``copied_from`` (repository
  @commit path), ``confidence`` and ``notes``; optionally ``.hf_quant_config.json`` (ModelOpt) and
  ``.index.json`` (safetensors index: ``metadata.total_size`` is the exact checkpoint size).

Output, in ``--out-dir``:

* ``models.jsonl`` — one JSON record per line, sorted by id: ``id``, ``config`` (the config.json
  keys that matter for serving, long module lists summarised), ``params`` / ``weight_bytes`` with
  their ``*_source`` (absent when not known), ``aliases``, ``confidence``, ``source`` citations,
  ``derived`` (fields not read from a config), ``notes_short``.
* ``models.index.json`` — lower-cased id and alias → ``[id, byte offset, byte length]`` of its line,
  so a lookup parses one small index and one record, never the whole catalog.

Every record is parsed with vlint's own ``model_arch_from_config``; records that do not parse, or
whose parameter count disagrees with the checkpoint size, are listed in the report.
Same inputs → byte-identical outputs (sorted, no timestamps).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# shared-catalog fields that are not config.json fields
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
# config keys that carry no serving-relevant fact and only bloat the file
_DROP = {
    "id2label",
    "label2id",
    "task_specific_params",
    "transformers_version",
    "_name_or_path",
    "_commit_hash",
    "bos_token_id",
    "eos_token_id",
    "pad_token_id",
    "sep_token_id",
    "decoder_start_token_id",
    "architectures_note",
    "initializer_range",
    "initializer_factor",
    "rms_norm_eps",
    "layer_norm_eps",
    "layer_norm_epsilon",
    "norm_eps",
    "hidden_act",
    "use_cache",
    "attention_dropout",
    "hidden_dropout",
    "hidden_dropout_prob",
    "attention_probs_dropout_prob",
    "resid_pdrop",
    "embd_pdrop",
    "attn_pdrop",
    "dropout",
    "activation_dropout",
    "output_router_logits",
    "router_aux_loss_coef",
    "router_jitter_noise",
    "chat_template",
    "tokenizer_class",
    "suppress_tokens",
    "begin_suppress_tokens",
    "forced_decoder_ids",
    "image_token_index",
    "image_token_id",
    "video_token_id",
    "vision_start_token_id",
    "vision_end_token_id",
    "vision_token_id",
    "unsloth_fixed",
    "unsloth_version",
}
# lists of module names: kept verbatim up to this length, else summarised (layer numbers → *)
_MODULE_LISTS = (
    "modules_to_not_convert",
    "ignore",
    "exclude_modules",
    "ignored_layers",
    "modules_in_block_to_quantize",
    "targets",
)
# per-module mappings (ModelOpt mixed precision ``quantized_layers``): summarised the same way
_MODULE_MAPS = ("quantized_layers",)
_MAX_LIST = 64


def _pattern(name: Any) -> Any:
    if not isinstance(name, str):
        return name
    return re.sub(r"\.\d+$", ".*", re.sub(r"\.\d+(?=\.)", ".*", name))


def _summarise_modules(names: list[Any]) -> list[Any]:
    """Long module lists: layer indices replaced by ``*`` and de-duplicated, order kept."""
    out: list[Any] = []
    for n in names:
        s = _pattern(n)
        if s not in out:
            out.append(s)
    return out


def _summarise_module_map(mapping: dict[str, Any]) -> dict[str, Any]:
    """``{module: setting}`` with many modules: one entry per pattern (layer index → ``*``); a
    pattern whose modules have different settings keeps the list of distinct settings."""
    out: dict[str, Any] = {}
    multi: set[str] = set()
    for name, val in mapping.items():
        pat = _pattern(name)
        if pat not in out:
            out[pat] = val
        elif out[pat] != val and not (pat in multi and val in out[pat]):
            out[pat] = (out[pat] if pat in multi else [out[pat]]) + [val]
            multi.add(pat)
    return out


def trim(value: Any, notes: list[str], path: str = "") -> Any:
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in _DROP:
                continue
            if k in _MODULE_MAPS and isinstance(v, dict) and len(v) > _MAX_LIST:
                short_map = _summarise_module_map(v)
                notes.append(f"{path}{k}: {len(v)} modules summarised as {len(short_map)} patterns (layer index → *)")
                v = short_map
            elif k in _MODULE_LISTS and isinstance(v, list) and len(v) > _MAX_LIST:
                short = _summarise_modules(v)
                notes.append(f"{path}{k}: {len(v)} module names summarised as {len(short)} patterns (layer index → *)")
                v = short
            elif k in ("long_factor", "short_factor") and isinstance(v, list):
                notes.append(f"{path}{k}: {len(v)}-value list omitted")
                v = "<omitted>"
            out[k] = trim(v, notes, f"{path}{k}.")
        return out
    if isinstance(value, list) and len(value) > 512:
        notes.append(f"{path.rstrip('.')}: list of {len(value)} cut to 512")
        return value[:512]
    return value


# --------------------------------------------------------------------------------------------
# inputs


def from_shared_catalog(shared: Path) -> dict[str, dict[str, Any]]:
    """Records of ``<shared>/models/catalog.json`` in the bundled format."""
    cat = json.loads((shared / "models" / "catalog.json").read_text())
    models: dict[str, dict[str, Any]] = {}
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
                cfg["quantization_config"] = modelopt_quant(json.loads(hq.read_text()))
        if isinstance(rec.get("rope_scaling"), dict):
            cfg["rope_scaling"] = dict(cfg.get("rope_scaling") or rec["rope_scaling"])
        notes: list[str] = []
        entry: dict[str, Any] = {
            "config": trim(cfg, notes),
            "params": rec.get("params"),
            "params_source": rec.get("params_source"),
            "weight_bytes": rec.get("weight_bytes"),
            "weight_bytes_source": rec.get("weight_bytes_source"),
            "aliases": list(rec.get("aliases", [])),
            "confidence": rec.get("confidence"),
            "source": list(rec.get("source", [])),
            "derived": list(rec.get("derived", [])),
        }
        if rec.get("params_text_only_derived") and rec.get("params"):
            vp = int(rec["params"]) - int(rec["params_text_only_derived"])
            if vp > 0 and "official" not in str(rec.get("params_source", "")):
                entry["vision_params"] = vp
        short = [str(rec["notes"])[:300]] if rec.get("notes") else []
        entry["notes_short"] = short + notes
        models[mid] = entry
    return models


def modelopt_quant(hq: dict[str, Any]) -> dict[str, Any]:
    """``hf_quant_config.json`` (NVIDIA ModelOpt) as the ``quantization_config`` vLLM builds from it."""
    return {"quant_method": "modelopt", **hq.get("quantization", hq)}


_RANK = {"high": 0, "medium": 1, "low": 2}


@functools.cache
def _tf_fills(harvest: Path) -> dict[str, Any]:
    """``harvest/transformers_fills.json``: for configs whose core fields are absent (llava-hf's bare
    text_config, Nemotron-H's layer count in layers_block_type), the values transformers' config class
    resolves them to (written by harvest/tools/tf_resolve.py)."""
    p = harvest / "transformers_fills.json"
    return json.loads(p.read_text()) if p.is_file() else {}


def apply_fills(mid: str, cfg: dict[str, Any], harvest: Path) -> list[str]:
    data = _tf_fills(harvest)
    fill = (data.get("fills") or {}).get(mid)
    if not fill or not fill.get("values"):
        return []
    target = cfg["text_config"] if fill.get("text") and isinstance(cfg.get("text_config"), dict) else cfg
    done = []
    for k, v in sorted(fill["values"].items()):
        if k not in target:
            target[k] = v
            done.append(f"{'text_config.' if target is not cfg else ''}{k}={v}")
    if not done:
        return []
    version = data.get("transformers_version", "?")
    return [f"absent, resolved by {fill['class']} (transformers {version}): {', '.join(done)}"]


@functools.cache
def _tf_defaults(harvest: Path) -> dict[str, Any]:
    """``harvest/transformers_defaults.json``: per model_type, the transformers config-class defaults
    (written by harvest/tools/tf_defaults.py with the transformers vLLM installs)."""
    p = harvest / "transformers_defaults.json"
    return json.loads(p.read_text()) if p.is_file() else {}


def _harvest_record(harvest: Path, m: dict[str, Any], mid: str) -> dict[str, Any]:
    cfg = json.loads((harvest / "files" / m["file"]).read_text())
    derived: list[str] = list(m.get("derived", []))
    dropped = [k for k in m.get("drop_keys", []) if cfg.pop(k, None) is not None]
    if dropped:
        derived.append(f"dropped keys the copying project added (not config.json fields): {', '.join(dropped)}")
    source = [m["copied_from"]]
    if m.get("hf_quant_config_file") and "quantization_config" not in cfg:
        hq = json.loads((harvest / "files" / m["hf_quant_config_file"]).read_text())
        cfg["quantization_config"] = modelopt_quant(hq)
        source.append(m["hf_quant_config_from"] + " (hf_quant_config.json)")
        derived.append("quantization_config assembled from hf_quant_config.json (as vLLM's modelopt loader)")
    if m.get("quantize_config_file") and "quantization_config" not in cfg:
        qc = json.loads((harvest / "files" / m["quantize_config_file"]).read_text())
        cfg["quantization_config"] = {"quant_method": qc.get("quant_method", "gptq"), **qc}
        source.append(m["quantize_config_from"] + " (quantize_config.json)")
        derived.append(
            "quantization_config taken from quantize_config.json: config.json has none, so vLLM reads it only "
            "with --quantization gptq (vllm 0.9.0 vllm/model_executor/model_loader/weight_utils.py:144-206)"
        )
    weight_bytes = weight_src = None
    if m.get("index_file"):
        total = (json.loads((harvest / "files" / m["index_file"]).read_text()).get("metadata") or {}).get("total_size")
        if total:
            weight_bytes = int(total)
            weight_src = "model.safetensors.index.json metadata.total_size"
            source.append(m["index_from"] + " (model.safetensors.index.json)")
    if m.get("weight_bytes"):  # a total_size read from a mirror page (cited in weight_bytes_source)
        weight_bytes, weight_src = int(m["weight_bytes"]), m["weight_bytes_source"]
    derived += apply_fills(mid, cfg, harvest)
    table = _tf_defaults(harvest)
    derived += fill_defaults(cfg, table.get("defaults", {}), table.get("transformers_version", "?"))
    notes: list[str] = []
    config = trim(cfg, notes)
    return {
        "config": config,
        "params": m.get("params"),
        "params_source": m.get("params_source"),
        "weight_bytes": weight_bytes,
        "weight_bytes_source": weight_src,
        "aliases": list(m.get("aliases", [])),
        "confidence": m["confidence"],
        "source": source + list(m.get("extra_sources", [])),
        "derived": derived,
        "notes_short": ([m["notes"][:300]] if m.get("notes") else []) + notes,
    }


def from_harvest(harvest: Path, report: list[str]) -> dict[str, dict[str, Any]]:
    """Records of the verbatim copies listed in ``harvest/MANIFEST.json``: per model the copy with
    the highest confidence (then the one with more facts, then by entries file name); the other
    copies add their citation when their shape agrees and are reported when it does not."""
    manifest_path = harvest / "MANIFEST.json"
    if not manifest_path.is_file():
        return {}
    manifest = json.loads(manifest_path.read_text())
    models: dict[str, dict[str, Any]] = {}
    for mid, copies in sorted(manifest.items()):
        copies = sorted(
            copies,
            key=lambda m: (_RANK.get(m["confidence"], 3), not m.get("index_file"), m["entries_file"]),
        )
        rec = _harvest_record(harvest, copies[0], mid)
        for other in copies[1:]:
            o = _harvest_record(harvest, other, mid)
            if _agree(rec["config"], o["config"]):
                rec["source"] += [s for s in o["source"] if s not in rec["source"]]
                if rec["weight_bytes"] is None and o["weight_bytes"] is not None:
                    rec["weight_bytes"], rec["weight_bytes_source"] = o["weight_bytes"], o["weight_bytes_source"]
            else:
                report.append(f"conflict {mid}: {other['copied_from']} differs from {copies[0]['copied_from']}")
        models[mid] = rec
    return models


def fill_defaults(cfg: dict[str, Any], table: dict[str, Any], version: str) -> list[str]:
    """``tie_word_embeddings`` absent from a config → the default of its transformers config class
    (what vLLM sees after ``AutoConfig``); returns the ``derived`` notes. Types transformers does
    not know (remote code) stay absent."""
    derived: list[str] = []
    inner = cfg.get("text_config") if isinstance(cfg.get("text_config"), dict) else None
    if "tie_word_embeddings" in cfg or (inner is not None and "tie_word_embeddings" in inner):
        return derived
    outer_t = table.get(str(cfg.get("model_type")), {})
    if inner is not None:
        d = table.get(str(inner.get("model_type")), {})
        val, cls = d.get("tie_word_embeddings"), d.get("class")
        if val is None:
            val, cls = outer_t.get("text_config.tie_word_embeddings"), outer_t.get("text_config.class")
        if val is not None:
            inner["tie_word_embeddings"] = val
            derived.append(f"text_config.tie_word_embeddings={val}: absent, default of {cls} (transformers {version})")
        return derived
    if outer_t.get("tie_word_embeddings") is not None:
        cfg["tie_word_embeddings"] = outer_t["tie_word_embeddings"]
        derived.append(
            f"tie_word_embeddings={outer_t['tie_word_embeddings']}: absent, default of {outer_t['class']} "
            f"(transformers {version})"
        )
    return derived


# --------------------------------------------------------------------------------------------
# merge, check, write

_CORE = (
    "num_hidden_layers",
    "hidden_size",
    "num_attention_heads",
    "num_key_value_heads",
    "intermediate_size",
    "vocab_size",
)


def _core(cfg: dict[str, Any]) -> dict[str, Any]:
    inner = cfg.get("text_config") if isinstance(cfg.get("text_config"), dict) else cfg
    return {k: inner.get(k, cfg.get(k)) for k in _CORE}


def _agree(a_cfg: dict[str, Any], b_cfg: dict[str, Any]) -> bool:
    a, b = _core(a_cfg), _core(b_cfg)
    return all(a[k] == b[k] for k in _CORE if a[k] is not None and b[k] is not None)


def merge(shared: dict[str, dict[str, Any]], harvest: dict[str, dict[str, Any]], report: list[str]) -> dict[str, Any]:
    """The shared catalog's curated records win; a harvested copy of the same model adds its citation
    (when the core shape agrees) or is reported (when it does not). Aliases never shadow an id."""
    models = dict(shared)
    alias_of = {a.lower(): mid for mid, r in shared.items() for a in r["aliases"]}
    for mid, rec in harvest.items():
        target = mid if mid in models else alias_of.get(mid.lower())
        if target is None:
            models[mid] = rec
            continue
        old = models[target]
        if _agree(old["config"], rec["config"]):
            old["source"] = old["source"] + [s for s in rec["source"] if s not in old["source"]]
            hb = rec.get("weight_bytes")
            if hb and rec.get("weight_bytes_source", "").startswith("model.safetensors.index.json"):
                curated_derived = str(old.get("weight_bytes_source") or "").lower().startswith("derived")
                if not old.get("weight_bytes") or curated_derived:
                    # a published total_size is read, not derived: it replaces a curated derivation
                    if old.get("weight_bytes") and old["weight_bytes"] != hb:
                        report.append(
                            f"weight_bytes {target}: curated derivation {old['weight_bytes']} replaced by the "
                            f"published total_size {hb}"
                        )
                    old["weight_bytes"], old["weight_bytes_source"] = hb, rec["weight_bytes_source"]
                elif old["weight_bytes"] != hb:
                    report.append(
                        f"weight_bytes {target}: curated {old['weight_bytes']} ({old.get('weight_bytes_source')}) "
                        f"vs total_size {hb} of a harvested index"
                    )
        else:
            a, b = _core(old["config"]), _core(rec["config"])
            diff = {k: (a[k], b[k]) for k in _CORE if a[k] != b[k]}
            report.append(f"conflict {mid}: harvested copy differs from the curated record {target}: {diff}")
    ids = {m.lower() for m in models}
    for mid, rec in models.items():
        kept = []
        for al in rec["aliases"]:
            if al.lower() in ids:
                report.append(f"alias {al} of {mid} is itself an id; dropped")
            else:
                kept.append(al)
        rec["aliases"] = kept
    return models


def _size_in_name(mid: str) -> float | None:
    """Total parameters a model id states (``-70B``, ``-8x7B``, ``-550B-A55B``, ``-1.5b``, ``-125m``)."""
    name = mid.split("/")[-1]
    m = re.search(r"(?<![\w.])(\d+)x(\d+(?:\.\d+)?)[Bb](?![a-z])", name)
    if m:  # Mixtral-style: experts × size is an upper bound; shared parts make it smaller
        return None
    m = re.search(r"(?<![\w.])(\d+(?:\.\d+)?)([BbMm])(?![a-zA-Z])", name)
    if not m or re.match(r"-\d+E\b", name[m.end() :]):  # Llama-4 '17B-16E': the active size
        return None
    scale = 1e9 if m.group(2) in "Bb" else 1e6
    return float(m.group(1)) * scale


def check(models: dict[str, Any], report: list[str]) -> Counter[str]:
    """Parse every record with vlint's own parser; report size outliers; drop (and report) records
    it reads no layers, hidden size or vocabulary from."""
    sys.path.insert(0, str(ROOT))
    from vlint.resolve.model_arch import dtype_bytes, model_arch_from_config

    stats: Counter[str] = Counter()
    dropped: list[str] = []
    for mid, rec in models.items():
        cfg = dict(rec["config"])
        try:
            arch = model_arch_from_config(cfg, name=mid, weight_bytes=rec.get("weight_bytes"), source="build")
        except Exception as e:
            report.append(f"unparsed {mid}: {type(e).__name__}: {e}")
            stats["unparsed"] += 1
            continue
        if arch.num_layers <= 0 or arch.hidden_size <= 0 or arch.vocab_size <= 0:
            report.append(
                f"dropped {mid}: vlint reads no shapes from it (layers={arch.num_layers} hidden={arch.hidden_size})"
            )
            stats["dropped_no_shapes"] += 1
            dropped.append(mid)
            continue
        named = _size_in_name(mid)
        params = rec.get("params") or arch.params
        if named and params and not 0.5 < params / named < 2.0:
            report.append(
                f"dropped {mid}: vlint counts {params / 1e9:.1f}B parameters, the name says {named / 1e9:g}B "
                "(its parser misreads this layout)"
            )
            stats["dropped_size_vs_name"] += 1
            dropped.append(mid)
            continue
        wb = rec.get("weight_bytes")
        if wb and not arch.quant_method:
            est = (rec.get("params") or arch.params) * dtype_bytes(arch.dtype)
            ratio = wb / est if est else 0
            if not 0.9 < ratio < 1.1:
                report.append(f"size {mid}: weight_bytes {wb} vs params×dtype {est:.0f} (ratio {ratio:.3f})")
                stats["size_outlier"] += 1
        stats["parsed"] += 1
    for mid in dropped:  # a record vlint cannot read would make the memory model answer from zeros
        del models[mid]
    return stats


def quant_config(cfg: dict[str, Any]) -> dict[str, Any] | None:
    """The checkpoint's quantization_config (top level, or in text_config as vLLM also reads it)."""
    q = cfg.get("quantization_config")
    if not isinstance(q, dict) and isinstance(cfg.get("text_config"), dict):
        q = cfg["text_config"].get("quantization_config")
    return q if isinstance(q, dict) else None


def catalog_stats(models: dict[str, Any]) -> dict[str, Any]:
    """Counts for docs/models.md: per confidence, per quantization format, per family (model_type)."""
    conf: Counter[str] = Counter()
    quant: Counter[str] = Counter()
    family: Counter[str] = Counter()
    for rec in models.values():
        cfg = rec["config"]
        conf[str(rec.get("confidence"))] += 1
        q = quant_config(cfg)
        if q is not None:
            method = str(q.get("quant_method") or q.get("quant_algo") or "?")
            if method == "modelopt":
                method += f" {q.get('quant_algo', '?')}"
            quant[method] += 1
        inner = cfg.get("text_config") if isinstance(cfg.get("text_config"), dict) else {}
        family[str(inner.get("model_type") or cfg.get("model_type") or "?")] += 1
    return {
        "models": len(models),
        "aliases": sum(len(r["aliases"]) for r in models.values()),
        "quantized": sum(quant.values()),
        "with_weight_bytes": sum(1 for r in models.values() if r.get("weight_bytes")),
        "confidence": dict(sorted(conf.items())),
        "quantization": dict(sorted(quant.items(), key=lambda kv: (-kv[1], kv[0]))),
        "model_type": dict(sorted(family.items(), key=lambda kv: (-kv[1], kv[0]))),
    }


def records(models: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for mid in sorted(models, key=str.lower):
        rec = models[mid]
        line: dict[str, Any] = {"id": mid}
        for k in (
            "config",
            "params",
            "params_source",
            "weight_bytes",
            "weight_bytes_source",
            "vision_params",
            "aliases",
            "confidence",
            "source",
            "derived",
            "notes_short",
        ):
            v = rec.get(k)
            if v not in (None, [], ""):
                line[k] = v
        out.append(line)
    return out


def write(models: dict[str, Any], out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    body = bytearray()
    index: dict[str, list[Any]] = {}
    for rec in records(models):
        raw = json.dumps(rec, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
        pos = [rec["id"], len(body), len(raw) - 1]
        body += raw
        index[rec["id"].lower()] = pos
        for al in rec.get("aliases", []):
            index.setdefault(al.lower(), pos)
    jsonl = out_dir / "models.jsonl"
    jsonl.write_bytes(bytes(body))
    idx = out_dir / "models.index.json"
    head = {
        "generated_by": "tools/build_model_catalog.py; do not edit by hand",
        "records": len(models),
        "file": jsonl.name,
        "ids": dict(sorted(index.items())),
    }
    idx.write_text(json.dumps(head, separators=(",", ":"), ensure_ascii=False) + "\n")
    return jsonl, idx


def _find(models: dict[str, Any], ref: str) -> dict[str, Any] | None:
    low = ref.lower()
    for mid, rec in models.items():
        if mid.lower() == low or low in (a.lower() for a in rec.get("aliases", [])):
            return rec
    return None


def from_additions(path: Path, models: dict[str, Any], report: list[str]) -> dict[str, dict[str, Any]]:
    """Records of ``tools/catalog_additions.json``: checkpoints whose own config.json was found in no
    public copy. Each is built from ``config`` (a config copy, cited) or from ``base`` (the catalog
    record of the checkpoint it was quantized from: the same shapes; its own quantization_config is
    dropped), plus the ``quantization_config`` its publisher's model card describes. Every fact is
    cited in ``source``; what was inferred is listed in ``derived`` (the confidence says how much)."""
    if not path.is_file():
        return {}
    out: dict[str, dict[str, Any]] = {}
    entries = json.loads(path.read_text())

    # config copies first, then each addition after the addition it names as its base (a chain such as
    # a quantized checkpoint of an unquantized one that is itself an addition)
    def depth(mid: str) -> int:
        seen: set[str] = set()
        while isinstance(entries.get(mid), dict) and "config" not in entries[mid] and mid not in seen:
            seen.add(mid)
            mid = entries[mid].get("base", "")
        return len(seen)

    for mid, add in sorted(entries.items(), key=lambda kv: (depth(kv[0]), kv[0])):
        if mid.startswith("_") or "alias_of" in add:
            continue
        if not [s for s in add.get("source") or [] if isinstance(s, str) and s.strip()]:
            report.append(f"addition {mid}: no source cited; skipped")  # never a record without its evidence
            continue
        derived = list(add.get("derived", []))
        params = params_src = vision = None
        src_base: list[str] = []
        if "config" in add:
            cfg = json.loads(json.dumps(add["config"]))
        else:
            base = _find(models, add["base"]) or _find(out, add["base"])
            if base is None:
                report.append(f"addition {mid}: base {add['base']} is not in the catalog; skipped")
                continue
            cfg = json.loads(json.dumps(base["config"]))
            cfg.pop("quantization_config", None)
            derived.append(f"architecture from the catalog record of {add['base']} (the checkpoint it was made from)")
            src_base = [f"architecture (record of {add['base']}): {x}" for x in base.get("source", [])]
            if base.get("params"):
                params, params_src = base["params"], f"of {add['base']} (same shapes)"
            vision = base.get("vision_params")
        if add.get("quantization_config"):
            cfg["quantization_config"] = add["quantization_config"]
        notes: list[str] = []
        out[mid] = {
            "config": trim(cfg, notes),
            "params": add.get("params", params),
            "params_source": add.get("params_source", params_src),
            "weight_bytes": add.get("weight_bytes"),
            "weight_bytes_source": add.get("weight_bytes_source"),
            "vision_params": add.get("vision_params", vision),
            "aliases": list(add.get("aliases", [])),
            "confidence": add["confidence"],
            "source": list(add["source"]) + src_base,
            "derived": derived,
            "notes_short": ([str(add["notes"])[:300]] if add.get("notes") else []) + notes,
        }
    return out


def apply_aliases(path: Path, models: dict[str, Any], report: list[str]) -> None:
    """Entries ``{"alias_of": ID, "source": [...]}`` of ``tools/catalog_additions.json``: the entry's key
    (a renamed repository, e.g. an organisation's new name) becomes an alias of the record ``ID``; the
    rename's evidence goes to that record's ``derived``. Idempotent, so ``--extend`` keeps the bytes."""
    if not path.is_file():
        return
    ids = {m.lower() for m in models}
    for alias, add in sorted(json.loads(path.read_text()).items()):
        if alias.startswith("_") or "alias_of" not in add:
            continue
        rec = _find(models, add["alias_of"])
        if rec is None:
            report.append(f"alias {alias}: {add['alias_of']} is not in the catalog; skipped")
            continue
        if alias.lower() in ids:
            report.append(f"alias {alias} of {add['alias_of']} is itself an id; skipped")
            continue
        if alias.lower() not in (a.lower() for a in rec["aliases"]):
            rec["aliases"] = [*rec["aliases"], alias]
        note = f"alias {alias}: {'; '.join(add['source'])}"
        if note not in rec["derived"]:
            rec["derived"] = [*rec["derived"], note]


ADDITIONS = ROOT / "tools" / "catalog_additions.json"


def read_bundled(out_dir: Path) -> dict[str, dict[str, Any]]:
    """The catalog as built before (``out_dir/models.jsonl``), for ``--extend``."""
    models: dict[str, dict[str, Any]] = {}
    for line in (out_dir / "models.jsonl").read_text().splitlines():
        if line.strip():
            rec = json.loads(line)
            models[rec.pop("id")] = rec
    for rec in models.values():
        rec.setdefault("aliases", [])
        rec.setdefault("source", [])
        rec.setdefault("derived", [])
    return models


def build(
    shared: Path, out_dir: Path, *, extend: bool = False, additions: Path | None = None
) -> tuple[dict[str, Any], list[str], Counter[str]]:
    """Build from the shared data; with ``extend``, start from the catalog already in ``out_dir``
    (when the shared harvest is not at hand) and add only ``additions``."""
    report: list[str] = []
    if extend:
        models = read_bundled(out_dir)
        if additions is not None and additions.is_file():  # an addition built before is built again
            for mid, add in json.loads(additions.read_text()).items():
                if not (isinstance(add, dict) and "alias_of" in add):
                    models.pop(mid, None)
    else:
        models = merge(from_shared_catalog(shared), from_harvest(shared / "models" / "harvest", report), report)
    if additions is not None:
        models = merge(models, from_additions(additions, models, report), report)
        apply_aliases(additions, models, report)
    stats = check(models, report)
    write(models, out_dir)
    return models, report, stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    # $VLINT_SHARED, else the folder beside the checkout (no machine's own path)
    default_shared = Path(os.environ["VLINT_SHARED"]) if os.environ.get("VLINT_SHARED") else ROOT.parent / "shared"
    ap.add_argument("--shared", type=Path, default=default_shared)
    ap.add_argument("--out-dir", type=Path, default=ROOT / "vlint" / "data")
    ap.add_argument("--report", type=Path, help="write the check report here (default: stdout)")
    ap.add_argument("--stats", type=Path, help="write the catalog counts (JSON) here")
    ap.add_argument(
        "--extend",
        action="store_true",
        help="start from the catalog already in --out-dir and add tools/catalog_additions.json only "
        "(for when the shared harvest is not at hand)",
    )
    ap.add_argument("--additions", type=Path, default=ADDITIONS, help="checkpoints built from a base record")
    args = ap.parse_args()
    models, report, stats = build(args.shared, args.out_dir, extend=args.extend, additions=args.additions)
    quant = sum(1 for r in models.values() if quant_config(r["config"]) is not None)
    if args.stats:
        args.stats.write_text(json.dumps(catalog_stats(models), indent=1) + "\n")
    text = "\n".join(report)
    if args.report:
        args.report.write_text(text + "\n")
    elif report:
        print(text)
    size = (args.out_dir / "models.jsonl").stat().st_size
    print(f"{len(models)} models ({quant} quantized), {size // 1024} KiB; check: {dict(stats)}")


if __name__ == "__main__":
    main()
