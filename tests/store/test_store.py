"""The SQLite file: private, WAL, busy timeout; the schema's revisions (Alembic) and the upgrade
of a file made before them."""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import SQLModel, select

from oncall_tui.errors import OncallError
from oncall_tui.services.configuration import ConfigurationService
from oncall_tui.services.search import SearchService
from oncall_tui.services.sessions import SessionService
from oncall_tui.store import schema
from oncall_tui.store.engine import Database
from oncall_tui.store.failures import database_failure
from oncall_tui.store.ids import UnsavedRowError, stored_id
from oncall_tui.store.sqlite import BUSY_TIMEOUT_MS, SqliteDatabase, sqlite_engine
from oncall_tui.store.tables import PromptRow  # (importing it registers the tables)
from tests.conftest import sqlite_full
from tests.schemas import RELEASE_0_1_0, sqlite_at, sqlite_version
from tests.store.test_search import add_messages


def test_database_file_is_private_in_a_private_directory(tmp_path: Path) -> None:
    path = tmp_path / "fresh" / "nested" / "oncall.db"
    SqliteDatabase(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_an_existing_world_readable_file_is_tightened(tmp_path: Path) -> None:
    path = tmp_path / "oncall.db"
    path.touch(mode=0o644)
    os.chmod(path, 0o644)
    SqliteDatabase(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_connections_use_wal_and_a_busy_timeout(database: Database) -> None:
    with database.engine.connect() as connection:
        journal = connection.exec_driver_sql("PRAGMA journal_mode").scalar()
        timeout = connection.exec_driver_sql("PRAGMA busy_timeout").scalar()
    assert journal == "wal"
    assert timeout == BUSY_TIMEOUT_MS


def test_schema_version_is_recorded_in_the_database(db_path: Path, database: Database) -> None:
    assert sqlite_version(db_path) == schema.LATEST_VERSION >= 5
    with contextlib.closing(sqlite3.connect(db_path)) as connection:
        revision = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    assert revision == (schema.REVISIONS[-1],)


def test_the_revisions_named_here_are_the_migrations_history() -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(schema.MIGRATIONS))
    history = [
        r.revision for r in reversed(list(ScriptDirectory.from_config(config).walk_revisions()))
    ]
    assert tuple(history) == schema.REVISIONS


def tables_and_columns(connection: sqlite3.Connection) -> dict[str, set[str]]:
    """The ordinary tables: not the search indexes (virtual tables) and their shadow tables,
    nor Alembic's record of the revision."""
    names = [
        r[1]
        for r in connection.execute("PRAGMA main.table_list")
        if r[2] == "table" and not r[1].startswith("sqlite_") and r[1] != "alembic_version"
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
    sqlite_at(path, 1)
    with contextlib.closing(sqlite3.connect(path)) as connection, connection:
        connection.execute(
            "INSERT INTO prompt (owner, label, content, is_default, created_at, updated_at)"
            " VALUES ('alice', 'Old', 'kept across upgrades', 0, '2025-01-01 00:00:00',"
            " '2025-01-01 00:00:00')"
        )
    assert sqlite_version(path) == 1
    database = SqliteDatabase(path)  # opening upgrades to the latest version
    try:
        assert sqlite_version(path) == schema.LATEST_VERSION
        from oncall_tui.services.configuration import ConfigurationService

        prompts = ConfigurationService(database).list_prompts("alice")
        assert "kept across upgrades" in [p.content for p in prompts]
    finally:
        database.close()


def test_a_file_made_by_release_0_1_0_is_upgraded_in_place_and_keeps_everything(
    tmp_path: Path,
) -> None:
    path = tmp_path / "oncall.db"
    shutil.copyfile(RELEASE_0_1_0, path)
    assert sqlite_version(path) == 4  # versioned before Alembic: no alembic_version table
    database = SqliteDatabase(path)
    try:
        assert sqlite_version(path) == schema.LATEST_VERSION
        sessions = SessionService(database)
        assert [s.title for s in sessions.list_sessions("alice")] == ["Redis 超时 at 03:00"]
        assert [s.title for s in sessions.list_sessions("bob")] == ["bob's"]
        messages = sessions.messages("alice", 1)
        assert [m.role for m in messages] == ["user", "assistant", "user", "assistant"]
        assert [c.name for m in messages for c in m.tool_calls] == ["load_skill"]
        configuration = ConfigurationService(database)
        assert [p.label for p in configuration.list_prompts("alice")] == [
            "On-call assistant",
            "Ops",
        ]
        assert [s.name for s in configuration.list_skills("alice")] == ["log-analysis"]
        assert len(SearchService(database).search("alice", "超时")) == 2  # the index came along
        add_messages(database, "alice", 1, "a new message after the upgrade")
        assert len(SearchService(database).search("alice", "upgrade")) == 1
    finally:
        database.close()
    with contextlib.closing(sqlite3.connect(path)) as connection:
        revision = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    assert revision == (schema.REVISIONS[-1],)


def test_upgrading_an_up_to_date_database_is_a_no_op(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite"
    SqliteDatabase(path).close()
    engine = sqlite_engine(path)
    with engine.begin() as connection:
        assert schema.upgrade(connection) == schema.LATEST_VERSION
    engine.dispose()


def test_a_failed_migration_rolls_back_entirely(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from alembic.operations import Operations

    real = Operations.create_table

    def failing_at_the_second_table(self: Operations, name: str, *columns: Any, **kw: Any) -> Any:
        if name == "skill":  # the first revision's second table: the first is made by then
            raise RuntimeError("the migration failed half-way")
        return real(self, name, *columns, **kw)

    monkeypatch.setattr(Operations, "create_table", failing_at_the_second_table)
    path = tmp_path / "db.sqlite"
    with pytest.raises(RuntimeError, match="half-way"):
        SqliteDatabase(path)
    assert sqlite_version(path) == 0
    with contextlib.closing(sqlite3.connect(path)) as connection:
        assert tables_and_columns(connection) == {}
        assert connection.execute("SELECT name FROM sqlite_master").fetchall() == []


def test_a_database_from_a_newer_version_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    with contextlib.closing(sqlite3.connect(path)) as connection:
        connection.execute(f"PRAGMA user_version = {schema.LATEST_VERSION + 1}")
    with pytest.raises(OncallError) as caught:
        SqliteDatabase(path)
    assert caught.value.code == "DATABASE_UNAVAILABLE"
    assert "newer" in caught.value.message("en")


def test_an_unusable_path_is_a_catalog_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(OncallError) as caught:
        SqliteDatabase(blocker / "oncall.db")
    assert caught.value.code == "DATABASE_UNAVAILABLE"


def test_a_unit_of_work_on_a_full_disk_fails_in_the_catalog_s_words(tmp_path: Path) -> None:
    """SQLite's "database or disk is full" under any unit of work (a send, a rename) is the
    catalog's, as PostgreSQL's failures are: not a fault of the program to its clients."""
    database = SqliteDatabase(tmp_path / "oncall.db")

    def add_a_long_prompt() -> None:
        with database.session() as session:
            session.add(PromptRow(owner="alice", label="Long", content="x" * 100_000))

    try:
        with sqlite_full(database), pytest.raises(OncallError) as caught:
            add_a_long_prompt()
        assert caught.value.code == "DATABASE_UNAVAILABLE"
        assert caught.value.reason == "disk_full"
        assert caught.value.message("en").startswith(
            f"Cannot use the database at {tmp_path / 'oncall.db'}: the disk is full"
        )
        with database.read() as session:  # rolled back: nothing half-written
            assert session.exec(select(PromptRow)).all() == []
    finally:
        database.close()


@pytest.mark.parametrize(("free_blocks", "reason"), [(0, "disk_full"), (1, None)])
def test_an_io_error_on_a_full_disk_is_said_to_be_the_full_disk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, free_blocks: int, reason: str | None
) -> None:
    """A disk filled by logs: SQLite could not grow its -shm file and said "disk I/O error"
    (SQLITE_IOERR_SHMSIZE), which told the engineer nothing. With no room left on the
    database's file system it is the full disk; with room, SQLite's words as they are."""
    label = str(tmp_path / "oncall.db")
    error = sqlite3.OperationalError("disk I/O error")
    error.sqlite_errorcode = 4874  # SQLITE_IOERR_SHMSIZE
    statvfs = os.statvfs

    def room(path: str) -> Any:
        assert path == str(tmp_path)
        real = statvfs(path)
        return type("Room", (), {"f_bavail": free_blocks, "f_frsize": real.f_frsize})()

    monkeypatch.setattr(os, "statvfs", room)
    failure = database_failure(error, label)
    assert failure is not None
    assert (failure.code, failure.reason) == ("DATABASE_UNAVAILABLE", reason)
    if reason is None:
        assert failure.message("en") == f"Cannot use the database at {label}: disk I/O error"


def test_a_row_has_an_id_once_it_is_flushed(database: Database) -> None:
    row = PromptRow(owner="alice", label="Terse", content="Be brief.")
    with pytest.raises(UnsavedRowError, match="PromptRow has no id"):
        stored_id(row)
    with database.session() as session:
        session.add(row)
        session.flush()
        assert stored_id(row) == row.id


def test_opening_an_up_to_date_database_does_not_load_alembic(tmp_path: Path) -> None:
    """Alembic is for upgrades: every start of the app pays one read of the version instead."""
    path = tmp_path / "oncall.db"
    SqliteDatabase(path).close()
    probe = (
        "import sys; from pathlib import Path\n"
        "from oncall_tui.store.sqlite import SqliteDatabase\n"
        "SqliteDatabase(Path(sys.argv[1])).close()\n"
        "print('alembic' in sys.modules)\n"
    )
    ran = subprocess.run(
        [sys.executable, "-c", probe, str(path)], capture_output=True, text=True, check=True
    )
    assert ran.stdout.strip() == "False"
