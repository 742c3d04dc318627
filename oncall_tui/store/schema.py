"""Schema versions and the upgrade path.

The database records its schema version in ``PRAGMA user_version``. Each entry of
:data:`MIGRATIONS` upgrades version ``n - 1`` to ``n`` and runs in one ``BEGIN IMMEDIATE``
transaction, so two processes opening an old database at once upgrade it exactly once.
Migrations are plain SQL on purpose: they describe the past and must not change when
the table classes do.
"""

from __future__ import annotations

import sqlite3

from oncall_tui.errors import OncallError

MIGRATIONS: tuple[tuple[str, ...], ...] = (
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
    # 3: whether the summary is whole, or was cut at the model's length limit.
    (
        "ALTER TABLE chat_session ADD COLUMN memory_summary_status VARCHAR NOT NULL "
        "DEFAULT 'complete'",
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
            for statement in MIGRATIONS[version - 1]:
                connection.execute(statement)
            connection.execute(f"PRAGMA user_version = {version}")
        connection.execute("COMMIT")
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    return before


def _database_file(connection: sqlite3.Connection) -> str:
    row = connection.execute("PRAGMA database_list").fetchone()
    return str(row[2]) if row else "?"
