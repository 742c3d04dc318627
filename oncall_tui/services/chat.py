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
import contextlib
import logging
import re
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from contextlib import aclosing
from functools import partial
from typing import TYPE_CHECKING, ParamSpec, TypeVar

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
    ToolServerFailed,
    ToolServersStarting,
    ToolsUnavailable,
    UsageReported,
    UserMessageStored,
)
from oncall_tui.errors import Language, OncallError, joined, note
from oncall_tui.inputs import at_most
from oncall_tui.llm.gateway import ModelGateway
from oncall_tui.llm.turn import ModelUsage, Turn
from oncall_tui.services.context import ContextLimitError, Request
from oncall_tui.services.memory import Compacting, MemoryService, PreparedSend
from oncall_tui.services.replies import StreamedReply
from oncall_tui.services.reply_store import HeldError, ReplyStore
from oncall_tui.services.spool import ReplySpool
from oncall_tui.store.engine import Database

if TYPE_CHECKING:
    from oncall_tui.llm.mcp import McpTools

log = logging.getLogger(__name__)
P = ParamSpec("P")
T = TypeVar("T")

STARTING_SAID_AFTER = 1.0
"""Seconds into a send the tool servers may take to start before it says it waits for them."""
MAX_MESSAGE_CHARS = 100_000
MAX_REPLY_CHARS = 200_000
"""A reply past this is stopped there and stored ``truncated``: a runaway model must not fill
the database, and every later request, with one answer."""


TERMINAL_CODES = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, bold, cursor moves (ESC [ 1;31 m)
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: a window title, a hyperlink
    r"|\x1b[@-Z\\-_]"  # the other two-character escapes (ESC M, ESC c)
)
"""The escape sequences a terminal acts on, whole: what a coloured log carries around its
words (``kubectl logs`` of an app that forces colour, ``grep --color=always``)."""


def validate_message(text: str) -> str:
    """The message as stored and sent: without the terminal's escape sequences a piped or
    pasted log carried (the model would read them as words, and they take its context), at
    most :data:`MAX_MESSAGE_CHARS` characters; one that is only whitespace is refused."""
    text = TERMINAL_CODES.sub("", text)
    if not text.strip():
        raise OncallError("VALIDATION_INVALID_ARGUMENT", "message_empty")
    return at_most(text, MAX_MESSAGE_CHARS, "message_too_long")


class ChatService:
    def __init__(
        self,
        database: Database,
        memory: MemoryService,
        gateway: ModelGateway,
        *,
        lang: Language,
        max_reply_chars: int | None = None,
        server_tools: McpTools | None = None,
        spool: ReplySpool | None = None,
    ) -> None:
        self._store = ReplyStore(database, memory, spool or ReplySpool(None, database.label), lang)
        """Where replies go: the database, or the spool until it takes them."""
        self._server_tools = server_tools
        """The registered tool servers, started by the first send (off the caller's loop)."""
        self._database = database
        self._memory = memory
        self._gateway = gateway
        self._lang = lang
        self._max_reply_chars = MAX_REPLY_CHARS if max_reply_chars is None else max_reply_chars

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
        text = validate_message(text)
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
        if not await self._check_ready() and not self._gateway.tools_by_text():
            yield self._tools_unavailable()
        await self._store.save_held_first(owner)
        async for said in self._start_server_tools():
            yield said
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

    async def _start_server_tools(self) -> AsyncIterator[ToolServersStarting | ToolServerFailed]:
        """Start the registered tool servers (once, in a thread), said if it takes more than
        :data:`STARTING_SAID_AFTER`; a server that failed is said once per process, and the
        send goes on without its tools."""
        runtime = self._server_tools
        if runtime is None:
            return
        starting = asyncio.ensure_future(asyncio.to_thread(runtime.start))
        done, _ = await asyncio.wait({starting}, timeout=STARTING_SAID_AFTER)
        if not done:
            yield ToolServersStarting(runtime.start_seconds)
        await starting
        for server, error in runtime.unreported_failures():
            yield ToolServerFailed(server, error.code, error.message(self._lang))

    def _tools_unavailable(self) -> ToolsUnavailable:
        model = self._gateway.model_name
        return ToolsUnavailable(model, note("tools_unavailable", self._lang, model=model))

    def _refused(self, limit: ContextLimitError) -> list[ChatEvent]:
        events: list[ChatEvent] = []
        if limit.compaction_error is not None:
            events.append(self._compaction_failed(None, limit.compaction_error))
        message = limit.message(self._lang)
        events.append(ContextLimitReached(limit.code, message, limit.usage, limit.reason))
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
        reply = StreamedReply(model=self._gateway.model_name)
        try:
            stream = self._gateway.stream_turn(self._turn(prepared.request, confirm))
            async with aclosing(stream):  # leaving early (a cut) stops the model
                async for event in stream:
                    if isinstance(event, ModelUsage):
                        reply.usage = event
                        continue
                    if isinstance(event, TokenDelta):
                        event = self._within_limit(reply, event)
                    reply.track(event)
                    yield event
                    if reply.cut:
                        break
            if not reply.worth_keeping:  # a turn with nothing to show: failed, to ask again
                reason = "stream_empty_truncated" if reply.truncated else "stream_empty"
                raise OncallError("STREAM_FAILED", reason)
        except OncallError as error:
            log.warning(
                "the reply in session %s failed: %s %s",
                prepared.session_id,
                error.code,
                error.message("en"),
            )
            try:
                store = self._store
                message_id = await store.stored("failed", store.failed, owner, prepared, reply)
            except HeldError as held:
                if held.event is not None:
                    yield held.with_cause(error, self._lang)
                return
            yield ReplyFailed(
                error.code, self._failure(error, message_id), prepared.session_id, message_id
            )
            return
        except (asyncio.CancelledError, GeneratorExit):
            # Held: the next run saves it. The session deleted or cleared meanwhile: nothing
            # to keep it in, and the cancel goes on as a cancel.
            with contextlib.suppress(HeldError, OncallError):
                store = self._store
                await store.stored("interrupted", store.interrupted, owner, prepared, reply)
            raise

        usage = reply.usage or ModelUsage(input_tokens=None, output_tokens=None)
        status = "truncated" if reply.truncated else "complete"
        try:
            answer_id, reading = await self._store.stored(
                status, self._store.answer, owner, prepared, reply, status, usage
            )
        except HeldError as held:
            if held.event is not None:
                yield held.event
            return
        yield UsageReported(reading, usage.input_tokens, usage.output_tokens)
        yield ReplyDone(prepared.session_id, answer_id, status, self._sent_back_note(reply))

    def _turn(self, request: Request, confirm: ConfirmHook | None) -> Turn:
        """The model's turn for a request: its prompt, history and skills, and the tools it
        may call (the tool servers' only when the assembly enables tools)."""
        assembly = request.assembly
        runtime = self._server_tools
        bind = runtime is not None and assembly.tools_enabled
        return Turn(
            assembly.system_prompt,
            tuple(request.history),
            assembly.skills,
            tools=assembly.tools_enabled,
            text_tools=assembly.tools_in_prompt,
            budget=request.budget,
            server_tools=tuple(runtime.tools(confirm)) if bind and runtime else (),
            tool_names=runtime.display_names() if bind and runtime else {},
        )

    def _sent_back_note(self, reply: StreamedReply) -> str | None:
        if not self._memory.shortened_for_model(reply.text):
            return None
        return note("reply_sent_back_short", self._lang, chars=f"{len(reply.text):,}")

    def save_held(self, owner: str) -> int:
        """Store the owner's held replies (:meth:`.ReplyStore.save_held`); how many."""
        return self._store.save_held(owner)

    def _within_limit(self, reply: StreamedReply, delta: TokenDelta) -> TokenDelta:
        room = self._max_reply_chars - reply.chars
        if len(delta.text) <= room:
            return delta
        reply.cut = True
        return TokenDelta(delta.text[:room])

    def _failure(self, error: OncallError, message_id: int | None) -> str:
        """What a failed reply tells the user: the error, what was kept, that retry works."""
        parts = [error.message(self._lang)]
        if message_id is not None:
            parts.append(note("partial_kept", self._lang))
        parts.append(note("retry_hint", self._lang))
        return joined(self._lang, *parts)
