"""Owner-scoped full-text search over messages and session titles (schema version 4).

Two contentless FTS5 indexes with the ``trigram`` tokenizer: ``message_search`` (the user and
assistant messages, rowid = message id) and ``session_title_search`` (rowid = session id).
Triggers on ``message`` and ``chat_session`` keep them in step with every insert, update and
delete, cascades included, whoever writes; the migration filled them for existing data.
Tool calls and memory summaries are not indexed: the first are one-line records of what the
model did, the second are model-written and replaced at each compaction, and every message
they summarise is kept and indexed.

A trigram index finds any substring of three characters or more, case folded, as a phrase of
its trigrams. A two-character term (``超时``, ``db``) has no trigram of its own; instead every
indexed text ends with a newline, so each place a two-character string occurs is the start of
some trigram, and the index's own vocabulary (the ``*_terms`` fts5vocab tables, in term order)
lists those trigrams in one range scan: the term becomes an ``OR`` of them. So short terms are
answered by the index too, exactly, without scanning messages.

Query text never reaches FTS5's syntax: every term is a quoted string (quotes doubled inside).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import text
from sqlmodel import Session, col, select

from oncall_tui.core.search import SearchQuery, fold
from oncall_tui.store.tables import MessageRow, SessionRow

INDEXED_ROLES = ("user", "assistant")
_TRIGRAM = 3
_HIGHEST = chr(0x10FFFF)
"""Sorts after every character: ``prefix + _HIGHEST`` bounds a prefix's range of terms."""


@dataclass(frozen=True, slots=True)
class _Index:
    table: str
    terms: str


_MESSAGES = _Index("message_search", "message_search_terms")
_TITLES = _Index("session_title_search", "session_title_search_terms")


@dataclass(frozen=True, slots=True)
class MessageMatch:
    message: MessageRow
    session: SessionRow


class SearchRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    def messages(self, owner: str, query: SearchQuery, limit: int) -> list[MessageMatch]:
        """The owner's messages holding every term, newest first (by id), at most ``limit``."""
        expression = self._match_expression(_MESSAGES, query)
        if expression is None:
            return []
        filters, params = _filters("m.content", query)
        rows = self._session.connection().execute(
            text(
                "SELECT s.rowid FROM message_search AS s "
                "JOIN message AS m ON m.id = s.rowid "
                "JOIN chat_session AS c ON c.id = m.session_id "
                f"WHERE message_search MATCH :expression AND c.owner = :owner{filters} "
                "ORDER BY s.rowid DESC LIMIT :limit"
            ),
            {"expression": expression, "owner": owner, "limit": limit, **params},
        )
        ids = [int(row[0]) for row in rows]
        if not ids:
            return []
        found = self._session.exec(
            select(MessageRow, SessionRow)
            .join(SessionRow, col(SessionRow.id) == MessageRow.session_id)
            .where(col(MessageRow.id).in_(ids), SessionRow.owner == owner)
            .order_by(col(MessageRow.id).desc())
        ).all()
        return [MessageMatch(message, chat) for message, chat in found]

    def sessions(self, owner: str, query: SearchQuery, limit: int) -> list[SessionRow]:
        """The owner's sessions whose title holds every term, latest updated first."""
        expression = self._match_expression(_TITLES, query)
        if expression is None:
            return []
        filters, params = _filters("c.title", query)
        rows = self._session.connection().execute(
            text(
                "SELECT c.id FROM session_title_search AS t "
                "JOIN chat_session AS c ON c.id = t.rowid "
                f"WHERE session_title_search MATCH :expression AND c.owner = :owner{filters} "
                "ORDER BY c.updated_at DESC, c.id DESC LIMIT :limit"
            ),
            {"expression": expression, "owner": owner, "limit": limit, **params},
        )
        ids = [int(row[0]) for row in rows]
        if not ids:
            return []
        found = self._session.exec(
            select(SessionRow).where(col(SessionRow.id).in_(ids), SessionRow.owner == owner)
        ).all()
        return sorted(found, key=lambda row: (row.updated_at, row.id or 0), reverse=True)

    def _match_expression(self, index: _Index, query: SearchQuery) -> str | None:
        """The FTS5 expression requiring every indexed term; ``None`` when a two-character term
        occurs nowhere in the index (nothing can match)."""
        parts: list[str] = []
        for term in query.indexed:
            if len(term) >= _TRIGRAM:
                parts.append(_quoted(term))
                continue
            trigrams = self._trigrams_starting(index, fold(term))
            if not trigrams:
                return None
            parts.append("(" + " OR ".join(_quoted(trigram) for trigram in trigrams) + ")")
        return " AND ".join(parts)

    def _trigrams_starting(self, index: _Index, prefix: str) -> Sequence[str]:
        """The index's trigrams that begin with ``prefix``: one range of its sorted vocabulary."""
        rows = self._session.connection().execute(
            text(f"SELECT term FROM {index.terms} WHERE term >= :low AND term < :high"),
            {"low": prefix, "high": prefix + _HIGHEST},
        )
        return [str(row[0]) for row in rows]


def _quoted(term: str) -> str:
    """``term`` as an FTS5 string: every character literal, including ``"``, ``*`` and ``(``."""
    return '"' + term.replace('"', '""') + '"'


def _filters(column: str, query: SearchQuery) -> tuple[str, dict[str, str]]:
    """SQL requiring each one-character term in ``column``, in either case."""
    clauses: list[str] = []
    params: dict[str, str] = {}
    for number, term in enumerate(query.filters):
        lower, upper = f"lower{number}", f"upper{number}"
        params[lower], params[upper] = term.lower(), term.upper()
        clauses.append(f" AND (instr({column}, :{lower}) > 0 OR instr({column}, :{upper}) > 0)")
    return "".join(clauses), params
