"""Session memory: the 70% / 95% rules applied before anything is stored.

``prepare_message`` is steps 1-5 of the memory rules (docs/ARCHITECTURE.md "Session memory"):
estimate the candidate context, compact first when the mode says so, refuse at 95%, then
store the user message. ``prepare_retry`` is the same for a stored message that has no
answer, without storing it again. Compaction is one streamed model call with no tools; only a
non-empty summary moves the boundary, and history is never deleted. No database transaction
is held open across a model call.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

from oncall_tui.core.memory import (
    DEFAULT_MEMORY_MODE,
    SUMMARY_INSTRUCTIONS,
    SUMMARY_ROOM_TOKENS,
    ContextBudget,
    ContextUsage,
    MemoryMode,
    MemoryState,
    clean_summary,
    should_auto_compact,
    summary_request,
    take_transcript,
)
from oncall_tui.core.prompts import build_chat_system_prompt
from oncall_tui.core.skills import SkillCatalogEntry
from oncall_tui.errors import OncallError
from oncall_tui.llm.gateway import ModelGateway
from oncall_tui.llm.tokens import estimate_tokens
from oncall_tui.llm.turn import ModelUsage, Summary
from oncall_tui.services.configuration import ConfigurationService
from oncall_tui.services.context import Assembly, History, SessionSnapshot, budget_of, sendable
from oncall_tui.services.sessions import title_from_message
from oncall_tui.store.engine import Database
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from oncall_tui.store.tables import SessionRow, utcnow

log = logging.getLogger(__name__)

MIN_TRANSCRIPT_ROOM = 64
"""Fewer tokens than this for the transcript, and a summary request is pointless."""


@dataclass(frozen=True, slots=True)
class Request:
    """A model request, assembled and measured: what the turn's first call will send."""

    assembly: Assembly
    history: History
    """Messages after the boundary, ending with the user message to answer."""
    budget: ContextBudget
    """What every request of the turn must fit."""
    estimated_tokens: int
    """The uncalibrated estimate, compared with the model's own count after the reply."""

    @property
    def usage(self) -> ContextUsage:
        return self.budget.reading(self.estimated_tokens)


@dataclass(frozen=True, slots=True)
class PreparedSend:
    """A send that passed the memory rules: its user message is stored, the request is ready."""

    session_id: int
    user_message_id: int
    request: Request
    compacted: MemoryState | None = None
    compaction_error: OncallError | None = None
    """Why the automatic compaction before this send failed, if it did."""


class ContextLimitError(OncallError):
    """The candidate context is at or past 95% even after the one automatic compaction."""

    def __init__(
        self, usage: ContextUsage, reason: str, compaction_error: OncallError | None = None
    ) -> None:
        super().__init__(
            "CHAT_CONTEXT_LIMIT_REACHED",
            reason,
            percent=usage.percent,
            window=f"{usage.context_window_tokens:,}",
        )
        self.usage = usage
        self.compaction_error = compaction_error


class MemoryService:
    def __init__(
        self, database: Database, configuration: ConfigurationService, gateway: ModelGateway
    ) -> None:
        self._database = database
        self._configuration = configuration
        self._gateway = gateway

    # -- the send path -----------------------------------------------------------------------

    async def prepare_message(self, owner: str, session_id: int | None, text: str) -> PreparedSend:
        """Apply the memory rules to a candidate message and store it, or raise.

        ``session_id=None`` starts a new session, created only once the message passes,
        so a rejected first message leaves nothing behind.
        """
        snapshot = self._snapshot(owner, session_id)
        request, compacted, failure = await self._measure(owner, snapshot, ("user", text))
        if request.usage.at_limit:
            raise ContextLimitError(request.usage, "limit_message", failure)
        stored_session, message_id = self._store_user_message(owner, snapshot, text, request)
        return PreparedSend(stored_session, message_id, request, compacted, failure)

    async def prepare_retry(self, owner: str, session_id: int) -> PreparedSend:
        """The memory rules for answering the session's unanswered last message again.

        Nothing is stored: the message is already there, and replies that failed or were
        interrupted stay in the history without being sent. A compaction due now summarises
        the messages before the one being retried.
        """
        snapshot = self._snapshot(owner, session_id)
        pending = snapshot.unanswered()
        if pending is None or pending.id is None:
            raise OncallError("VALIDATION_INVALID_ARGUMENT", "nothing_to_retry", ref=session_id)
        request, compacted, failure = await self._measure(
            owner, snapshot.before(pending.position), ("user", pending.content), pending.position
        )
        if request.usage.at_limit:
            raise ContextLimitError(request.usage, "limit_retry", failure)
        return PreparedSend(session_id, pending.id, request, compacted, failure)

    def record_reply(
        self, owner: str, prepared: PreparedSend, reply: str, usage: ModelUsage
    ) -> ContextUsage:
        """After a reply: remember what the model reported and store the new gauge reading.

        The model's count of the turn's first request (``first_input_tokens``) is compared with
        our estimate of the same request: the ratio scales later estimates up (never down), and
        the count is the floor of later readings, whose requests start with that one. The new
        reading is what the next request will hold: the request just sent plus the reply, not
        what the turn's tool results added to it.
        """
        request = prepared.request
        history = [*request.history, ("assistant", reply)] if reply else request.history
        raw = request.assembly.estimate(history)
        with self._database.session() as session:
            sessions = SessionRepository(session)
            row = sessions.require(owner, prepared.session_id)
            measured = usage.first_input_tokens
            if measured is not None:
                row.reported_prompt_tokens = measured
                if request.estimated_tokens > 0:
                    row.token_calibration = max(1.0, measured / request.estimated_tokens)
            reading = budget_of(row, self._gateway.context_window()).reading(raw)
            row.context_tokens = reading.context_tokens
            sessions.save(row)
            return reading

    # -- explicit operations -------------------------------------------------------------------

    def state(self, owner: str, session_id: int) -> MemoryState:
        """The session's memory and the usage of its next request, read without writing."""
        snapshot = self._snapshot(owner, session_id)
        assert snapshot.row is not None
        usage = self._usage(owner, snapshot)
        return self._state(snapshot.row, usage, can_compact=bool(snapshot.history))

    def refresh_usage(self, owner: str, session_id: int) -> MemoryState:
        """Re-estimate the session's context as the next request would see it, and store it."""
        state = self.state(owner, session_id)
        with self._database.session() as session:
            sessions = SessionRepository(session)
            row = sessions.require(owner, session_id)
            row.context_tokens = state.usage.context_tokens
            sessions.save(row)
        return state

    def baseline(self, owner: str) -> ContextUsage:
        """The usage a new, empty session starts from: system prompt and tool schemas."""
        return self._usage(owner, SessionSnapshot(row=None))

    async def compact(self, owner: str, session_id: int) -> MemoryState:
        """Summarise everything after the boundary now; with nothing there, no model call."""
        snapshot = self._snapshot(owner, session_id)
        if snapshot.history:
            return await self._compact(owner, snapshot)
        return self.refresh_usage(owner, session_id)

    async def set_mode(self, owner: str, session_id: int, mode: MemoryMode) -> MemoryState:
        """Persist the mode. Switching to ``manual`` compacts at once (if anything is after the
        boundary), and the mode changes only if that compaction succeeds."""
        snapshot = self._snapshot(owner, session_id)
        if mode is MemoryMode.MANUAL and snapshot.history:
            try:
                await self._compact(owner, snapshot)
            except OncallError as error:
                raise OncallError(
                    "MEMORY_MODE_UNCHANGED", mode=snapshot.mode.value, detail=error
                ) from None
        with self._database.session() as session:
            sessions = SessionRepository(session)
            row = sessions.require(owner, session_id)
            row.memory_mode = mode.value
            sessions.save(row)
        return self.refresh_usage(owner, session_id)

    # -- assembly and estimates ------------------------------------------------------------------

    def assemble(self, owner: str, summary: str | None) -> Assembly:
        """The system prompt in its fixed order and the tools for this owner's selection;
        without tools when the model cannot call them."""
        context = self._configuration.active_context(owner)
        tools = self._gateway.tools_supported()
        catalog = [SkillCatalogEntry(s.skill.name, s.skill.description) for s in context.skills]
        return Assembly(
            system_prompt=build_chat_system_prompt(
                context.prompt.content, catalog, summary, tools_available=tools
            ),
            skills={s.skill.name: s.content for s in context.skills},
            tools_enabled=tools,
        )

    def _request(self, owner: str, snapshot: SessionSnapshot, history: History) -> Request:
        assembly = self.assemble(owner, snapshot.summary)
        budget = budget_of(snapshot.row, self._gateway.context_window())
        return Request(assembly, history, budget, assembly.estimate(history))

    def _usage(self, owner: str, snapshot: SessionSnapshot) -> ContextUsage:
        return self._request(owner, snapshot, snapshot.history).usage

    def _snapshot(self, owner: str, session_id: int | None) -> SessionSnapshot:
        with self._database.read() as session:
            return SessionSnapshot.read(session, owner, session_id)

    def _state(self, row: SessionRow, usage: ContextUsage, *, can_compact: bool) -> MemoryState:
        assert row.id is not None
        return MemoryState(
            session_id=row.id,
            memory_mode=MemoryMode(row.memory_mode),
            memory_summary=row.memory_summary,
            memory_summary_status=row.memory_summary_status,
            compacted_message_count=row.compacted_message_count,
            usage=usage,
            can_compact=can_compact,
            last_compacted_at=row.last_compacted_at,
        )

    # -- compaction and storage ------------------------------------------------------------------

    async def _measure(
        self,
        owner: str,
        earlier: SessionSnapshot,
        candidate: tuple[str, str],
        until: int | None = None,
    ) -> tuple[Request, MemoryState | None, OncallError | None]:
        """Steps 1-3: measure ``earlier``'s history and the candidate; compact ``earlier`` first
        if the mode says so, and measure again. A failed compaction is reported, not raised:
        the send may still fit, and the 95% rule decides. ``until`` is the candidate's position
        when it is stored already (a retry)."""
        request = self._request(owner, earlier, [*earlier.history, candidate])
        due = (
            earlier.row is not None
            and bool(earlier.history)
            and should_auto_compact(
                earlier.mode,
                assistant_after_boundary=earlier.assistant_after_boundary,
                candidate=request.usage,
            )
        )
        if not due:
            return request, None, None
        try:
            compacted = await self._compact(owner, earlier)
        except OncallError as error:
            log.warning(
                "automatic compaction of session %s failed: %s", earlier.session_id, error.code
            )
            return request, None, error
        after = self._snapshot(owner, earlier.session_id).before(until)
        return self._request(owner, after, [*after.history, candidate]), compacted, None

    async def _compact(self, owner: str, snapshot: SessionSnapshot) -> MemoryState:
        """Summarise ``snapshot``'s messages into the summary and move the boundary past them.

        The summary commits only if the session is still as it was read (see
        :meth:`SessionSnapshot.changed_in`); otherwise it is discarded and the error says why.
        """
        row = snapshot.row
        assert row is not None
        assert row.id is not None
        transcript = [(m.role, m.content) for m in snapshot.messages if sendable(m)]
        written = await self._summarise(snapshot.summary, transcript, row.token_calibration)
        summary = written.text
        if written.truncated:
            log.warning("the summary of session %s was cut at the model's length limit", row.id)
        assembly = self.assemble(owner, summary)  # before the write: it reads the configuration
        with self._database.session() as session:
            sessions = SessionRepository(session)
            try:
                current = sessions.require(owner, row.id)
            except OncallError:
                raise _discarded("it was deleted") from None
            changed = snapshot.changed_in(current, MessageRepository(session).count(current))
            if changed is not None:
                raise _discarded(changed)
            current.memory_summary = summary
            current.memory_summary_status = "truncated" if written.truncated else "complete"
            current.compacted_message_count = snapshot.boundary + len(snapshot.messages)
            current.last_compacted_at = utcnow()
            current.reported_prompt_tokens = None  # that count was of the old, longer context
            after = SessionSnapshot.read(session, owner, row.id)
            budget = budget_of(current, self._gateway.context_window())
            usage = budget.reading(assembly.estimate(after.history))
            current.context_tokens = usage.context_tokens
            sessions.save(current)
            log.info(
                "session %s compacted through message %d", row.id, current.compacted_message_count
            )
            return self._state(current, usage, can_compact=bool(after.history))

    async def _summarise(
        self, summary: str | None, transcript: History, calibration: float
    ) -> Summary:
        """The merged summary of ``summary`` and ``transcript``, a part of the transcript per
        model call so that every request fits under the 95% limit with room for the answer."""
        window = self._gateway.context_window()
        limit = math.floor(ContextBudget(window).limit_tokens / max(1.0, calibration))
        truncated = False
        while True:
            fixed = estimate_tokens(SUMMARY_INSTRUCTIONS, [("user", summary_request(summary, []))])
            room = limit - fixed - SUMMARY_ROOM_TOKENS
            if room < MIN_TRANSCRIPT_ROOM:
                raise OncallError(
                    "MEMORY_COMPACTION_FAILED",
                    detail=f"the {window:,}-token window leaves no room to summarise in",
                )
            part, transcript = take_transcript(transcript, room)
            try:
                written = await self._gateway.summarize(
                    SUMMARY_INSTRUCTIONS, summary_request(summary, part)
                )
            except OncallError as error:
                raise OncallError("MEMORY_COMPACTION_FAILED", detail=error) from None
            summary = clean_summary(written.text)
            if not summary:
                raise OncallError(
                    "MEMORY_COMPACTION_FAILED", detail="the model returned no summary"
                )
            truncated = truncated or written.truncated
            if not transcript:
                return Summary(summary, truncated)

    def _store_user_message(
        self, owner: str, snapshot: SessionSnapshot, text: str, request: Request
    ) -> tuple[int, int]:
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
            assert row.id is not None
            assert message.id is not None
            return row.id, message.id


def _discarded(what: str) -> OncallError:
    """The session is no longer as the compaction read it: its summary must not commit."""
    log.warning("a compaction was discarded: %s", what)
    return OncallError("MEMORY_COMPACTION_FAILED", "session_changed", what=what)
