"""Which values are credentials (VL502, masking): precision cases from public repositories vlint had not
seen (issue 29: a price named *_TOKEN, an example file's sample values)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sources.render.helpers import lint, write
from vlint.launch.credentials import is_example_file
from vlint.security.secrets import _looks_secret, token_shaped

REAL = "hf_" + "AbCdEfGhIjKlMnOpQrStUvWxYz012345"  # token-shaped (not a real token)


@pytest.mark.parametrize(
    ("name", "value", "secret"),
    [
        ("PRICE_PER_PROMPT_TOKEN", "0.000008", False),
        ("MAX_TOKEN", "1e-6", False),
        ("HF_TOKEN", "hf_" + "X" * 34, True),  # a redacted real token: the file's history has the real one
        ("HF_TOKEN", REAL, True),
        ("API_KEY", "mysecretkey", True),
        ("DB_PASSWORD", "hunter2.5x", True),
    ],
)
def test_values(name: str, value: str, secret: bool) -> None:
    assert _looks_secret(name, value) is secret


def test_token_shapes() -> None:
    assert token_shaped(f"Bearer {REAL}") and not token_shaped("hf_xxxxxxxxxxxxxxxxxxxxx")  # 21: no token


@pytest.mark.parametrize(
    ("path", "example"),
    [
        (".env.example", True),
        ("deploy/.env.sample", True),
        ("example.env", True),
        ("secrets.template", True),
        (".env", False),
        ("examples/start.sh", False),
        ("values.yaml", False),
    ],
)
def test_example_files(path: str, example: bool) -> None:
    assert is_example_file(path) is example


def test_an_example_file_reports_only_credential_shaped_values(tmp_path: Path) -> None:
    text = f"API_KEY=mysecretkey\nHF_TOKEN={REAL}\nMODEL=Qwen/Qwen2.5-7B-Instruct\nHUB_TOKEN=hf_xxxxxxxxxxxxxxxxxxxxx\n"
    write(tmp_path, {".env.example": text, ".env": text, "start.sh": "vllm serve m\n"})
    got = sorted((f.path.rsplit("/", 1)[-1], f.span.line) for f in lint(tmp_path, ".") if f.code == "VL502")
    assert got == [(".env", 1), (".env", 2), (".env", 4), (".env.example", 2)]


def test_every_token_shape_is_masked_in_reports() -> None:
    """_mask_shapes runs TOKEN_SHAPES only where one of _TOKEN_PREFIXES is: one sample per shape of the
    pattern must still be masked (the prefix list and the pattern are kept in step)."""
    from vlint.security.secrets import _mask_shapes

    samples = [
        "hf_" + "a1" * 16,
        "sk-" + "b2" * 12,
        "AKIA" + "C" * 16,
        "ASIA" + "D" * 16,
        *[f"gh{c}_" + "e3" * 16 for c in "pousr"],
        "github_pat_" + "f4" * 16,
        "glpat-" + "g5" * 11,
        *[f"xox{c}-" + "h6" * 6 for c in "abprs"],
    ]
    for token in samples:
        assert token not in _mask_shapes(f"value {token} here", keep_width=False), token
