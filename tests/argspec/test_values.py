"""Value conversion like vLLM's ``type=`` callables (vllm/utils/argparse_utils.py, 0.33.0).

Every expectation below was checked against vLLM 0.33.0's ``human_readable_int`` /
``human_readable_int_or_auto`` and argparse's messages, then hard-coded.
"""

from __future__ import annotations

import math

import pytest

from vlint.argspec.values import (
    ArgValueError,
    convert,
    human_readable_int,
    human_readable_int_or_auto,
    is_finite_number,
    python_value_kind_ok,
)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("1k", 1000),
        ("1K", 1024),
        ("25.6k", 25600),
        ("1.5k", 1500),
        ("32k", 32000),
        ("32K", 32768),
        ("128k", 128000),
        ("4K", 4096),
        ("1m", 10**6),
        ("1M", 2**20),
        ("1g", 10**9),
        ("80g", 80 * 10**9),
        ("1G", 2**30),
        ("1t", 10**12),
        ("1T", 2**40),
        ("0.5g", 5 * 10**8),
        ("8192", 8192),
        (" 8192 ", 8192),
        ("-1", -1),
        ("+5", 5),
        ("1_000", 1000),  # int() accepts underscores
        ("007", 7),
    ],
)
def test_human_readable_int(text: str, value: int) -> None:
    assert human_readable_int(text) == value


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1.5K", "Decimals are not allowed with binary suffixes like K. Did you mean to use 1.5k instead?"),
        ("0.5G", "Decimals are not allowed with binary suffixes like G. Did you mean to use 0.5g instead?"),
        ("abc", "invalid human_readable_int value: 'abc'"),
        ("1.5", "invalid human_readable_int value: '1.5'"),
        ("1kb", "invalid human_readable_int value: '1kb'"),
        ("1 k", "invalid human_readable_int value: '1 k'"),
        ("k", "invalid human_readable_int value: 'k'"),
        ("-1k", "invalid human_readable_int value: '-1k'"),  # the suffix form takes no sign
        ("0x10", "invalid human_readable_int value: '0x10'"),
        ("", "invalid human_readable_int value: ''"),
        ("auto", "invalid human_readable_int value: 'auto'"),
    ],
)
def test_human_readable_int_errors(text: str, message: str) -> None:
    with pytest.raises(ArgValueError) as e:
        human_readable_int(text)
    assert str(e.value) == message


@pytest.mark.parametrize(
    ("text", "value"),
    [("auto", -1), ("AUTO", -1), ("Auto", -1), (" auto ", -1), ("-1", -1), ("1k", 1000), ("1K", 1024), ("-2", -2)],
)
def test_human_readable_int_or_auto(text: str, value: int) -> None:
    assert human_readable_int_or_auto(text) == value


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("1.5K", "Decimals are not allowed with binary suffixes like K. Did you mean to use 1.5k instead?"),
        ("max", "invalid human_readable_int_or_auto value: 'max'"),
        ("None", "invalid human_readable_int_or_auto value: 'None'"),
    ],
)
def test_human_readable_int_or_auto_errors(text: str, message: str) -> None:
    with pytest.raises(ArgValueError) as e:
        human_readable_int_or_auto(text)
    assert str(e.value) == message


@pytest.mark.parametrize(
    ("kind", "text", "value"),
    [
        ("int", "8", 8),
        ("int", "-1", -1),
        ("int", " 8 ", 8),
        ("float", "0.9", 0.9),
        ("float", "1", 1.0),
        ("float", "1e-3", 0.001),
        ("float", ".5", 0.5),
        ("str", "fp8", "fp8"),
        ("str", "", ""),
        ("human_int", "2K", 2048),
        ("human_int_or_auto", "auto", -1),
        ("json", '{"mode": 3}', {"mode": 3}),
        ("json", "[1, 2]", [1, 2]),
        ("json", "3", 3),
        ("json", "true", True),
        ("json", "null", None),
        ("bool", "true", True),
        ("bool", "False", False),
        ("none", "x", "x"),
    ],
)
def test_convert(kind: str, text: str, value: object) -> None:
    got = convert(kind, text)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize("text", ["None", "none", "null"])
def test_optional_arguments_take_none(text: str) -> None:
    assert convert("int", text, optional=True) is None
    with pytest.raises(ArgValueError):
        convert("int", text)


def test_float_inf_and_nan_are_floats_like_python() -> None:
    assert convert("float", "inf") == math.inf
    assert math.isnan(convert("float", "nan"))
    assert not is_finite_number(convert("float", "inf"))


@pytest.mark.parametrize(
    ("kind", "text", "message"),
    [
        ("int", "0.9", "invalid int value: '0.9'"),
        ("int", "8k", "invalid int value: '8k'"),
        ("float", "90%", "invalid float value: '90%'"),
        ("json", "{mode: 3}", "invalid loads value: '{mode: 3}'"),
        ("json", "", "invalid loads value: ''"),
        ("bool", "maybe", "Invalid boolean value: maybe. Expected 'true' or 'false'."),
    ],
)
def test_convert_errors_use_argparses_words(kind: str, text: str, message: str) -> None:
    with pytest.raises(ArgValueError) as e:
        convert(kind, text)
    assert str(e.value) == message


def test_deeply_nested_json_is_an_error_not_a_crash() -> None:
    with pytest.raises(ArgValueError):
        convert("json", "[" * 100_000)


@pytest.mark.parametrize(
    ("kind", "value", "ok"),
    [
        ("int", 4096, True),
        ("int", True, False),
        ("int", 4096.0, False),
        ("int", "4096", False),
        ("human_int", 4096, True),
        ("float", 1, True),
        ("float", 0.9, True),
        ("float", False, False),
        ("bool", True, True),
        ("bool", 1, False),
        ("none", True, True),
        ("str", 3, True),
        ("json", {"a": 1}, True),
        ("int", None, True),
    ],
)
def test_python_value_kind_ok(kind: str, value: object, ok: bool) -> None:
    assert python_value_kind_ok(kind, value) is ok
