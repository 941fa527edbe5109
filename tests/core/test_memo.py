"""BoundedMemo: computed once per key, unhashable keys computed every time, cleared when full."""

from __future__ import annotations

from vlint.core.memo import BoundedMemo


def test_bounded_memo() -> None:
    calls: list[object] = []

    def compute(v: int):
        return lambda: calls.append(v) or v * 2

    memo: BoundedMemo[int] = BoundedMemo(limit=2)
    assert [memo.get(1, compute(1)), memo.get(1, compute(1)), memo.get(2, compute(2))] == [2, 2, 4]
    assert calls == [1, 2]
    assert memo.get(({"unhashable": 1},), compute(3)) == 6 and memo.get(({"unhashable": 1},), compute(3)) == 6
    assert calls == [1, 2, 3, 3]
    memo.get(4, compute(4))  # full: cleared, then 4 kept
    memo.get(1, compute(1))
    assert calls == [1, 2, 3, 3, 4, 1]
