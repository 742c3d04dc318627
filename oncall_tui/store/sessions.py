"""Owner-scoped access to chat sessions, their messages and the tool audit.

A session is reached only through :meth:`SessionRepository.require`, which checks the
owner; message and audit methods take the verified :class:`SessionRow`, never a bare id,
so the type system carries the ownership check. Reads that run on every send touch only
the messages after the boundary (an index range on ``(session_id, position)``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete as sql_delete
from sqlalchemy import func
from sqlmodel import Session, col, select

from oncall_tui.errors import OncallError
from oncall_tui.store.engine import WRITES
from oncall_tui.store.ids import stored_id
from oncall_tui.store.tables import MessageRow, SessionRow, ToolAuditRow, utcnow


@dataclass(frozen=True, slots=True)
class SessionListing:
    row: SessionRow
    message_count: int


class SessionRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    def create(self, owner: str, title: str, memory_mode: str) -> SessionRow:
        row = SessionRow(owner=owner, title=title, memory_mode=memory_mode)
        self._session.add(row)
        self._session.flush()
        return row

    def require(self, owner: str, session_id: int) -> SessionRow:
        """The owner's session, else ``NOT_FOUND``: another owner's session answers exactly as
        a missing one does, so no answer tells which ids exist.

        In a unit of work that may write, the session's row is locked until the unit ends
        (``FOR UPDATE``; SQLite's write lock already covers it): what the unit reads of the
        session (the next position, the boundary, the clear counter) cannot change under it."""
        query = select(SessionRow).where(SessionRow.id == session_id)
        if self._session.info.get(WRITES):  # hold it until the unit of work ends
            query = query.with_for_update().execution_options(populate_existing=True)
        row = self._session.exec(query).first()
        if row is None or row.owner != owner:
            raise OncallError("NOT_FOUND", kind="session", ref=session_id)
        return row

    def list(self, owner: str) -> list[SessionListing]:
        # Per listed session, the highest position (an index seek), as MessageRepository.count
        # does: no scan of the message table however long the histories are.
        highest = (
            select(func.max(MessageRow.position))
            .where(MessageRow.session_id == SessionRow.id)
            .scalar_subquery()
        )
        query = (
            select(SessionRow, func.coalesce(highest + 1, 0))
            .where(SessionRow.owner == owner)
            .order_by(col(SessionRow.updated_at).desc(), col(SessionRow.id).desc())
        )
        return [SessionListing(row, int(n)) for row, n in self._session.exec(query).all()]

    def save(self, row: SessionRow) -> None:
        row.updated_at = utcnow()
        self._session.add(row)
        self._session.flush()

    def delete(self, row: SessionRow) -> None:
        self._session.exec(sql_delete(ToolAuditRow).where(col(ToolAuditRow.session_id) == row.id))
        self._session.exec(sql_delete(MessageRow).where(col(MessageRow.session_id) == row.id))
        self._session.delete(row)
        self._session.flush()


class MessageRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    def count(self, chat: SessionRow) -> int:
        """Messages stored in the session: the next position (positions are dense from 0)."""
        query = select(func.max(MessageRow.position)).where(MessageRow.session_id == chat.id)
        highest = self._session.exec(query).one()
        return 0 if highest is None else int(highest) + 1

    def add(
        self,
        chat: SessionRow,
        role: str,
        content: str,
        status: str = "complete",
        *,
        created_at: datetime | None = None,
        model: str | None = None,
    ) -> MessageRow:
        row = MessageRow(
            session_id=stored_id(chat),
            position=self.count(chat),
            role=role,
            content=content,
            status=status,
            created_at=created_at or utcnow(),
            model=model,
        )
        self._session.add(row)
        self._session.flush()
        return row

    def holds(self, chat: SessionRow, role: str, content: str, created_at: datetime) -> bool:
        """Whether the session has this message already: a held reply saved once is not saved
        again (the time is the one it was held at, the text its own)."""
        query = select(MessageRow.id).where(
            MessageRow.session_id == chat.id,
            MessageRow.role == role,
            MessageRow.created_at == created_at,
            MessageRow.content == content,
        )
        return self._session.exec(query).first() is not None

    def from_position(self, chat: SessionRow, position: int) -> Sequence[MessageRow]:
        query = (
            select(MessageRow)
            .where(MessageRow.session_id == chat.id, MessageRow.position >= position)
            .order_by(col(MessageRow.position))
        )
        return self._session.exec(query).all()

    def page(self, chat: SessionRow, *, before: int | None, limit: int) -> Sequence[MessageRow]:
        """Up to ``limit`` messages ending just before ``before`` (newest page when ``None``),
        returned oldest first; lets a client open a huge session without reading all of it."""
        query = select(MessageRow).where(MessageRow.session_id == chat.id)
        if before is not None:
            query = query.where(MessageRow.position < before)
        rows = self._session.exec(query.order_by(col(MessageRow.position).desc()).limit(limit))
        return list(reversed(rows.all()))

    def recent_user_texts(self, owner: str, limit: int) -> list[tuple[int, str]]:
        """The owner's latest user messages across their sessions, newest first, as
        ``(session id, text)``: what the composer's ↑ brings back."""
        query = (
            select(MessageRow.session_id, MessageRow.content)
            .join(SessionRow, col(SessionRow.id) == MessageRow.session_id)
            .where(SessionRow.owner == owner, MessageRow.role == "user")
            .order_by(col(MessageRow.id).desc())
            .limit(limit)
        )
        return [(int(session_id), text) for session_id, text in self._session.exec(query).all()]

    def clear(self, chat: SessionRow) -> None:
        self._session.exec(sql_delete(ToolAuditRow).where(col(ToolAuditRow.session_id) == chat.id))
        self._session.exec(sql_delete(MessageRow).where(col(MessageRow.session_id) == chat.id))
        self._session.flush()

    def add_audit(self, chat: SessionRow, message: MessageRow, audit: ToolAuditRow) -> None:
        audit.session_id = stored_id(chat)
        audit.message_id = stored_id(message)
        self._session.add(audit)
        self._session.flush()

    def audits(self, chat: SessionRow) -> list[ToolAuditRow]:
        query = (
            select(ToolAuditRow)
            .where(ToolAuditRow.session_id == chat.id)
            .order_by(col(ToolAuditRow.id))
        )
        return list(self._session.exec(query).all())
