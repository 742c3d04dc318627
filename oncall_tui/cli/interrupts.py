"""Ending a chat on a signal the way Ctrl-C does: the partial reply is kept, then the exit.

SIGTERM (a process manager, ``kill``) and SIGHUP (an SSH connection that drops, a terminal
closed) would end the process where it stands, and the reply streaming in would be lost.
Here they cancel the chat's task instead, so the send stores what arrived, marked
``interrupted``, and the command exits as a process killed by that signal would (128 + N).
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Coroutine
from typing import TypeVar

T = TypeVar("T")

SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class SignalInterruptError(Exception):
    """The chat was cancelled by ``signal_number``; what it had was kept."""

    def __init__(self, signal_number: int) -> None:
        super().__init__(signal.Signals(signal_number).name)
        self.signal_number = signal_number

    @property
    def exit_status(self) -> int:
        return 128 + self.signal_number


def run_until_signal(work: Coroutine[object, object, T]) -> T:
    """``asyncio.run(work)``, where SIGTERM and SIGHUP cancel ``work`` (raising
    :class:`SignalInterruptError` once it has wound down) instead of killing the process."""
    received: list[int] = []

    async def guarded() -> T:
        loop = asyncio.get_running_loop()
        task = asyncio.current_task()
        if task is None:  # asyncio.run runs every coroutine in a task
            raise RuntimeError("run_until_signal's guard is running outside a task")

        def stop(number: int) -> None:
            received.append(number)
            task.cancel()

        for number in SIGNALS:
            loop.add_signal_handler(number, stop, number)
        try:
            return await work
        finally:
            for number in SIGNALS:
                loop.remove_signal_handler(number)

    try:
        return asyncio.run(guarded())
    except asyncio.CancelledError:
        if received:
            raise SignalInterruptError(received[0]) from None
        raise
