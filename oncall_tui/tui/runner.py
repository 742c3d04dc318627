"""Runs one chat send off the UI thread and reports its events back as Textual messages.

The send (SQLite and the model stream) runs on a private event loop in a worker thread, so
the UI loop never waits on either. Tokens are coalesced for a few milliseconds before they
are posted: a fast model produces far more tokens per second than is useful to repaint.
"""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field

from textual.message import Message
from textual.message_pump import MessagePump

from oncall_tui.core.events import ChatEvent, TokenDelta
from oncall_tui.core.joining import TextJoiner
from oncall_tui.errors import OncallError
from oncall_tui.services.container import Services

FLUSH_SECONDS = 0.03
STOP_SECONDS = 5.0
"""How long quitting waits for a cancelled send to store its partial reply."""


class ChatEventsArrived(Message):
    """A batch of events from the running send, in order; tokens already joined."""

    def __init__(self, events: list[ChatEvent]) -> None:
        super().__init__()
        self.events = events


class SendEnded(Message):
    """The send is over: finished, failed, rejected up front, or cancelled."""

    def __init__(self, *, cancelled: bool = False, error: OncallError | None = None) -> None:
        super().__init__()
        self.cancelled = cancelled
        self.error = error
        """Set when the send was refused before anything was stored (bad input, forbidden)."""


@dataclass
class ChatRunner:
    services: Services
    target: MessagePump
    _loop: asyncio.AbstractEventLoop | None = field(default=None, init=False)
    _task: asyncio.Task[None] | None = field(default=None, init=False)
    _ended: threading.Event = field(default_factory=threading.Event, init=False)

    def run(self, session_id: int | None, text: str | None) -> None:
        """Blocking: call from a thread worker. Returns when the send has ended.

        ``text=None`` retries the session's unanswered last message instead of sending."""
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._task = loop.create_task(self._consume(session_id, text))
        try:
            loop.run_until_complete(self._task)
        except asyncio.CancelledError:
            self.target.post_message(SendEnded(cancelled=True))
        except OncallError as error:
            self.target.post_message(SendEnded(error=error))
        except Exception as exc:  # a fault must still end the send, or the UI waits forever
            problem = f"{type(exc).__name__}: {exc}"[:200]
            fault = OncallError("STREAM_FAILED", "engine_error", problem=problem)
            self.target.post_message(SendEnded(error=fault))
        else:
            self.target.post_message(SendEnded())
        finally:
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()
            self._loop = None
            self._ended.set()

    def cancel(self) -> None:
        """Thread-safe: stop the running send; the partial reply is kept as interrupted."""
        loop, task = self._loop, self._task
        if loop is not None and task is not None and not loop.is_closed():
            loop.call_soon_threadsafe(task.cancel)

    def stop(self, timeout: float = STOP_SECONDS) -> None:
        """Cancel the send and wait until what arrived is stored: the app is quitting (ctrl+q,
        SIGTERM, SIGHUP), and the process must not end before the partial reply is kept."""
        self.cancel()
        self._ended.wait(timeout)

    async def _consume(self, session_id: int | None, text: str | None) -> None:
        pending: list[ChatEvent] = []

        def join_tokens() -> None:
            if joined := tokens.take():
                pending.append(TokenDelta(joined))

        def flush() -> None:
            join_tokens()
            if pending:
                self.target.post_message(ChatEventsArrived(list(pending)))
                pending.clear()

        tokens = TextJoiner(FLUSH_SECONDS, flush)  # posted within FLUSH_SECONDS, even alone
        try:
            chat, owner = self.services.chat, self.services.owner
            if text is None:
                assert session_id is not None
                events = chat.retry(owner, session_id)
            else:
                events = chat.send(owner, session_id, text)
            async for event in events:
                if isinstance(event, TokenDelta):
                    tokens.add(event.text)
                    continue
                join_tokens()
                pending.append(event)
                flush()
        finally:
            flush()
