"""Session use cases: create, list, rename, delete, show the full history, clear.

Another owner's session is ``NOT_FOUND``, as a missing one is. Showing a session returns every
message, regardless of the compaction boundary: compaction never deletes history.
"""

from __future__ import annotations

import logging
import re

from oncall_tui.core.memory import DEFAULT_MEMORY_MODE
from oncall_tui.core.text import one_line
from oncall_tui.errors import OncallError
from oncall_tui.inputs import at_most
from oncall_tui.redaction import redact
from oncall_tui.services.views import MessageView, SessionView, ToolCallView
from oncall_tui.store.engine import Database
from oncall_tui.store.sessions import MessageRepository, SessionListing, SessionRepository

log = logging.getLogger(__name__)

MAX_TITLE_CHARS = 120
UNTITLED = ""
"""Stored title of a session that has not been named; its first message names it."""


LOG_LINE = re.compile(r"\s*(?:\{|\d{4}-\d\d-\d\d|\d\d:\d\d:\d\d)")
"""How a line of a log begins, and a question does not: a date (``2026-12-07T03:00:28Z``), a
time of day (``03:00:28.415``), a JSON object."""


def title_from_message(text: str, limit: int = 60) -> str:
    """A title from the first line of a message: trimmed, whitespace collapsed, shortened.
    The lines of a log pasted before the question are passed over (every incident's title
    was its log's first timestamp), unless the message is all log. A secret in that line is
    masked: the title stays on screen in the sessions list (shared on an incident call), and
    names the export's file."""
    lines = [line for line in text.splitlines() if line.strip()]
    said = next((line for line in lines if not LOG_LINE.match(line)), None)
    return one_line(redact(said or next(iter(lines), text)), limit)


def validate_title(title: str) -> str:
    return at_most(" ".join(title.split()), MAX_TITLE_CHARS, "title_too_long")


class SessionService:
    def __init__(self, database: Database) -> None:
        self._database = database

    def create(self, owner: str, title: str | None = None) -> SessionView:
        clean = validate_title(title) if title else UNTITLED
        with self._database.session() as session:
            row = SessionRepository(session).create(owner, clean, DEFAULT_MEMORY_MODE.value)
            log.info("session %s created", row.id)
            return SessionView.of(row, 0)

    def list_sessions(self, owner: str) -> list[SessionView]:
        with self._database.read() as session:
            listings: list[SessionListing] = SessionRepository(session).list(owner)
            return [SessionView.of(item.row, item.message_count) for item in listings]

    def get(self, owner: str, session_id: int) -> SessionView:
        with self._database.read() as session:
            row = SessionRepository(session).require(owner, session_id)
            return SessionView.of(row, MessageRepository(session).count(row))

    def rename(self, owner: str, session_id: int, title: str) -> SessionView:
        clean = validate_title(title)
        if not clean:
            raise OncallError("VALIDATION_INVALID_ARGUMENT", "title_empty")
        with self._database.session() as session:
            sessions = SessionRepository(session)
            row = sessions.require(owner, session_id)
            row.title = clean
            sessions.save(row)
            return SessionView.of(row, MessageRepository(session).count(row))

    def delete(self, owner: str, session_id: int) -> None:
        with self._database.session() as session:
            sessions = SessionRepository(session)
            sessions.delete(sessions.require(owner, session_id))
            log.info("session %s deleted", session_id)

    def messages(
        self, owner: str, session_id: int, *, before: int | None = None, limit: int | None = None
    ) -> list[MessageView]:
        """The session's messages oldest first: all of them, or one page ending at ``before``."""
        with self._database.read() as session:
            row = SessionRepository(session).require(owner, session_id)
            repository = MessageRepository(session)
            rows = (
                repository.from_position(row, 0)
                if limit is None
                else repository.page(row, before=before, limit=limit)
            )
            calls: dict[int, list[ToolCallView]] = {}
            for audit in repository.audits(row):
                calls.setdefault(audit.message_id, []).append(ToolCallView.of(audit))
            return [
                MessageView.of(message, tuple(calls.get(message.id or 0, ()))) for message in rows
            ]

    def input_history(self, owner: str, session_id: int | None, limit: int = 200) -> list[str]:
        """The owner's latest messages, newest first, those of ``session_id`` before the
        others (what ↑ in the composer brings back)."""
        with self._database.read() as session:
            if session_id is not None:
                SessionRepository(session).require(owner, session_id)
            latest = MessageRepository(session).recent_user_texts(owner, limit)
        own = [text for sid, text in latest if sid == session_id]
        return own + [text for sid, text in latest if sid != session_id]

    def clear(self, owner: str, session_id: int) -> None:
        """Delete the messages; summary, boundary, usage and compaction time reset together."""
        with self._database.session() as session:
            sessions = SessionRepository(session)
            row = sessions.require(owner, session_id)
            MessageRepository(session).clear(row)
            row.memory_summary = None
            row.memory_summary_status = "complete"
            row.clear_generation += 1
            row.compacted_message_count = 0
            row.context_tokens = 0
            row.reported_prompt_tokens = None
            row.last_compacted_at = None
            sessions.save(row)
