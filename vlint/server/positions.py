"""vlint spans ↔ LSP positions.

vlint counts lines and columns from 1 and columns in characters (code points) of the text with its
line ends turned into ``\\n`` (:func:`vlint.sources.decode.decode`). LSP counts both from 0 and columns in the
code units of the position encoding agreed at ``initialize``: UTF-16 unless the client offers
another (a character outside the Basic Multilingual Plane, such as an emoji, is two UTF-16 units,
four UTF-8 ones, one code point). LSP lines end at ``\\r\\n``, ``\\r`` or ``\\n``, so line numbers are
the same in the editor's text and in vlint's.
"""

from __future__ import annotations

from lsprotocol import types

from vlint.core.span import Span, line_starts

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"


def units(text: str, encoding: str) -> int:
    """Code units of ``text`` in the position encoding."""
    if encoding == UTF32 or text.isascii():
        return len(text)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def char_index(line: str, count: int, encoding: str) -> int:
    """The character index in ``line`` at ``count`` code units (clamped to the line; a count inside a
    character's units lands on that character)."""
    if encoding == UTF32 or line.isascii():
        return max(0, min(count, len(line)))
    used = 0
    for i, c in enumerate(line):
        if used >= count:
            return i
        used += len(c.encode("utf-8", "surrogatepass")) if encoding == UTF8 else (2 if ord(c) > 0xFFFF else 1)
    return len(line)


class Lines:
    """A text (line ends as ``\\n``) for position arithmetic in one encoding."""

    def __init__(self, text: str, encoding: str = UTF16) -> None:
        self.text = text
        self.encoding = encoding
        self.starts = line_starts(text)

    def line(self, index: int) -> str:
        """Line ``index`` (0-based) without its line end; "" past the end."""
        if index < 0 or index >= len(self.starts):
            return ""
        start = self.starts[index]
        end = self.starts[index + 1] - 1 if index + 1 < len(self.starts) else len(self.text)
        return self.text[start:end]

    @property
    def count(self) -> int:
        return len(self.starts)

    def position(self, line: int, column: int) -> types.Position:
        """The LSP position of vlint's ``line:column`` (1-based, characters), clamped to the text."""
        index = min(max(line - 1, 0), self.count - 1)
        text = self.line(index)
        col = min(max(column - 1, 0), len(text))
        return types.Position(line=index, character=units(text[:col], self.encoding))

    def range(self, span: Span) -> types.Range:
        """The LSP range of a span; an empty span is widened to the end of its word (or of its line)."""
        start = self.position(span.line, span.column)
        end = self.position(span.end_line, span.end_column)
        if (end.line, end.character) <= (start.line, start.character):
            text = self.line(start.line)
            col = char_index(text, start.character, self.encoding)
            stop = col
            while stop < len(text) and not text[stop].isspace():
                stop += 1
            if stop == col:
                stop = len(text)
            end = types.Position(line=start.line, character=units(text[:stop], self.encoding))
        return types.Range(start=start, end=end)

    def offset_position(self, offset: int) -> types.Position:
        """The LSP position of a character offset into the text."""
        offset = max(0, min(offset, len(self.text)))
        index = max(0, _bisect(self.starts, offset))
        text = self.text[self.starts[index] : offset]
        return types.Position(line=index, character=units(text, self.encoding))

    def vlint_position(self, pos: types.Position) -> tuple[int, int]:
        """vlint's ``(line, column)`` (1-based, characters) of an LSP position."""
        text = self.line(pos.line)
        return pos.line + 1, char_index(text, pos.character, self.encoding) + 1


def _bisect(starts: list[int], offset: int) -> int:
    from bisect import bisect_right

    return bisect_right(starts, offset) - 1
