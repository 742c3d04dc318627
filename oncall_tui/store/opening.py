"""The one place that opens the database: the engine is picked from what ``--db`` names.

Apart from :mod:`oncall_tui.store.engine` so that the engines' modules, which build on its
:class:`~oncall_tui.store.engine.Database`, are not imported by the module they import.
"""

from __future__ import annotations

from pathlib import Path

from oncall_tui.settings.values import is_database_url
from oncall_tui.store.engine import Database


def open_database(location: Path | str) -> Database:
    """The database at ``location``: a SQLite file's path, or a PostgreSQL URL."""
    if isinstance(location, str) and is_database_url(location):
        from oncall_tui.store.postgres import PostgresDatabase

        return PostgresDatabase(location)
    from oncall_tui.store.sqlite import SqliteDatabase

    return SqliteDatabase(Path(location))
