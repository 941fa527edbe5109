"""``vlint models [QUERY]`` (what vlint knows offline about models) and ``vlint models show ID``.

The list is the bundled catalog (``vlint/data/models.jsonl``, built by tools/build_model_catalog.py
from public ``config.json`` copies; provenance in docs/models.md). ``QUERY`` words must all occur in
an entry's id, one of its aliases, its architecture or its quantization method (case-insensitive).
"""

from __future__ import annotations

import json
import sys

import click

from vlint.core.typing_names import Any
from vlint.resolve.model_arch import ModelArch, normalize_dtype

EXIT_CLEAN, EXIT_ERROR = 0, 2


def _quant(arch: ModelArch) -> dict[str, Any] | None:
    if not arch.quant_method:
        return None
    out: dict[str, Any] = {"method": arch.quant_method}
    if arch.quant_bits:
        out["bits"] = arch.quant_bits
    if arch.quant_group_size:
        out["group_size"] = arch.quant_group_size
    return out


def _quant_text(q: dict[str, Any] | None) -> str:
    if not q:
        return "-"
    bits = q.get("bits")
    return q["method"] + (f" {bits:g}-bit" if isinstance(bits, (int, float)) else "")


def _params_text(n: int | None, estimated: bool) -> str:
    if not n:
        return "?"
    s = f"{n / 1e9:.2f}B" if n >= 1e9 else f"{n / 1e6:.0f}M"
    return ("~" if estimated else "") + s


def summary(rec: dict[str, Any], arch: ModelArch) -> dict[str, Any]:
    """The listing fields of one catalog record (JSON form of ``vlint models``)."""
    return {
        "id": rec["id"],
        "aliases": list(rec.get("aliases", [])),
        "architecture": arch.architectures[0] if arch.architectures else None,
        "model_type": arch.model_type,
        "params": arch.params,
        "params_estimated": arch.params_estimated,
        "dtype": normalize_dtype(arch.dtype),
        "quantization": _quant(arch),
        "context": arch.max_position_embeddings,
        "weight_bytes": arch.weight_bytes,
        "confidence": rec.get("confidence"),
        "source": list(rec.get("source", [])),
    }


def _matches(rec: dict[str, Any], arch: ModelArch, words: tuple[str, ...]) -> bool:
    hay = " ".join(
        [rec["id"], *rec.get("aliases", []), *arch.architectures, arch.model_type or "", arch.quant_method or ""]
    ).lower()
    return all(w.lower() in hay for w in words)


def _short_source(src: list[str]) -> str:
    if not src:
        return "-"
    s = src[0]
    if s.startswith("github:"):
        repo = s.split()[0].removeprefix("github:").split("@")[0]
        return f"github:{repo}" + (f" (+{len(src) - 1})" if len(src) > 1 else "")
    return s[:60] + (f" (+{len(src) - 1})" if len(src) > 1 else "")


def _table(rows: list[dict[str, Any]]) -> list[str]:
    cols = [
        ("ID", lambda r: r["id"]),
        ("ARCHITECTURE", lambda r: r["architecture"] or "-"),
        ("PARAMS", lambda r: _params_text(r["params"], r["params_estimated"])),
        ("DTYPE", lambda r: r["dtype"] or "-"),
        ("QUANTIZATION", lambda r: _quant_text(r["quantization"])),
        ("CONTEXT", lambda r: str(r["context"] or "-")),
        ("SOURCE", lambda r: _short_source(r["source"])),
    ]
    cells = [[f(r) for _, f in cols] for r in rows]
    widths = [max([len(h)] + [len(c[i]) for c in cells]) for i, (h, _) in enumerate(cols)]
    out = ["  ".join(h.ljust(w) for (h, _), w in zip(cols, widths, strict=True)).rstrip()]
    out += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    return out


def _show(mid: str, fmt: str) -> int:
    from vlint.resolve.catalog import arch_from_record, catalog_record, resolve_catalog_id

    cid = resolve_catalog_id(mid)
    rec = catalog_record(cid) if cid else None
    if rec is None:
        click.echo(f"vlint: {mid}: not in the bundled model catalog (vlint models QUERY lists what is)", err=True)
        return EXIT_ERROR
    arch = arch_from_record(rec)
    data = {
        **summary(rec, arch),
        **{k: v for k, v in rec.items() if k not in ("id", "aliases", "confidence", "source")},
    }
    if fmt == "json":
        click.echo(json.dumps(data, indent=2))
        return EXIT_CLEAN
    lines = [f"{rec['id']}" + (f"  (looked up as {mid})" if mid != rec["id"] else "")]
    if rec.get("aliases"):
        lines.append(f"  aliases: {', '.join(rec['aliases'])}")
    s = summary(rec, arch)
    lines += [
        f"  architecture: {s['architecture'] or '-'} (model_type {s['model_type'] or '-'})",
        f"  params: {_params_text(s['params'], s['params_estimated'])}"
        + (
            f" ({rec['params_source']})"
            if rec.get("params_source")
            else " (estimated from the config's layout)"
            if s["params_estimated"]
            else ""
        ),
        f"  weights: {rec['weight_bytes']} bytes ({rec.get('weight_bytes_source')})"
        if rec.get("weight_bytes")
        else "  weights: not known (estimated from params × dtype when needed)",
        f"  dtype: {s['dtype'] or '-'}",
        f"  quantization: {_quant_text(s['quantization'])}",
        f"  context: {s['context'] or '-'} (max_position_embeddings)",
        f"  layers: {arch.num_layers}, hidden {arch.hidden_size}, heads {arch.num_attention_heads}"
        f" (kv {arch.num_kv_heads}, head_dim {arch.head_dim}), vocab {arch.vocab_size}",
    ]
    if arch.is_moe:
        lines.append(
            f"  experts: {arch.num_experts} (top-{arch.num_experts_per_tok}), {arch.num_moe_layers} MoE layers"
        )
    lines.append(f"  confidence: {rec.get('confidence') or '-'}")
    lines.append("  source:")
    lines += [f"    - {x}" for x in rec.get("source", [])] or ["    - (none recorded)"]
    if rec.get("derived"):
        lines.append("  derived (not read from a config):")
        lines += [f"    - {x}" for x in rec["derived"]]
    if rec.get("notes_short"):
        lines.append("  notes:")
        lines += [f"    - {x}" for x in rec["notes_short"]]
    lines.append("  config:")
    lines += ["    " + ln for ln in json.dumps(rec["config"], indent=2).splitlines()]
    click.echo("\n".join(lines))
    return EXIT_CLEAN


@click.command("models", context_settings={"ignore_unknown_options": False})
@click.argument("query", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def models_cmd(query: tuple[str, ...], fmt: str) -> None:
    """List the models vlint knows offline (the bundled catalog): id, architecture, params, dtype,
    quantization, context length, source. QUERY words filter the list; ``vlint models show ID``
    prints one entry with every field and its provenance."""
    if query and query[0] == "show":
        if len(query) != 2:
            click.echo("usage: vlint models show ID", err=True)
            sys.exit(EXIT_ERROR)
        sys.exit(_show(query[1], fmt))
    from vlint.resolve.catalog import arch_from_record, catalog_records

    rows = []
    for rec in catalog_records():
        arch = arch_from_record(rec)
        if _matches(rec, arch, query):
            rows.append(summary(rec, arch))
    if fmt == "json":
        click.echo(json.dumps({"version": 1, "count": len(rows), "models": rows}, indent=2))
        return
    if not rows:
        click.echo(f"no model in the bundled catalog matches {' '.join(query)!r}", err=True)
        return
    click.echo("\n".join(_table(rows)))
    click.echo(f"\n{len(rows)} model(s); `vlint models show ID` prints one with its sources")
