"""The database file: a ``--db`` target that is refused is left exactly as it was (bytes,
mode, modification time, no ``-wal``/``-shm`` beside it), and the directories created for a
new one are 0700 at every level, whatever the umask."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from oncall_tui.errors import OncallError
from oncall_tui.store import schema
from oncall_tui.store.sqlite import SqliteDatabase, describe_database
from tests.conftest import RunCli

REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Snapshot:
    data: bytes
    mode: int
    mtime_ns: int
    siblings: tuple[str, ...]

    @classmethod
    def of(cls, path: Path) -> Snapshot:
        facts = path.stat()
        return cls(
            data=path.read_bytes(),
            mode=stat.S_IMODE(facts.st_mode),
            mtime_ns=facts.st_mtime_ns,
            siblings=tuple(sorted(os.listdir(path.parent))),
        )


def refused_by_database(path: Path) -> OncallError:
    with pytest.raises(OncallError) as caught:
        SqliteDatabase(path)
    assert caught.value.code == "DATABASE_UNAVAILABLE"
    return caught.value


def aged(path: Path, mode: int) -> None:
    """Give ``path`` a mode and an old modification time, so a change would show."""
    os.chmod(path, mode)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))


def test_a_file_that_is_not_sqlite_is_left_exactly_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("my notes, not a database\n" * 10)
    aged(path, 0o644)
    before = Snapshot.of(path)
    error = refused_by_database(path)
    assert error.reason == "database_not_sqlite"
    assert str(path) in error.message("en")
    assert Snapshot.of(path) == before


def test_a_file_shorter_than_the_sqlite_header_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "short.db"
    path.write_bytes(b"SQLite format 3")  # the header is 16 bytes, with a NUL
    aged(path, 0o664)
    before = Snapshot.of(path)
    assert refused_by_database(path).reason == "database_not_sqlite"
    assert Snapshot.of(path) == before


def test_a_database_from_a_newer_version_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "future.db"
    with contextlib.closing(sqlite3.connect(path)) as connection:
        connection.execute("CREATE TABLE kept (x)")
        connection.execute(f"PRAGMA user_version = {schema.LATEST_VERSION + 1}")
        connection.commit()
    aged(path, 0o644)
    before = Snapshot.of(path)
    error = refused_by_database(path)
    assert "newer" in error.message("en")
    assert Snapshot.of(path) == before
    assert before.siblings == ("future.db",)  # no -wal, no -shm, no journal
    assert before.data[18:20] == b"\x01\x01"  # still in rollback-journal mode, not WAL


def test_the_cli_leaves_a_refused_database_as_it_was(cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "target" / "important.txt"  # its own folder: the test's log is elsewhere
    path.parent.mkdir()
    path.write_text("do not touch\n")
    aged(path, 0o640)
    before = Snapshot.of(path)
    result = cli("--db", str(path), "sessions", "list", "--json")
    assert (result.code, result.error()["code"]) == (2, "DATABASE_UNAVAILABLE")
    assert Snapshot.of(path) == before


def test_an_empty_file_becomes_a_private_database(tmp_path: Path) -> None:
    path = tmp_path / "empty.db"
    path.touch()
    os.chmod(path, 0o644)
    SqliteDatabase(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    with contextlib.closing(sqlite3.connect(path)) as connection:
        version = connection.execute("PRAGMA user_version").fetchone()[0]
    assert version == schema.LATEST_VERSION


def test_a_database_at_the_latest_version_opens_and_is_tightened(tmp_path: Path) -> None:
    path = tmp_path / "current.db"
    SqliteDatabase(path).close()
    os.chmod(path, 0o644)
    SqliteDatabase(path).close()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@dataclass
class Fifo:
    path: Path
    unblocked: threading.Event
    """Set if the guard had to open the pipe's other end: something was blocked on it."""


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Fifo]:
    """A named pipe; should anything block on it, a guard opens its other end after a few
    seconds, so the test fails instead of hanging."""
    pipe = Fifo(tmp_path / "pipe.db", threading.Event())
    os.mkfifo(pipe.path, 0o644)
    stop = threading.Event()

    def guard() -> None:
        if stop.wait(5.0):
            return
        while not stop.is_set():
            with contextlib.suppress(OSError):  # ENXIO while nobody has it open to read
                os.close(os.open(pipe.path, os.O_WRONLY | os.O_NONBLOCK))
                pipe.unblocked.set()  # a reader was waiting for a writer: it gets EOF now
            time.sleep(0.05)

    thread = threading.Thread(target=guard, daemon=True)
    thread.start()
    yield pipe
    stop.set()
    thread.join()


def test_a_named_pipe_as_database_is_refused_at_once(fifo: Fifo) -> None:
    mode = stat.S_IMODE(fifo.path.stat().st_mode)
    error = refused_by_database(fifo.path)
    assert error.reason == "database_not_regular"
    assert stat.S_IMODE(fifo.path.stat().st_mode) == mode
    assert not fifo.unblocked.is_set()


def test_doctor_describes_a_named_pipe_without_opening_it(fifo: Fifo) -> None:
    info = describe_database(fifo.path)
    assert (info["exists"], info["schema_version"]) == (True, None)
    assert not fifo.unblocked.is_set()


def test_doctor_reads_the_version_of_a_path_with_uri_characters(tmp_path: Path) -> None:
    path = tmp_path / "odd?name#1%.db"
    SqliteDatabase(path).close()
    assert describe_database(path)["schema_version"] == schema.LATEST_VERSION


def test_a_directory_as_database_is_refused(tmp_path: Path) -> None:
    assert refused_by_database(tmp_path).reason == "database_not_regular"


# -- directories created under a hostile umask ---------------------------------------------

CREATE = (
    "import sys\n"
    "from pathlib import Path\n"
    "from oncall_tui.store.sqlite import SqliteDatabase\n"
    "SqliteDatabase(Path(sys.argv[1])).close()\n"
)


def test_directories_created_under_umask_000_are_private_at_every_level(tmp_path: Path) -> None:
    os.chmod(tmp_path, 0o755)
    path = tmp_path / "a" / "b" / "c" / "oncall.db"
    subprocess.run(
        [sys.executable, "-c", CREATE, str(path)],
        check=True,
        cwd=REPO,
        preexec_fn=lambda: os.umask(0),  # the hostile umask is the point of the test
    )
    for directory in (tmp_path / "a", tmp_path / "a" / "b", tmp_path / "a" / "b" / "c"):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(tmp_path.stat().st_mode) == 0o755  # it existed: not the app's


def test_an_existing_directory_keeps_its_mode(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o755)
    SqliteDatabase(shared / "new" / "oncall.db").close()
    assert stat.S_IMODE(shared.stat().st_mode) == 0o755
    assert stat.S_IMODE((shared / "new").stat().st_mode) == 0o700
