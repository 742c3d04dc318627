"""Session memory: the 70% / 95% rules applied before anything is stored.

``prepare_message`` is steps 1-5 of DESIGN.md "Session memory": estimate the candidate
context, compact first when the mode says so, refuse at 95%, then store the user message.
Compaction is one non-streamed model call with no tools; only a non-empty summary moves
the boundary, and history is never deleted. No database transaction is held open
across a model call.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass

from langchain_core.tools import BaseTool

from oncall_tui.core.memory import (
    DEFAULT_MEMORY_MODE,
    SUMMARY_INSTRUCTIONS,
    ContextUsage,
    MemoryMode,
    MemoryState,
    clean_summary,
    should_auto_compact,
    summary_request,
)
from oncall_tui.core.prompts import build_chat_system_prompt
from oncall_tui.core.skills import SkillCatalogEntry
from oncall_tui.errors import OncallError
from oncall_tui.llm.gateway import ModelGateway
from oncall_tui.llm.tokens import estimate_tokens
from oncall_tui.llm.tools import build_tools
from oncall_tui.llm.turn import ModelUsage
from oncall_tui.services.configuration import ConfigurationService
from oncall_tui.services.sessions import title_from_message
from oncall_tui.store.engine import Database
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from oncall_tui.store.tables import SessionRow, utcnow

log = logging.getLogger(__name__)

History = list[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class Assembly:
    """What one model request is built from: the system prompt (with summary) and the selected
    skills (name to ``SKILL.md``), from which the request's tools are built."""

    system_prompt: str
    skills: dict[str, str]

    @property
    def tools(self) -> list[BaseTool]:
        return build_tools(self.skills)


@dataclass(frozen=True, slots=True)
class _Snapshot:
    """A session read in one transaction: its memory fields and the messages after the boundary."""

    row: SessionRow | None
    history: History

    @property
    def summary(self) -> str | None:
        return None if self.row is None else self.row.memory_summary

    @property
    def boundary(self) -> int:
        return 0 if self.row is None else self.row.compacted_message_count

    @property
    def mode(self) -> MemoryMode:
        return DEFAULT_MEMORY_MODE if self.row is None else MemoryMode(self.row.memory_mode)

    @property
    def calibration(self) -> float:
        return 1.0 if self.row is None else max(1.0, self.row.token_calibration)

    @property
    def assistant_after_boundary(self) -> int:
        return sum(1 for role, _ in self.history if role == "assistant")


@dataclass(frozen=True, slots=True)
class PreparedSend:
    """A send that passed the memory rules: the user message is stored, the request is ready."""

    session_id: int
    user_message_id: int
    assembly: Assembly
    history: History
    """Messages after the boundary, ending with the new user message."""
    usage: ContextUsage
    estimated_prompt_tokens: int
    """The uncalibrated estimate of exactly this request, for calibration after the reply."""
    compacted: MemoryState | None = None


class ContextLimitError(OncallError):
    """The candidate context is at or past 95% even after the one automatic compaction."""

    def __init__(self, usage: ContextUsage) -> None:
        super().__init__("CHAT_CONTEXT_LIMIT_REACHED", percent=usage.percent)
        self.usage = usage


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
        assembly = self.assemble(owner, snapshot.summary)
        candidate = [*snapshot.history, ("user", text)]
        raw, usage = self._measure(snapshot, assembly, candidate)
        compacted: MemoryState | None = None
        if (
            snapshot.row is not None
            and snapshot.history
            and should_auto_compact(
                snapshot.mode,
                assistant_after_boundary=snapshot.assistant_after_boundary,
                candidate=usage,
            )
        ):
            try:
                compacted = await self._compact(owner, snapshot)
            except OncallError as error:  # the send may still fit; the rules below decide
                log.warning("automatic compaction failed: %s", error.code)
            if compacted is not None:
                snapshot = self._snapshot(owner, session_id)
                assembly = self.assemble(owner, snapshot.summary)
                candidate = [*snapshot.history, ("user", text)]
                raw, usage = self._measure(snapshot, assembly, candidate)
        if usage.at_limit:
            raise ContextLimitError(usage)
        stored_session, message_id = self._store_user_message(owner, snapshot, text, usage)
        return PreparedSend(
            session_id=stored_session,
            user_message_id=message_id,
            assembly=assembly,
            history=candidate,
            usage=usage,
            estimated_prompt_tokens=raw,
            compacted=compacted,
        )

    def record_reply(
        self,
        owner: str,
        prepared: PreparedSend,
        reply: str,
        usage: ModelUsage,
        *,
        used_tools: bool,
    ) -> ContextUsage:
        """After a reply: remember what the model reported and store the new gauge reading.

        Calibration compares the model's count with our estimate of the same prompt; a run
        with tool calls is not comparable (its last prompt held tool results), so only plain
        replies recalibrate. The factor only ever scales estimates up. The new reading is
        estimated from the request just sent plus the reply, without re-reading the session.
        """
        history = [*prepared.history, ("assistant", reply)] if reply else prepared.history
        raw = self._raw_estimate(prepared.assembly, history)
        with self._database.session() as session:
            sessions = SessionRepository(session)
            row = sessions.require(owner, prepared.session_id)
            if usage.input_tokens is not None:
                row.reported_prompt_tokens = usage.input_tokens
                if not used_tools and prepared.estimated_prompt_tokens > 0:
                    row.token_calibration = max(
                        1.0, usage.input_tokens / prepared.estimated_prompt_tokens
                    )
            reading = self._reading(raw, row.token_calibration, row.reported_prompt_tokens)
            row.context_tokens = reading.context_tokens
            sessions.save(row)
            return reading

    # -- explicit operations -------------------------------------------------------------------

    def refresh_usage(self, owner: str, session_id: int) -> MemoryState:
        """Re-estimate the session's context as the next request would see it, and store it."""
        snapshot = self._snapshot(owner, session_id)
        assembly = self.assemble(owner, snapshot.summary)
        usage = self._usage(snapshot, assembly, snapshot.history)
        with self._database.session() as session:
            sessions = SessionRepository(session)
            row = sessions.require(owner, session_id)
            row.context_tokens = usage.context_tokens
            sessions.save(row)
            return self._state(row, usage, can_compact=bool(snapshot.history))

    def baseline(self, owner: str) -> ContextUsage:
        """The usage a new, empty session starts from: system prompt and tool schemas."""
        snapshot = _Snapshot(row=None, history=[])
        return self._usage(snapshot, self.assemble(owner, None), [])

    async def compact(self, owner: str, session_id: int) -> MemoryState:
        """Summarise everything after the boundary now; with nothing there, no model call."""
        snapshot = self._snapshot(owner, session_id)
        if snapshot.history:
            await self._compact(owner, snapshot)
        return self.refresh_usage(owner, session_id)

    async def set_mode(self, owner: str, session_id: int, mode: MemoryMode) -> MemoryState:
        """Persist the mode. ``manual`` compacts at once (if anything is after the boundary)."""
        with self._database.session() as session:
            sessions = SessionRepository(session)
            row = sessions.require(owner, session_id)
            row.memory_mode = mode.value
            sessions.save(row)
        if mode is MemoryMode.MANUAL:
            return await self.compact(owner, session_id)
        return self.refresh_usage(owner, session_id)

    # -- assembly and estimates ------------------------------------------------------------------

    def assemble(self, owner: str, summary: str | None) -> Assembly:
        """The system prompt in its fixed order and the tools for this owner's selection."""
        context = self._configuration.active_context(owner)
        catalog = [SkillCatalogEntry(s.skill.name, s.skill.description) for s in context.skills]
        return Assembly(
            system_prompt=build_chat_system_prompt(context.prompt.content, catalog, summary),
            skills={s.skill.name: s.content for s in context.skills},
        )

    def _raw_estimate(self, assembly: Assembly, history: History) -> int:
        return estimate_tokens(assembly.system_prompt, history, assembly.tools)

    def _usage(self, snapshot: _Snapshot, assembly: Assembly, history: History) -> ContextUsage:
        return self._measure(snapshot, assembly, history)[1]

    def _measure(
        self, snapshot: _Snapshot, assembly: Assembly, history: History
    ) -> tuple[int, ContextUsage]:
        """The raw estimate of a request and the gauge reading made from it."""
        reported = snapshot.row.reported_prompt_tokens if snapshot.row is not None else None
        raw = self._raw_estimate(assembly, history)
        return raw, self._reading(raw, snapshot.calibration, reported)

    def _reading(self, raw: int, calibration: float, reported: int | None) -> ContextUsage:
        """A gauge reading: the calibrated estimate, never below the model's last report.

        Until a compaction clears it, the context the model last reported on is contained
        in the one being measured, so its count is a floor.
        """
        estimate = math.ceil(raw * max(1.0, calibration))
        if reported is not None:
            estimate = max(estimate, reported)
        return ContextUsage(estimate, self._gateway.context_window())

    def _snapshot(self, owner: str, session_id: int | None) -> _Snapshot:
        if session_id is None:
            return _Snapshot(row=None, history=[])
        with self._database.session() as session:
            row = SessionRepository(session).require(owner, session_id)
            messages = MessageRepository(session).from_position(row, row.compacted_message_count)
            history = [(m.role, m.content) for m in messages if m.content]
            return _Snapshot(row=row, history=history)

    def _state(self, row: SessionRow, usage: ContextUsage, *, can_compact: bool) -> MemoryState:
        assert row.id is not None
        return MemoryState(
            session_id=row.id,
            memory_mode=MemoryMode(row.memory_mode),
            memory_summary=row.memory_summary,
            compacted_message_count=row.compacted_message_count,
            usage=usage,
            can_compact=can_compact,
            last_compacted_at=row.last_compacted_at,
        )

    # -- compaction and storage ------------------------------------------------------------------

    async def _compact(self, owner: str, snapshot: _Snapshot) -> MemoryState:
        assert snapshot.row is not None
        assert snapshot.row.id is not None
        session_id = snapshot.row.id
        with self._database.session() as session:
            row = SessionRepository(session).require(owner, session_id)
            rows = MessageRepository(session).from_position(row, row.compacted_message_count)
            transcript = [(m.role, m.content) for m in rows if m.content]
            summarised = len(rows)
        request = summary_request(snapshot.summary, transcript)
        try:
            from oncall_tui.llm.agent import summarize  # LangChain's agent stack, only now

            text = await summarize(self._gateway.chat_model(), SUMMARY_INSTRUCTIONS, request)
        except OncallError as error:
            raise OncallError("MEMORY_COMPACTION_FAILED", detail=error) from None
        summary = clean_summary(text)
        if not summary:
            raise OncallError("MEMORY_COMPACTION_FAILED", detail="the model returned no summary")
        with self._database.session() as session:
            sessions = SessionRepository(session)
            row = sessions.require(owner, session_id)
            if row.compacted_message_count != snapshot.boundary:
                raise OncallError(
                    "MEMORY_COMPACTION_FAILED", detail="the session was compacted meanwhile"
                )
            row.memory_summary = summary
            row.compacted_message_count = snapshot.boundary + summarised
            row.last_compacted_at = utcnow()
            row.reported_prompt_tokens = None  # that report was about the old, longer context
            sessions.save(row)
            log.info("session %s compacted through message %d", session_id, summarised)
            usage = ContextUsage(row.context_tokens, self._gateway.context_window())
            return self._state(row, usage, can_compact=False)

    def _store_user_message(
        self, owner: str, snapshot: _Snapshot, text: str, usage: ContextUsage
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
            row.context_tokens = usage.context_tokens
            sessions.save(row)
            assert row.id is not None
            assert message.id is not None
            return row.id, message.id
