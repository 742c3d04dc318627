"""Schema versions and the upgrade path: one Alembic history for SQLite and PostgreSQL.

The revisions live in :mod:`oncall_tui.store.migrations` and are numbered ``0001``, ``0002``,
...: a revision's number is the schema version that ``doctor`` shows. Opening a database brings
it to the newest (:func:`upgrade`), in one transaction that holds the lock deciding who
upgrades: SQLite's write lock (``BEGIN IMMEDIATE``), or on PostgreSQL an advisory lock taken
here. Two processes opening an old database at once upgrade it exactly once; a failed revision
leaves the database as it was.

SQLite keeps the version in ``PRAGMA user_version`` too, as it did before Alembic: a file made
by a release before Alembic has only that, and is adopted (stamped at its version) by its first
upgrade; and a release that predates a revision refuses a file that has it, by that number.

Alembic itself is imported only to upgrade: opening an up-to-date database reads one number.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Connection, text

from oncall_tui.errors import OncallError

REVISIONS = ("0001", "0002", "0003", "0004", "0005", "0006", "0007", "0008", "0009")
"""Every revision, oldest first; a test keeps this and the migrations directory in step."""
LATEST_VERSION = len(REVISIONS)
MIGRATIONS = Path(__file__).with_name("migrations")

_UPGRADE_LOCK = 0x6F6E63616C6C
"""The advisory lock key PostgreSQL upgraders take ('oncall' in hex)."""


def schema_version(connection: Connection) -> int:
    """The database's schema version; 0 for an empty database. A revision this program does
    not know counts as newer than all it knows."""
    if connection.dialect.name == "sqlite":
        return int(connection.exec_driver_sql("PRAGMA user_version").scalar_one())
    if connection.execute(text("SELECT to_regclass('alembic_version')")).scalar() is None:
        return 0
    revision = connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    if revision is None:
        return 0
    return REVISIONS.index(revision) + 1 if revision in REVISIONS else LATEST_VERSION + 1


def upgrade(connection: Connection, target: int = LATEST_VERSION) -> int:
    """Bring the database to ``target``; return the version it had before.

    ``connection`` is in a transaction that the caller commits: on SQLite one begun with
    ``BEGIN IMMEDIATE``; on PostgreSQL this takes the upgraders' lock first.
    """
    sqlite = connection.dialect.name == "sqlite"
    if not sqlite:
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _UPGRADE_LOCK})
    before = schema_version(connection)  # read under the lock
    if before > LATEST_VERSION:
        raise newer_schema(_name(connection), before)
    if before >= target:
        return before
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    if sqlite and before and not _has_version_table(connection):  # made before Alembic
        command.stamp(config, REVISIONS[before - 1])
    command.upgrade(config, REVISIONS[target - 1])
    if sqlite:
        connection.exec_driver_sql(f"PRAGMA user_version = {target}")
    return before


def newer_schema(name: str, version: int) -> OncallError:
    """A database that a newer release has upgraded: this one cannot know its schema."""
    return OncallError(
        "DATABASE_UNAVAILABLE", "database_newer", path=name, version=version, ours=LATEST_VERSION
    )


def _has_version_table(connection: Connection) -> bool:
    found = connection.execute(
        text("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'alembic_version'")
    ).first()
    return found is not None


def _name(connection: Connection) -> str:
    """The database as messages name it: the SQLite file, or the URL without its password."""
    if connection.dialect.name == "sqlite":
        row = connection.exec_driver_sql("PRAGMA database_list").first()
        return str(row[2]) if row else "?"
    return connection.engine.url.render_as_string(hide_password=True)
