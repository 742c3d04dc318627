"""What a failure of the database under a unit of work is, in the catalog's words.

Each engine turns its driver's failures into the catalog's as they happen, in its units of
work (``Database._failures``): :mod:`oncall_tui.store.postgres` by SQLSTATE, and
:mod:`oncall_tui.store.sqlite` by :func:`database_failure`, which reads SQLite's own errors,
SQLAlchemy's wrapping of them and a full disk. Clients and services ask it too, wherever they
must tell a failed database from a fault of the program: it passes a catalogued database
error through. Whatever the unit of work was doing, it has been rolled back.
"""

from __future__ import annotations

import errno
import os
import sqlite3

from oncall_tui.errors import OncallError

FAILED_DATABASE_CODES = frozenset({"DATABASE_UNAVAILABLE", "DATABASE_BUSY"})


def database_failure(exc: BaseException, label: str) -> OncallError | None:
    """The catalog's account of ``exc`` if the database (named ``label``) failed, else
    ``None``."""
    if isinstance(exc, OncallError):
        return exc if exc.code in FAILED_DATABASE_CODES else None
    for candidate in (exc, getattr(exc, "orig", None), exc.__cause__):
        if isinstance(candidate, OSError) and candidate.errno in (errno.ENOSPC, errno.EDQUOT):
            problem = candidate.strerror or str(candidate)
            return OncallError("DATABASE_UNAVAILABLE", "disk_full", path=label, problem=problem)
        if isinstance(candidate, sqlite3.DatabaseError):
            problem = str(candidate) or type(candidate).__name__
            code = getattr(candidate, "sqlite_errorcode", None)
            if code == sqlite3.SQLITE_FULL or "disk is full" in problem:
                reason = "disk_full"
            elif isinstance(code, int) and code & 0xFF == sqlite3.SQLITE_IOERR and _full(label):
                reason = "disk_full"  # the -shm or -wal file could not grow ("disk I/O error")
            elif (isinstance(code, int) and code & 0xFF == sqlite3.SQLITE_READONLY) or (
                "readonly database" in problem
            ):
                reason = "database_read_only"
            elif code in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB) or any(
                sign in problem for sign in ("malformed", "not a database")
            ):
                reason = "database_damaged"
            else:
                return OncallError("DATABASE_UNAVAILABLE", path=label, detail=problem)
            return OncallError("DATABASE_UNAVAILABLE", reason, path=label, problem=problem)
    return None


def _full(path: str) -> bool:
    """Whether the file system that holds ``path`` has no room left for this user."""
    try:
        return os.statvfs(os.path.dirname(path) or ".").f_bavail == 0
    except (OSError, ValueError):
        return False
