"""The SQLite file: private, WAL, busy timeout, versioned schema with a tested upgrade path."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from pathlib import Path

import pytest
from sqlmodel import SQLModel

from oncall_tui.errors import OncallError
from oncall_tui.store import schema
from oncall_tui.store.engine import BUSY_TIMEOUT_MS, Database
from oncall_tui.store.ids import UnsavedRowError, stored_id
from oncall_tui.store.tables import PromptRow  # (importing it registers the tables)


def test_database_file_is_private_in_a_private_directory(tmp_path: Path) -> None:
    path = tmp_path / "fresh" / "nested" / "oncall.db"
    Database(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_an_existing_world_readable_file_is_tightened(tmp_path: Path) -> None:
    path = tmp_path / "oncall.db"
    path.touch(mode=0o644)
    os.chmod(path, 0o644)
    Database(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_connections_use_wal_and_a_busy_timeout(database: Database) -> None:
    with database.engine.connect() as connection:
        journal = connection.exec_driver_sql("PRAGMA journal_mode").scalar()
        timeout = connection.exec_driver_sql("PRAGMA busy_timeout").scalar()
    assert journal == "wal"
    assert timeout == BUSY_TIMEOUT_MS


def test_schema_version_is_recorded_in_the_database(db_path: Path, database: Database) -> None:
    with contextlib.closing(sqlite3.connect(db_path)) as connection:
        assert schema.schema_version(connection) == schema.LATEST_VERSION >= 1


def tables_and_columns(connection: sqlite3.Connection) -> dict[str, set[str]]:
    """The ordinary tables: not the search indexes (virtual tables) and their shadow tables."""
    names = [
        r[1]
        for r in connection.execute("PRAGMA main.table_list")
        if r[2] == "table" and not r[1].startswith("sqlite_")
    ]
    return {n: {r[1] for r in connection.execute(f"PRAGMA table_info({n})")} for n in names}


def test_migrated_schema_matches_the_table_classes(db_path: Path, database: Database) -> None:
    with contextlib.closing(sqlite3.connect(db_path)) as connection:
        actual = tables_and_columns(connection)
    expected = {
        name: {c.name for c in table.columns} for name, table in SQLModel.metadata.tables.items()
    }
    assert actual == expected


def test_upgrade_path_runs_each_version_in_order_and_keeps_data(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as connection:
        assert schema.upgrade(connection, target=1) == 0
        connection.execute(
            "INSERT INTO prompt (owner, label, content, is_default, created_at, updated_at)"
            " VALUES ('alice', 'Old', 'kept across upgrades', 0, '2025-01-01 00:00:00',"
            " '2025-01-01 00:00:00')"
        )
        assert schema.schema_version(connection) == 1
    database = Database(path)  # opening upgrades to the latest version
    try:
        with contextlib.closing(sqlite3.connect(path)) as connection:
            assert schema.schema_version(connection) == schema.LATEST_VERSION
            assert connection.execute("SELECT content FROM prompt").fetchone() == (
                "kept across upgrades",
            )
        from oncall_tui.services.configuration import ConfigurationService

        prompts = ConfigurationService(database).list_prompts("alice")
        assert "kept across upgrades" in [p.content for p in prompts]
    finally:
        database.close()


def test_upgrading_an_up_to_date_database_is_a_no_op(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    Database(path).close()
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as connection:
        assert schema.upgrade(connection) == schema.LATEST_VERSION


def test_a_failed_migration_rolls_back_entirely(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    broken = (*schema.MIGRATIONS, ("CREATE TABLE extra (id INTEGER)", "THIS IS NOT SQL"))
    monkeypatch.setattr(schema, "MIGRATIONS", broken)
    path = tmp_path / "db.sqlite"
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as connection:
        with pytest.raises(sqlite3.OperationalError):
            schema.upgrade(connection, target=len(broken))
        assert schema.schema_version(connection) == 0
        assert tables_and_columns(connection) == {}


def test_a_database_from_a_newer_version_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    with contextlib.closing(sqlite3.connect(path)) as connection:
        connection.execute(f"PRAGMA user_version = {schema.LATEST_VERSION + 1}")
    with pytest.raises(OncallError) as caught:
        Database(path)
    assert caught.value.code == "DATABASE_UNAVAILABLE"
    assert "newer" in caught.value.message()


def test_an_unusable_path_is_a_catalog_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(OncallError) as caught:
        Database(blocker / "oncall.db")
    assert caught.value.code == "DATABASE_UNAVAILABLE"


def test_a_row_has_an_id_once_it_is_flushed(database: Database) -> None:
    row = PromptRow(owner="alice", label="Terse", content="Be brief.")
    with pytest.raises(UnsavedRowError, match="PromptRow has no id"):
        stored_id(row)
    with database.session() as session:
        session.add(row)
        session.flush()
        assert stored_id(row) == row.id
