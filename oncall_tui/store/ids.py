"""The id of a stored row, checked: SQLite gives a row its id when the unit of work flushes it.

Imports nothing but ``typing``: the views (which the TUI holds from its first frame, before the
database is opened) use it without loading SQLModel.
"""

from __future__ import annotations

from typing import Protocol


class UnsavedRowError(RuntimeError):
    """A row's id was read before the row was flushed: a bug in the code, never bad input."""


class _Row(Protocol):
    @property
    def id(self) -> int | None: ...


def stored_id(row: _Row) -> int:
    """``row.id``, which a row has once it is flushed (every repository method that adds a row
    flushes it); :class:`UnsavedRowError` for one that was not."""
    if row.id is None:
        raise UnsavedRowError(f"{type(row).__name__} has no id: it was never flushed")
    return row.id
