"""Full-text search: what a query finds (CJK, words, phrases, text that looks like FTS syntax),
whose data it finds, how the index follows every write, and the upgrade that builds it."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest

from oncall_tui.core.search import MAX_QUERY_CHARS, SNIPPET_CHARS, parse_query, snippet
from oncall_tui.errors import OncallError
from oncall_tui.services.search import MAX_RESULTS, SearchService
from oncall_tui.services.sessions import SessionService
from oncall_tui.store import schema
from oncall_tui.store.engine import Database
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from oncall_tui.store.sqlite import SqliteDatabase
from tests.schemas import sqlite_at, sqlite_version

pytestmark = pytest.mark.both_engines


def add_messages(database: Database, owner: str, session_id: int, *texts: str) -> list[int]:
    """Store ``texts`` in the session, user and assistant in turn; their ids."""
    ids: list[int] = []
    with database.session() as session:
        chat = SessionRepository(session).require(owner, session_id)
        messages = MessageRepository(session)
        for number, text in enumerate(texts):
            role = "user" if number % 2 == 0 else "assistant"
            row = messages.add(chat, role, text)
            assert row.id is not None
            ids.append(row.id)
    return ids


@pytest.fixture
def sessions(database: Database) -> SessionService:
    return SessionService(database)


@pytest.fixture
def search(database: Database) -> SearchService:
    return SearchService(database)


def found(search: SearchService, query: str, owner: str = "alice") -> list[str]:
    """The snippets of the owner's hits for ``query``, newest first."""
    return [hit.snippet for hit in search.search(owner, query)]


def refused(search: SearchService, query: str, limit: int = 50) -> str:
    with pytest.raises(OncallError) as caught:
        search.search("alice", query, limit=limit)
    assert caught.value.code == "VALIDATION_INVALID_ARGUMENT"
    assert caught.value.reason is not None
    return caught.value.reason


def test_two_character_chinese_finds_it_inside_a_longer_word_and_at_the_end_of_a_text(
    database: Database, sessions: SessionService, search: SearchService
) -> None:
    chat = sessions.create("alice", "incident")
    add_messages(
        database, "alice", chat.id, "上游超时，网关返回 504", "又超时", "超时", "一切正常", "超"
    )
    assert found(search, "超时") == ["超时", "又超时", "上游超时，网关返回 504"]
    assert found(search, "上游超时") == ["上游超时，网关返回 504"]
    assert found(search, "网关返回") == ["上游超时，网关返回 504"]
    assert found(search, "正常") == ["一切正常"]
    assert found(search, "超时了") == []


def test_english_words_match_as_substrings_in_any_case_and_all_must_appear(
    database: Database, sessions: SessionService, search: SearchService
) -> None:
    chat = sessions.create("alice", "incident")
    add_messages(
        database,
        "alice",
        chat.id,
        "The upstream TIMEOUT hit api-7",
        "db pool exhausted on api-7",
        "connection refused by the DB",
    )
    assert found(search, "timeout") == ["The upstream TIMEOUT hit api-7"]
    assert found(search, "time") == ["The upstream TIMEOUT hit api-7"]  # substrings, so prefixes
    assert found(search, "api-7 db") == ["db pool exhausted on api-7"]
    assert found(search, "DB") == ["connection refused by the DB", "db pool exhausted on api-7"]
    assert found(search, '"refused by"') == ["connection refused by the DB"]
    assert found(search, '"by refused"') == []
    assert found(search, "refused api-7") == []


def test_text_that_looks_like_fts_syntax_is_searched_literally_and_never_fails(
    database: Database, sessions: SessionService, search: SearchService
) -> None:
    chat = sessions.create("alice", "incident")
    add_messages(
        database,
        "alice",
        chat.id,
        'run: grep "NEAR(" *.log AND exit',
        "status: OR NOT ^col -x {a b} a*b",
        'say "hi"',
    )
    assert found(search, "NEAR(") == ['run: grep "NEAR(" *.log AND exit']
    assert found(search, "*.log") == ['run: grep "NEAR(" *.log AND exit']
    assert found(search, "AND") == ['run: grep "NEAR(" *.log AND exit']
    assert found(search, "a*b") == ["status: OR NOT ^col -x {a b} a*b"]
    assert found(search, "OR NOT") == ["status: OR NOT ^col -x {a b} a*b"]
    assert found(search, 'y "hi') == ['say "hi"']  # an open quote: the phrase "hi"
    searchable = [
        '"""ab',
        "NEAR(",
        "NEAR(a b, 2)",
        "a OR",
        "AND AND",
        "NOT x",
        "**",
        "col:value",
        "{a b}:x",
        "^start",
        "'; DROP TABLE message; --",
        ")(",
        "-x",
        "a\x00bc",
        "\\\\",
        "%_",
        "\u200b\u200b",
        "e\u0301",
        "İİ",
    ]
    for query in searchable:
        assert isinstance(search.search("alice", query), list), query
    for query in ['"', '""', '"""', "*", "(", "+", "a\x00b"]:
        assert refused(search, query) == "search_query_too_short", query
    assert refused(search, "\x00") == "search_query_empty"
    assert len(found(search, "grep")) == 1  # nothing was dropped


def test_a_one_character_word_narrows_what_a_longer_one_finds(
    database: Database, sessions: SessionService, search: SearchService
) -> None:
    chat = sessions.create("alice", "incident")
    add_messages(database, "alice", chat.id, "pod 7 crashed", "pod 8 crashed", "Pod X ok")
    assert found(search, "pod 7") == ["pod 7 crashed"]
    assert found(search, "pod x") == ["Pod X ok"]
    assert refused(search, "7") == "search_query_too_short"
    assert refused(search, "a b 7") == "search_query_too_short"


def test_query_limits_are_enforced_at_the_bound(
    database: Database, sessions: SessionService, search: SearchService
) -> None:
    chat = sessions.create("alice", "incident")
    add_messages(database, "alice", chat.id, "x" * MAX_QUERY_CHARS)
    assert len(found(search, "x" * MAX_QUERY_CHARS)) == 1
    assert len(found(search, f"  {'x' * MAX_QUERY_CHARS}\n")) == 1  # trimmed first
    assert refused(search, "x" * (MAX_QUERY_CHARS + 1)) == "search_query_too_long"
    assert refused(search, "") == "search_query_empty"
    assert refused(search, " \t\n ") == "search_query_empty"
    assert refused(search, "x") == "search_query_too_short"
    assert len(found(search, "xx")) == 1
    assert len(search.search("alice", "xx", limit=1)) == 1
    assert search.search("alice", "xx", limit=MAX_RESULTS) != []
    assert refused(search, "xx", limit=0) == "search_limit"
    assert refused(search, "xx", limit=MAX_RESULTS + 1) == "search_limit"


def test_the_messages_and_titles_of_another_owner_never_appear(
    database: Database, sessions: SessionService, search: SearchService
) -> None:
    mine = sessions.create("alice", "payments outage")
    theirs = sessions.create("bob", "payments outage")
    add_messages(database, "alice", mine.id, "payments: 502 from the gateway")
    add_messages(database, "bob", theirs.id, "payments: bob's secret 502", "超时 payments")
    hits = search.search("alice", "payments")
    assert {hit.session_id for hit in hits} == {mine.id}
    assert len(hits) == 2  # the message and the title
    assert found(search, "secret") == []
    assert found(search, "超时") == []
    assert {hit.session_id for hit in search.search("bob", "payments")} == {theirs.id}
    assert found(search, "payments", owner="carol") == []


def test_hits_are_newest_first_and_carry_where_to_open_them(
    database: Database, sessions: SessionService, search: SearchService
) -> None:
    older = sessions.create("alice", "disk full on db-1")
    newer = sessions.create("alice", "")
    add_messages(database, "alice", older.id, "disk at 97%", "clean /var/log")
    add_messages(database, "alice", newer.id, "first", "is the disk full again?")
    hits = search.search("alice", "disk")
    assert [(hit.session_id, hit.position, hit.role) for hit in hits] == [
        (newer.id, 1, "assistant"),
        (older.id, 0, "user"),
        (older.id, None, None),  # the title, at the session's last update
    ]
    assert hits[0].session_title == "New session"
    assert hits[2].message_id is None
    assert hits[0].created_at.tzinfo is not None
    assert hits[0].to_json() == {
        "session_id": newer.id,
        "session_title": "New session",
        "message_id": hits[0].message_id,
        "position": 1,
        "role": "assistant",
        "created_at": hits[0].created_at.isoformat(),
        "snippet": "is the disk full again?",
        "highlights": [[7, 11]],
    }
    assert len(search.search("alice", "disk", limit=2)) == 2


def test_a_snippet_is_one_line_at_most_160_characters_with_the_match_marked() -> None:
    text = "first line\n" + "word " * 60 + "the ERROR is here\n" + "tail " * 60
    cut = snippet(text, ("error",))
    assert len(cut.text) <= SNIPPET_CHARS
    assert "\n" not in cut.text
    assert cut.text.startswith("…")
    assert cut.text.endswith("…")
    ((start, end),) = cut.highlights
    assert cut.text[start:end] == "ERROR"
    start_of_text = snippet("ERROR " + "x" * 300, ("error",))
    assert not start_of_text.text.startswith("…")
    assert start_of_text.text.endswith("…")
    assert len(start_of_text.text) == SNIPPET_CHARS
    end_of_text = snippet("x" * 300 + " ERROR", ("error",))
    assert end_of_text.text.startswith("…")
    assert end_of_text.text.endswith("ERROR")
    assert len(end_of_text.text) == SNIPPET_CHARS
    assert end_of_text.text[slice(*end_of_text.highlights[0])] == "ERROR"
    whole = snippet("a  short\r\n\ttext", ("sh", "te"))
    assert (whole.text, whole.highlights) == ("a short text", ((2, 4), (8, 10)))
    cjk = snippet("上游超时" * 100, ("超时",))
    assert len(cjk.text) <= SNIPPET_CHARS
    assert all(cjk.text[a:b] == "超时" for a, b in cjk.highlights)


def test_a_star_at_either_end_of_a_word_means_anything_as_in_a_shell(
    database: Database, sessions: SessionService, search: SearchService
) -> None:
    """``timeout*`` found nothing where ``timeout`` found the message: a false "nothing
    happened" to whoever searches as they glob."""
    chat = sessions.create("alice", "incident")
    add_messages(database, "alice", chat.id, "upstream timeout after 30s", "api-7 OOMKilled")
    assert found(search, "timeout*") == ["upstream timeout after 30s"]
    assert found(search, "*timeout*") == ["upstream timeout after 30s"]
    assert found(search, "api-7*") == ["api-7 OOMKilled"]
    assert found(search, "api-7*   oom*") == ["api-7 OOMKilled"]
    assert found(search, '"timeout*"') == []  # in quotes, as written
    assert parse_query("**").terms == ("**",)  # only stars: the text itself
    assert parse_query("time* *time a*b").terms == ("time", "a*b")


def test_the_query_is_words_or_quoted_phrases_without_repeats() -> None:
    assert parse_query('  disk "connection   refused"  disk 超时 ').terms == (
        "disk",
        "connection refused",
        "超时",
    )


def test_a_phrase_being_typed_finds_what_it_will_find_once_closed(
    database: Database, sessions: SessionService, search: SearchService
) -> None:
    """The search runs as the user types: ``"connection ref`` looked for the quote itself,
    and every hit vanished from the first quote typed until the closing one."""
    chat = sessions.create("alice", "incident")
    add_messages(database, "alice", chat.id, "upstream: connection refused", 'say"hi" twice')
    assert found(search, '"connection ref') == ["upstream: connection refused"]
    assert found(search, 'upstream "connection   refused') == ["upstream: connection refused"]
    assert found(search, '"refused connection') == []  # a phrase still, not two words
    assert found(search, 'say"hi"') == ['say"hi" twice']  # inside a word, a quote is text
    assert parse_query('api "').terms == ("api",)  # a quote with nothing after it is no term
    with pytest.raises(OncallError):
        parse_query('"')


def test_the_index_follows_new_messages_rename_clear_and_delete(
    database: Database, sessions: SessionService, search: SearchService
) -> None:
    chat = sessions.create("alice", "checkout latency")
    add_messages(database, "alice", chat.id, "p99 latency is 4s")
    assert len(found(search, "latency")) == 2
    sessions.rename("alice", chat.id, "cart errors")
    assert found(search, "checkout") == []
    assert found(search, "cart") == ["cart errors"]
    sessions.clear("alice", chat.id)
    assert found(search, "p99") == []
    add_messages(database, "alice", chat.id, "after the clear: p99 fine")
    assert found(search, "p99") == ["after the clear: p99 fine"]
    sessions.delete("alice", chat.id)
    assert found(search, "p99") == []
    assert found(search, "cart") == []


@pytest.mark.sqlite_only  # SQLite's triggers; PostgreSQL's indexes are the table's own
def test_the_index_follows_writes_made_outside_the_services(
    db_path: Path, database: Database, sessions: SessionService, search: SearchService
) -> None:
    kept = sessions.create("alice", "kept")
    gone = sessions.create("alice", "cascaded away")
    add_messages(database, "alice", kept.id, "original words")
    add_messages(database, "alice", gone.id, "cascade victim")
    with contextlib.closing(sqlite3.connect(db_path, isolation_level=None)) as connection:
        connection.execute("PRAGMA foreign_keys = ON")
        connection.execute(
            "UPDATE message SET content = 'edited words' WHERE session_id = ?", (kept.id,)
        )
        connection.execute("DELETE FROM chat_session WHERE id = ?", (gone.id,))  # cascades
        connection.execute(
            "INSERT INTO message (session_id, position, role, content, status, created_at) "
            "VALUES (?, 1, 'system', 'not user-visible words', 'complete', '2025-01-01')",
            (kept.id,),
        )
    assert found(search, "original") == []
    assert found(search, "edited") == ["edited words"]
    assert found(search, "victim") == []
    assert found(search, "cascaded") == []
    assert found(search, "user-visible") == []  # only user and assistant messages are indexed


def test_upgrading_a_version_3_database_indexes_what_it_holds(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    sqlite_at(path, 3)
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as connection:
        connection.execute(
            "INSERT INTO chat_session (owner, title, created_at, updated_at) "
            "VALUES ('alice', 'Redis 超时', '2025-01-01 00:00:00', '2025-01-01 00:00:00'), "
            "('bob', 'Redis too', '2025-01-01 00:00:00', '2025-01-01 00:00:00')"
        )
        connection.executemany(
            "INSERT INTO message (session_id, position, role, content, status, created_at) "
            "VALUES (?, ?, ?, ?, 'complete', '2025-01-01 00:00:0' || ?)",
            [
                (1, 0, "user", "redis 连接超时", 1),
                (1, 1, "assistant", "raise the redis timeout", 2),
                (2, 0, "user", "bob's redis", 3),
            ],
        )
    database = SqliteDatabase(path)
    try:
        hits = SearchService(database).search("alice", "redis")
        assert [(hit.position, hit.snippet) for hit in hits] == [
            (1, "raise the redis timeout"),
            (0, "redis 连接超时"),
            (None, "Redis 超时"),
        ]
        assert len(SearchService(database).search("alice", "超时")) == 2
        add_messages(database, "alice", 1, "new redis message")
        assert len(SearchService(database).search("alice", "redis")) == 4
    finally:
        database.close()
    assert sqlite_version(path) == schema.LATEST_VERSION
