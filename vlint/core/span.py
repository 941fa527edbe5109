"""Source locations.

Every value vlint reports on carries the :class:`Span` it came from, so a finding can say
``file:line:col``. Lines and columns are 1-based; columns count characters (not bytes), like
editors and ruff do.
"""

from __future__ import annotations

from bisect import bisect_right

from vlint.core.record import record


@record(frozen=True, slots=True)
class Span:
    """A region of a file: start and (inclusive-exclusive) end, 1-based line and column."""

    path: str
    line: int
    column: int
    end_line: int = 0
    end_column: int = 0

    def __post_init__(self) -> None:
        if self.end_line < self.line or (self.end_line == self.line and self.end_column < self.column):
            object.__setattr__(self, "end_line", self.line)
            object.__setattr__(self, "end_column", self.column)

    def to(self, other: Span) -> Span:
        """The span from the start of ``self`` to the end of ``other``."""
        return Span(self.path, self.line, self.column, other.end_line, other.end_column)

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.column}"


class PositionMap:
    """Maps offsets in a (possibly re-assembled) string back to file positions.

    A source often parses text that is not a verbatim slice of the file: the body of a YAML block
    scalar (indentation removed), a Dockerfile instruction, a ``bash -c`` string. The map is a list
    of segments ``(offset_in_text, line, column)``; a character at ``offset`` lies in the last
    segment starting at or before it, at ``column + (offset - segment_offset)`` on ``line``.
    """

    __slots__ = ("_cols", "_lines", "_offsets", "path")

    def __init__(self, path: str, segments: list[tuple[int, int, int]]) -> None:
        self.path = path
        if not segments:
            segments = [(0, 1, 1)]
        self._offsets = [s[0] for s in segments]
        self._lines = [s[1] for s in segments]
        self._cols = [s[2] for s in segments]

    @classmethod
    def for_text(cls, path: str, text: str, line: int = 1, column: int = 1) -> PositionMap:
        """A map for ``text`` that appears verbatim in the file starting at ``line:column``."""
        segments = [(0, line, column)]
        offset = 0
        for i, chunk in enumerate(text.split("\n")[:-1]):
            offset += len(chunk) + 1
            segments.append((offset, line + i + 1, 1))
        return cls(path, segments)

    @classmethod
    def at(cls, path: str, line: int, column: int) -> PositionMap:
        """Every offset maps onto one line, starting at ``line:column`` (for single-line values)."""
        return cls(path, [(0, line, column)])

    def position(self, offset: int) -> tuple[int, int]:
        i = bisect_right(self._offsets, offset) - 1
        if i < 0:
            i = 0
        return self._lines[i], self._cols[i] + (offset - self._offsets[i])

    def segments_of(self, origins: list[int]) -> list[tuple[int, int, int]]:
        """The segments of a map for a text whose character ``k`` stands at offset ``origins[k]`` of
        this map's text: a new segment wherever the next position is not one column on (the same
        list as looking every character up, with a lookup only where a run of origins breaks)."""
        out: list[tuple[int, int, int]] = []
        offsets, n = self._offsets, len(self._offsets)
        seg_end = -1  # this map's segment of the previous origin ends before this offset
        prev = -2
        for off, origin in enumerate(origins):
            if origin == prev + 1 and origin < seg_end:
                prev = origin  # on in the same segment of this map: one column on, same line
                continue
            i = bisect_right(offsets, origin) - 1
            if i < 0:
                i = 0
            seg_end = offsets[i + 1] if i + 1 < n else 1 << 62
            line, col = self._lines[i], self._cols[i] + (origin - offsets[i])
            if not out or not (line == out[-1][1] and col == out[-1][2] + (off - out[-1][0])):
                out.append((off, line, col))
            prev = origin
        return out

    def span(self, start: int, end: int) -> Span:
        """The file span of text[start:end]."""
        line, col = self.position(start)
        if end <= start:
            return Span(self.path, line, col, line, col)
        end_line, end_col = self.position(end - 1)
        return Span(self.path, line, col, end_line, end_col + 1)


def line_starts(text: str) -> list[int]:
    """Offset of the first character of every line of ``text`` (``[0, …]``)."""
    starts = [0]
    find = text.find
    i = find("\n")
    while i >= 0:
        starts.append(i + 1)
        i = find("\n", i + 1)
    return starts
