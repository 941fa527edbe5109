"""The JSON Schema (draft 2020-12) over a vLLM settings document, built from one release's arguments.

A settings document is the mapping a ``vllm serve --config file.yaml`` holds. The bundled release
records (``schemas/vllm/releases/``) store only the arguments; ``vlint schema export`` and
``tools/gen_vllm_schema.py`` build the JSON Schema from them with :func:`build_schema` (pure,
stdlib only: the generator imports it inside a vLLM environment where vlint is not installed).
"""

from __future__ import annotations

import re

from vlint.core.typing_names import Any

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

_HUMAN_INT_PATTERN = r"^\s*\d+(\.\d+)?[kKmMgGtT]\s*$"


def _value_schema(arg: dict[str, Any]) -> dict[str, Any]:
    kind = arg["kind"]
    if kind == "int":
        s: dict[str, Any] = {"type": "integer"}
    elif kind == "float":
        s = {"type": "number"}
    elif kind == "bool":
        s = {
            "anyOf": [
                {"type": "boolean"},
                {"type": "string", "pattern": "^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$"},
            ]
        }
    elif kind == "none":
        s = {"type": "boolean"}
    elif kind == "human_int":
        s = {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": _HUMAN_INT_PATTERN}]}
    elif kind == "human_int_or_auto":
        s = {
            "anyOf": [
                {"type": "integer"},
                {"type": "string", "pattern": _HUMAN_INT_PATTERN},
                {"const": "auto"},
            ]
        }
    elif kind == "json":
        s = {"type": ["object", "array", "string"]}
    elif kind == "json_or_str":
        s = {"type": ["object", "string"]}
    elif kind == "str":
        s = {"type": "string"}
    else:
        s = {}
    choices = arg["choices"]
    if choices is not None:
        values = [c for c in choices if c is not None]
        s = {"enum": values}
    return s


def argument_schema(arg: dict[str, Any]) -> dict[str, Any]:
    """JSON Schema of the value of one argument in a settings document."""
    item = _value_schema(arg)
    nargs = arg["nargs"]
    if arg["action"] in ("store_true", "store_false", "boolean_optional", "enable_disable"):
        s: dict[str, Any] = {"type": "boolean"}
    elif arg["action"] == "count":
        s = {"type": "integer", "minimum": 0}
    elif nargs in ("+", "*") or (isinstance(nargs, int) and nargs > 1) or arg["action"] in ("append", "extend"):
        arr: dict[str, Any] = {"type": "array", "items": item}
        if isinstance(nargs, int):
            arr["minItems"] = arr["maxItems"] = nargs
        elif nargs == "+":
            arr["minItems"] = 1
        s = {"anyOf": [arr, item]} if item else arr
    elif nargs == "?" and arg["const"] is not None:
        s = {"anyOf": [item, {"type": "boolean"}]} if item else {}
    else:
        s = dict(item)
    if arg["optional"]:
        s = {"anyOf": [s, {"type": "null"}]} if s else {}
    if arg["help"]:
        s["description"] = arg["help"]
    if arg["default"] is not None and arg["default"] != "==SUPPRESS==":
        s["default"] = arg["default"]
    if arg["deprecated"]:
        s["deprecated"] = True
    return s


def _key_forms(opt: str) -> list[str]:
    key = opt.lstrip("-")
    return sorted({key, key.replace("-", "_")})


def build_schema(
    arguments: list[dict[str, Any]],
    *,
    title: str,
    x_vlint: dict[str, Any],
    dotted: bool = False,
) -> dict[str, Any]:
    """The JSON Schema (2020-12) over the settings document, plus ``x-vlint``.

    Property names are the ``dest`` of every optional argument; every long
    option spelling (dashes or underscores, aliases, ``--no-…`` inverses) is a
    property too, pointing at the same ``$defs`` entry.
    """
    defs: dict[str, Any] = {}
    props: dict[str, Any] = {}
    pattern_props: dict[str, Any] = {}
    for arg in arguments:
        if arg["positional"] or arg["action"] in ("help", "version") or arg["dest"] == "config":
            continue
        dest = arg["dest"]
        if dest in defs:  # several actions on one dest: keep the first
            continue
        defs[dest] = argument_schema(arg)
        ref = {"$ref": f"#/$defs/{dest}"}
        props[dest] = ref
        for opt in arg["option_strings"]:
            if opt.startswith("--"):
                for key in _key_forms(opt):
                    props.setdefault(key, ref)
        for opt in arg["negative_option_strings"]:
            for key in _key_forms(opt):
                props.setdefault(
                    key,
                    {
                        "type": "boolean",
                        "description": f"Inverse of --{dest.replace('_', '-')}: true sets it to false.",
                    },
                )
        if dotted and arg["kind"] in ("json", "json_or_str"):
            stems = {dest} | {k for o in arg["option_strings"] if o.startswith("--") for k in _key_forms(o)}
            for stem in sorted(stems):
                pattern_props[f"^{re.escape(stem)}\\..+$"] = {"description": f"Dotted sub-key of {dest}."}
    schema: dict[str, Any] = {
        "$schema": JSON_SCHEMA_DIALECT,
        "title": title,
        "type": "object",
        "properties": dict(sorted(props.items())),
        "additionalProperties": False,
        "$defs": dict(sorted(defs.items())),
    }
    if pattern_props:
        schema["patternProperties"] = dict(sorted(pattern_props.items()))
    schema["x-vlint"] = x_vlint
    return schema
