"""The database, whichever engine holds it: its units of work (:mod:`oncall_tui.store.opening`
opens it).

A :class:`Database` hands out two kinds of unit of work. :meth:`Database.session` may write: it
is committed when its block ends normally and rolled back otherwise, and it is marked as
writing (:data:`WRITES`), so that the repositories lock the rows whose reads decide its writes
(:meth:`~oncall_tui.store.sessions.SessionRepository.require`). :meth:`Database.read` only
reads, from one consistent snapshot, and never waits for writers.

The engines keep the same promises in their own ways:
:class:`~oncall_tui.store.sqlite.SqliteDatabase` holds SQLite's single write lock from a
writing unit's first statement (``BEGIN IMMEDIATE``);
:class:`~oncall_tui.store.postgres.PostgresDatabase` locks the chat session a unit writes
(``SELECT ... FOR UPDATE``) and the owner whose prompts, skills and configuration it changes
(a transaction-scoped advisory lock), and leaves the rest to the schema's constraints.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from sqlalchemy import Engine, text
from sqlmodel import Session

WRITES = "oncall_writes"
"""``Session.info`` key set on a unit of work that may write."""


class Database:
    """One database, upgraded on open. Create one per process
    (:func:`~oncall_tui.store.opening.open_database`) and pass
    it down; services never see which engine it is."""

    dialect: str
    """``sqlite`` or ``postgresql``."""
    label: str
    """What messages name it by: the file's path, or the URL without its password."""
    engine: Engine

    @contextlib.contextmanager
    def session(self) -> Iterator[Session]:
        """A unit of work that may write, committed when the block ends normally, rolled back
        otherwise."""
        with self._failures(), Session(self.engine, expire_on_commit=False) as session:
            session.info[WRITES] = True
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
        with self._failures(), Session(self._reader(), expire_on_commit=False) as session:
            yield session  # closing ends the transaction and keeps what was loaded

    def close(self) -> None:
        self.engine.dispose()

    def _begin(self, session: Session) -> None:
        """Begin the writing unit's transaction (the engine's own way)."""
        session.connection()

    def _reader(self) -> Engine:
        return self.engine

    @contextlib.contextmanager
    def _failures(self) -> Iterator[None]:
        """Where an engine turns its driver's failures into the catalog's."""
        yield


def lock_owner(session: Session, owner: str) -> None:
    """In a writing unit of work, wait for (then hold until it ends) the owner's lock, which
    every unit changing that owner's prompts, skills or configuration takes first: so that a
    read-modify-write of them (the default prompt on first use, the selected skills) is never
    interleaved with another's. SQLite's write lock already serialises every such unit."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(
            text("SELECT pg_advisory_xact_lock(hashtextextended(:owner, 0))"), {"owner": owner}
        )
