"""``when:`` conditions: a JSON Schema evaluated against a deployment's settings document.

A rule with ``when:`` fires when the document *validates* against the schema. The common keywords
are evaluated here without importing jsonschema (which costs more start-up time than the whole
lint of a small repository); a schema using any other keyword is handed to jsonschema.

The document (:func:`settings_document`)::

    {"model": "meta-llama/Llama-3.1-8B-Instruct", "vllm_version": "0.19.1", "program": "vllm serve",
     "source": "shell", "gpu": {"name": "H100-80GB", "count": 2, "total_gib": 79.19} | null,
     "settings": {<dest>: <effective value>, ...},   # what the user set, else the version's default
     "user": {<dest>: <value>, ...},                  # only what the launch itself sets
     "env": {<NAME>: <value>, ...}}

Values vlint cannot resolve (``$VAR``) are left out of both ``settings`` and ``user`` (the default is not
put in their place), so a condition never judges a guess.
"""

from __future__ import annotations

import math
import re
from functools import cache
from typing import TYPE_CHECKING, Any

from vlint.argspec.parse import UNRESOLVED

if TYPE_CHECKING:
    from vlint.deployment import Deployment

_SUPPORTED = {
    "type",
    "const",
    "enum",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "contains",
    "minItems",
    "maxItems",
    "not",
    "anyOf",
    "allOf",
    "oneOf",
    "if",
    "then",
    "else",
    "description",
    "title",
    "$comment",
    "default",
    "examples",
    "$schema",
}


def settings_document(dep: Deployment) -> dict[str, Any]:
    user = {d: s.value for d, s in dep.args.settings.items() if s.value is not UNRESOLVED}
    settings: dict[str, Any] = {}
    for dest, arg in dep.spec.by_dest.items():
        if arg.default is not None:
            settings[dest] = arg.default
    for dest, r in dep.resolved.items():
        if r.value is not None:
            settings[dest] = r.value
    settings.update(user)
    for dest, s in dep.args.settings.items():
        if s.value is UNRESOLVED:
            settings.pop(dest, None)  # written, but unknown: never judge the default instead
    gpu = None
    if dep.gpu is not None or dep.gpu_count is not None:
        gpu = {
            "name": dep.gpu.name if dep.gpu else None,
            "count": dep.gpu_count,
            "total_gib": dep.gpu.total_gib if dep.gpu else None,
        }
    return {
        "model": dep.model,
        "vllm_version": str(dep.version),
        "program": dep.invocation.program,
        "source": dep.invocation.source,
        "gpu": gpu,
        "settings": _jsonable(settings),
        "user": _jsonable(user),
        "env": {k: v for k, v in dep.env.items() if v is not UNRESOLVED},
    }


def _jsonable(d: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, float) and not math.isfinite(v):
            continue
        out[k] = v
    return out


def _uses_only_supported(schema: Any) -> bool:
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict):
        return False
    for k, v in schema.items():
        if k not in _SUPPORTED:
            return False
        if k == "properties" and not all(_uses_only_supported(s) for s in v.values()):
            return False
        if (
            k in ("not", "items", "contains", "if", "then", "else", "additionalProperties")
            and not isinstance(v, bool)
            and not _uses_only_supported(v)
        ):
            return False
        if k in ("anyOf", "allOf", "oneOf") and not all(_uses_only_supported(s) for s in v):
            return False
    return True


def matches(schema: Any, doc: Any) -> bool:
    """Does ``doc`` validate against ``schema``?"""
    if _uses_only_supported(schema):
        return _valid(schema, doc)
    return _jsonschema_validator(_freeze(schema)).is_valid(doc)


def _freeze(schema: Any) -> Any:
    import json

    return json.dumps(schema, sort_keys=True)


@cache
def _jsonschema_validator(frozen: str) -> Any:
    import json

    import jsonschema

    return jsonschema.Draft202012Validator(json.loads(frozen))


def _type_ok(t: str, v: Any) -> bool:
    if t == "null":
        return v is None
    if t == "boolean":
        return isinstance(v, bool)
    if t == "integer":
        return (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    if t == "number":
        return isinstance(v, int | float) and not isinstance(v, bool)
    if t == "string":
        return isinstance(v, str)
    if t == "array":
        return isinstance(v, list)
    if t == "object":
        return isinstance(v, dict)
    return False


def _eq(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return bool(a == b)


def _num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _valid(s: Any, v: Any) -> bool:
    if s is True:
        return True
    if s is False:
        return False
    if "type" in s:
        types = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(_type_ok(t, v) for t in types):
            return False
    if "const" in s and not _eq(s["const"], v):
        return False
    if "enum" in s and not any(_eq(e, v) for e in s["enum"]):
        return False
    if _num(v):
        if "minimum" in s and v < s["minimum"]:
            return False
        if "maximum" in s and v > s["maximum"]:
            return False
        if "exclusiveMinimum" in s and v <= s["exclusiveMinimum"]:
            return False
        if "exclusiveMaximum" in s and v >= s["exclusiveMaximum"]:
            return False
        if "multipleOf" in s and (v / s["multipleOf"]) % 1 != 0:
            return False
    if isinstance(v, str):
        if "minLength" in s and len(v) < s["minLength"]:
            return False
        if "maxLength" in s and len(v) > s["maxLength"]:
            return False
        if "pattern" in s and not re.search(s["pattern"], v):
            return False
    if isinstance(v, dict):
        for key in s.get("required", ()):
            if key not in v:
                return False
        props = s.get("properties", {})
        for key, sub in props.items():
            if key in v and not _valid(sub, v[key]):
                return False
        extra = s.get("additionalProperties")
        if extra is not None:
            for key, val in v.items():
                if key not in props and not _valid(extra, val):
                    return False
    if isinstance(v, list):
        if "items" in s and not all(_valid(s["items"], x) for x in v):
            return False
        if "contains" in s and not any(_valid(s["contains"], x) for x in v):
            return False
        if "minItems" in s and len(v) < s["minItems"]:
            return False
        if "maxItems" in s and len(v) > s["maxItems"]:
            return False
    if "not" in s and _valid(s["not"], v):
        return False
    if "allOf" in s and not all(_valid(x, v) for x in s["allOf"]):
        return False
    if "anyOf" in s and not any(_valid(x, v) for x in s["anyOf"]):
        return False
    if "oneOf" in s and sum(1 for x in s["oneOf"] if _valid(x, v)) != 1:
        return False
    if "if" in s:
        branch = s.get("then", True) if _valid(s["if"], v) else s.get("else", True)
        if not _valid(branch, v):
            return False
    return True
