"""A reply's text and tool calls put in the order they came (``core.text.in_text_order``)."""

from __future__ import annotations

import pytest

from oncall_tui.core.text import in_text_order

TEXT = "Let me check.\n\nIt is late."
"""13 characters before the paragraph break, 15 before the answer."""


def at(call: tuple[str, int | None]) -> int | None:
    return call[1]


@pytest.mark.parametrize(
    ("calls", "order"),
    [
        ([], [TEXT]),
        ([("a", 13)], ["Let me check.", ("a", 13), "\n\nIt is late."]),
        ([("a", 0)], [("a", 0), TEXT]),  # before any word
        ([("a", len(TEXT))], [TEXT, ("a", len(TEXT))]),  # after the last: no empty piece
        ([("a", 99)], [TEXT, ("a", 99)]),  # past the end: at it
        ([("b", 15), ("a", 13)], ["Let me check.", ("a", 13), "\n\n", ("b", 15), "It is late."]),
        ([("a", 13), ("b", 13)], ["Let me check.", ("a", 13), ("b", 13), "\n\nIt is late."]),
        (
            [("old", None), ("a", 13)],
            [("old", None), "Let me check.", ("a", 13), "\n\nIt is late."],
        ),
    ],
)
def test_the_text_is_cut_at_each_call_s_place_and_the_calls_without_one_come_first(
    calls: list[tuple[str, int | None]], order: list[object]
) -> None:
    assert in_text_order(TEXT, calls, at) == order
    assert "".join(part for part in in_text_order(TEXT, calls, at) if isinstance(part, str)) == TEXT


def test_no_text_leaves_the_calls_alone() -> None:
    assert in_text_order("", [("a", 0), ("b", None)], at) == [("b", None), ("a", 0)]
