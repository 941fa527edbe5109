"""The text of a file's bytes, as every reader of vlint decodes them: UTF-8 (BOM or not), UTF-16/32 with
a BOM, stray non-UTF-8 bytes one Windows-1252 character each (or an error, for ``vlint fix``), line
ends as ``\\n``."""

from __future__ import annotations

import codecs
from _thread import _local  # threading.local itself, without importing threading (~2 ms of a one-file lint)

from vlint.sources.base import SourceError

#: while :func:`read_text` decodes: [bytes that were not UTF-8, offset of the first]
_LENIENT = _local()


def _per_byte(e: UnicodeError) -> tuple[str, int]:
    """Error handler: each byte that is not part of valid UTF-8 as one Windows-1252 character (what a
    Latin-1 editor meant; printable, one character per byte so columns stay put), U+FFFD where
    Windows-1252 has none. Python resumes after the bad bytes, so decoding stays linear."""
    assert isinstance(e, UnicodeDecodeError)
    stats = getattr(_LENIENT, "stats", None)
    if stats is not None:
        stats[0] += e.end - e.start
        if stats[1] < 0:
            stats[1] = e.start
    out = []
    for b in e.object[e.start : e.end]:
        try:
            out.append(bytes([b]).decode("cp1252"))
        except UnicodeDecodeError:
            out.append("\ufffd")
    return "".join(out), e.end


codecs.register_error("vlint-per-byte", _per_byte)


def decode(data: bytes, *, strict: bool = False) -> str:
    """Text of a file: UTF-8 (with or without BOM) or UTF-16/32 with a BOM. Bytes that are not UTF-8
    (a Latin-1 comment) are read one character each (Windows-1252), unless ``strict`` (``vlint fix``,
    which must write back exactly the bytes it read): then they are an error. Line ends become
    ``\\n`` whatever the encoding (Windows editors write UTF-16 with CRLF)."""
    return read_text(data, strict=strict)[0]


def read_text(data: bytes, *, strict: bool = False) -> tuple[str, tuple[int, int] | None]:
    """:func:`decode`, and (bytes that were not UTF-8, line of the first) when there were any."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8) :]
    elif data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        # the UTF-32 LE mark starts with the UTF-16 LE one: test it first
        encoding = "utf-32" if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)) else "utf-16"
        try:
            return _unix_lines(data.decode(encoding)), None
        except UnicodeDecodeError as e:
            raise SourceError(f"not valid {encoding.upper()} text: {e.reason} at byte {e.start}") from None
    if b"\x00" in data[:8192]:
        raise SourceError("binary file (NUL bytes), not a text config")
    try:
        return _unix_lines(data.decode("utf-8")), None
    except UnicodeDecodeError as e:
        if strict:
            line = data[: e.start].count(b"\n") + 1
            raise SourceError(f"not valid UTF-8 text (byte 0x{data[e.start]:02x})", line) from None
    _LENIENT.stats = stats = [0, -1]
    try:
        text = data.decode("utf-8", errors="vlint-per-byte")
    finally:
        _LENIENT.stats = None
    return _unix_lines(text), (stats[0], data[: stats[1]].count(b"\n") + 1)


def _unix_lines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text
