"""A backlog (a model faster than the screen) is rendered in short steps, and shown to the log
at most once per flush period: each showing is a frame that paints the whole view, and the next
step waits for it. A step that ran slow (a loaded machine) is followed by a longer pause."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import oncall_tui.tui.widgets.message as message_module
from oncall_tui.tui.widgets.chat_log import ChatLog
from oncall_tui.tui.widgets.message import (
    BACKLOG_SECONDS,
    FLUSH_SECONDS,
    MAX_FLUSH_CHARS,
    SLOW_STEP_PAUSE,
)
from tests.tui.harness import spy, wait_until
from tests.tui.test_chat_log_segments import LogApp, lines_of, reply, texts


def moving_clock(step_seconds: float) -> Callable[[], float]:
    """A clock that moves ``step_seconds`` each time it is read."""
    clock = [1000.0]

    def read() -> float:
        clock[0] += step_seconds
        return clock[0]

    return read


async def stream_backlog(
    monkeypatch: pytest.MonkeyPatch, step_seconds: float, *, paragraphs: int = 80
) -> tuple[str, int, int, list[str], list[float]]:
    """Stream a long reply in one piece, with a clock that moves ``step_seconds`` per reading;
    return the text, how often the log was told, how often it rendered ahead, the lines, and
    the delay before each step after the first."""
    monkeypatch.setattr(message_module, "monotonic", moving_clock(step_seconds))
    text = reply(paragraphs)
    app = LogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        log = app.query_one(ChatLog)
        block = await log.add_message("assistant", "", status="streaming")
        shown = spy(monkeypatch, log, "message_changed")
        ahead = spy(monkeypatch, log, "render_ahead")
        delays = spy(monkeypatch, log, "set_timer", lambda delay, *_args, **_kwargs: delay)
        await block.append(text)
        await block.finish("complete")
        await wait_until(pilot, lambda: block.status == "complete")
        return text, len(shown), len(ahead), texts(lines_of(log, block)), delays[1:]


async def test_a_backlog_is_shown_at_most_once_per_flush_period(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text, shown, ahead, lines, _ = await stream_backlog(monkeypatch, step_seconds=0.0)
    steps = -(-len(text) // MAX_FLUSH_CHARS)
    assert steps > 10
    assert ahead == steps - 1  # every step but the last renders only
    assert shown == 3  # once (a step of its own), then the last step, then the finished status
    assert "Step 79: check the pods in namespace payments and compare restarts." in lines


async def test_steps_a_flush_period_apart_are_each_shown_by_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text, shown, ahead, lines, _ = await stream_backlog(monkeypatch, step_seconds=2 * FLUSH_SECONDS)
    steps = -(-len(text) // MAX_FLUSH_CHARS)
    assert ahead == steps - 1
    assert shown == steps + 1  # a showing step after each rendering one, the last, the status
    assert "Step 79: check the pods in namespace payments and compare restarts." in lines


async def test_a_quick_step_is_followed_by_the_usual_pause(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(message_module, "perf_counter", moving_clock(0.0))
    _, _, _, lines, delays = await stream_backlog(monkeypatch, step_seconds=0.0, paragraphs=20)
    assert len(delays) > 5
    assert set(delays) == {BACKLOG_SECONDS}
    assert "Step 19: check the pods in namespace payments and compare restarts." in lines


async def test_a_slow_step_is_followed_by_a_longer_pause(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    took = 0.03  # each step reads the clock twice: it seems to take 30 ms
    monkeypatch.setattr(message_module, "perf_counter", moving_clock(took))
    _, _, ahead, lines, delays = await stream_backlog(monkeypatch, step_seconds=0.0, paragraphs=20)
    assert ahead > 5
    after_steps = [delay for delay in delays if delay > BACKLOG_SECONDS]  # the rest wait a frame
    assert after_steps == [pytest.approx(SLOW_STEP_PAUSE * took)] * len(after_steps)
    assert len(after_steps) >= ahead  # after every rendering step (and every showing one)
    assert "Step 19: check the pods in namespace payments and compare restarts." in lines


async def stream_with_late_frames(
    monkeypatch: pytest.MonkeyPatch, hold: float
) -> tuple[str, list[str]]:
    """Stream a backlog while frames are held back for ``hold`` seconds after every showing (as
    on a loaded machine); return the order of showings (S), steps (t) and paints (f), and the
    reply's lines."""
    app = LogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        log = app.query_one(ChatLog)
        block = await log.add_message("assistant", "", status="streaming")
        events: list[str] = []

        def shown(*_args: object) -> None:
            events.append("S")
            app.delay_update(hold)  # no frame until then

        spy(monkeypatch, log, "message_changed", shown)
        spy(monkeypatch, log, "render_ahead", lambda *_args: events.append("t"))
        spy(monkeypatch, log, "render_lines", lambda *_args: events.append("f"))
        await block.append(reply(30))
        await block.finish("complete")
        await wait_until(pilot, lambda: block.status == "complete")
        return "".join(events), texts(lines_of(log, block))


async def test_after_a_showing_the_next_step_waits_for_its_frame(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    order, lines = await stream_with_late_frames(monkeypatch, hold=0.03)  # < FLUSH_SECONDS
    assert order.count("S") > 5
    assert order.count("t") > 10
    for at, event in enumerate(order):
        if event == "S" and "t" in order[at:]:  # a paint comes before the next step
            assert "f" in order[at : order.index("t", at)], order
    assert "Step 29: check the pods in namespace payments and compare restarts." in lines


async def test_a_log_that_is_not_painted_is_waited_for_a_flush_period_at_most(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    order, lines = await stream_with_late_frames(monkeypatch, hold=10.0)  # no frame at all
    held = order[order.index("S") :].rstrip("f")  # from the first showing to the last hold's end
    assert "f" not in held
    assert order.count("t") > 10  # the steps went on regardless
    assert "Step 29: check the pods in namespace payments and compare restarts." in lines
