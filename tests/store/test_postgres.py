"""What only a shared PostgreSQL database has: the URL, the server's failures said clearly, the
user name locked to the login, the schema made once by processes starting together, and
``doctor``'s account of the server. (The store, service and CLI suites run on it too: the
modules marked ``both_engines``.)"""

from __future__ import annotations

import os
import pwd
import threading
from pathlib import Path

import pytest
from sqlalchemy import text

from oncall_tui.errors import OncallError
from oncall_tui.services.container import Services
from oncall_tui.settings import Settings
from oncall_tui.store import schema
from oncall_tui.store.postgres import PostgresDatabase
from tests.cli.test_cli_chat import closed_port
from tests.conftest import RunCli, make_settings
from tests.postgres import PostgresServer

OPENERS = 4


def policy(url: str, allowed: bool | None) -> None:
    """Set (or, with ``None``, remove) the database's ``allow_user_override``."""
    database = PostgresDatabase(url)
    try:
        with database.engine.begin() as connection:
            connection.execute(text("DELETE FROM team_policy"))
            if allowed is not None:
                connection.execute(
                    text("INSERT INTO team_policy VALUES ('allow_user_override', :value)"),
                    {"value": "true" if allowed else "false"},
                )
    finally:
        database.close()


def test_an_empty_database_gets_the_whole_schema_once_whoever_opens_it_first(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.new_database(empty=True)
    ready = threading.Barrier(OPENERS)
    failures: list[BaseException] = []

    def open_it() -> None:
        ready.wait()
        try:
            PostgresDatabase(url).close()
        except BaseException as exc:  # reported below, whatever it is
            failures.append(exc)

    openers = [threading.Thread(target=open_it) for _ in range(OPENERS)]
    for opener in openers:
        opener.start()
    for opener in openers:
        opener.join(timeout=60)
    assert failures == []
    database = PostgresDatabase(url)
    try:
        with database.engine.connect() as connection:
            assert schema.schema_version(connection) == schema.LATEST_VERSION
            revisions = connection.execute(text("SELECT version_num FROM alembic_version")).all()
            extension = connection.execute(
                text("SELECT extname FROM pg_extension WHERE extname = 'pg_trgm'")
            ).all()
    finally:
        database.close()
    assert revisions == [(schema.REVISIONS[-1],)]
    assert extension == [("pg_trgm",)]


def test_a_database_from_a_newer_version_is_refused_and_left_as_it_was(
    postgres_server: PostgresServer,
) -> None:
    url = postgres_server.new_database()
    name = url.rsplit("/", 1)[-1]
    postgres_server.execute("UPDATE alembic_version SET version_num = '9999'", name)
    with pytest.raises(OncallError) as refused:
        PostgresDatabase(url)
    assert refused.value.code == "DATABASE_UNAVAILABLE"
    assert "newer than this program's" in refused.value.message("en")
    assert postgres_server.fetch("SELECT version_num FROM alembic_version", name) == [("9999",)]


@pytest.mark.parametrize("scheme", ["postgresql", "postgres", "postgresql+psycopg"])
def test_each_scheme_the_settings_take_opens_the_database(
    postgres_server: PostgresServer, scheme: str
) -> None:
    """``postgres://`` (as many tools write it) passed the settings and was refused on
    opening: SQLAlchemy no longer reads it."""
    url = scheme + "://" + postgres_server.new_database().split("://", 1)[1]
    database = PostgresDatabase(url)
    try:
        with database.read() as session:
            assert session.execute(text("SELECT 1")).scalar() == 1
        assert database.label == url
    finally:
        database.close()


def test_a_server_that_does_not_answer_is_a_catalog_error_without_the_password(
    cli: RunCli,
) -> None:
    url = f"postgresql://oncall:s3cret@127.0.0.1:{closed_port()}/oncall"
    result = cli("--db", url, "sessions", "list", "--json")
    assert (result.code, result.error()["code"]) == (2, "DATABASE_UNAVAILABLE")
    assert "s3cret" not in result.err
    port = url.split(":")[3].split("/")[0]
    # Named as the user wrote it: not the driver's postgresql+psycopg://, nor the query's
    # password (libpq takes one there too).
    assert f"at postgresql://oncall:***@127.0.0.1:{port}/oncall: " in result.error()["message"]
    query = f"postgres://oncall@127.0.0.1:{port}/oncall?password=s3cret&connect_timeout=2"
    result = cli("--db", query, "sessions", "list", "--json")
    assert "s3cret" not in result.err
    message = result.error()["message"]
    assert (
        f"at postgres://oncall@127.0.0.1:{port}/oncall?password=***&connect_timeout=2: " in message
    )


@pytest.mark.parametrize(
    "value",
    ["mysql://root@127.0.0.1/oncall", "postgresql://", "sqlite://", "redis://x:pw@host/0"],
)
def test_a_url_of_another_kind_is_refused_by_name(cli: RunCli, value: str) -> None:
    result = cli("--db", value, "sessions", "list", "--json")
    assert (result.code, result.error()["code"]) == (2, "VALIDATION_INVALID_ARGUMENT")
    assert result.error()["reason"] == "database_url_unsupported"
    assert "pw@" not in result.err


def test_sqlite_urls_name_a_file(tmp_path: Path) -> None:
    settings = Settings.resolve(db=f"sqlite:///{tmp_path}/team.db", user="alice", environ={})
    assert (settings.db_path, settings.db_url) == (tmp_path / "team.db", None)
    url = "postgresql://oncall@db.internal:5432/oncall"
    assert Settings.resolve(db=url, user="alice", environ={}).db_url == url


def test_without_the_driver_the_message_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(__import__("sys").modules, "psycopg", None)  # import psycopg fails
    with pytest.raises(OncallError) as refused:
        PostgresDatabase("postgresql://oncall@127.0.0.1:5432/oncall")
    assert refused.value.reason == "postgres_driver_missing"
    assert "pip install 'oncall-tui[postgres]'" in refused.value.message("en")


class TestTheUserIsTheLogin:
    """On a shared database the owner is the login unless the database's policy allows another
    name; a SQLite file is its user's own, and any name goes."""

    def services(self, tmp_path: Path, url: str | None, user: str) -> Services:
        return Services(make_settings(tmp_path / "o.db", db_url=url, user=user, login="dana"))

    def test_another_name_is_refused_without_the_policy(
        self, tmp_path: Path, postgres_server: PostgresServer
    ) -> None:
        url = postgres_server.new_database()
        for rule in (None, False):
            policy(url, rule)
            services = self.services(tmp_path, url, "alice")
            with pytest.raises(OncallError) as refused:
                services.sessions.list_sessions("alice")
            assert refused.value.reason == "user_locked"
            assert "(dana)" in refused.value.message("en")
            services.close()

    def test_the_login_itself_always_works(
        self, tmp_path: Path, postgres_server: PostgresServer
    ) -> None:
        url = postgres_server.new_database()
        policy(url, None)
        services = self.services(tmp_path, url, "dana")
        try:
            assert services.sessions.create("dana", "mine").title == "mine"
        finally:
            services.close()

    def test_the_policy_allows_another_name(
        self, tmp_path: Path, postgres_server: PostgresServer
    ) -> None:
        url = postgres_server.new_database()
        policy(url, True)
        services = self.services(tmp_path, url, "alice")
        try:
            assert services.sessions.list_sessions("alice") == []
        finally:
            services.close()

    def test_a_sqlite_file_takes_any_name(self, tmp_path: Path) -> None:
        services = self.services(tmp_path, None, "alice")
        try:
            assert services.sessions.list_sessions("alice") == []
        finally:
            services.close()

    def test_the_cli_says_why_and_exits_2(
        self, cli: RunCli, postgres_server: PostgresServer
    ) -> None:
        url = postgres_server.new_database()
        policy(url, None)
        result = cli("--db", url, "sessions", "list", "--json", user="not-the-login")
        assert (result.code, result.error()["reason"]) == (2, "user_locked")


def test_doctor_describes_the_server_and_its_schema(
    cli: RunCli, postgres_server: PostgresServer
) -> None:
    url = postgres_server.new_database()
    report = cli("--db", url, "doctor", "--json").json_object()
    assert report["database"] == {
        "engine": "postgresql",
        "path": url,
        "exists": True,
        "mode": None,
        "schema_version": schema.LATEST_VERSION,
        "error": None,
    }
    human = cli("--db", url, "doctor").out
    assert f"{url} (PostgreSQL, schema version {schema.LATEST_VERSION})" in human


def test_doctor_says_when_the_server_does_not_answer(cli: RunCli) -> None:
    url = f"postgresql://oncall:pw@127.0.0.1:{closed_port()}/oncall"
    result = cli("--db", url, "doctor", "--json")
    database = result.json_object()["database"]
    assert result.code != 0
    assert (database["exists"], database["schema_version"]) == (False, None)
    assert database["path"] == url.replace(":pw@", ":***@")
    assert "pw@" not in result.out
    assert isinstance(database["error"], str)
    assert database["error"]


TEAM_SETUP = (
    "REVOKE ALL ON SCHEMA public FROM PUBLIC",
    "GRANT USAGE ON SCHEMA public TO oncall_team",
    "CREATE EXTENSION IF NOT EXISTS pg_trgm",
    "ALTER DEFAULT PRIVILEGES IN SCHEMA public "
    "GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO oncall_team",
    "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO oncall_team",
)
"""docs/TEAM.md's setup, after the roles and the database exist."""


def test_the_documented_team_setup_keeps_the_schema_and_the_policy_the_administrators(
    cli: RunCli, postgres_server: PostgresServer
) -> None:
    name = postgres_server.new_database(empty=True).rsplit("/", 1)[-1]
    login = pwd.getpwuid(os.getuid()).pw_name  # the name oncall-tui takes on a shared database
    postgres_server.execute("CREATE ROLE oncall_team NOLOGIN")
    # The engineer's role is named as their login (the database keeps a role to its own rows).
    postgres_server.execute(f'CREATE ROLE "{login}" LOGIN IN ROLE oncall_team')
    for statement in TEAM_SETUP:
        postgres_server.execute(statement, name)
    admin = postgres_server.url(name)
    engineer = admin.replace("://postgres@", f"://{login}@")

    early = cli("--db", engineer, "sessions", "list", "--json", user=login)
    assert (early.code, early.error()["code"]) == (2, "DATABASE_UNAVAILABLE")
    assert "permission denied" in early.error()["message"]  # only the administrator makes it

    assert cli("--db", admin, "sessions", "list", "--json", user=login).code == 0
    postgres_server.execute("REVOKE INSERT, UPDATE, DELETE ON team_policy FROM oncall_team", name)
    created = cli("--db", engineer, "sessions", "new", "--title", "db failover", user=login)
    assert created.code == 0, created.err
    found = cli("--db", engineer, "search", "failover", "--json", user=login).json_list()
    assert [hit["session_title"] for hit in found] == ["db failover"]
    with pytest.raises(Exception, match="permission denied for table team_policy"):
        postgres_server.execute(
            "INSERT INTO team_policy VALUES ('allow_user_override', 'true')", name, role=login
        )
