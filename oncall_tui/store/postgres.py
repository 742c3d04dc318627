"""A team's shared PostgreSQL database, through psycopg 3 (the optional ``postgres`` extra).

The same tables, repositories and units of work as the SQLite file (:mod:`oncall_tui.store.engine`);
what differs is how writers are kept apart. SQLite lets one writer in at a time; here writers
run side by side, so each unit of work locks what its reads decide: the chat session it writes
(``SELECT ... FOR UPDATE`` in :meth:`~oncall_tui.store.sessions.SessionRepository.require`), the
owner whose prompts, skills and configuration it changes
(:func:`~oncall_tui.store.engine.lock_owner`), and the schema's constraints do the rest (one
message per position, one default prompt per owner, unique skill names). A lock not granted
within :data:`LOCK_TIMEOUT_MS` ends the unit as ``DATABASE_BUSY``, changing nothing.

Every connection works in UTC (stored times are UTC without a zone, as in SQLite). Reads run in
a read-only ``REPEATABLE READ`` transaction: one snapshot, like SQLite's. Messages name the
database by its URL without the password.

The database itself keeps each role to its own rows (row-level security, revision 0006), so
an owner name the connecting role may not use is refused when the database opens
(:func:`check_owner`), not met later as an empty history and refused writes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from sqlalchemy import Engine, make_url, text
from sqlalchemy.engine import URL
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.pool import NullPool
from sqlmodel import create_engine

from oncall_tui.errors import Language, OncallError
from oncall_tui.settings.values import masked_url
from oncall_tui.store.engine import Database
from oncall_tui.store.repositories import allows_user_override
from oncall_tui.store.schema import LATEST_VERSION, newer_schema, schema_version, upgrade

LOCK_TIMEOUT_MS = 5_000
"""How long a unit of work waits for a row or owner lock: SQLite's busy timeout."""
CONNECT_TIMEOUT_S = 10
BUSY_STATES = frozenset({"55P03", "40P01", "40001"})
"""Lock not available, deadlock detected, serialization failure: try again later."""
DRIVER = "postgresql+psycopg"


class PostgresDatabase(Database):
    dialect = "postgresql"

    def __init__(self, url: str) -> None:
        parsed = _parse(url)
        self.label = masked_url(url)  # as the user wrote it, not as the driver reads it
        try:
            import psycopg  # noqa: F401  # the optional extra: say how to get it
        except ImportError:
            raise OncallError(
                "DATABASE_UNAVAILABLE", "postgres_driver_missing", path=self.label
            ) from None
        self.engine = create_engine(
            parsed,
            pool_pre_ping=True,
            connect_args={
                "connect_timeout": CONNECT_TIMEOUT_S,
                "options": f"-c TimeZone=UTC -c lock_timeout={LOCK_TIMEOUT_MS}",
                "application_name": "oncall-tui",
            },
        )
        self._snapshot = self.engine.execution_options(
            isolation_level="REPEATABLE READ", postgresql_readonly=True
        )
        try:
            with self._failures():
                with self.engine.connect() as connection:
                    current = schema_version(connection)
                if current > LATEST_VERSION:
                    raise newer_schema(self.label, current)
                if current < LATEST_VERSION:
                    with self.engine.begin() as connection:
                        upgrade(connection)
        except BaseException:
            self.engine.dispose()
            raise

    def _reader(self) -> Engine:
        return self._snapshot

    @contextlib.contextmanager
    def _failures(self) -> Iterator[None]:
        try:
            yield
        except DBAPIError as exc:
            state = getattr(exc.orig, "sqlstate", None)
            if state in BUSY_STATES:
                raise OncallError("DATABASE_BUSY", path=self.label) from None
            # The server gone, refused, or refusing this role (no privilege to create or
            # upgrade the tables): the unit of work was rolled back; say PostgreSQL's reason.
            detail = _first_line(exc.orig)
            raise OncallError("DATABASE_UNAVAILABLE", path=self.label, detail=detail) from None


_ROLE_FACTS = text(
    "SELECT current_user::text, row_security_active('public.chat_session'), "
    "EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = :owner)"
)
"""The connecting role, whether the policies govern it (not the tables' owner, not a
superuser), and whether some role holds the owner's name."""


def check_owner(database: Database, owner: str) -> None:
    """Refuse ``owner`` if the connecting role may not read and write its rows.

    Under revision 0006's policies a role uses the rows of its own name, and, where the
    database's policy allows other names, those of names no role holds. The tables' owner and
    superusers are not governed by them and may use any name the user lock lets through.
    """
    with database.read() as session:
        facts = session.connection().execute(_ROLE_FACTS, {"owner": owner}).one()
        role, governed, taken = str(facts[0]), bool(facts[1]), bool(facts[2])
        if not governed or owner == role:
            return
        allowed = allows_user_override(session)
    if taken or not allowed:
        reason = "user_is_another_role" if taken else "user_not_role"
        raise OncallError(
            "DATABASE_UNAVAILABLE", reason, path=database.label, user=owner, role=role
        )


def _parse(url: str) -> URL:
    """``url`` for psycopg 3 (``postgresql://`` means it too, and so does ``postgres://``,
    which the settings take and SQLAlchemy no longer reads); a catalogued refusal otherwise."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        parsed = None
    if parsed is not None and parsed.drivername == "postgres":
        parsed = parsed.set(drivername=DRIVER)
    if parsed is None or parsed.get_backend_name() != "postgresql":
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT", "database_url_unsupported", value=masked_url(url)
        )
    return parsed.set(drivername=DRIVER)


def _first_line(error: BaseException | None) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else type(error).__name__


def describe_server(url: str, lang: Language) -> dict[str, object]:
    """Facts about the database at ``url`` for ``doctor``, read without changing it: whether it
    answers, and its schema version (``None`` when it does not answer, with ``error`` saying
    why). The shape of :func:`oncall_tui.store.sqlite.describe_database`'s, plus those two."""
    info: dict[str, object] = {
        "engine": "postgresql",
        "path": masked_url(url),
        "exists": False,
        "mode": None,
        "schema_version": None,
        "error": None,
    }
    try:
        engine = create_engine(
            _parse(url), poolclass=NullPool, connect_args={"connect_timeout": CONNECT_TIMEOUT_S}
        )
    except (OncallError, ImportError) as exc:
        info["error"] = exc.message(lang) if isinstance(exc, OncallError) else str(exc)
        return info
    try:
        with engine.connect() as connection:
            info["schema_version"] = schema_version(connection)
            info["exists"] = True
    except DBAPIError as exc:
        info["error"] = _first_line(exc.orig)
    finally:
        engine.dispose()
    return info
