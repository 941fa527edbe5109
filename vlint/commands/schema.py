"""``vlint schema``: the bundled vLLM argument schemas — list them, diff two releases, export one for editors."""

from __future__ import annotations

import json
import re
import sys

import click

from vlint.argspec.spec import ArgSpec, Argument, bundled_versions, load_spec, resolve_release
from vlint.core.typing_names import Any
from vlint.core.version import Version


@click.group("schema")
def schema_cmd() -> None:
    """vLLM argument schemas bundled with vlint (generated from each release's own parser)."""


def _version(text: str, hint: str) -> Version:
    v = Version.try_parse(text)
    if v is None:
        raise click.BadParameter(f"not a vLLM version: {text!r}", param_hint=hint)
    res = resolve_release(v)
    if not res.exact:
        click.echo(f"{'warning' if res.outside else 'note'}: {res.note}", err=True)
    return res.version


@schema_cmd.command("versions")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def versions_cmd(fmt: str) -> None:
    """List the bundled vLLM releases (every release on PyPI from 0.6.0 to the newest vlint knows)."""
    from vlint.argspec.bundle import index

    doc = index()
    aliases = doc.get("aliases", {})
    rows = []
    for v in bundled_versions():
        n_args, n_env, module = doc["summary"][str(v)]
        rows.append(
            {
                "version": str(v),
                "arguments": n_args,
                "env_vars": n_env,
                "parser_module": module,
                "same_as": aliases.get(str(v)),
            }
        )
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2))
        return
    for r in rows:
        same = f"  (same parser and data as {r['same_as']})" if r["same_as"] else ""
        click.echo(
            f"{r['version']:<12} {r['arguments']:>4} arguments  {r['env_vars']:>4} env vars  "
            f"{r['parser_module'] or ''}{same}"
        )


def _options(spec: ArgSpec) -> dict[str, Argument]:
    """Every long option string of a release (positive and negative forms) → its argument."""
    out: dict[str, Argument] = {}
    for a in spec.arguments:
        for o in (*a.option_strings, *a.negative_option_strings):
            out[o] = a
    return out


def _shown(v: Any) -> str:
    s = json.dumps(v) if not isinstance(v, str) else v
    return s if len(s) <= 60 else s[:57] + "…"


def _object_repr(v: Any) -> bool:
    """A default that is the repr of a config object (``{'mode': None…}``, ``EPLBConfig(…)``)."""
    return isinstance(v, str) and (v.startswith("{") or bool(re.match(r"^[A-Z]\w*\(", v)))


def _grouped(options: list[str], by: dict[str, Argument]) -> list[dict[str, Any]]:
    """Options grouped by their argument: ``--enable-x`` with its ``--no-enable-x`` form."""
    groups: dict[str, dict[str, Any]] = {}
    for o in options:
        a = by[o]
        g = groups.setdefault(a.dest, {"option": None, "forms": [], "dest": a.dest})
        if o == a.name or (g["option"] is None and o in a.option_strings):
            if g["option"] is not None:
                g["forms"].append(g["option"])
            g["option"] = o
        else:
            g["forms"].append(o)
    out = []
    for g in groups.values():
        if g["option"] is None:
            g["option"] = g["forms"].pop(0)
        out.append(g)
    return sorted(out, key=lambda g: g["option"])


def diff_specs(a: ArgSpec, b: ArgSpec) -> dict[str, Any]:
    """Options added and removed, and per argument present in both: changed default, type, choices, nargs."""
    oa, ob = _options(a), _options(b)
    # `-O3` keeps working where the parser rewrites -O itself (parser_features.O_shorthand)
    shorthand = {"-O"} if (b.meta.get("parser_features") or {}).get("O_shorthand") else set()
    removed = sorted(o for o in oa if o not in ob and o not in shorthand)
    added = sorted(o for o in ob if o not in oa)
    changed: list[dict[str, Any]] = []
    for dest in sorted(set(a.by_dest) & set(b.by_dest)):
        x, y = a.by_dest[dest], b.by_dest[dest]
        for field in ("default", "kind", "choices", "nargs", "action"):
            vx, vy = getattr(x, field), getattr(y, field)
            if field == "default" and (_object_repr(vx) or _object_repr(vy)):
                continue  # config-object reprs: not meaningful defaults
            if vx != vy:
                changed.append({"option": y.name, "dest": dest, "field": field, "from": vx, "to": vy})
    env_removed = sorted(n for n in a.env_vars if n not in b.env_vars and n.startswith("VLLM_"))
    env_added = sorted(n for n in b.env_vars if n not in a.env_vars and n.startswith("VLLM_"))
    return {
        "from": str(a.version),
        "to": str(b.version),
        "removed": removed,
        "added": added,
        "removed_grouped": _grouped(removed, oa),
        "added_grouped": _grouped(added, ob),
        "changed": changed,
        "env_removed": env_removed,
        "env_added": env_added,
    }


@schema_cmd.command("diff")
@click.argument("old")
@click.argument("new")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def diff_cmd(old: str, new: str, fmt: str) -> None:
    """Flags added, removed and changed between two vLLM releases (check before an upgrade)."""
    from vlint.argspec.replacements import replacement_for

    a, b = load_spec(_version(old, "OLD")), load_spec(_version(new, "NEW"))
    d = diff_specs(a, b)
    if fmt == "json":
        click.echo(json.dumps(d, indent=2, default=str))
        return
    click.echo(f"vLLM {d['from']} → {d['to']}")
    click.echo(
        f"\nRemoved options ({len(d['removed_grouped'])}): a launch line using them fails with 'unrecognized arguments'"
    )
    for g in d["removed_grouped"]:
        r = replacement_for(g["option"])
        also = f" (also {', '.join(g['forms'])})" if g["forms"] else ""
        click.echo(f"  - {g['option']}{also}" + (f"\n      → use {r}" if r else ""))
    click.echo(f"\nAdded options ({len(d['added_grouped'])})")
    for g in d["added_grouped"]:
        also = f" (also {', '.join(g['forms'])})" if g["forms"] else ""
        click.echo(f"  + {g['option']}{also}")
    style = [c for c in d["changed"] if c["field"] == "action" and c["to"] == "enable_disable"]
    other = [c for c in d["changed"] if c not in style]
    click.echo(f"\nChanged ({len(other)})")
    for c in other:
        click.echo(f"  ~ {c['option']}: {c['field']} {_shown(c['from'])} → {_shown(c['to'])}")
    if style:
        click.echo(
            f"  ~ {len(style)} boolean flags became --enable-x/--disable-x pairs (vLLM's EnableDisableAction): "
            "the new --disable-… / --enable-… spellings are not accepted by the older release"
        )
    if d["env_removed"] or d["env_added"]:
        click.echo(f"\nEnvironment variables: {len(d['env_removed'])} removed, {len(d['env_added'])} added")
        for n in d["env_removed"]:
            click.echo(f"  - {n}")
        for n in d["env_added"]:
            click.echo(f"  + {n}")


@schema_cmd.command("export")
@click.option("--vllm-version", "version", help="Release (default: the newest bundled).")
def export_cmd(version: str | None) -> None:
    """A JSON Schema for vLLM --config YAML files (for editors: VS Code YAML, JetBrains)."""
    from vlint.argspec.bundle import read_record
    from vlint.argspec.jsonschema import build_schema

    v = _version(version, "--vllm-version") if version else bundled_versions()[-1]
    rec = read_record(str(v))
    dotted = bool((rec.get("parser_features") or {}).get("dotted_args"))
    doc = build_schema(rec["arguments"], title="", x_vlint={}, dotted=dotted)
    doc.pop("x-vlint", None)
    doc["title"] = f"vLLM {v} --config file"
    doc["description"] = (
        f"Options of `vllm serve` in vLLM {v} (generated from vLLM's own parser by vlint). Keys "
        "may use dashes or underscores."
    )
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")
