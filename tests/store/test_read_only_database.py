"""A SQLite database this program may not write is reported as read-only, naming the file,
never as "stayed busy" (waiting would not help), and nothing changes.

Root ignores file modes, so as root the CLI runs in a user namespace mapped to another id
(``unshare --user``, as tests/postgres.py runs PostgreSQL): outside it the process is still
the files' owner, so the owner's mode bits apply, and it has no capability to override them.
The database is made in this process first (its files are this process's user's, as the CLI's
would be), then its file, its directory or its ``-shm`` file is made read-only."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

import pytest

from oncall_tui.services.container import Services
from tests.conftest import make_settings


def _namespace_prefix() -> list[str] | None:
    """How to run a command without root's override of file modes; ``None``: no way here."""
    if os.geteuid() != 0:
        return []
    if shutil.which("unshare") is None:
        return None
    prefix = ["unshare", "--user", "--map-user=1000", "--map-group=1000"]
    probe = subprocess.run([*prefix, "true"], capture_output=True, check=False)
    return prefix if probe.returncode == 0 else None


PREFIX = _namespace_prefix()
pytestmark = [
    pytest.mark.sqlite_only,
    pytest.mark.skipif(PREFIX is None, reason="root without user namespaces (unshare)"),
]


def run(database: Path, *args: str, lang: str = "en") -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "ONCALL_TUI_DB": str(database),
        "ONCALL_TUI_USER": "alice",
        "ONCALL_TUI_LANG": lang,
        "LANG": "C",
    }
    command = [*(PREFIX or []), sys.executable, "-m", "oncall_tui", *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)


def titles(database: Path) -> list[str]:
    with closing(sqlite3.connect(database)) as connection:
        return [row[0] for row in connection.execute("SELECT title FROM chat_session")]


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "data" / "oncall.db"
    services = Services(make_settings(path))
    services.sessions.create("alice", "before")
    services.close()
    yield path
    path.parent.chmod(0o700)  # let pytest clean up
    for file in path.parent.iterdir():
        file.chmod(0o600)


def refused_as_read_only(result: subprocess.CompletedProcess[str], database: Path) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    assert "busy" not in result.stderr
    assert result.stderr.startswith(
        f"oncall-tui: Cannot use the database at {database}: it is read-only for this program ("
    )
    assert "SQLite must be able to write the file, and its -wal and -shm files" in result.stderr


def test_a_read_only_file_is_reported_as_read_only(database: Path) -> None:
    database.chmod(0o400)
    result = run(database, "sessions", "new", "--title", "after")
    refused_as_read_only(result, database)
    assert titles(database) == ["before"]


def test_a_read_only_directory_is_reported_as_read_only_in_both_languages(
    database: Path,
) -> None:
    database.parent.chmod(0o500)  # the -wal and -shm files cannot be made beside it
    result = run(database, "sessions", "new", "--title", "after")
    refused_as_read_only(result, database)
    chinese = run(database, "sessions", "new", "--title", "after", lang="zh")
    assert chinese.returncode == 2
    assert f"无法使用数据库 {database}：数据库对本程序是只读的" in chinese.stderr
    database.parent.chmod(0o700)
    assert titles(database) == ["before"]


@contextmanager
def held_open(database: Path) -> Iterator[None]:
    """Another program's connection, which keeps the -wal and -shm files in place."""
    with closing(sqlite3.connect(database)) as connection:
        connection.execute("SELECT count(*) FROM chat_session").fetchall()
        yield


def test_a_read_only_shared_memory_file_is_read_only_not_busy(database: Path) -> None:
    """The write lock cannot be taken (``BEGIN IMMEDIATE``) through a ``-shm`` file this
    program may not write: it used to be reported as "stayed busy" after three waits."""
    with held_open(database):
        shm = database.with_name(database.name + "-shm")
        assert shm.exists()
        shm.chmod(0o400)
        result = run(database, "sessions", "new", "--title", "after")
        shm.chmod(0o600)
    refused_as_read_only(result, database)
    assert "attempt to write a readonly database" in result.stderr
    assert titles(database) == ["before"]
