"""When the chat log draws what streams in: one flush timer, and a reply's waiting seconds.

Streamed text is drawn at once when nothing was drawn for :data:`FLUSH_SECONDS` (the first
words of a reply), else joined until that much time has passed: a frame draws a reply's new
lines once, however fast the model writes. While a reply has nothing new to show, its header
counts the seconds (a tick every :data:`TICK_SECONDS`).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from textual.timer import Timer
from textual.widget import Widget

from oncall_tui.tui.chat_log.message import MessageBlock

FLUSH_SECONDS = 0.05
"""Streamed text is drawn at most this often: about the rate a reader follows, and far below
the frame budget at any speed a local model writes."""
TICK_SECONDS = 1.0
"""How often a streaming reply's header looks at how long it has waited (it counts seconds)."""


class StreamFlush:
    """The log's timers: ``draw`` is called for each message with streamed text to show."""

    def __init__(self, log: Widget, draw: Callable[[MessageBlock], None]) -> None:
        self._log = log
        self._draw = draw
        self._waiting: set[MessageBlock] = set()
        """Messages with something to draw at the next flush."""
        self._timer: Timer | None = None
        self._flushed_at = 0.0
        self._wait_timer: Timer | None = None
        """Counts the seconds a reply has had nothing to show, in its header."""

    def add(self, block: MessageBlock) -> None:
        """``block`` has streamed text (or its ending) to draw: at once if no flush ran for
        :data:`FLUSH_SECONDS`, else at the next."""
        self._waiting.add(block)
        if self._timer is None:
            wait = FLUSH_SECONDS - (time.monotonic() - self._flushed_at)
            if wait <= 0:
                self._flush()
            else:
                self._timer = self._log.set_timer(wait, self._flush)

    def _flush(self) -> None:
        self._timer = None
        self._flushed_at = time.monotonic()
        waiting, self._waiting = self._waiting, set()
        for block in waiting:
            block.flush()
            self._draw(block)

    def count_wait(self, reply: MessageBlock) -> MessageBlock:
        """Count, in ``reply``'s header, each second it has nothing new to show (a tick a second
        while it streams); the reply counted before is counted no longer."""
        self._stop_counting()

        def tick() -> None:
            if not reply.tick():
                self._stop_counting()

        self._wait_timer = self._log.set_interval(TICK_SECONDS, tick)
        return reply

    def clear(self) -> None:
        """The page is replaced: what waited, and the reply counted for, are no longer shown."""
        self._waiting.clear()
        self._stop_counting()

    def _stop_counting(self) -> None:
        if self._wait_timer is not None:
            self._wait_timer.stop()
            self._wait_timer = None
