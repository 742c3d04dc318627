"""Sending a message end to end: memory rules, the agent stream, and what gets persisted.

``send`` is an async generator of the typed events of DESIGN.md "Events". Its promises:
the user's message is stored before the model is asked; the reply is stored when it ends,
whether it finished (``complete``), failed (``failed``, partial text kept) or was cancelled
(``interrupted``); every tool call gets an audit row; nothing else changes on failure.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass, field
from datetime import datetime

from oncall_tui.core.events import (
    ChatEvent,
    ContextLimitReached,
    MemoryCompacted,
    ReplyDone,
    ReplyFailed,
    TokenDelta,
    ToolFinished,
    ToolStarted,
    UsageReported,
    UserMessageStored,
)
from oncall_tui.errors import Language, OncallError
from oncall_tui.llm.gateway import ModelGateway
from oncall_tui.llm.turn import ModelUsage, Turn
from oncall_tui.services.memory import ContextLimitError, MemoryService, PreparedSend
from oncall_tui.store.engine import Database
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from oncall_tui.store.tables import ToolAuditRow, utcnow

log = logging.getLogger(__name__)

MAX_MESSAGE_CHARS = 100_000


def validate_message(text: str) -> str:
    if not text.strip():
        raise OncallError("VALIDATION_INVALID_ARGUMENT", detail="the message is empty")
    if len(text) > MAX_MESSAGE_CHARS:
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT",
            detail=f"a message is at most {MAX_MESSAGE_CHARS} characters (got {len(text)})",
        )
    return text


@dataclass
class _ToolCall:
    started: ToolStarted
    started_at: datetime
    clock: float
    finished: ToolFinished | None = None


@dataclass
class _Reply:
    """The reply as it streams in: text, tool calls and the model's usage report."""

    parts: list[str] = field(default_factory=list)
    calls: dict[str, _ToolCall] = field(default_factory=dict)
    usage: ModelUsage | None = None

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def worth_keeping(self) -> bool:
        return bool(self.text.strip() or self.calls)


class ChatService:
    def __init__(
        self,
        database: Database,
        memory: MemoryService,
        gateway: ModelGateway,
        *,
        lang: Language = "en",
    ) -> None:
        self._database = database
        self._memory = memory
        self._gateway = gateway
        self._lang = lang

    async def send(self, owner: str, session_id: int | None, text: str) -> AsyncIterator[ChatEvent]:
        """Send ``text`` to the session (a new one when ``session_id`` is ``None``).

        Bad input and another owner's session raise ``OncallError`` before anything is
        stored; everything after that is reported as events.
        """
        validate_message(text)
        try:
            prepared = await self._memory.prepare_message(owner, session_id, text)
        except ContextLimitError as limit:
            yield ContextLimitReached(limit.code, limit.message(self._lang), limit.usage)
            return
        if prepared.compacted is not None:
            state = prepared.compacted
            yield MemoryCompacted(
                state.session_id, state.compacted_message_count, state.memory_summary or ""
            )
        yield UserMessageStored(prepared.session_id, prepared.user_message_id, text)

        reply = _Reply()
        try:
            assembly = prepared.assembly
            turn = Turn(assembly.system_prompt, tuple(prepared.history), assembly.skills)
            stream = self._gateway.stream_turn(turn)
            async with aclosing(stream):
                async for event in stream:
                    if isinstance(event, ModelUsage):
                        reply.usage = event
                        continue
                    _track(reply, event)
                    yield event
        except OncallError as error:
            message_id = self._store_reply(owner, prepared, reply, "failed")
            self._memory.refresh_usage(owner, prepared.session_id)
            yield ReplyFailed(
                error.code, error.message(self._lang), prepared.session_id, message_id
            )
            return
        except (asyncio.CancelledError, GeneratorExit):
            self._store_reply(owner, prepared, reply, "interrupted")
            raise

        message_id = self._store_reply(owner, prepared, reply, "complete")
        usage = reply.usage or ModelUsage(input_tokens=None, output_tokens=None)
        reading = self._memory.record_reply(
            owner, prepared, reply.text, usage, used_tools=bool(reply.calls)
        )
        yield UsageReported(reading, usage.input_tokens, usage.output_tokens)
        assert message_id is not None
        yield ReplyDone(prepared.session_id, message_id)

    def _store_reply(
        self, owner: str, prepared: PreparedSend, reply: _Reply, status: str
    ) -> int | None:
        """Store the assistant message and its tool audit in one transaction.

        A failed or interrupted reply with no text and no tool call stores nothing."""
        if status != "complete" and not reply.worth_keeping:
            return None
        with self._database.session() as session:
            chat = SessionRepository(session).require(owner, prepared.session_id)
            messages = MessageRepository(session)
            message = messages.add(chat, "assistant", reply.text, status)
            for call in reply.calls.values():
                finished = call.finished
                messages.add_audit(
                    chat,
                    message,
                    ToolAuditRow(
                        session_id=0,
                        message_id=0,
                        call_id=call.started.call_id,
                        tool_name=call.started.name,
                        arguments=json.dumps(call.started.arguments, ensure_ascii=False),
                        status=_audit_status(finished),
                        summary="" if finished is None else finished.summary,
                        started_at=call.started_at,
                        duration_ms=finished.duration_ms
                        if finished is not None
                        else int((time.monotonic() - call.clock) * 1000),
                    ),
                )
            SessionRepository(session).save(chat)
            log.info(
                "reply stored in session %s: %s, %d tool calls",
                prepared.session_id,
                status,
                len(reply.calls),
            )
            return message.id


def _track(reply: _Reply, event: TokenDelta | ToolStarted | ToolFinished) -> None:
    if isinstance(event, TokenDelta):
        reply.parts.append(event.text)
    elif isinstance(event, ToolStarted):
        reply.calls[event.call_id] = _ToolCall(event, utcnow(), time.monotonic())
    elif event.call_id in reply.calls:
        reply.calls[event.call_id].finished = event


def _audit_status(finished: ToolFinished | None) -> str:
    if finished is None:
        return "interrupted"
    return "ok" if finished.ok else "error"
