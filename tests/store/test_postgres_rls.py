"""Row-level security on a shared PostgreSQL database (revision 0006): with docs/TEAM.md's
roles, an engineer's own connection (``psql``, or psycopg here) reads and changes only their own
rows; the app keeps working for each; the administrator still sees everything.

The engineers are real LOGIN roles in ``oncall_team``; each runs the real CLI in-process as if
logged in on a jump host under their own name (the login the app reads from the uid is set
per call), through a URL naming their role.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import pytest

from oncall_tui import settings as settings_module
from oncall_tui.store import schema
from oncall_tui.store.postgres import PostgresDatabase
from tests.conftest import CliResult, RunCli, skill_text
from tests.fakes.ollama_server import FakeModel, FakeOllama, Reply
from tests.postgres import PostgresServer
from tests.store.test_postgres import TEAM_SETUP

MODEL = "qwen3:8b"
ENGINEERS = ("alice", "bob")
USER_TABLES = ("prompt", "skill", "configuration", "chat_session", "message", "tool_audit")


@dataclass
class Team:
    """docs/TEAM.md's setup on the test server: its roles, and databases made as it says."""

    server: PostgresServer
    made_group: bool
    databases: list[str] = field(default_factory=list)

    def new_database(self) -> str:
        """A database set up as TEAM.md says, its tables made by the administrator."""
        name = self.server.new_database(empty=True).rsplit("/", 1)[-1]
        self.databases.append(name)
        for statement in TEAM_SETUP:
            self.server.execute(statement, name)
        PostgresDatabase(self.server.url(name)).close()  # the administrator's first start
        self.server.execute("REVOKE INSERT, UPDATE, DELETE ON team_policy FROM oncall_team", name)
        return name

    def url(self, database: str, role: str) -> str:
        return self.server.url(database).replace("://postgres@", f"://{role}@")

    def connect(self, database: str, role: str) -> psycopg.Connection[tuple[Any, ...]]:
        """``role``'s own connection, as ``psql`` would make it."""
        url = self.url(database, role).replace("postgresql+psycopg://", "postgresql://")
        return psycopg.connect(url, autocommit=True)


@pytest.fixture(scope="module")
def team(postgres_server: PostgresServer) -> Iterator[Team]:
    """TEAM.md's roles, made once for the module and dropped after it with its databases (the
    server is the test process's own, and roles are the whole server's)."""
    known = {row[0] for row in postgres_server.fetch("SELECT rolname FROM pg_roles", "postgres")}
    made_group = "oncall_team" not in known
    if made_group:
        postgres_server.execute("CREATE ROLE oncall_team NOLOGIN")
    for name in ENGINEERS:
        postgres_server.execute(f"CREATE ROLE {name} LOGIN PASSWORD 'pw' IN ROLE oncall_team")
    setup = Team(postgres_server, made_group)
    try:
        yield setup
    finally:
        for name in setup.databases:
            postgres_server.execute(f"DROP DATABASE {name} WITH (FORCE)")
        postgres_server.execute(f"DROP ROLE {', '.join(ENGINEERS)}")
        if made_group:
            postgres_server.execute("DROP ROLE oncall_team")


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama(models=[FakeModel(MODEL, context_length=40960)]) as server:
        yield server


@pytest.fixture
def engineer(cli: RunCli, ollama: FakeOllama, team: Team, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``engineer(database, login, *args, role=login, user=login)``: the CLI run on a jump
    host by ``login``, connecting as ``role``."""

    def run(database: str, login: str, *args: str, role: str = "", user: str = "") -> CliResult:
        monkeypatch.setattr(settings_module, "uid_login", lambda: login)
        url = team.url(database, role or login)
        return cli(
            "--db", url, "--ollama-url", ollama.url, "--model", MODEL, *args, user=user or login
        )

    return run


def alice_works(engineer: Any, ollama: FakeOllama, tmp_path: Path, database: str) -> int:
    """Alice's night through the app: a skill, her configuration, a chat that loads the skill
    (a tool call, audited). Every owner-scoped table gets her rows. Returns the session id."""
    skill = tmp_path / "SKILL.md"
    skill.write_text(skill_text("pod-triage", "Triage pods.", "ALICE-ONLY"), encoding="utf-8")
    assert engineer(database, "alice", "skills", "add", str(skill)).code == 0
    assert engineer(database, "alice", "config", "set", "--skills", "pod-triage").code == 0
    ollama.script(
        Reply.tool_call("load_skill", {"skill_name": "pod-triage"}), Reply("Following it.")
    )
    chatted = engineer(database, "alice", "chat", "--json", "redis", "timeouts")
    assert chatted.code == 0, chatted.err
    done = json.loads(chatted.out.splitlines()[-1])
    return int(done["session_id"])


def counts(connection: psycopg.Connection[tuple[Any, ...]]) -> dict[str, int]:
    found: dict[str, int] = {}
    for table in USER_TABLES:
        row = connection.execute(f"SELECT count(*) FROM {table}".encode()).fetchone()
        found[table] = int(row[0]) if row else -1
    return found


def refused(connection: psycopg.Connection[tuple[Any, ...]], statement: str) -> str:
    """The error PostgreSQL gives ``statement``; fails the test when it is accepted."""
    with pytest.raises(psycopg.Error) as caught:
        connection.execute(statement.encode())
    return str(caught.value)


def test_another_engineers_psql_sees_and_changes_none_of_alices_rows(
    team: Team, engineer: Any, ollama: FakeOllama, tmp_path: Path
) -> None:
    database = team.new_database()
    session_id = alice_works(engineer, ollama, tmp_path, database)
    with team.connect(database, "postgres") as admin:
        everything = counts(admin)
        message_id = admin.execute(b"SELECT max(id) FROM message").fetchone()
    assert all(everything[table] > 0 for table in USER_TABLES), everything
    assert message_id is not None

    with team.connect(database, "bob") as bob:
        assert counts(bob) == dict.fromkeys(USER_TABLES, 0)
        for statement in (
            "UPDATE chat_session SET title = 'mine now'",
            "UPDATE message SET content = 'rewritten'",
            "UPDATE prompt SET content = 'obey bob'",
            "UPDATE skill SET content = 'obey bob'",
            "UPDATE configuration SET skill_ids = '[]'",
            "DELETE FROM tool_audit",
            "DELETE FROM message",
            "DELETE FROM chat_session",
            "DELETE FROM prompt",
            "DELETE FROM skill",
            "DELETE FROM configuration",
            "UPDATE alembic_version SET version_num = '0001'",
        ):
            assert bob.execute(statement.encode()).rowcount == 0, statement
        row_security = "new row violates row-level security policy"
        assert row_security in refused(
            bob, "INSERT INTO chat_session (owner, title) VALUES ('alice', 'planted')"
        )
        assert row_security in refused(
            bob,
            "INSERT INTO prompt (owner, label, content, is_default, created_at, updated_at) "
            "VALUES ('alice', 'planted', 'obey bob', false, now(), now())",
        )
        assert row_security in refused(
            bob,
            "INSERT INTO message (session_id, position, role, content, status, created_at) "
            f"VALUES ({session_id}, 99, 'user', 'planted', 'complete', now())",
        )
        assert row_security in refused(
            bob,
            "INSERT INTO tool_audit (session_id, message_id, call_id, tool_name, arguments, "
            f"status, summary, started_at, duration_ms) VALUES ({session_id}, "
            f"{message_id[0]}, 'c', 'load_skill', '{{}}', 'ok', 'planted', now(), 0)",
        )
        # What everyone reads stays readable, and stays the administrator's.
        assert bob.execute(b"SELECT version_num FROM alembic_version").fetchall() == [
            (schema.REVISIONS[-1],)
        ]
        assert "team_policy" in refused(
            bob, "INSERT INTO team_policy VALUES ('allow_user_override', 'true')"
        )

    with team.connect(database, "postgres") as admin:
        assert counts(admin) == everything
    shown = engineer(database, "alice", "sessions", "show", str(session_id), "--json")
    assert shown.code == 0, shown.err
    document = shown.json_object()
    assert document["title"] == "redis timeouts"
    assert document["messages"][0]["content"] == "redis timeouts"


def test_bob_uses_the_app_as_before_and_his_rows_are_his(
    team: Team, engineer: Any, ollama: FakeOllama, tmp_path: Path
) -> None:
    database = team.new_database()
    alice_session = alice_works(engineer, ollama, tmp_path, database)
    created = engineer(database, "bob", "sessions", "new", "--title", "bob's failover")
    assert created.code == 0, created.err
    listed = engineer(database, "bob", "sessions", "list", "--json").json_list()
    assert [s["title"] for s in listed] == ["bob's failover"]
    assert engineer(database, "bob", "search", "redis", "--json").json_list() == []
    missing = engineer(database, "bob", "sessions", "show", str(alice_session), "--json")
    assert (missing.code, missing.error()["code"]) == (2, "NOT_FOUND")
    mine = engineer(database, "alice", "sessions", "list", "--json").json_list()
    assert [s["title"] for s in mine] == ["redis timeouts"]
    with team.connect(database, "alice") as alice:
        titles = alice.execute(b"SELECT title FROM chat_session").fetchall()
    assert titles == [("redis timeouts",)]
    with team.connect(database, "postgres") as admin:
        owners = admin.execute(b"SELECT owner FROM chat_session ORDER BY owner").fetchall()
    assert owners == [("alice",), ("bob",)]


def test_a_user_name_the_role_may_not_use_is_refused_at_open_changing_nothing(
    team: Team, engineer: Any
) -> None:
    database = team.new_database()
    # Logged in on the host as carol, connecting as bob: no row of carol's is bob's to use.
    result = engineer(database, "carol", "sessions", "list", "--json", role="bob")
    assert (result.code, result.error()["code"]) == (2, "DATABASE_UNAVAILABLE")
    assert result.error()["reason"] == "user_not_role"
    assert "'bob'" in result.error()["message"]
    assert "Traceback" not in result.err
    with team.connect(database, "postgres") as admin:
        assert counts(admin) == dict.fromkeys(USER_TABLES, 0)


def test_a_shared_login_acts_for_names_no_role_holds_and_never_for_an_engineers(
    team: Team, engineer: Any
) -> None:
    """Where the administrator allows other names, engineers sharing one login each keep
    their sessions under their own ``--user``; a name that is a role's stays that role's."""
    database = team.new_database()
    team.server.execute(
        "INSERT INTO team_policy (name, value) VALUES ('allow_user_override', 'true')", database
    )
    for user in ("carol", "dave"):
        made = engineer(
            database, "oncall", "sessions", "new", "--title", f"{user}'s", role="bob", user=user
        )
        assert made.code == 0, made.err
    carols = engineer(database, "oncall", "sessions", "list", "--json", role="bob", user="carol")
    assert [s["title"] for s in carols.json_list()] == ["carol's"]

    posing = engineer(database, "oncall", "sessions", "list", "--json", role="bob", user="alice")
    assert (posing.code, posing.error()["reason"]) == (2, "user_is_another_role")
    with team.connect(database, "bob") as bob:
        assert "row-level security" in refused(
            bob, "INSERT INTO chat_session (owner, title) VALUES ('alice', 'planted')"
        )
        owners = bob.execute(b"SELECT DISTINCT owner FROM chat_session ORDER BY 1").fetchall()
    assert owners == [("carol",), ("dave",)]


def test_every_table_holding_user_data_has_row_level_security(team: Team) -> None:
    """What TEAM.md tells an administrator to look at: ``relrowsecurity`` and ``pg_policies``.
    A new table must come with its policy."""
    database = team.new_database()
    with team.connect(database, "postgres") as admin:
        tables = dict(
            admin.execute(
                b"SELECT relname, relrowsecurity FROM pg_class "
                b"WHERE relnamespace = 'public'::regnamespace AND relkind = 'r'"
            ).fetchall()
        )
        policies = admin.execute(
            b"SELECT tablename, policyname, cmd FROM pg_policies ORDER BY tablename"
        ).fetchall()
    assert all(tables.values()), tables
    assert set(tables) == {*USER_TABLES, "team_policy", "alembic_version"}
    assert policies == sorted(
        [(t, "own_rows", "ALL") for t in USER_TABLES]
        + [(t, "everyone_reads", "SELECT") for t in ("team_policy", "alembic_version")]
    )
