"""Exactly one default prompt per owner: enforced by the schema, kept under concurrent first
use, and duplicates from older versions merged by the upgrade."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from oncall_tui.core.prompts import DEFAULT_PROMPT_CONTENT, DEFAULT_PROMPT_LABEL
from oncall_tui.services.configuration import ConfigurationService
from oncall_tui.services.container import Services
from oncall_tui.settings import Settings
from oncall_tui.store.engine import Database
from oncall_tui.store.sqlite import SqliteDatabase
from tests.conftest import at_once_in_threads, make_settings
from tests.schemas import sqlite_at

PROCESSES = 5

pytestmark = pytest.mark.both_engines


def defaults(path: Path, owner: str) -> list[tuple[int, str]]:
    with contextlib.closing(sqlite3.connect(path)) as connection:
        return connection.execute(
            "SELECT id, content FROM prompt WHERE owner = ? AND is_default ORDER BY id", (owner,)
        ).fetchall()


def test_first_use_by_several_processes_at_once_makes_one_default(
    database: Database, db_path: Path, db_url: str | None, db_target: str
) -> None:
    """``database`` made the schema; the user has nothing yet. On the SQLite file the users are
    real processes (the CLI), as SQLite's locks are taken per process; on PostgreSQL, whose
    server orders its clients whatever runs them, threads with services of their own."""
    if db_url is None:
        first_use_in_processes(db_target)
    else:
        first_use_in_threads(make_settings(db_path, db_url=db_url, user="dana"))
    assert len(stored_defaults(database, "dana")) == 1


def first_use_in_processes(db_target: str) -> None:
    env = {**os.environ, "ONCALL_TUI_DB": db_target, "ONCALL_TUI_USER": "dana", "LANG": "C"}
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "oncall_tui", "prompts", "list", "--json"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(PROCESSES)
    ]
    for process in processes:
        assert process.wait(timeout=60) == 0, process.communicate()[1]


def first_use_in_threads(settings: Settings) -> None:
    def first_use(services: Services, _index: int) -> None:
        services.configuration.list_prompts("dana")

    at_once_in_threads(settings, PROCESSES, first_use, timeout=60)


INSERT_PROMPT = text(
    "INSERT INTO prompt (owner, label, content, is_default, created_at, updated_at) "
    "VALUES (:owner, 'x', 'y', :default, '2026-01-01', '2026-01-01')"
)


def test_the_schema_refuses_a_second_default(database: Database) -> None:
    ConfigurationService(database).list_prompts("alice")
    with pytest.raises(IntegrityError), database.engine.begin() as connection:
        connection.execute(INSERT_PROMPT, {"owner": "alice", "default": True})
    with database.engine.begin() as connection:  # another owner may
        connection.execute(INSERT_PROMPT, {"owner": "bob", "default": True})
    assert len(stored_defaults(database, "alice")) == len(stored_defaults(database, "bob")) == 1


def stored_defaults(database: Database, owner: str) -> list[tuple[int, str]]:
    query = text("SELECT id, content FROM prompt WHERE owner = :owner AND is_default ORDER BY id")
    with database.engine.connect() as connection:
        return [(int(i), str(c)) for i, c in connection.execute(query, {"owner": owner})]


def test_the_upgrade_merges_the_duplicates_an_older_version_made(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    sqlite_at(path, 2)
    with contextlib.closing(sqlite3.connect(path, isolation_level=None)) as connection:

        def prompt(owner: str, label: str, content: str) -> int:
            cursor = connection.execute(
                "INSERT INTO prompt (owner, label, content, is_default, created_at, updated_at) "
                "VALUES (?, ?, ?, 1, '2026-01-01', '2026-01-01')",
                (owner, label, content),
            )
            assert cursor.lastrowid is not None
            return cursor.lastrowid

        kept = prompt("erin", DEFAULT_PROMPT_LABEL, DEFAULT_PROMPT_CONTENT)
        copy = prompt("erin", DEFAULT_PROMPT_LABEL, DEFAULT_PROMPT_CONTENT)
        edited = prompt("erin", DEFAULT_PROMPT_LABEL, "Edited by hand: keep me.")
        connection.execute(
            "INSERT INTO configuration (owner, system_prompt_id, skill_ids, updated_at) "
            "VALUES ('erin', ?, '[]', '2026-01-01')",
            (copy,),
        )
    SqliteDatabase(path).close()
    assert defaults(path, "erin") == [(kept, DEFAULT_PROMPT_CONTENT)]
    with contextlib.closing(sqlite3.connect(path)) as connection:
        remaining = connection.execute("SELECT id FROM prompt WHERE owner = 'erin'").fetchall()
        selected = connection.execute("SELECT system_prompt_id FROM configuration").fetchone()
    assert sorted(r[0] for r in remaining) == [kept, edited]  # the untouched copy is gone
    assert selected == (kept,)  # and its selection moved to the one that stays
