"""The SQLite database: a private file, WAL mode, a busy timeout and an up-to-date schema.

Concurrency: every unit of work that may write begins with ``BEGIN IMMEDIATE``, so it holds
SQLite's write lock from its first statement and what it reads (the next message position,
the boundary, whether a default prompt exists) cannot change under it. Another writer waits
for the busy timeout, and a unit of work that still cannot begin is retried a few times
before the catalogued ``DATABASE_BUSY``. Pure reads (:meth:`Database.read`) begin deferred
and never wait for writers (WAL).

A database this program may not write (the file, its ``-wal`` or ``-shm`` file, or the
directory that must hold them; a read-only disk) is ``DATABASE_UNAVAILABLE`` saying so
(``database_read_only``), never "busy": waiting would not help.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import URL, Connection, Engine, event
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlmodel import Session, create_engine

from oncall_tui.errors import OncallError
from oncall_tui.private_files import FILE_MODE, make_private_directories
from oncall_tui.store.engine import Database
from oncall_tui.store.failures import database_failure
from oncall_tui.store.schema import LATEST_VERSION, newer_schema, schema_version, upgrade

BUSY_TIMEOUT_MS = 5_000
BEGIN_ATTEMPTS = 3
"""Tries to begin a write, each waiting up to the busy timeout."""
_BEGIN = "oncall_begin"
"""The execution option that says how a connection's transactions begin."""


class SqliteDatabase(Database):
    """One database file, upgraded on open: a writing unit of work holds the write lock from
    its start."""

    dialect = "sqlite"

    def __init__(self, path: Path) -> None:
        self.path = path
        self.label = str(path)
        _refuse_unusable(path)  # before anything is created, tightened or upgraded
        _prepare_private_file(path)
        self.engine = sqlite_engine(path)
        self._deferred = self.engine.execution_options(**{_BEGIN: "DEFERRED"})
        try:
            with self._deferred.connect() as connection:
                current = schema_version(connection)
            if current < LATEST_VERSION:
                with self.engine.begin() as connection:  # BEGIN IMMEDIATE: one upgrader
                    upgrade(connection)
        except OperationalError as exc:
            self.engine.dispose()
            raise _failure(exc, self.label) from None
        except BaseException:
            self.engine.dispose()
            raise

    def _reader(self) -> Engine:
        return self._deferred

    @contextlib.contextmanager
    def _failures(self) -> Iterator[None]:
        """SQLite's errors under a unit of work (a full disk, a file made read-only or damaged
        under the app) in the catalog's words, as the PostgreSQL engine says its own: the
        unit has been rolled back. A constraint a repository turns into its own error is
        caught there first."""
        try:
            yield
        except DBAPIError as exc:
            raise _failure(exc, self.label) from None

    def _begin(self, session: Session) -> None:
        for attempt in range(1, BEGIN_ATTEMPTS + 1):
            try:
                session.connection()
                return
            except OperationalError as exc:
                session.rollback()
                if not _locked(exc.orig):  # read-only, I/O error...: waiting would not help
                    raise _failure(exc, self.label) from None
                if attempt == BEGIN_ATTEMPTS:
                    raise OncallError("DATABASE_BUSY", path=str(self.path)) from None


def sqlite_engine(path: Path) -> Engine:
    """An engine on the file whose transactions begin ``IMMEDIATE`` (holding the write lock)
    unless a connection's execution options say ``DEFERRED``; WAL, foreign keys, busy timeout."""
    url = URL.create("sqlite", database=str(path))  # as it is: "?" and "#" are no URL syntax
    engine = create_engine(url, connect_args={"check_same_thread": False})
    event.listen(engine, "connect", _configure_connection)
    event.listen(engine, "connect", _take_over_transactions)
    event.listen(engine, "begin", _begin)
    return engine


def describe_database(path: Path) -> dict[str, object]:
    """Facts about the file, read without opening it for writing (``doctor``); ``mode`` and
    ``schema_version`` are ``None`` while it does not exist, and the version is ``None`` too
    for what is not a regular file (a named pipe is never opened: it would block)."""
    info: dict[str, object] = {
        "engine": "sqlite",
        "path": str(path),
        "exists": path.exists(),
        "mode": None,
        "schema_version": None,
        "error": None,
    }
    if path.exists():
        facts = path.stat()
        info["mode"] = oct(stat.S_IMODE(facts.st_mode))
        if stat.S_ISREG(facts.st_mode):
            with (
                contextlib.suppress(sqlite3.Error),
                contextlib.closing(_read_only_connection(path)) as connection,
            ):
                info["schema_version"] = connection.execute("PRAGMA user_version").fetchone()[0]
    return info


SQLITE_HEADER = b"SQLite format 3\x00"
"""How every SQLite database file begins."""


def _refuse_unusable(path: Path) -> None:
    """Refuse an existing ``path`` that cannot be this program's database, changing nothing:
    not a regular file, not SQLite, or written by a newer version. Only after this may the
    file be created, tightened, switched to WAL or upgraded.

    An absent or empty file is a new database. The version is read through a read-only
    connection, which leaves the journal mode as it is; a database that connection cannot
    read is left to the ordinary open, which reports it."""
    try:
        facts = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise _unavailable(path, exc) from None
    if not stat.S_ISREG(facts.st_mode):
        raise OncallError("DATABASE_UNAVAILABLE", "database_not_regular", path=str(path))
    if facts.st_size == 0:
        return
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
        try:
            regular = stat.S_ISREG(os.fstat(descriptor).st_mode)
            header = os.read(descriptor, len(SQLITE_HEADER)) if regular else b""
        finally:
            os.close(descriptor)
    except OSError as exc:
        raise _unavailable(path, exc) from None
    if not regular:
        raise OncallError("DATABASE_UNAVAILABLE", "database_not_regular", path=str(path))
    if header != SQLITE_HEADER:
        raise OncallError("DATABASE_UNAVAILABLE", "database_not_sqlite", path=str(path))
    try:
        with contextlib.closing(_read_only_connection(path)) as connection:
            version = connection.execute("PRAGMA user_version").fetchone()[0]
    except sqlite3.Error:
        return
    if version > LATEST_VERSION:
        raise newer_schema(str(path), version)


def _read_only_connection(path: Path) -> sqlite3.Connection:
    """A connection that can only read (``mode=ro``): it changes neither the file nor its
    journal mode. The path is given as a URI, its special characters escaped."""
    return sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)


def _prepare_private_file(path: Path) -> None:
    """Create the missing directories (0700 each) and the file (0600); tighten an existing
    file. Called only once :func:`_refuse_unusable` has let the path through."""
    try:
        make_private_directories(path.parent)
        try:
            descriptor = os.open(
                path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, FILE_MODE
            )
        except PermissionError as exc:  # it was read (or its directory listed), not writable
            raise OncallError(
                "DATABASE_UNAVAILABLE", "database_read_only", path=str(path), problem=exc.strerror
            ) from None
        try:
            facts = os.fstat(descriptor)
            if not stat.S_ISREG(facts.st_mode):  # swapped since it was looked at
                raise OncallError("DATABASE_UNAVAILABLE", "database_not_regular", path=str(path))
            if stat.S_IMODE(facts.st_mode) != FILE_MODE:
                os.fchmod(descriptor, FILE_MODE)
        finally:
            os.close(descriptor)
    except OSError as exc:
        raise _unavailable(path, exc) from None


def _unavailable(path: Path, exc: OSError) -> OncallError:
    problem = exc.strerror or str(exc)
    if exc.errno == errno.EROFS:
        return OncallError(
            "DATABASE_UNAVAILABLE", "database_read_only", path=str(path), problem=problem
        )
    return OncallError("DATABASE_UNAVAILABLE", path=str(path), detail=problem)


def _failure(exc: DBAPIError, label: str) -> Exception:
    """SQLite's error in the catalog's words (:func:`~oncall_tui.store.failures.database_failure`
    reads it), or ``exc`` itself if it is not SQLite's (a fault of the program)."""
    return database_failure(exc, label) or exc


def _locked(error: BaseException | None) -> bool:
    """Another connection holds the lock (``SQLITE_BUSY``, ``SQLITE_LOCKED``): worth a retry."""
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int) and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return True
    return "locked" in str(error)


def _take_over_transactions(connection: Any, _record: object) -> None:
    """pysqlite would begin its own (deferred) transactions; :func:`_begin` does instead."""
    connection.isolation_level = None


def _begin(connection: Connection) -> None:
    mode = connection.get_execution_options().get(_BEGIN, "IMMEDIATE")
    connection.exec_driver_sql(f"BEGIN {mode}")


def _configure_connection(connection: Any, _record: object) -> None:
    cursor = connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA synchronous = NORMAL")
    finally:
        cursor.close()
