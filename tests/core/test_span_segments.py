"""PositionMap.segments_of: the same segments as looking every character's position up."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from vlint.core.span import PositionMap


def _naive(pm: PositionMap, origins: list[int]) -> list[tuple[int, int, int]]:
    out: list[tuple[int, int, int]] = []
    for off, origin in enumerate(origins):
        line, col = pm.position(origin)
        if out and line == out[-1][1] and col == out[-1][2] + (off - out[-1][0]):
            continue
        out.append((off, line, col))
    return out


@given(st.text(alphabet="ab\n", max_size=60), st.lists(st.integers(0, 70), max_size=80), st.booleans())
def test_same_as_each_character_looked_up(text: str, origins: list[int], runs: bool) -> None:
    pm = PositionMap.for_text("f", text, line=3, column=5)
    if runs:  # mostly consecutive origins, as a re-assembled text has
        origins = [o + k for k, o in enumerate(sorted(origins))]
    assert pm.segments_of(origins) == _naive(pm, origins)


def test_a_verbatim_run_is_one_segment_per_line() -> None:
    pm = PositionMap.for_text("f", "abc\ndef\n")
    assert pm.segments_of(list(range(8))) == [(0, 1, 1), (4, 2, 1)]
