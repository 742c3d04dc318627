"""Schema versions and the upgrade path.

The database records its schema version in ``PRAGMA user_version``. Each entry of
:data:`MIGRATIONS` upgrades version ``n - 1`` to ``n`` and runs in one ``BEGIN IMMEDIATE``
transaction, so two processes opening an old database at once upgrade it exactly once.
Migrations are plain SQL on purpose (a step that must look at the data is a function of
the raw connection): they describe the past and must not change when the table classes do.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from oncall_tui.errors import OncallError

Step = str | Callable[[sqlite3.Connection], None]


def _one_default_prompt_per_owner(connection: sqlite3.Connection) -> None:
    """Merge the default prompts that processes starting at once created for one owner: the
    oldest stays; an untouched copy of it goes (a selection of it moves to the oldest); an
    edited one stays as an ordinary prompt, which can be deleted."""
    owners = connection.execute(
        "SELECT owner FROM prompt WHERE is_default GROUP BY owner HAVING COUNT(*) > 1"
    ).fetchall()
    for (owner,) in owners:
        keep, *extra = connection.execute(
            "SELECT id, label, content FROM prompt WHERE owner = ? AND is_default ORDER BY id",
            (owner,),
        ).fetchall()
        for prompt_id, label, content in extra:
            if (label, content) == (keep[1], keep[2]):
                connection.execute(
                    "UPDATE configuration SET system_prompt_id = ? "
                    "WHERE owner = ? AND system_prompt_id = ?",
                    (keep[0], owner, prompt_id),
                )
                connection.execute("DELETE FROM prompt WHERE id = ?", (prompt_id,))
            else:
                connection.execute("UPDATE prompt SET is_default = 0 WHERE id = ?", (prompt_id,))


MIGRATIONS: tuple[tuple[Step, ...], ...] = (
    # 1: prompts, skills, per-owner configuration.
    (
        """CREATE TABLE prompt (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            owner VARCHAR NOT NULL,
            label VARCHAR NOT NULL,
            content VARCHAR NOT NULL,
            is_default BOOLEAN NOT NULL DEFAULT 0,
            created_at DATETIME NOT NULL,
            updated_at DATETIME NOT NULL
        )""",
        "CREATE INDEX ix_prompt_owner ON prompt (owner)",
        """CREATE TABLE skill (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            owner VARCHAR NOT NULL,
            filename VARCHAR NOT NULL,
            name VARCHAR NOT NULL,
            description VARCHAR NOT NULL,
            content VARCHAR NOT NULL,
            size_bytes INTEGER NOT NULL,
            created_at DATETIME NOT NULL,
            updated_at DATETIME NOT NULL,
            CONSTRAINT uq_skill_owner_name UNIQUE (owner, name)
        )""",
        "CREATE INDEX ix_skill_owner ON skill (owner)",
        """CREATE TABLE configuration (
            owner VARCHAR PRIMARY KEY NOT NULL,
            system_prompt_id INTEGER,
            skill_ids JSON NOT NULL DEFAULT '[]',
            updated_at DATETIME NOT NULL
        )""",
    ),
    # 2: chat sessions with their memory, messages, and the tool-call audit.
    (
        """CREATE TABLE chat_session (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            owner VARCHAR NOT NULL,
            title VARCHAR NOT NULL,
            memory_mode VARCHAR NOT NULL DEFAULT 'every_30_turns',
            memory_summary VARCHAR,
            compacted_message_count INTEGER NOT NULL DEFAULT 0,
            context_tokens INTEGER NOT NULL DEFAULT 0,
            last_compacted_at DATETIME,
            reported_prompt_tokens INTEGER,
            token_calibration REAL NOT NULL DEFAULT 1.0,
            created_at DATETIME NOT NULL,
            updated_at DATETIME NOT NULL
        )""",
        "CREATE INDEX ix_chat_session_owner ON chat_session (owner, updated_at)",
        """CREATE TABLE message (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id INTEGER NOT NULL REFERENCES chat_session (id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            role VARCHAR NOT NULL,
            content VARCHAR NOT NULL,
            status VARCHAR NOT NULL DEFAULT 'complete',
            created_at DATETIME NOT NULL,
            CONSTRAINT uq_message_position UNIQUE (session_id, position)
        )""",
        """CREATE TABLE tool_audit (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id INTEGER NOT NULL REFERENCES chat_session (id) ON DELETE CASCADE,
            message_id INTEGER NOT NULL REFERENCES message (id) ON DELETE CASCADE,
            call_id VARCHAR NOT NULL,
            tool_name VARCHAR NOT NULL,
            arguments VARCHAR NOT NULL,
            status VARCHAR NOT NULL,
            summary VARCHAR NOT NULL,
            started_at DATETIME NOT NULL,
            duration_ms INTEGER NOT NULL
        )""",
        "CREATE INDEX ix_tool_audit_session_id ON tool_audit (session_id)",
        "CREATE INDEX ix_tool_audit_message_id ON tool_audit (message_id)",
    ),
    # 3: whether the summary is whole or was cut at the model's length limit; a counter of
    # clears, so that a compaction can tell the session it read was cleared meanwhile; exactly
    # one default prompt per owner.
    (
        "ALTER TABLE chat_session ADD COLUMN memory_summary_status VARCHAR NOT NULL "
        "DEFAULT 'complete'",
        "ALTER TABLE chat_session ADD COLUMN clear_generation INTEGER NOT NULL DEFAULT 0",
        _one_default_prompt_per_owner,
        "CREATE UNIQUE INDEX uq_prompt_one_default ON prompt (owner) WHERE is_default",
    ),
    # 4: full-text search over user and assistant messages and session titles (see
    # oncall_tui/store/search.py). Contentless FTS5 trigram indexes, kept in step by triggers
    # on every write (cascades included), filled here from what is already stored. Each text is
    # indexed with a newline after it, so that a two-character string at its very end is still
    # the start of a trigram (what the short-query strategy looks up).
    (
        "CREATE VIRTUAL TABLE message_search USING fts5(body, content='', tokenize='trigram')",
        "CREATE VIRTUAL TABLE message_search_terms USING fts5vocab(message_search, 'row')",
        """CREATE TRIGGER message_search_insert AFTER INSERT ON message
            WHEN new.role IN ('user', 'assistant')
        BEGIN
            INSERT INTO message_search (rowid, body) VALUES (new.id, new.content || char(10));
        END""",
        """CREATE TRIGGER message_search_delete AFTER DELETE ON message
            WHEN old.role IN ('user', 'assistant')
        BEGIN
            INSERT INTO message_search (message_search, rowid, body)
                VALUES ('delete', old.id, old.content || char(10));
        END""",
        """CREATE TRIGGER message_search_update AFTER UPDATE OF content, role ON message
        BEGIN
            INSERT INTO message_search (message_search, rowid, body)
                SELECT 'delete', old.id, old.content || char(10)
                WHERE old.role IN ('user', 'assistant');
            INSERT INTO message_search (rowid, body)
                SELECT new.id, new.content || char(10)
                WHERE new.role IN ('user', 'assistant');
        END""",
        "INSERT INTO message_search (rowid, body) SELECT id, content || char(10) FROM message "
        "WHERE role IN ('user', 'assistant')",
        "CREATE VIRTUAL TABLE session_title_search USING fts5("
        "title, content='', tokenize='trigram')",
        "CREATE VIRTUAL TABLE session_title_search_terms USING fts5vocab("
        "session_title_search, 'row')",
        """CREATE TRIGGER session_title_search_insert AFTER INSERT ON chat_session
        BEGIN
            INSERT INTO session_title_search (rowid, title) VALUES (new.id, new.title || char(10));
        END""",
        """CREATE TRIGGER session_title_search_delete AFTER DELETE ON chat_session
        BEGIN
            INSERT INTO session_title_search (session_title_search, rowid, title)
                VALUES ('delete', old.id, old.title || char(10));
        END""",
        """CREATE TRIGGER session_title_search_update AFTER UPDATE OF title ON chat_session
        BEGIN
            INSERT INTO session_title_search (session_title_search, rowid, title)
                VALUES ('delete', old.id, old.title || char(10));
            INSERT INTO session_title_search (rowid, title) VALUES (new.id, new.title || char(10));
        END""",
        "INSERT INTO session_title_search (rowid, title) "
        "SELECT id, title || char(10) FROM chat_session",
    ),
)

LATEST_VERSION = len(MIGRATIONS)


def schema_version(connection: sqlite3.Connection) -> int:
    row = connection.execute("PRAGMA user_version").fetchone()
    return int(row[0])


def upgrade(connection: sqlite3.Connection, target: int = LATEST_VERSION) -> int:
    """Bring the database to ``target``; return the version it had before.

    ``connection`` must be in autocommit mode (``isolation_level=None``).
    """
    before = schema_version(connection)
    if before > LATEST_VERSION:
        raise OncallError(
            "DATABASE_UNAVAILABLE",
            path=_database_file(connection),
            detail=(
                f"it has schema version {before}, newer than this program's {LATEST_VERSION}; "
                "upgrade oncall-tui"
            ),
        )
    if before >= target:
        return before
    connection.execute("BEGIN IMMEDIATE")
    try:
        current = schema_version(connection)  # re-read under the write lock
        for version in range(current + 1, target + 1):
            for step in MIGRATIONS[version - 1]:
                if isinstance(step, str):
                    connection.execute(step)
                else:
                    step(connection)
            connection.execute(f"PRAGMA user_version = {version}")
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    return before


def _database_file(connection: sqlite3.Connection) -> str:
    row = connection.execute("PRAGMA database_list").fetchone()
    return str(row[2]) if row else "?"
