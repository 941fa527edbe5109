"""``when:`` conditions: a JSON Schema evaluated against a deployment's settings document.

A rule with ``when:`` fires when the document *validates* against the schema. The common keywords
are evaluated here without importing jsonschema (which costs more start-up time than the whole
lint of a small repository); a schema using any other keyword is handed to jsonschema.

A repository writes its own rules (``rules-dir``), so both a ``pattern`` and the values it meets may be
hostile: every pattern (``pattern``, ``patternProperties``, and the ``additionalProperties`` that
depend on them) is searched by :mod:`vlint.engine.linear_regex` in linear time, never by backtracking ``re``,
here and in jsonschema (:func:`_validator_class`). :func:`check_patterns` refuses, when a rule is
loaded, a pattern that matcher cannot run.

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
from collections.abc import Iterator
from functools import cache, partial

from vlint.core.typing_names import TYPE_CHECKING, Any
from vlint.core.unresolved import UNRESOLVED
from vlint.engine.linear_regex import UnsupportedPattern, compile_linear

if TYPE_CHECKING:
    from vlint.launch.deployment import Deployment

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

    return _validator_class()(json.loads(frozen))


@cache
def _validator_class() -> Any:
    """Draft 2020-12 with every keyword that runs a regular expression searched in linear time."""
    import jsonschema

    return jsonschema.validators.extend(
        jsonschema.Draft202012Validator,
        {
            "pattern": partial(_pattern_keyword, jsonschema.ValidationError),
            "patternProperties": _pattern_properties_keyword,
            "additionalProperties": partial(_additional_properties_keyword, jsonschema.ValidationError),
        },
    )


def search(pattern: str, text: str) -> bool:
    """``re.search(pattern, text) is not None``, in linear time (:mod:`vlint.engine.linear_regex`)."""
    return compile_linear(pattern).search(text)


# jsonschema keyword functions: (validator, the keyword's value, instance, schema) → errors
def _pattern_keyword(error: type, validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    if validator.is_type(instance, "string") and not search(pattern, instance):
        yield error(f"{instance!r} does not match {pattern!r}")


def _pattern_properties_keyword(validator: Any, patterns: dict[str, Any], instance: Any, schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            if search(pattern, key):
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _additional_properties_keyword(
    error: type, validator: Any, extra: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    known = schema.get("properties", {})
    patterns = list(schema.get("patternProperties", {}))
    extras = [k for k in instance if k not in known and not any(search(p, k) for p in patterns)]
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif not extra and extras:
        yield error(f"additional properties are not allowed ({', '.join(sorted(map(repr, extras)))} unexpected)")


# -- refusing what cannot run, when a rule is loaded ----------------------------------------------------
#: keywords whose value is data, never a schema (``const: {pattern: …}`` is a value to compare)
_DATA_KEYWORDS = frozenset({"const", "enum", "default", "examples"})
#: keywords whose value maps names to schemas (``properties: {pattern: {…}}`` names a property)
_NAME_MAPS = frozenset({"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"})


def check_patterns(schema: Any) -> None:
    """Raise :class:`UnsupportedPattern` for a pattern in ``schema`` that the linear-time matcher
    refuses (a backreference, a lookaround, an invalid or too large pattern), or for
    ``unevaluatedProperties`` next to ``patternProperties`` (jsonschema matches those with ``re``)."""
    pattern_maps = unevaluated = False
    for node in _schemas(schema):
        if isinstance(node.get("pattern"), str):
            compile_linear(node["pattern"])
        if isinstance(node.get("patternProperties"), dict):
            pattern_maps = True
            for pattern in node["patternProperties"]:
                compile_linear(str(pattern))
        unevaluated = unevaluated or "unevaluatedProperties" in node
    if pattern_maps and unevaluated:
        raise UnsupportedPattern(
            "unevaluatedProperties is not supported in a schema that uses patternProperties "
            "(jsonschema would match those patterns with backtracking regular expressions)"
        )


def _schemas(schema: Any) -> Iterator[dict[str, Any]]:
    """Every (sub)schema of ``schema`` that is a mapping, each shared one once."""
    stack: list[tuple[Any, bool]] = [(schema, False)]
    seen: set[tuple[int, bool]] = set()
    while stack:
        node, names = stack.pop()
        if (id(node), names) in seen:
            continue
        seen.add((id(node), names))
        if isinstance(node, list):
            stack.extend((x, False) for x in node)
        elif isinstance(node, dict) and names:
            stack.extend((x, False) for x in node.values())
        elif isinstance(node, dict):
            yield node
            stack.extend((v, k in _NAME_MAPS) for k, v in node.items() if k not in _DATA_KEYWORDS)


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
        if "pattern" in s and not search(s["pattern"], v):
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
