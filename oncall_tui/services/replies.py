"""A reply as it streams in, how it is stored, and how a held one is saved later.

:class:`StreamedReply` gathers the text, the tool calls and the model's usage report of one
turn. :func:`add_reply` stores it (the assistant message and an audit row per tool call) in
the caller's unit of work. When that unit fails because the database did (an outage, a full
disk), :func:`held_from` turns the reply into a :class:`~oncall_tui.services.spool.HeldReply`,
and :func:`save_held_reply` stores it once the database answers again.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session

from oncall_tui.core.events import ThinkingStarted, TokenDelta, ToolFinished, ToolStarted
from oncall_tui.errors import OncallError
from oncall_tui.llm.turn import ModelUsage
from oncall_tui.services.spool import HeldCall, HeldReply
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from oncall_tui.store.tables import MessageRow, SessionRow, ToolAuditRow, utcnow

log = logging.getLogger(__name__)


@dataclass
class ToolCall:
    started: ToolStarted
    started_at: datetime
    clock: float
    text_at: int
    """Characters of the reply's text written before the call: where it was made."""
    finished: ToolFinished | None = None

    @property
    def status(self) -> str:
        return "interrupted" if self.finished is None else self.finished.status

    @property
    def summary(self) -> str:
        return "" if self.finished is None else self.finished.summary

    @property
    def duration_ms(self) -> int:
        if self.finished is not None:
            return self.finished.duration_ms
        return int((time.monotonic() - self.clock) * 1000)


@dataclass
class StreamedReply:
    """The reply as it streams in: text, tool calls and the model's usage report."""

    model: str | None = None
    """The model the request named (stored with the reply)."""
    parts: list[str] = field(default_factory=list)
    chars: int = 0
    calls: dict[str, ToolCall] = field(default_factory=dict)
    usage: ModelUsage | None = None
    cut: bool = False
    """The reply reached the size limit and was stopped there."""

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def truncated(self) -> bool:
        return self.cut or (self.usage is not None and self.usage.truncated)

    @property
    def worth_keeping(self) -> bool:
        return bool(self.text.strip() or self.calls)

    def track(self, event: ThinkingStarted | TokenDelta | ToolStarted | ToolFinished) -> None:
        """Note what the reply keeps: its text and its tool calls (reasoning is not kept)."""
        if isinstance(event, TokenDelta):
            self.parts.append(event.text)
            self.chars += len(event.text)
        elif isinstance(event, ToolStarted):
            self.calls[event.call_id] = ToolCall(event, utcnow(), time.monotonic(), self.chars)
        elif isinstance(event, ToolFinished) and event.call_id in self.calls:
            self.calls[event.call_id].finished = event


def add_reply(session: Session, chat: SessionRow, reply: StreamedReply, status: str) -> MessageRow:
    """The assistant message at the session's next position, and an audit row per tool call."""
    return _add(session, chat, reply.text, status, held_calls(reply), model=reply.model)


def held_calls(reply: StreamedReply) -> tuple[HeldCall, ...]:
    """The reply's tool calls as their audit rows record them."""
    return tuple(
        HeldCall(
            call_id=call.started.call_id,
            name=call.started.name,
            arguments=json.dumps(call.started.arguments, ensure_ascii=False),
            status=call.status,
            summary=call.summary,
            started_at=call.started_at.isoformat(),
            duration_ms=call.duration_ms,
            recovered=call.started.recovered,
            text_at=call.text_at,
        )
        for call in reply.calls.values()
    )


def held_from(
    reply: StreamedReply,
    *,
    owner: str,
    database: str,
    session_id: int,
    clear_generation: int,
    status: str,
) -> HeldReply:
    """``reply`` as the spool keeps it, to be stored as ``status`` later."""
    return HeldReply(
        owner=owner,
        database=database,
        session_id=session_id,
        clear_generation=clear_generation,
        status=status,
        text=reply.text,
        held_at=utcnow().isoformat(),
        calls=held_calls(reply),
        model=reply.model,
    )


def _add(
    session: Session,
    chat: SessionRow,
    text: str,
    status: str,
    calls: tuple[HeldCall, ...],
    created_at: datetime | None = None,
    *,
    model: str | None,
) -> MessageRow:
    messages = MessageRepository(session)
    message = messages.add(chat, "assistant", text, status, created_at=created_at, model=model)
    for call in calls:
        messages.add_audit(
            chat,
            message,
            ToolAuditRow(
                session_id=0,
                message_id=0,
                call_id=call.call_id,
                tool_name=call.name,
                arguments=call.arguments,
                status=call.status,
                summary=call.summary,
                started_at=datetime.fromisoformat(call.started_at),
                duration_ms=call.duration_ms,
                recovered=call.recovered,
                text_at=call.text_at,
            ),
        )
    return message


def save_held_reply(session: Session, held: HeldReply) -> bool:
    """Store ``held`` in its owner's session, in the caller's unit of work; ``False`` when it
    is not to be stored (already there, the session deleted or cleared since): the caller
    forgets it either way once the unit commits."""
    try:
        chat = SessionRepository(session).require(held.owner, held.session_id)
    except OncallError as error:
        if error.code != "NOT_FOUND":
            raise  # the database failed again: the reply stays held
        log.warning("a held reply was dropped: its session %s is gone", held.session_id)
        return False
    if chat.clear_generation != held.clear_generation:
        log.warning("a held reply was dropped: session %s was cleared since", held.session_id)
        return False
    messages = MessageRepository(session)
    if messages.holds(chat, "assistant", held.text, held.created_at):
        return False  # saved before, by this process or another
    _add(session, chat, held.text, held.status, held.calls, held.created_at, model=held.model)
    SessionRepository(session).save(chat)
    log.info("a held reply was saved in session %s: %s", held.session_id, held.status)
    return True
