"""The tests above the store give new SQLite files the newest schema by statements
(``tests.schemas.upgrade_by_statements``): the file they get is the one the revisions make."""

from __future__ import annotations

import contextlib
import sqlite3
from pathlib import Path

import pytest

from oncall_tui.store import schema, sqlite
from oncall_tui.store.sqlite import SqliteDatabase
from tests.schemas import migrated_statements, sqlite_at, upgrade_by_statements


def everything(path: Path) -> dict[str, object]:
    """The file's schema, versions and every row of every table."""
    with contextlib.closing(sqlite3.connect(path)) as connection:
        master = connection.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid"
        ).fetchall()
        tables = [name for kind, name, _, _ in master if kind == "table"]
        return {
            "master": master,
            "table_list": sorted(connection.execute("SELECT * FROM pragma_table_list").fetchall()),
            "user_version": connection.execute("PRAGMA user_version").fetchone(),
            "rows": {
                name: sorted(map(repr, connection.execute(f"SELECT * FROM '{name}'")))
                for name in tables
                if name != "sqlite_sequence"
            },
        }


def test_the_statements_make_the_file_the_revisions_make(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    SqliteDatabase(tmp_path / "revisions.db").close()
    migrated_statements()  # read from the revisions once per process, as the tests' first use does

    def no_revisions(*args: object, **kwargs: object) -> None:
        raise AssertionError("the revisions ran")

    monkeypatch.setattr("alembic.command.upgrade", no_revisions)
    monkeypatch.setattr(sqlite, "upgrade", upgrade_by_statements)
    SqliteDatabase(tmp_path / "statements.db").close()

    made = everything(tmp_path / "statements.db")
    assert made == everything(tmp_path / "revisions.db")
    assert made["user_version"] == (schema.LATEST_VERSION,)
    assert made["rows"]["alembic_version"] == [repr((schema.REVISIONS[-1],))]  # type: ignore[index]


def test_a_file_that_is_not_empty_is_upgraded_by_the_revisions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sqlite_at(tmp_path / "old.db", 3)
    monkeypatch.setattr(sqlite, "upgrade", upgrade_by_statements)
    SqliteDatabase(tmp_path / "old.db").close()
    SqliteDatabase(tmp_path / "new.db").close()
    assert everything(tmp_path / "old.db")["master"] == everything(tmp_path / "new.db")["master"]
