"""Streamed text pieces are joined on a short timer and never reordered or lost."""

from __future__ import annotations

import asyncio

from oncall_tui.core.joining import TextJoiner
from tests.conftest import poll_until


async def test_pieces_go_out_joined_once_the_timer_runs() -> None:
    sent: list[str] = []
    joiner = TextJoiner(0.02, lambda: sent.append(joiner.take()))
    for piece in ("Check", "ing ", "the pods."):
        joiner.add(piece)
    assert sent == []  # held
    await poll_until(lambda: bool(sent))
    assert sent == ["Checking the pods."]  # one message for three pieces, without a nudge
    joiner.add("More")
    await poll_until(lambda: len(sent) > 1)
    assert sent == ["Checking the pods.", "More"]  # a new piece starts a new timer


async def test_taking_early_stops_the_timer_so_nothing_goes_out_twice() -> None:
    sent: list[str] = []
    joiner = TextJoiner(0.02, lambda: sent.append(joiner.take()))
    joiner.add("before the tool call")
    assert joiner.take() == "before the tool call"
    assert joiner.take() == ""
    await asyncio.sleep(0.1)  # kept: that nothing goes out takes time to see (5 timer periods)
    assert sent == []
