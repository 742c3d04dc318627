"""Databases at a given schema version, made by the revisions up to it (for upgrade tests)."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

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
