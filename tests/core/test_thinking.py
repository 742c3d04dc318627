"""A thinking model's leading <think> block is dropped from streams, wherever the pieces cut."""

from __future__ import annotations

import pytest

from oncall_tui.core.thinking import ThinkingFilter

REPLY = "<think>\nThe pods restarted at 02:47; check the deploy.\n</think>\n\nRoll back the deploy."


def stream(text: str, cuts: list[int]) -> str:
    pieces = [text[a:b] for a, b in zip([0, *cuts], [*cuts, len(text)], strict=True)]
    thinking = ThinkingFilter()
    return "".join(thinking.feed(piece) for piece in pieces) + thinking.finish()


@pytest.mark.parametrize("cut", range(1, len(REPLY)))
def test_every_place_a_piece_can_end_gives_the_same_answer(cut: int) -> None:
    assert stream(REPLY, [cut]) == "Roll back the deploy."


def test_one_character_at_a_time_and_the_long_tag() -> None:
    long_tag = REPLY.replace("think>", "thinking>")
    assert stream(long_tag, list(range(1, len(long_tag)))) == "Roll back the deploy."
    assert stream("<THINK>x</THINK>ok", [3, 9]) == "ok"


def test_text_without_a_leading_block_passes_as_written() -> None:
    text = "Wrap it in <think> tags if you must.\n\n<think>not stripped</think>"
    assert stream(text, [1, 5, 12]) == text
    assert stream("  indented answer", [1]) == "  indented answer"
    assert stream("<b>bold</b> claim", [2]) == "<b>bold</b> claim"


def test_held_text_comes_out_at_the_end_and_an_unclosed_block_does_not() -> None:
    assert stream("<thi", []) == "<thi"  # what looked like a tag was the whole answer
    assert stream("   ", []) == "   "
    assert stream("<think>cut off mid-thought", [9]) == ""


def test_the_filter_is_ready_for_the_next_output_after_finish() -> None:
    thinking = ThinkingFilter()
    assert thinking.feed("<think>a</think>first") == "first"
    assert thinking.finish() == ""
    assert thinking.feed("<think>b</think>second") == "second"


def thinks_at(pieces: list[str], ended_at: int | None = None) -> list[int]:
    """The pieces (by index) at which the filter says the model thinks: those that show
    nothing are asked, as the agent asks them."""
    thinking = ThinkingFilter()
    said = []
    for index, piece in enumerate(pieces):
        if not thinking.feed(piece) and thinking.thinks(piece, ended=index == ended_at):
            said.append(index)
    return said


def test_reasoning_is_seen_once_at_its_second_quiet_piece() -> None:
    # Ollama's ``thinking`` field, which LangChain drops: pieces without text.
    assert thinks_at(["", "", "", "", "Roll back."]) == [1]
    # A <think> block, its pieces held back.
    assert thinks_at(["<think>", "the pods", " restarted", "</think>", "\n\n", "Roll"]) == [1]


def test_a_lone_empty_piece_a_call_or_the_end_is_not_reasoning() -> None:
    assert thinks_at(["", "Roll back.", "", ""]) == []  # a role-only first piece
    assert thinks_at(["", "", ""], ended_at=0) == []  # a tool call's piece: the output spoke
    assert thinks_at(["Roll back.", "", "", ""]) == []  # the answer came first
    assert thinks_at(["\n", "\n", "Roll"]) == []  # blank lines held back are not reasoning


def test_each_output_may_be_seen_to_reason_again() -> None:
    thinking = ThinkingFilter()
    assert [thinking.thinks("", ended=False) for _ in range(3)] == [False, True, False]
    thinking.finish()
    assert [thinking.thinks("", ended=False) for _ in range(2)] == [False, True]
