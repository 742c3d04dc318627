"""A backlog (a model faster than the screen) is rendered in short steps, and shown to the log
at most once per flush period: each showing is a frame that paints the whole view."""

from __future__ import annotations

import pytest

import oncall_tui.tui.widgets.message as message_module
from oncall_tui.tui.widgets.chat_log import ChatLog
from oncall_tui.tui.widgets.message import FLUSH_SECONDS, MAX_FLUSH_CHARS
from tests.tui.harness import spy, wait_until
from tests.tui.test_chat_log_segments import LogApp, lines_of, reply, texts


async def stream_backlog(
    monkeypatch: pytest.MonkeyPatch, step_seconds: float
) -> tuple[str, int, int, list[str]]:
    """Stream a long reply in one piece, with a clock that moves ``step_seconds`` per reading;
    return the text, how often the log was told, how often it rendered ahead, and the lines."""
    clock = [1000.0]

    def monotonic() -> float:
        clock[0] += step_seconds
        return clock[0]

    monkeypatch.setattr(message_module, "monotonic", monotonic)
    text = reply(80)
    app = LogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        log = app.query_one(ChatLog)
        block = await log.add_message("assistant", "", status="streaming")
        shown = spy(monkeypatch, log, "message_changed")
        ahead = spy(monkeypatch, log, "render_ahead")
        await block.append(text)
        await block.finish("complete")
        await wait_until(pilot, lambda: block.status == "complete")
        return text, len(shown), len(ahead), texts(lines_of(log, block))


async def test_a_backlog_is_shown_at_most_once_per_flush_period(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text, shown, ahead, lines = await stream_backlog(monkeypatch, step_seconds=0.0)
    steps = -(-len(text) // MAX_FLUSH_CHARS)
    assert steps > 10
    assert ahead == steps - 1  # every step but the last renders only
    assert shown == 3  # once (a step of its own), then the last step, then the finished status
    assert "Step 79: check the pods in namespace payments and compare restarts." in lines


async def test_steps_a_flush_period_apart_are_each_shown_by_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text, shown, ahead, lines = await stream_backlog(monkeypatch, step_seconds=2 * FLUSH_SECONDS)
    steps = -(-len(text) // MAX_FLUSH_CHARS)
    assert ahead == steps - 1
    assert shown == steps + 1  # a showing step after each rendering one, the last, the status
    assert "Step 79: check the pods in namespace payments and compare restarts." in lines
