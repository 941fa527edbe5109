"""Value conversion exactly as vLLM's parser does it (the ``type=`` callables of its arguments)."""

from __future__ import annotations

import json
import math

from vlint.core.lazy_re import lazy_compile
from vlint.core.typing_names import Any

_HUMAN = lazy_compile(r"(\d+(?:\.\d+)?)([kKmMgGtT])")
_DECIMAL = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_BINARY = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


class ArgValueError(ValueError):
    """The value would make vLLM's parser fail; the message is vLLM's (argparse's) wording."""


def human_readable_int(value: str) -> int:
    """vLLM's ``human_readable_int``: ``1k`` = 1000, ``1K`` = 1024, ``25.6k`` = 25600
    (vllm/utils/argparse_utils.py, 0.33.0 lines 30-73)."""
    value = value.strip()
    m = _HUMAN.fullmatch(value)
    if m:
        number, suffix = m.groups()
        if suffix in _DECIMAL:
            return int(float(number) * _DECIMAL[suffix])
        try:
            return int(number) * _BINARY[suffix]
        except ValueError:
            raise ArgValueError(
                f"Decimals are not allowed with binary suffixes like {suffix}. "
                f"Did you mean to use {number}{suffix.lower()} instead?"
            ) from None
    return _int(value, "human_readable_int")


def human_readable_int_or_auto(value: str) -> int:
    """``-1`` or ``auto`` (auto-fit) else :func:`human_readable_int` (0.33.0 lines 76-94)."""
    v = value.strip()
    if v == "-1" or v.lower() == "auto":
        return -1
    try:
        return human_readable_int(v)
    except ArgValueError as e:
        if "Decimals" in str(e):
            raise
        raise ArgValueError(f"invalid human_readable_int_or_auto value: {value!r}") from None


def _int(value: str, type_name: str = "int") -> int:
    try:
        return int(value)
    except ValueError:
        raise ArgValueError(f"invalid {type_name} value: {value!r}") from None


def _float(value: str) -> float:
    try:
        return float(value)
    except ValueError:
        raise ArgValueError(f"invalid float value: {value!r}") from None


def _bool(value: str) -> bool:
    # vLLM's old StoreBoolean / str2bool: "true"/"false" in any case
    v = value.strip().lower()
    if v in ("true", "1", "yes"):
        return True
    if v in ("false", "0", "no"):
        return False
    raise ArgValueError(f"Invalid boolean value: {value}. Expected 'true' or 'false'.")


def _json(value: str) -> Any:
    try:
        return json.loads(value)
    except (json.JSONDecodeError, RecursionError):
        raise ArgValueError(f"invalid loads value: {value!r}") from None


def convert(kind: str, text: str, *, optional: bool = False) -> Any:
    """Convert one command-line word for an argument of ``kind`` (see the schema's ``kind``)."""
    if optional and text in ("None", "none", "null"):
        return None
    if kind == "int":
        return _int(text)
    if kind == "float":
        return _float(text)
    if kind == "human_int":
        return human_readable_int(text)
    if kind == "human_int_or_auto":
        return human_readable_int_or_auto(text)
    if kind == "bool":
        return _bool(text)
    if kind == "json":
        # vLLM's JSON-typed arguments also take a bare scalar for some config classes
        # (``-cc 3``); argparse only fails when the value is not JSON at all.
        try:
            return json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            if text.strip().lstrip("-").isdigit():
                return int(text)
            raise ArgValueError(f"invalid loads value: {text!r}") from None
    if kind == "other:nullable_kvs":
        return _nullable_kvs(text)
    if kind == "json_or_str" and _JSON_OBJECT.match(text):
        # union_dict_and_str: a word that looks like a JSON object must be one ([0.33.0] vllm/engine/arg_utils.py:182)
        try:
            return json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            raise ArgValueError(f"Value {text} cannot be converted to json.loads") from None
    return text


_JSON_OBJECT = lazy_compile(r"(?s)^\s*{.*}\s*$")


def _nullable_kvs(text: str) -> dict[str, int] | None:
    """``KEY=VALUE,...`` with int values (``--limit-mm-per-prompt`` before 0.8.5: [0.8.2]
    vllm/engine/arg_utils.py:55-85 nullable_kvs; a JSON object is refused)."""
    if not text:
        return None
    out: dict[str, int] = {}
    for item in text.split(","):
        parts = [p.lower().strip() for p in item.split("=")]
        if len(parts) != 2:
            raise ArgValueError("Each item should be in the form KEY=VALUE")
        key, value = parts
        try:
            parsed = int(value)
        except ValueError:
            raise ArgValueError(f"Failed to parse value of item {key}={value}") from None
        if key in out and out[key] != parsed:
            raise ArgValueError(f"Conflicting values specified for key: {key}")
        out[key] = parsed
    return out


def python_value_kind_ok(kind: str, value: Any) -> bool:
    """Does a typed value (Python keyword argument, YAML scalar) fit an argument of ``kind``?"""
    if value is None:
        return True
    if kind in ("int", "human_int", "human_int_or_auto"):
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "float":
        return isinstance(value, int | float) and not isinstance(value, bool)
    if kind == "bool" or kind == "none":
        return isinstance(value, bool)
    return True


def is_finite_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
