"""The SQLite database: a private file, WAL mode, a busy timeout and an up-to-date schema."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, event
from sqlmodel import Session, create_engine

from oncall_tui.errors import OncallError
from oncall_tui.store.schema import upgrade

BUSY_TIMEOUT_MS = 5_000
FILE_MODE = 0o600
DIR_MODE = 0o700


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

    @contextlib.contextmanager
    def session(self) -> Iterator[Session]:
        """A unit of work: committed when the block ends normally, rolled back otherwise."""
        with Session(self.engine, expire_on_commit=False) as session:
            try:
                yield session
                session.commit()
            except BaseException:
                session.rollback()
                raise

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


def _configure_connection(connection: Any, _record: object) -> None:
    cursor = connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute("PRAGMA synchronous = NORMAL")
    finally:
        cursor.close()
