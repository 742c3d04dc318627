"""Full-text search over the owner's messages and session titles: the API clients build on.

Hits are newest first: a message by its time, a title by its session's last update, merged
into one list. Newest rather than best-ranked because on call the question is usually "when did
we last see this", and because it lets the index stop at the first ``limit`` matches instead of
ranking every one (a common word matches most of a long history). Another owner's messages never
appear. Query rules (terms, substrings, limits) are :mod:`oncall_tui.core.search`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from oncall_tui.core.search import Snippet, parse_query, snippet
from oncall_tui.core.text import NEW_SESSION
from oncall_tui.errors import OncallError
from oncall_tui.redaction import redact
from oncall_tui.services.views import json_fields
from oncall_tui.store.engine import Database
from oncall_tui.store.search import SearchRepository
from oncall_tui.store.search_postgres import PostgresSearchRepository

MAX_RESULTS = 500
"""The most hits one search returns."""


@dataclass(frozen=True, slots=True)
class SearchHit:
    session_id: int
    session_title: str
    message_id: int | None
    """``None`` when the hit is the session's title."""
    position: int | None
    """The message's position in its session, to open the session there."""
    role: str | None
    """``user`` or ``assistant``; ``None`` for a title hit."""
    created_at: datetime
    """The message's time; for a title hit, the session's last update. UTC, timezone-aware."""
    snippet: str
    """One line (newlines as spaces), at most 160 characters, ``…`` where it was cut."""
    highlights: tuple[tuple[int, int], ...]
    """``[start, end)`` spans of the matched terms in :attr:`snippet` (the terms of two characters
    or more: a one-character term would mark every letter)."""

    def to_json(self) -> dict[str, object]:
        return json_fields(self)


class SearchService:
    def __init__(self, database: Database) -> None:
        self._database = database

    def search(self, owner: str, query: str, *, limit: int = 50) -> list[SearchHit]:
        """The owner's messages and titles holding every term of ``query``, newest first.

        ``VALIDATION_INVALID_ARGUMENT`` for a blank query, one over 200 characters, one without
        a term of two characters or more, or a ``limit`` outside 1..:data:`MAX_RESULTS`."""
        if not 1 <= limit <= MAX_RESULTS:
            raise OncallError(
                "VALIDATION_INVALID_ARGUMENT", "search_limit", limit=MAX_RESULTS, value=limit
            )
        parsed = parse_query(query)
        with self._database.read() as session:
            repository: SearchRepository | PostgresSearchRepository = (
                SearchRepository(session)
                if self._database.dialect == "sqlite"
                else PostgresSearchRepository(session)
            )
            messages = repository.messages(owner, parsed, limit)
            titles = repository.sessions(owner, parsed, limit)
        hits = [
            _hit(
                match.session_id,
                match.session_title,
                snippet(redact(match.content), parsed.indexed),
                match.created_at,
                message_id=match.message_id,
                position=match.position,
                role=match.role,
            )
            for match in messages
        ]
        hits += [
            _hit(
                row.session_id,
                row.title,
                snippet(redact(row.title), parsed.indexed),
                row.updated_at,
            )
            for row in titles
        ]
        hits.sort(key=lambda hit: (hit.created_at, hit.message_id or 0), reverse=True)
        return hits[:limit]


def _hit(
    session_id: int,
    title: str,
    found: Snippet,
    created_at: datetime,
    *,
    message_id: int | None = None,
    position: int | None = None,
    role: str | None = None,
) -> SearchHit:
    return SearchHit(
        session_id=session_id,
        session_title=title or NEW_SESSION,
        message_id=message_id,
        position=position,
        role=role,
        created_at=created_at if created_at.tzinfo else created_at.replace(tzinfo=UTC),
        snippet=found.text,
        highlights=found.highlights,
    )
