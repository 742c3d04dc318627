"""Databases at a given schema version, made by the revisions up to it (for upgrade tests)."""

from __future__ import annotations

import contextlib
import functools
import sqlite3
import tempfile
from pathlib import Path

from sqlalchemy import Connection

from oncall_tui.store import schema
from oncall_tui.store.sqlite import sqlite_engine

RELEASE_0_1_0 = Path(__file__).resolve().parent / "data" / "release-0.1.0.db"
"""A database made by release 0.1.0 (commit 3cb34cd), before Alembic (schema version 4 in
``user_version``), through its CLI against the fake Ollama: alice's prompt, skill, a session with
a skill load audited and four messages; bob's session."""


def sqlite_at(path: Path, version: int) -> None:
    """A SQLite file at schema ``version``, upgraded in one ``BEGIN IMMEDIATE`` transaction."""
    engine = sqlite_engine(path)
    try:
        with engine.begin() as connection:
            schema.upgrade(connection, target=version)
    finally:
        engine.dispose()


def sqlite_version(path: Path) -> int:
    """The file's schema version (``PRAGMA user_version``), read without SQLAlchemy."""
    with contextlib.closing(sqlite3.connect(path)) as connection:
        return int(connection.execute("PRAGMA user_version").fetchone()[0])


@functools.cache
def migrated_statements() -> tuple[str, ...]:
    """The statements that give an empty SQLite file the newest schema, read once per process
    from a file the revisions upgraded: what they made (tables, indexes, triggers, full-text
    tables; not the tables SQLite and the full-text tables make for themselves), then Alembic's
    version row and ``user_version``."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "migrated.db"
        sqlite_at(path, schema.LATEST_VERSION)
        with contextlib.closing(sqlite3.connect(path)) as connection:
            made = connection.execute(
                "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
                "AND name NOT IN (SELECT name FROM pragma_table_list WHERE type = 'shadow') "
                "ORDER BY rowid"
            ).fetchall()
            (revision,) = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    return (
        *(sql for (sql,) in made),
        f"INSERT INTO alembic_version (version_num) VALUES ('{revision}')",
        f"PRAGMA user_version = {schema.LATEST_VERSION}",
    )


def upgrade_by_statements(connection: Connection, target: int = schema.LATEST_VERSION) -> int:
    """``schema.upgrade``, except that an empty SQLite file brought to the newest version gets
    the revisions' result (:func:`migrated_statements`) in 2 ms instead of running them in 20.
    The tests above the store open about two thousand new files; ``tests/store`` runs the
    revisions themselves, and ``test_upgrade_by_statements`` keeps both ways equal."""
    if connection.dialect.name != "sqlite" or target != schema.LATEST_VERSION:
        return schema.upgrade(connection, target)
    empty = connection.exec_driver_sql("SELECT count(*) FROM sqlite_master").scalar_one() == 0
    if not empty:
        return schema.upgrade(connection, target)
    for statement in migrated_statements():
        connection.exec_driver_sql(statement)
    return 0
