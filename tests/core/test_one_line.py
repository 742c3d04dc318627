"""One line of text, as titles, table cells and error details show it."""

from __future__ import annotations

from oncall_tui.core.text import one_line


def test_whitespace_and_newlines_fold_to_single_spaces_and_the_ends_are_trimmed() -> None:
    assert one_line("  disk\tfull\n\n on  db-3 \r\n") == "disk full on db-3"
    assert one_line("   \n\t ") == ""


def test_a_line_at_the_limit_is_kept_and_one_past_it_is_cut_with_an_ellipsis() -> None:
    assert one_line("a" * 10, 10) == "a" * 10
    assert one_line("a" * 11, 10) == "a" * 9 + "…"
    assert len(one_line("x" * 500, 60)) == 60


def test_a_cut_leaves_no_space_before_the_ellipsis() -> None:
    assert one_line("restart the api pod", 13) == "restart the…"
