"""Credentials written in one linted file: in its variable assignments, Kubernetes Secrets, the
launch environments and the ``--api-key``/``--hf-token`` values of its launches. What a secret looks
like and how outputs mask it is :mod:`vlint.security.secrets`'."""

from __future__ import annotations

from collections.abc import Iterator

from vlint.core.typing_names import TYPE_CHECKING
from vlint.core.unresolved import UNRESOLVED
from vlint.security.secrets import (
    _PLACEHOLDER,
    Secret,
    _embedded,
    _looks_secret,
    decoded_base64,
    is_secret_value,
    token_shaped,
)

if TYPE_CHECKING:
    from vlint.launch.file_context import FileContext


#: the suffixes of files that hold example values by convention (``.env.example``, ``values.yaml.sample``)
EXAMPLE_SUFFIXES = (".example", ".sample", ".template", ".tmpl", ".dist")


def is_example_file(path: str) -> bool:
    """``.env.example``, ``config.sample``, ``secrets.template``, ``example.env``: a file of example values."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    return name.endswith(EXAMPLE_SUFFIXES) or name.startswith(("example.", "sample."))


def find_secrets(file: FileContext) -> Iterator[Secret]:
    seen: set[tuple[str, int, int, str]] = set()
    # a file of example values (.env.example): a value counts only if it has a real credential's shape
    # (hf_ and 34 letters and digits); "mysecretkey" there is an example of what to write
    example = is_example_file(file.path)

    def once(s: Secret) -> Iterator[Secret]:
        key = (s.span.path, s.span.line, s.span.column, s.value)
        if key not in seen and (not example or token_shaped(s.value)):
            seen.add(key)
            yield s

    for name, tok, encoded in file.secret_tokens:
        if tok.unresolved:
            continue
        plain = decoded_base64(tok.text) if encoded else None
        value = plain if plain is not None else tok.text.strip()
        if not _PLACEHOLDER.match(value) and "{{" not in value:
            spellings = (tok.text.strip(),) if plain is not None else ()
            yield from once(Secret(name, value, tok.span, "in a Kubernetes Secret", spellings))
    for name, tok in file.assignments:
        if tok.unresolved:
            continue
        if _looks_secret(name, tok.text):
            yield from once(Secret(name, tok.text, tok.span, "in a variable assignment"))
        else:
            for v in _embedded(tok.text):
                yield from once(Secret(name, v, tok.span, "in a variable assignment"))
    for dep in file.deployments:
        for name, tok in dep.invocation.env.items():
            if tok.unresolved:
                continue
            if _looks_secret(name, tok.text):
                yield from once(Secret(name, tok.text, tok.span, "in the launch environment"))
            else:
                for v in _embedded(tok.text):
                    yield from once(Secret(name, v, tok.span, "in the launch environment"))
        for dest, flag in (("api_key", "--api-key"), ("hf_token", "--hf-token")):
            for s in dep.args.occurrences.get(dest, []):
                values = s.value if isinstance(s.value, list) else [s.value]
                where = {"config": "in the config file", "kwargs": "in the code"}.get(s.origin, "on the command line")
                name = s.option if s.origin in ("config", "kwargs") else flag
                for v in values:
                    if v is not UNRESOLVED and isinstance(v, str) and is_secret_value(v):
                        yield from once(Secret(name, v, s.value_span or s.span, where))
        for tok in dep.invocation.args:
            if not tok.unresolved:
                for v in _embedded(tok.text):
                    yield from once(Secret("a command-line argument", v, tok.span, "on the command line"))
