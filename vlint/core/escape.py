"""Text from a file, safe to print: nothing a pull request writes can move the cursor, recolour a
terminal, start a line of its own (a fake finding, a GitHub workflow command such as ``::add-mask::``
or ``::stop-commands::``) or crash the output with an unencodable character.

:func:`printable` is applied to every field of a text report that can hold file content (paths,
messages, code-frame lines, fixes, version reasons); the structured formats escape through JSON, and
GitHub annotations through :mod:`vlint.report.github`'s escaping plus :func:`printable`.
"""

from __future__ import annotations

import re
from functools import cache

#: C0 controls but TAB, DEL, C1 controls (CSI 0x9b starts an ANSI sequence too), Unicode line and
#: paragraph separators, bidirectional embeddings/overrides/isolates ("Trojan Source"), and lone
#: surrogates (an undecodable byte of a file name)
_UNSAFE = "[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
_NAMED = {"\n": "\\n", "\r": "\\r", "\x1b": "\\x1b", "\x00": "\\0"}


def _escape(m: re.Match[str]) -> str:
    c = m.group(0)
    if c in _NAMED:
        return _NAMED[c]
    n = ord(c)
    return f"\\x{n:02x}" if n <= 0xFF else f"\\u{n:04x}"


@cache
def _unsafe() -> re.Pattern[str]:
    return re.compile(_UNSAFE)


def printable(text: str) -> str:
    """``text`` with every unsafe character written as a visible escape (``\\x1b``, ``\\n``, ``\\u202e``)."""
    if text.isprintable():  # the usual case, decided in C: no pattern compiled at start-up
        return text
    return _unsafe().sub(_escape, text)


#: characters JSON may carry raw but a terminal would act on: C1 controls, line/paragraph separators,
#: bidirectional controls, lone surrogates (JSON's own escaping covers C0 controls and ESC)
_JSON_UNSAFE = "[\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"


@cache
def _json_unsafe() -> re.Pattern[str]:
    return re.compile(_JSON_UNSAFE)


def json_text(doc: object) -> str:
    """``doc`` as indented JSON, UTF-8 kept readable, with every character a terminal would act on
    written as a ``\\uXXXX`` escape (still the same JSON value)."""
    from vlint.core.json_write import dumps_indented

    text = dumps_indented(doc)
    if text.isascii():
        return text + "\n"
    return _json_unsafe().sub(lambda m: f"\\u{ord(m.group(0)):04x}", text) + "\n"
