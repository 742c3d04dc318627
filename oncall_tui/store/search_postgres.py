"""Owner-scoped search on PostgreSQL: the counterpart of :mod:`oncall_tui.store.search`.

The same questions and answers (every term a literal substring, case ignored, newest first, at
most ``limit`` rows of each kind), asked with ``ILIKE`` patterns that ``pg_trgm``'s GIN indexes
answer (revision 0004: user and assistant messages, session titles). The database keeps those
indexes in step with every write by itself. A term of one or two characters has no trigram the
index can look up; beside a longer term it only narrows what that one found, and alone the
planner reads the owner's rows instead, which is still exact.

Query text never reaches the pattern's syntax: ``%``, ``_`` and ``\\`` are escaped.
"""

from __future__ import annotations

from sqlmodel import Session

from oncall_tui.core.search import SearchQuery
from oncall_tui.store.search import MessageMatch, TitleMatch, matches


class PostgresSearchRepository:
    def __init__(self, session: Session) -> None:
        self._session = session

    def messages(self, owner: str, query: SearchQuery, limit: int) -> list[MessageMatch]:
        """The owner's messages holding every term, newest first (by id), at most ``limit``."""
        filters, params = _patterns("m.content", query)
        statement = (
            "SELECT m.id, m.session_id, c.title, m.position, m.role, m.content, m.created_at "
            "FROM message AS m JOIN chat_session AS c ON c.id = m.session_id "
            f"WHERE c.owner = :owner AND m.role IN ('user', 'assistant'){filters} "
            "ORDER BY m.id DESC LIMIT :limit"
        )
        values = {"owner": owner, "limit": limit, **params}
        return matches(self._session, MessageMatch, statement, values)

    def sessions(self, owner: str, query: SearchQuery, limit: int) -> list[TitleMatch]:
        """The owner's sessions whose title holds every term, latest updated first."""
        filters, params = _patterns("c.title", query)
        statement = (
            "SELECT c.id, c.title, c.updated_at FROM chat_session AS c "
            f"WHERE c.owner = :owner{filters} "
            "ORDER BY c.updated_at DESC, c.id DESC LIMIT :limit"
        )
        values = {"owner": owner, "limit": limit, **params}
        return matches(self._session, TitleMatch, statement, values)


def _patterns(column_name: str, query: SearchQuery) -> tuple[str, dict[str, str]]:
    """SQL requiring every term of ``query`` in ``column_name``, case ignored."""
    clauses: list[str] = []
    params: dict[str, str] = {}
    for number, term in enumerate(query.terms):
        name = f"term{number}"
        params[name] = "%" + _escaped(term) + "%"
        clauses.append(f" AND {column_name} ILIKE :{name}")
    return "".join(clauses), params


def _escaped(term: str) -> str:
    """``term`` as literal text in a ``LIKE`` pattern (``\\`` is PostgreSQL's default escape)."""
    return term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
