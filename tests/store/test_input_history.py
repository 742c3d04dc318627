"""The messages the composer's ↑ brings back: the owner's own, the open session's first."""

from __future__ import annotations

import pytest

from oncall_tui.errors import OncallError
from oncall_tui.services.sessions import SessionService
from oncall_tui.store.engine import Database
from oncall_tui.store.sessions import MessageRepository, SessionRepository

pytestmark = pytest.mark.both_engines


def write(database: Database, owner: str, questions: list[str]) -> int:
    with database.session() as session:
        chat = SessionRepository(session).create(owner, "incident", "every_30_turns")
        for question in questions:
            MessageRepository(session).add(chat, "user", question)
            MessageRepository(session).add(chat, "assistant", "an answer")
        return chat.id or 0


def test_the_open_sessions_messages_come_first_newest_first(database: Database) -> None:
    first = write(database, "alice", ["a1", "a2"])
    second = write(database, "alice", ["b1", "b2"])
    sessions = SessionService(database)
    assert sessions.input_history("alice", first) == ["a2", "a1", "b2", "b1"]
    assert sessions.input_history("alice", second) == ["b2", "b1", "a2", "a1"]
    assert sessions.input_history("alice", None) == ["b2", "b1", "a2", "a1"]


def test_only_the_owners_messages_and_at_most_the_limit(database: Database) -> None:
    write(database, "bob", ["bob's secret"])
    mine = write(database, "alice", [f"q{n}" for n in range(5)])
    sessions = SessionService(database)
    assert sessions.input_history("alice", mine, limit=5) == ["q4", "q3", "q2", "q1", "q0"]
    assert sessions.input_history("alice", mine, limit=4) == ["q4", "q3", "q2", "q1"]
    assert "bob's secret" not in sessions.input_history("alice", None)


def test_another_owners_session_is_not_found(database: Database) -> None:
    theirs = write(database, "bob", ["bob's secret"])
    with pytest.raises(OncallError) as raised:
        SessionService(database).input_history("alice", theirs)
    assert raised.value.code == "NOT_FOUND"
