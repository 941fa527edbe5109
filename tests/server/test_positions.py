"""vlint spans (1-based, characters) ↔ LSP positions (0-based, code units of the agreed encoding)."""

from __future__ import annotations

from tests.server.lsp_client import require_pygls

require_pygls()

from lsprotocol import types  # noqa: E402

from vlint.core.span import Span  # noqa: E402
from vlint.server.positions import UTF8, UTF16, UTF32, Lines, char_index, units  # noqa: E402
from vlint.server.session import text_edit  # noqa: E402

LINE = 'NOTE="🦙é" vllm serve m --max-num-seq 8'


def test_units_per_encoding() -> None:
    # 🦙 is outside the Basic Multilingual Plane: 2 UTF-16 units, 4 UTF-8 bytes, 1 code point
    assert units("🦙", UTF16) == 2
    assert units("🦙", UTF8) == 4
    assert units("🦙", UTF32) == 1
    assert units("é", UTF16) == 1 and units("é", UTF8) == 2
    assert units("abc", UTF16) == 3


def test_span_to_position_counts_code_units() -> None:
    col = LINE.index("--max-num-seq")  # characters before the flag
    span = Span("serve.sh", 1, col + 1, 1, col + 1 + len("--max-num-seq"))
    prefix = LINE[:col]
    for enc, width in ((UTF16, len(prefix.encode("utf-16-le")) // 2), (UTF8, len(prefix.encode())), (UTF32, col)):
        r = Lines(LINE + "\n", enc).range(span)
        assert (r.start.line, r.start.character) == (0, width)
        assert r.end.character - r.start.character == len("--max-num-seq")
    assert len(prefix.encode("utf-16-le")) // 2 == col + 1  # the emoji moved the UTF-16 column by one


def test_position_back_to_vlint_column() -> None:
    lines = Lines(LINE, UTF16)
    col = LINE.index("vllm")
    pos = types.Position(line=0, character=len(LINE[:col].encode("utf-16-le")) // 2)
    assert lines.vlint_position(pos) == (1, col + 1)
    # a position inside the surrogate pair lands on the emoji; past the end is clamped
    assert char_index(LINE, 7, UTF16) == LINE.index("🦙") + 1
    assert char_index(LINE, 10_000, UTF16) == len(LINE)


def test_empty_span_is_widened_to_its_word() -> None:
    r = Lines("vllm serve --x\n", UTF16).range(Span("a.sh", 1, 6, 1, 6))
    assert (r.start.character, r.end.character) == (5, 10)
    r = Lines("\n", UTF16).range(Span("a.sh", 1, 1, 1, 1))
    assert (r.start.character, r.end.character) == (0, 0)


def test_spans_past_the_text_are_clamped() -> None:
    r = Lines("ab\ncd", UTF16).range(Span("a.sh", 7, 9, 8, 1))
    assert (r.start.line, r.start.character) == (1, 2)


def test_text_edit_is_the_changed_middle_with_the_files_line_ends() -> None:
    old = "a 🦙 --max-num-seq 8\nb\n"
    new = "a 🦙 --max-num-seqs 8\n# x\nb\n"
    e = text_edit(old, new, UTF16, crlf=True)
    assert (e.range.start.line, e.range.start.character) == (0, len("a 🦙 --max-num-seq".encode("utf-16-le")) // 2)
    assert "\r\n" in e.new_text and "\n" not in e.new_text.replace("\r\n", "")
    assert text_edit("same", "same").new_text == ""
