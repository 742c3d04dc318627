"""Compaction: the messages after a session's boundary summarised into its memory.

One streamed model call with no tools writes the summary (:mod:`.summaries`); one unit of work
then stores it and moves the boundary past the messages it covers, only if the session is still
as it was read (a message added, a clear or another compaction meanwhile discards it). History
is never deleted. :class:`~oncall_tui.services.memory.MemoryService` decides when to compact.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from oncall_tui.core.memory import ContextUsage, MemoryMode, MemoryState
from oncall_tui.errors import OncallError
from oncall_tui.llm.gateway import ModelGateway
from oncall_tui.llm.turn import Summary
from oncall_tui.services.configuration import ActiveContext
from oncall_tui.services.context import SessionSnapshot, sendable
from oncall_tui.services.steps import completed_in_thread
from oncall_tui.services.summaries import summarise
from oncall_tui.store.engine import Database
from oncall_tui.store.ids import stored_id
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from oncall_tui.store.tables import SessionRow, utcnow

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Reading:
    """What a request is assembled from, read in one unit of work: the session (its row and
    the messages after the boundary) and the owner's active prompt and selected skills."""

    snapshot: SessionSnapshot
    context: ActiveContext

    def before(self, position: int | None) -> Reading:
        return Reading(self.snapshot.before(position), self.context)


def memory_state(row: SessionRow, usage: ContextUsage, *, can_compact: bool) -> MemoryState:
    """The session's memory as the user sees it, with the usage of its next request."""
    return MemoryState(
        session_id=stored_id(row),
        memory_mode=MemoryMode(row.memory_mode),
        memory_summary=row.memory_summary,
        memory_summary_status=row.memory_summary_status,
        compacted_message_count=row.compacted_message_count,
        usage=usage,
        can_compact=can_compact,
        last_compacted_at=row.last_compacted_at,
    )


class Compaction:
    """Summarises a session read as a :class:`Reading` and stores the summary."""

    def __init__(
        self, database: Database, gateway: ModelGateway, usage: Callable[[Reading], ContextUsage]
    ) -> None:
        self._database = database
        self._gateway = gateway
        self._usage = usage
        """The reading of a session's next request (the memory service's estimate)."""

    async def run(self, owner: str, reading: Reading) -> tuple[MemoryState, Reading]:
        """Summarise ``reading``'s messages into the summary and move the boundary past them;
        the state stored, and the session as it is after it (with ``reading``'s context).

        The summary commits only if the session is still as it was read (see
        :meth:`SessionSnapshot.changed_in`); otherwise it is discarded and the error says why.
        """
        snapshot = reading.snapshot
        row = snapshot.existing_row()
        transcript = [(m.role, m.content) for m in snapshot.messages if sendable(m)]
        written = await summarise(
            self._gateway, snapshot.summary, transcript, row.token_calibration
        )
        if written.truncated:
            log.warning("the summary of session %s was cut at the model's length limit", row.id)
        return await completed_in_thread(self._store, owner, reading, written)

    def _store(self, owner: str, reading: Reading, written: Summary) -> tuple[MemoryState, Reading]:
        """One unit of work: check the session is as ``reading`` found it, store the summary
        and the boundary, and measure the session's next request (with the configuration read
        before the summary was written: a send goes on with the one it started with)."""
        snapshot = reading.snapshot
        session_id = stored_id(snapshot.existing_row())
        with self._database.session() as session:
            sessions = SessionRepository(session)
            try:
                current = sessions.require(owner, session_id)
            except OncallError:
                raise _discarded("it was deleted") from None
            changed = snapshot.changed_in(current, MessageRepository(session).count(current))
            if changed is not None:
                raise _discarded(changed)
            current.memory_summary = written.text
            current.memory_summary_status = "truncated" if written.truncated else "complete"
            current.compacted_message_count = snapshot.boundary + len(snapshot.messages)
            current.last_compacted_at = utcnow()
            current.reported_prompt_tokens = None  # that count was of the old, longer context
            after = Reading(SessionSnapshot.read(session, owner, session_id), reading.context)
            usage = self._usage(after)
            current.context_tokens = usage.context_tokens
            sessions.save(current)
            log.info(
                "session %s compacted through message %d",
                session_id,
                current.compacted_message_count,
            )
            return memory_state(current, usage, can_compact=bool(after.snapshot.history)), after


def _discarded(what: str) -> OncallError:
    """The session is no longer as the compaction read it: its summary must not commit."""
    log.warning("a compaction was discarded: %s", what)
    return OncallError("MEMORY_COMPACTION_FAILED", "session_changed", what=what)
