"""Credentials written in files: where they are, and how to show them (masked, never in full).

The plaintext-secret rule reports them; every output format masks them, whether or not that rule
runs (a code frame of another finding on the same line must not print the token either).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from vlint.argspec.parse import UNRESOLVED
from vlint.span import Span

if TYPE_CHECKING:
    from vlint.lint import FileContext

#: environment variables whose value is a credential
SECRET_ENV = re.compile(
    r"^(HF_TOKEN|HUGGING_FACE_HUB_TOKEN|HUGGINGFACE_HUB_TOKEN|HUGGINGFACEHUB_API_TOKEN|HF_API_TOKEN|"
    r"VLLM_API_KEY|OPENAI_API_KEY|[A-Z0-9_]*_API_KEY|[A-Z0-9_]*_SECRET(_KEY)?|[A-Z0-9_]*_TOKEN|[A-Z0-9_]*PASSWORD)$"
)
#: values that are placeholders, not secrets
_PLACEHOLDER = re.compile(
    r"^(|<.*>|\{.*\}|\[.*\]|x+|X+|\*+|\.\.\.|changeme|change-me|your[-_a-z]*|replace[-_a-z]*|none|null|"
    r"token|secret|dummy|empty|fake|placeholder|example|sk-\.\.\.|hf_\.\.\.|true|false|0|1)$",
    re.IGNORECASE,
)
_VARIABLE_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")
#: values shaped like real credentials, whatever variable holds them
TOKEN_SHAPES = re.compile(r"(hf_[A-Za-z0-9]{30,}|sk-[A-Za-z0-9_-]{20,})")


@dataclass(frozen=True, slots=True)
class Secret:
    name: str
    value: str
    span: Span
    where: str

    @property
    def masked(self) -> str:
        return mask(self.value)


def mask(value: str) -> str:
    """``hf_AbcDef…`` → ``hf_A****``: enough to recognise, never enough to use."""
    v = value.strip().strip("'\"")
    if len(v) <= 8:
        return "****"
    return v[:4] + "****"


def is_secret_value(value: str) -> bool:
    v = value.strip().strip("'\"")
    # an all-caps name (hf_token: HUGGINGFACE_TOKEN) stands for a value, it is not one
    return bool(v) and not _PLACEHOLDER.match(v) and not _VARIABLE_NAME.match(v) and "$" not in v and "{{" not in v


def _looks_secret(name: str, value: str) -> bool:
    return bool(SECRET_ENV.match(name) and is_secret_value(value)) or bool(TOKEN_SHAPES.search(value))


def find_secrets(file: FileContext) -> Iterator[Secret]:
    seen: set[tuple[str, int, int]] = set()

    def once(s: Secret) -> Iterator[Secret]:
        key = (s.span.path, s.span.line, s.span.column)
        if key not in seen:
            seen.add(key)
            yield s

    for name, tok in file.assignments:
        if not tok.unresolved and _looks_secret(name, tok.text):
            yield from once(Secret(name, tok.text, tok.span, "in a variable assignment"))
    for dep in file.deployments:
        for name, tok in dep.invocation.env.items():
            if not tok.unresolved and _looks_secret(name, tok.text):
                yield from once(Secret(name, tok.text, tok.span, "in the launch environment"))
        for dest, flag in (("api_key", "--api-key"), ("hf_token", "--hf-token")):
            for s in dep.args.occurrences.get(dest, []):
                values = s.value if isinstance(s.value, list) else [s.value]
                where = {"config": "in the config file", "kwargs": "in the code"}.get(s.origin, "on the command line")
                name = s.option if s.origin in ("config", "kwargs") else flag
                for v in values:
                    if v is not UNRESOLVED and isinstance(v, str) and is_secret_value(v):
                        yield from once(Secret(name, v, s.value_span or s.span, where))


def redact(text: str, secrets: list[str], *, keep_width: bool = False) -> str:
    """Replace every secret value in ``text``. ``keep_width`` pads the mask to the value's length, so
    that the columns of a code frame still line up with the carets under them."""

    def hide(v: str) -> str:
        m = mask(v)
        return m + "*" * (len(v) - len(m)) if keep_width and len(v) > len(m) else m

    for v in sorted(set(secrets), key=len, reverse=True):
        if v:
            text = text.replace(v, hide(v))
    return TOKEN_SHAPES.sub(lambda m: hide(m.group(0)), text)
