"""The send runner: what reaches the UI, and when, from a send on its own thread."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import cast

from textual.message import Message
from textual.message_pump import MessagePump

from oncall_tui.core.events import ChatEvent, ReplyDone, TokenDelta
from oncall_tui.services.container import Services
from oncall_tui.tui.runner import ChatEventsArrived, ChatRunner, SendEnded


class Inbox:
    """Stands in for the screen: records what is posted, from any thread."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.first_batch = threading.Event()

    def post_message(self, message: Message) -> bool:
        self.messages.append(message)
        if isinstance(message, ChatEventsArrived):
            self.first_batch.set()
        return True


class PausingChat:
    """A send that yields two tokens, then waits until the UI has seen them."""

    def __init__(self, inbox: Inbox) -> None:
        self.inbox = inbox

    async def send(self, owner: str, session_id: int | None, text: str) -> AsyncIterator[ChatEvent]:
        yield TokenDelta("Checking ")
        yield TokenDelta("the pods.")
        seen = await asyncio.to_thread(self.inbox.first_batch.wait, 10)
        yield TokenDelta(" Seen." if seen else " Held back.")
        yield ReplyDone(1, 2)


class FakeServices:
    owner = "alice"

    def __init__(self, inbox: Inbox) -> None:
        self.chat = PausingChat(inbox)


def test_tokens_are_posted_on_a_short_timer_even_when_nothing_follows() -> None:
    inbox = Inbox()
    runner = ChatRunner(cast(Services, FakeServices(inbox)), cast(MessagePump, inbox))
    runner.run(None, "status?")
    batches = [m.events for m in inbox.messages if isinstance(m, ChatEventsArrived)]
    assert batches[0] == [TokenDelta("Checking the pods.")]  # joined, and not held back
    later = [event for batch in batches[1:] for event in batch]
    assert later == [TokenDelta(" Seen."), ReplyDone(1, 2)]
    ended = inbox.messages[-1]
    assert isinstance(ended, SendEnded)
    assert (ended.cancelled, ended.error) == (False, None)


class BrokenChat:
    async def send(self, owner: str, session_id: int | None, text: str) -> AsyncIterator[ChatEvent]:
        yield TokenDelta("partial")
        raise RuntimeError("a bug, not a model failure")


def test_a_fault_in_the_send_still_ends_it_with_a_catalogued_error() -> None:
    inbox = Inbox()
    services = FakeServices(inbox)
    services.chat = BrokenChat()  # type: ignore[assignment]
    ChatRunner(cast(Services, services), cast(MessagePump, inbox)).run(None, "status?")
    ended = inbox.messages[-1]
    assert isinstance(ended, SendEnded)
    assert ended.error is not None
    assert ended.error.code == "STREAM_FAILED"
    assert "RuntimeError: a bug, not a model failure" in ended.error.message()
