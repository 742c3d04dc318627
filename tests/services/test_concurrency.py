"""Several processes writing one database at once: nothing lost, nothing refused, nothing twice.

Real processes (the CLI, as scripts and a second terminal use it) on a real SQLite file, and on
a real PostgreSQL database.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from oncall_tui.services.container import Services
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from tests.conftest import make_settings
from tests.fakes.ollama_server import FakeOllama, Reply

WRITERS = 4

pytestmark = pytest.mark.both_engines


@pytest.fixture
def slow_echo() -> Iterator[FakeOllama]:
    """Replies that take a moment, so that the writers' turns overlap."""

    def echo(body: dict[str, object]) -> Reply:
        messages = body["messages"]
        assert isinstance(messages, list)
        question = [m for m in messages if m["role"] == "user"][-1]["content"]
        return Reply(f"answer to {question}", delay_per_chunk=0.05)

    with FakeOllama(responder=echo) as server:
        yield server


def cli_process(database: str, url: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "ONCALL_TUI_DB": database, "ONCALL_TUI_USER": "alice", "LANG": "C"}
    return subprocess.Popen(
        [sys.executable, "-m", "oncall_tui", "--ollama-url", url, "--model", "qwen3:8b", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_concurrent_chats_in_one_session_all_store_in_a_valid_order(
    db_path: Path, db_url: str | None, db_target: str, slow_echo: FakeOllama
) -> None:
    database = db_target
    services = Services(make_settings(db_path, db_url=db_url))
    session_id = services.sessions.create("alice", "shared").id
    processes = [
        cli_process(database, slow_echo.url, "chat", "--session", str(session_id), f"q{i}")
        for i in range(WRITERS)
    ]
    results = [(p.wait(timeout=120), *p.communicate()) for p in processes]
    try:
        for code, out, err in results:
            assert code == 0, err
            assert out.startswith("answer to q")
        with services.database.session() as session:
            chat = SessionRepository(session).require("alice", session_id)
            rows = MessageRepository(session).from_position(chat, 0)
            stored = [(m.position, m.role, m.content, m.status) for m in rows]
    finally:
        services.close()
    assert [position for position, *_ in stored] == list(range(2 * WRITERS))
    where = {content: position for position, _, content, _ in stored}
    for i in range(WRITERS):
        assert where[f"q{i}"] < where[f"answer to q{i}"]
    assert {status for *_, status in stored} == {"complete"}
