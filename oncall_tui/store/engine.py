"""The SQLite database: a private file, WAL mode, a busy timeout and an up-to-date schema.

Concurrency: every unit of work that may write begins with ``BEGIN IMMEDIATE``, so it holds
SQLite's write lock from its first statement and what it reads (the next message position,
the boundary, whether a default prompt exists) cannot change under it. Another writer waits
for the busy timeout, and a unit of work that still cannot begin is retried a few times
before the catalogued ``DATABASE_BUSY``. Pure reads (:meth:`Database.read`) begin deferred
and never wait for writers (WAL).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, event
from sqlalchemy.exc import OperationalError
from sqlmodel import Session, create_engine

from oncall_tui.errors import OncallError
from oncall_tui.store.schema import upgrade

BUSY_TIMEOUT_MS = 5_000
BEGIN_ATTEMPTS = 3
"""Tries to begin a write, each waiting up to the busy timeout."""
FILE_MODE = 0o600
DIR_MODE = 0o700
_BEGIN = "oncall_begin"
"""The execution option that says how a connection's transactions begin."""


class Database:
    """One database file, upgraded on open. Create one per process and pass it down."""

    def __init__(self, path: Path) -> None:
        self.path = path
        _prepare_private_file(path)
        try:
            with contextlib.closing(_raw_connection(path)) as connection:
                upgrade(connection)
        except sqlite3.Error as exc:
            raise OncallError("DATABASE_UNAVAILABLE", path=str(path), detail=str(exc)) from None
        self.engine: Engine = create_engine(
            f"sqlite:///{path}", connect_args={"check_same_thread": False}
        )
        event.listen(self.engine, "connect", _configure_connection)
        event.listen(self.engine, "connect", _take_over_transactions)
        event.listen(self.engine, "begin", _begin)
        self._reader = self.engine.execution_options(**{_BEGIN: "DEFERRED"})

    @contextlib.contextmanager
    def session(self) -> Iterator[Session]:
        """A unit of work that may write: it holds the write lock from its start, and is
        committed when the block ends normally, rolled back otherwise."""
        with Session(self.engine, expire_on_commit=False) as session:
            self._begin(session)
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise

    @contextlib.contextmanager
    def read(self) -> Iterator[Session]:
        """A unit of work that only reads: one consistent snapshot, no lock on writers."""
        with Session(self._reader, expire_on_commit=False) as session:
            yield session  # closing ends the transaction and keeps what was loaded

    def _begin(self, session: Session) -> None:
        for attempt in range(1, BEGIN_ATTEMPTS + 1):
            try:
                session.connection()
                return
            except OperationalError as exc:
                session.rollback()
                if "locked" not in str(exc.orig) or attempt == BEGIN_ATTEMPTS:
                    raise OncallError("DATABASE_BUSY", path=str(self.path)) from None

    def close(self) -> None:
        self.engine.dispose()


def describe_database(path: Path) -> dict[str, object]:
    """Facts about the file, read without opening it for writing (``doctor``); ``mode`` and
    ``schema_version`` are ``None`` while it does not exist."""
    info: dict[str, object] = {
        "path": str(path),
        "exists": path.exists(),
        "mode": None,
        "schema_version": None,
    }
    if path.exists():
        info["mode"] = oct(stat.S_IMODE(path.stat().st_mode))
        with (
            contextlib.suppress(sqlite3.Error),
            contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection,
        ):
            info["schema_version"] = connection.execute("PRAGMA user_version").fetchone()[0]
    return info


def _prepare_private_file(path: Path) -> None:
    """Create the parent directory (0700) and the file (0600); tighten an existing file."""
    try:
        if not path.parent.exists():
            path.parent.mkdir(mode=DIR_MODE, parents=True)
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE)
        try:
            if stat.S_IMODE(os.fstat(descriptor).st_mode) != FILE_MODE:
                os.fchmod(descriptor, FILE_MODE)
        finally:
            os.close(descriptor)
    except OSError as exc:
        raise OncallError(
            "DATABASE_UNAVAILABLE", path=str(path), detail=exc.strerror or str(exc)
        ) from None


def _raw_connection(path: Path) -> sqlite3.Connection:
    connection = sqlite3.connect(path, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    _configure_connection(connection, None)
    return connection


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
