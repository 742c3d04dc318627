"""4: full-text search over user and assistant messages and session titles.

SQLite (see ``oncall_tui/store/search.py``): contentless FTS5 trigram indexes, kept in step by
triggers on every write (cascades included), filled here from what is already stored. Each text
is indexed with a newline after it, so that a two-character string at its very end is still the
start of a trigram (what the short-query strategy looks up).

PostgreSQL (see ``oncall_tui/store/search_postgres.py``): ``pg_trgm`` GIN indexes on the same
texts, which the database keeps in step by itself.
"""

from __future__ import annotations

from alembic import op

revision = "0004"
down_revision = "0003"

SQLITE = (
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
    "CREATE VIRTUAL TABLE session_title_search USING fts5(title, content='', tokenize='trigram')",
    "CREATE VIRTUAL TABLE session_title_search_terms USING fts5vocab(session_title_search, 'row')",
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
)

POSTGRESQL = (
    # A trusted extension: a database owner may create it (PostgreSQL 13 and later).
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "CREATE INDEX ix_message_search ON message USING gin (content gin_trgm_ops) "
    "WHERE role IN ('user', 'assistant')",
    "CREATE INDEX ix_chat_session_title_search ON chat_session USING gin (title gin_trgm_ops)",
)


def upgrade() -> None:
    for statement in SQLITE if op.get_bind().dialect.name == "sqlite" else POSTGRESQL:
        op.execute(statement)
