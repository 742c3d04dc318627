"""Sending a message end to end: memory rules, the agent stream, and what gets persisted.

``send`` is an async generator of the typed events of docs/ARCHITECTURE.md "Events". Its
promises: nothing is stored unless the server answers and has the model; the user's message is
stored before the model is asked; the reply is stored when it ends, whether it finished
(``complete``, or ``truncated`` at the server's length limit), failed (``failed``, partial text
kept) or was cancelled (``interrupted``); every tool call gets an audit row; nothing else
changes on failure. ``retry`` answers a stored message that has no answer, without storing it twice.

Awaiting a send never blocks the caller's event loop on the database: every storage step runs
in a worker thread, and the reply, its audit and the session's new usage are stored in one
unit of work (:mod:`oncall_tui.services.steps`). A cancellation that arrives while a step runs
waits for it: a partial reply being stored is not lost.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from contextlib import aclosing
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import TYPE_CHECKING

from sqlmodel import Session

from oncall_tui.core.events import (
    ChatEvent,
    CompactionFailed,
    CompactionStarted,
    ConfirmHook,
    ContextLimitReached,
    MemoryCompacted,
    ReplyDone,
    ReplyFailed,
    TokenDelta,
    ToolFinished,
    ToolServerFailed,
    ToolStarted,
    ToolsUnavailable,
    UsageReported,
    UserMessageStored,
)
from oncall_tui.core.memory import ContextUsage
from oncall_tui.errors import Language, OncallError, note
from oncall_tui.llm.gateway import ModelGateway
from oncall_tui.llm.turn import ModelUsage, Turn
from oncall_tui.services.memory import Compacting, ContextLimitError, MemoryService, PreparedSend
from oncall_tui.services.steps import completed_in_thread
from oncall_tui.setting_values import DEFAULT_MAX_REPLY_CHARS
from oncall_tui.store.engine import Database
from oncall_tui.store.ids import stored_id
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from oncall_tui.store.tables import MessageRow, SessionRow, ToolAuditRow, utcnow

if TYPE_CHECKING:
    from oncall_tui.llm.mcp import McpTools

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
    chars: int = 0
    calls: dict[str, _ToolCall] = field(default_factory=dict)
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


class ChatService:
    def __init__(
        self,
        database: Database,
        memory: MemoryService,
        gateway: ModelGateway,
        *,
        lang: Language = "en",
        max_reply_chars: int = DEFAULT_MAX_REPLY_CHARS,
        server_tools: McpTools | None = None,
    ) -> None:
        self._server_tools = server_tools
        """The registered tool servers, started by the first send (off the caller's loop)."""
        self._database = database
        self._memory = memory
        self._gateway = gateway
        self._lang = lang
        self._max_reply_chars = max_reply_chars

    async def send(
        self,
        owner: str,
        session_id: int | None,
        text: str,
        *,
        confirm: ConfirmHook | None = None,
    ) -> AsyncGenerator[ChatEvent, None]:
        """Send ``text`` to the session (a new one when ``session_id`` is ``None``).

        Bad input, another owner's session and a server that does not answer or lacks the
        model raise ``OncallError`` before anything is stored; everything after that is
        reported as events. ``confirm`` is asked before each call of a tool the settings mark
        ``confirm``; without it such calls are refused ("not allowed in this run").
        """
        validate_message(text)
        prepare = partial(self._memory.prepare_message, owner, session_id, text)
        run = self._run(owner, prepare, stored_text=text, confirm=confirm)
        async with aclosing(run) as events:
            async for event in events:
                yield event

    async def retry(
        self, owner: str, session_id: int, *, confirm: ConfirmHook | None = None
    ) -> AsyncGenerator[ChatEvent, None]:
        """Answer the session's last message again, when no answer to it is stored.

        Its failed or interrupted replies stay in the history, marked, and are not sent to the
        model. The events are those of :meth:`send` without ``user_message``.
        """
        prepare = partial(self._memory.prepare_retry, owner, session_id)
        run = self._run(owner, prepare, stored_text=None, confirm=confirm)
        async with aclosing(run) as events:
            async for event in events:
                yield event

    async def _run(
        self,
        owner: str,
        prepare: Callable[[Compacting], Awaitable[PreparedSend]],
        *,
        stored_text: str | None,
        confirm: ConfirmHook | None,
    ) -> AsyncGenerator[ChatEvent, None]:
        """Check the server, start the tool servers, apply the memory rules (``prepare``),
        then answer.

        ``stored_text`` is the message ``prepare`` stores, announced as ``user_message``.
        """
        if not await self._check_ready():
            yield self._tools_unavailable()
        for failed in await self._start_server_tools():
            yield failed
        # At most one automatic compaction begins while the send is prepared: it is said as it
        # begins (a summary may take a CPU model a minute), then the preparation is awaited.
        announced: list[CompactionStarted] = []
        began = asyncio.Event()

        def compacting(session_id: int, count: int) -> None:
            announced.append(CompactionStarted(session_id, count))
            began.set()

        preparing = asyncio.ensure_future(prepare(compacting))
        beginning = asyncio.ensure_future(began.wait())
        try:
            await asyncio.wait({preparing, beginning}, return_when=asyncio.FIRST_COMPLETED)
            if announced:
                yield announced[0]
            prepared = await preparing
        except ContextLimitError as limit:
            for event in self._refused(limit):
                yield event
            return
        finally:
            beginning.cancel()
            preparing.cancel()  # the send was abandoned mid-way (nothing once it is done)
        for event in self._memory_events(prepared):
            yield event
        if stored_text is not None:
            yield UserMessageStored(prepared.session_id, prepared.user_message_id, stored_text)
        async with aclosing(self._answer(owner, prepared, confirm)) as answer:
            async for event in answer:  # closing it keeps a partial reply, marked
                yield event

    async def _check_ready(self) -> bool:
        """The server answers and has the model (asked off the event loop); can it call tools?"""
        readiness = await asyncio.to_thread(self._gateway.check_ready)
        return readiness.tools

    async def _start_server_tools(self) -> list[ToolServerFailed]:
        """Start the registered tool servers (once, in a thread); a server that failed is
        said once per process, and the send goes on without its tools."""
        runtime = self._server_tools
        if runtime is None:
            return []
        await asyncio.to_thread(runtime.start)
        return [
            ToolServerFailed(server, error.code, error.message(self._lang))
            for server, error in runtime.unreported_failures()
        ]

    def _tools_unavailable(self) -> ToolsUnavailable:
        model = self._gateway.model_name
        return ToolsUnavailable(model, note("tools_unavailable", self._lang, model=model))

    def _refused(self, limit: ContextLimitError) -> list[ChatEvent]:
        events: list[ChatEvent] = []
        if limit.compaction_error is not None:
            events.append(self._compaction_failed(None, limit.compaction_error))
        events.append(ContextLimitReached(limit.code, limit.message(self._lang), limit.usage))
        return events

    def _memory_events(self, prepared: PreparedSend) -> list[ChatEvent]:
        if prepared.compacted is not None:
            state = prepared.compacted
            return [
                MemoryCompacted(
                    state.session_id,
                    state.compacted_message_count,
                    state.memory_summary or "",
                    state.memory_summary_status,
                )
            ]
        if prepared.compaction_error is not None:
            return [self._compaction_failed(prepared.session_id, prepared.compaction_error)]
        return []

    def _compaction_failed(self, session_id: int | None, error: OncallError) -> CompactionFailed:
        message = note("auto_compaction_failed", self._lang, detail=error.message(self._lang))
        return CompactionFailed(session_id, error.code, message)

    async def _answer(
        self, owner: str, prepared: PreparedSend, confirm: ConfirmHook | None
    ) -> AsyncGenerator[ChatEvent, None]:
        """Run the turn for a prepared send and store what comes of it."""
        reply = _Reply()
        request = prepared.request
        try:
            assembly = request.assembly
            runtime = self._server_tools
            bind = runtime is not None and assembly.tools_enabled
            turn = Turn(
                assembly.system_prompt,
                tuple(request.history),
                assembly.skills,
                tools=assembly.tools_enabled,
                budget=request.budget,
                server_tools=tuple(runtime.tools(confirm)) if bind and runtime else (),
                tool_names=runtime.display_names() if bind and runtime else {},
            )
            stream = self._gateway.stream_turn(turn)
            async with aclosing(stream):  # leaving early (a cut) stops the model
                async for event in stream:
                    if isinstance(event, ModelUsage):
                        reply.usage = event
                        continue
                    if isinstance(event, TokenDelta):
                        event = self._within_limit(reply, event)
                    _track(reply, event)
                    yield event
                    if reply.cut:
                        break
        except OncallError as error:
            log.warning(
                "the reply in session %s failed: %s %s",
                prepared.session_id,
                error.code,
                error.message("en"),
            )
            message_id = await completed_in_thread(self._store_failed, owner, prepared, reply)
            yield ReplyFailed(
                error.code, self._failure(error, message_id), prepared.session_id, message_id
            )
            return
        except (asyncio.CancelledError, GeneratorExit):
            await completed_in_thread(self._store_interrupted, owner, prepared, reply)
            raise

        usage = reply.usage or ModelUsage(input_tokens=None, output_tokens=None)
        status = "truncated" if reply.truncated else "complete"
        answer_id, reading = await completed_in_thread(
            self._store_answer, owner, prepared, reply, status, usage
        )
        yield UsageReported(reading, usage.input_tokens, usage.output_tokens)
        yield ReplyDone(prepared.session_id, answer_id, status)

    def _within_limit(self, reply: _Reply, delta: TokenDelta) -> TokenDelta:
        room = self._max_reply_chars - reply.chars
        if len(delta.text) <= room:
            return delta
        reply.cut = True
        return TokenDelta(delta.text[:room])

    def _failure(self, error: OncallError, message_id: int | None) -> str:
        """What a failed reply tells the user: the error, what was kept, that retry works."""
        parts = [error.message(self._lang)]
        if message_id is not None:
            parts.append(note("partial_kept", self._lang, status="failed"))
        parts.append(note("retry_hint", self._lang))
        return " ".join(parts)

    def _store_answer(
        self, owner: str, prepared: PreparedSend, reply: _Reply, status: str, usage: ModelUsage
    ) -> tuple[int, ContextUsage]:
        """One unit of work: the answer, its tool audit, and the session's new usage."""
        with self._database.session() as session:
            chat = SessionRepository(session).require(owner, prepared.session_id)
            message = _add_reply(session, chat, reply, status)
            reading = self._memory.record_reply(chat, prepared, reply.text, usage)
            SessionRepository(session).save(chat)
            _log_stored(prepared, status, reply)
            return stored_id(message), reading

    def _store_failed(self, owner: str, prepared: PreparedSend, reply: _Reply) -> int | None:
        """One unit of work: a failed reply, if anything of it is worth keeping, and the usage
        of the session's next request (which does not send it)."""
        with self._database.session() as session:
            chat = SessionRepository(session).require(owner, prepared.session_id)
            message_id = None
            if reply.worth_keeping:
                message_id = _add_reply(session, chat, reply, "failed").id
                _log_stored(prepared, "failed", reply)
            self._memory.refresh(session, owner, chat)
            return message_id

    def _store_interrupted(self, owner: str, prepared: PreparedSend, reply: _Reply) -> None:
        """One unit of work: what arrived of a cancelled reply, if anything, ``interrupted``."""
        if not reply.worth_keeping:
            return
        with self._database.session() as session:
            chat = SessionRepository(session).require(owner, prepared.session_id)
            _add_reply(session, chat, reply, "interrupted")
            SessionRepository(session).save(chat)
            _log_stored(prepared, "interrupted", reply)


def _add_reply(session: Session, chat: SessionRow, reply: _Reply, status: str) -> MessageRow:
    """The assistant message at the session's next position, and an audit row per tool call."""
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
    return message


def _log_stored(prepared: PreparedSend, status: str, reply: _Reply) -> None:
    log.info(
        "reply stored in session %s: %s, %d tool calls",
        prepared.session_id,
        status,
        len(reply.calls),
    )


def _track(reply: _Reply, event: TokenDelta | ToolStarted | ToolFinished) -> None:
    if isinstance(event, TokenDelta):
        reply.parts.append(event.text)
        reply.chars += len(event.text)
    elif isinstance(event, ToolStarted):
        reply.calls[event.call_id] = _ToolCall(event, utcnow(), time.monotonic())
    elif event.call_id in reply.calls:
        reply.calls[event.call_id].finished = event


def _audit_status(finished: ToolFinished | None) -> str:
    return "interrupted" if finished is None else finished.status
