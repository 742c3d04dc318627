"""Session memory: the 70% / 95% rules applied before anything is stored.

``prepare_message`` is steps 1-5 of the memory rules (docs/ARCHITECTURE.md "Session memory"):
estimate the candidate context, compact first when the mode says so, refuse at 95%, then
store the user message. ``prepare_retry`` is the same for a stored message that has no
answer, without storing it again. Compaction (:mod:`.compaction`) is one streamed model call
with no tools; only a non-empty summary moves the boundary, and history is never deleted.

Round trips: a send reads the session and the owner's active context (prompt, selected skills)
in one unit of work, and stores the user message in a second; the request is estimated once,
between them. What follows the reply is one unit of work too (:meth:`MemoryService.record_reply`
and :meth:`MemoryService.refresh` join the caller's). The async methods run their database
steps in worker threads (:mod:`oncall_tui.services.steps`), never on the caller's event loop,
and no transaction is held open across a model call.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

from sqlmodel import Session

from oncall_tui.core.memory import (
    DEFAULT_MEMORY_MODE,
    ContextUsage,
    MemoryMode,
    MemoryState,
    sent_back,
    should_auto_compact,
)
from oncall_tui.errors import OncallError
from oncall_tui.llm.gateway import ModelGateway
from oncall_tui.llm.tokens import message_tokens
from oncall_tui.llm.tool_specs import ToolSchema
from oncall_tui.llm.turn import ModelUsage
from oncall_tui.services.compaction import Compaction, Reading, memory_state
from oncall_tui.services.configuration import (
    ActiveContext,
    ConfigurationService,
    active_context_in,
    read_active_context,
)
from oncall_tui.services.context import (
    Assembly,
    ContextLimitError,
    Request,
    SessionSnapshot,
    assembly_of,
    budget_of,
)
from oncall_tui.services.sessions import title_from_message
from oncall_tui.services.steps import completed_in_thread
from oncall_tui.store.engine import Database
from oncall_tui.store.ids import stored_id
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from oncall_tui.store.tables import SessionRow

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PreparedSend:
    """A send that passed the memory rules: its user message is stored, the request is ready."""

    session_id: int
    user_message_id: int
    request: Request
    compacted: MemoryState | None = None
    compaction_error: OncallError | None = None
    """Why the automatic compaction before this send failed, if it did."""
    clear_generation: int = 0
    """The session's clear counter as the send read it: a reply held while the database was
    away goes back only into the history it answers."""


Compacting = Callable[[int, int], None]
"""Told the session and the number of messages as an automatic compaction begins."""


class MemoryService:
    def __init__(
        self,
        database: Database,
        configuration: ConfigurationService,
        gateway: ModelGateway,
        server_tools: Callable[[], tuple[ToolSchema, ...]] = tuple,
    ) -> None:
        self._database = database
        self._configuration = configuration
        self._server_tools = server_tools
        """The schemas of the tool servers' bound tools (none before they start)."""
        self._gateway = gateway
        self._compaction = Compaction(database, gateway, self._usage)

    # -- the send path -----------------------------------------------------------------------

    async def prepare_message(
        self,
        owner: str,
        session_id: int | None,
        text: str,
        on_compacting: Compacting | None = None,
    ) -> PreparedSend:
        """Apply the memory rules to a candidate message and store it, or raise.

        ``session_id=None`` starts a new session, created only once the message passes,
        so a rejected first message leaves nothing behind. ``on_compacting`` hears of an
        automatic compaction as it begins.
        """
        reading = await asyncio.to_thread(self._read, owner, session_id)
        request, compacted, failure = await self._measure(
            owner, reading, ("user", text), on_compacting=on_compacting
        )
        if request.usage.at_limit:
            earlier = bool(reading.snapshot.history or reading.snapshot.summary)
            raise ContextLimitError.of_message(request, text, failure, earlier=earlier)
        stored_session, message_id = await completed_in_thread(
            self._store_user_message, owner, reading.snapshot, text, request
        )
        row = reading.snapshot.row
        generation = 0 if row is None else row.clear_generation
        return PreparedSend(stored_session, message_id, request, compacted, failure, generation)

    async def prepare_retry(
        self, owner: str, session_id: int, on_compacting: Compacting | None = None
    ) -> PreparedSend:
        """The memory rules for answering the session's unanswered last message again.

        Nothing is stored: the message is already there, and replies that failed or were
        interrupted stay in the history without being sent. A compaction due now summarises
        the messages before the one being retried.
        """
        reading = await asyncio.to_thread(self._read, owner, session_id)
        pending = reading.snapshot.unanswered()
        if pending is None or pending.id is None:
            raise OncallError("VALIDATION_INVALID_ARGUMENT", "nothing_to_retry", ref=session_id)
        request, compacted, failure = await self._measure(
            owner,
            reading.before(pending.position),
            ("user", pending.content),
            pending.position,
            on_compacting=on_compacting,
        )
        if request.usage.at_limit:
            raise ContextLimitError(request.usage, "limit_retry", failure)
        generation = reading.snapshot.existing_row().clear_generation
        return PreparedSend(session_id, pending.id, request, compacted, failure, generation)

    def record_reply(
        self, row: SessionRow, prepared: PreparedSend, reply: str, usage: ModelUsage
    ) -> ContextUsage:
        """After a reply: remember what the model reported and set the new gauge reading on
        ``row`` (the session, read by the caller in the unit of work that stores the reply and
        saves the row).

        The model's count of the turn's first request (``first_input_tokens``) is compared with
        our estimate of the same request: the ratio scales later estimates up (never down), and
        the count is the floor of later readings, whose requests start with that one. The new
        reading is what the next request will hold: the request just sent plus the reply, not
        what the turn's tool results added to it. The estimate is additive, so that is the
        request's estimate plus the reply's tokens: nothing is measured again.
        """
        request = prepared.request
        window = self._gateway.context_window()
        raw = request.estimated_tokens + (message_tokens(sent_back(reply, window)) if reply else 0)
        measured = usage.first_input_tokens
        if measured is not None:
            row.reported_prompt_tokens = measured
            if request.estimated_tokens > 0:
                row.token_calibration = max(1.0, measured / request.estimated_tokens)
        reading = budget_of(row, window).reading(raw)
        row.context_tokens = reading.context_tokens
        return reading

    def shortened_for_model(self, reply: str) -> bool:
        """Whether later requests carry only the beginning and end of ``reply``
        (:func:`~oncall_tui.core.memory.sent_back`): the user is told."""
        return sent_back(reply, self._gateway.context_window()) != reply

    # -- explicit operations -------------------------------------------------------------------

    def state(self, owner: str, session_id: int) -> MemoryState:
        """The session's memory and the usage of its next request, read without writing."""
        reading = self._read(owner, session_id)
        return self._state_of(reading)

    def refresh_usage(self, owner: str, session_id: int) -> MemoryState:
        """Re-estimate the session's context as the next request would see it, and store it."""
        with self._database.session() as session:
            row = SessionRepository(session).require(owner, session_id)
            return self.refresh(session, owner, row)

    def refresh(self, session: Session, owner: str, row: SessionRow) -> MemoryState:
        """:meth:`refresh_usage` in the caller's unit of work (one that may write), for
        ``row``, the owner's session it read: the reading is set on the row, and the row
        saved."""
        reading = Reading(
            SessionSnapshot.read(session, owner, stored_id(row)), active_context_in(session, owner)
        )
        state = self._state_of(reading)
        row.context_tokens = state.usage.context_tokens
        SessionRepository(session).save(row)
        return state

    def baseline(self, owner: str) -> ContextUsage:
        """The usage a new, empty session starts from: system prompt and tool schemas."""
        reading = Reading(SessionSnapshot(row=None), self._configuration.active_context(owner))
        return self._usage(reading)

    async def compact(self, owner: str, session_id: int) -> MemoryState:
        """Summarise everything after the boundary now; with nothing there, no model call."""
        reading = await asyncio.to_thread(self._read, owner, session_id)
        if reading.snapshot.history:
            state, _ = await self._compaction.run(owner, reading)
            return state
        return await completed_in_thread(self.refresh_usage, owner, session_id)

    async def set_mode(self, owner: str, session_id: int, mode: MemoryMode) -> MemoryState:
        """Persist the mode. Switching to ``manual`` compacts at once (if anything is after the
        boundary), and the mode changes only if that compaction succeeds."""
        if mode is MemoryMode.MANUAL:
            reading = await asyncio.to_thread(self._read, owner, session_id)
            snapshot = reading.snapshot
            if snapshot.history:
                try:
                    await self._compaction.run(owner, reading)
                except OncallError as error:
                    raise OncallError(
                        "MEMORY_MODE_UNCHANGED", mode=snapshot.mode.value, detail=error
                    ) from None
        return await completed_in_thread(self._save_mode, owner, session_id, mode)

    # -- assembly and estimates ------------------------------------------------------------------

    def assemble(self, owner: str, summary: str | None) -> Assembly:
        """The system prompt in its fixed order and the tools for this owner's selection;
        without tools when the model cannot call them."""
        return self._assembly(self._configuration.active_context(owner), summary)

    def _assembly(self, context: ActiveContext, summary: str | None) -> Assembly:
        gateway = self._gateway
        by_text = not gateway.tools_supported() and gateway.tools_by_text()
        tools = by_text or gateway.tools_supported()
        return assembly_of(
            context,
            summary,
            tools=tools,
            tool_form=gateway.teaches_tool_form(),
            server_tools=self._server_tools() if tools else (),
            in_prompt=by_text,
        )

    def _request(self, reading: Reading, candidate: tuple[str, str]) -> Request:
        """The request answering ``candidate`` after ``reading``'s history, and its estimate.

        Runs on the caller's loop: it is CPU work only, and each text's estimate is cached."""
        snapshot = reading.snapshot
        assembly = self._assembly(reading.context, snapshot.summary)
        window = self._gateway.context_window()
        history = [*snapshot.sent_history(window), candidate]
        return Request(
            assembly, history, budget_of(snapshot.row, window), assembly.estimate(history)
        )

    def _usage(self, reading: Reading) -> ContextUsage:
        """The reading of the session's next request, before its message is known."""
        snapshot = reading.snapshot
        assembly = self._assembly(reading.context, snapshot.summary)
        window = self._gateway.context_window()
        budget = budget_of(snapshot.row, window)
        return budget.reading(assembly.estimate(snapshot.sent_history(window)))

    def _read(self, owner: str, session_id: int | None) -> Reading:
        """The session and the active context in one read (a selection that needs repair is
        repaired first, in a unit of work of its own). Blocking: the async methods call it in a
        worker thread. It also learns the window, which may ask the model server once."""
        self._gateway.context_window()
        with self._database.read() as session:
            snapshot = SessionSnapshot.read(session, owner, session_id)
            context = read_active_context(session, owner)
        if context is None:
            context = self._configuration.repaired_active_context(owner)
        return Reading(snapshot, context)

    def _state_of(self, reading: Reading) -> MemoryState:
        row = reading.snapshot.existing_row()
        return memory_state(row, self._usage(reading), can_compact=bool(reading.snapshot.history))

    # -- storage ------------------------------------------------------------------

    async def _measure(
        self,
        owner: str,
        earlier: Reading,
        candidate: tuple[str, str],
        until: int | None = None,
        *,
        on_compacting: Compacting | None = None,
    ) -> tuple[Request, MemoryState | None, OncallError | None]:
        """Steps 1-3: measure ``earlier``'s history and the candidate; compact ``earlier`` first
        if the mode says so, and measure again. A failed compaction is reported, not raised:
        the send may still fit, and the 95% rule decides. ``until`` is the candidate's position
        when it is stored already (a retry)."""
        request = self._request(earlier, candidate)
        snapshot = earlier.snapshot
        due = (
            snapshot.row is not None
            and bool(snapshot.history)
            and should_auto_compact(
                snapshot.mode,
                assistant_after_boundary=snapshot.assistant_after_boundary,
                candidate=request.usage,
            )
        )
        if not due:
            return request, None, None
        if on_compacting is not None:
            on_compacting(stored_id(snapshot.existing_row()), len(snapshot.history))
        try:
            compacted, after = await self._compaction.run(owner, earlier)
        except OncallError as error:
            log.warning(
                "automatic compaction of session %s failed: %s", snapshot.session_id, error.code
            )
            return request, None, error
        return self._request(after.before(until), candidate), compacted, None

    def _store_user_message(
        self, owner: str, snapshot: SessionSnapshot, text: str, request: Request
    ) -> tuple[int, int]:
        """One unit of work: the user message, at the session's next position, and the usage
        of the request it is part of (already measured: nothing is estimated here)."""
        with self._database.session() as session:
            sessions = SessionRepository(session)
            if snapshot.row is None or snapshot.row.id is None:
                row = sessions.create(owner, title_from_message(text), DEFAULT_MEMORY_MODE)
            else:
                row = sessions.require(owner, snapshot.row.id)
                if not row.title:
                    row.title = title_from_message(text)
            message = MessageRepository(session).add(row, "user", text)
            row.context_tokens = request.usage.context_tokens
            sessions.save(row)
            return stored_id(row), stored_id(message)

    def _save_mode(self, owner: str, session_id: int, mode: MemoryMode) -> MemoryState:
        """One unit of work: the new mode, and the usage refreshed with it."""
        with self._database.session() as session:
            row = SessionRepository(session).require(owner, session_id)
            row.memory_mode = mode.value
            return self.refresh(session, owner, row)
