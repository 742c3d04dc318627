"""Streamed text pieces joined on a short timer: one message per tick, not one per token.

A fast model sends a piece of text per token; whatever carries them on (a pipe between
processes, a message to the UI) costs the same per message whatever its length. So pieces are
held for up to a few dozen milliseconds and handed on joined.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable


class TextJoiner:
    """Holds text pieces; ``flush`` runs ``seconds`` after the first one held, and should call
    :meth:`take`. Call :meth:`take` sooner when something else must go out first (a tool call,
    the end), so the text keeps its place in order."""

    def __init__(self, seconds: float, flush: Callable[[], None]) -> None:
        self._seconds = seconds
        self._flush = flush
        self._pieces: list[str] = []
        self._timer: asyncio.TimerHandle | None = None

    def add(self, text: str) -> None:
        self._pieces.append(text)
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self._seconds, self._on_timer)

    def take(self) -> str:
        """The text held, joined (empty if none); the timer stops until the next piece."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        text = "".join(self._pieces)
        self._pieces.clear()
        return text

    def _on_timer(self) -> None:
        self._timer = None
        self._flush()
