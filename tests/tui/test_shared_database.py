"""The TUI on a team's PostgreSQL database, and the database going away for a while: the app
says so on its status line and keeps what was typed; when the server is back, Enter sends it.
(A database that cannot be opened at start still ends the app, saying why.)"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from oncall_tui.settings import Settings
from oncall_tui.tui.app import build_app
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.plain_text import PlainText
from tests.fakes.ollama_server import FakeOllama
from tests.postgres import PostgresServer, running_server, unavailable_reason
from tests.tui.harness import wait_until

SIZE = (120, 40)


@pytest.fixture
def own_server() -> Iterator[PostgresServer]:
    """A server of this test's own, since the test stops it."""
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    with running_server() as server:
        yield server


async def test_an_outage_is_said_and_the_typed_text_waits_for_the_server(
    own_server: PostgresServer,
) -> None:
    with FakeOllama() as ollama:
        settings = Settings(
            db_path=own_server_path(),
            db_url=own_server.new_database(),
            user="alice",
            ollama_url=ollama.url,
            model="qwen3:8b",
        )
        app = build_app(settings)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, MainScreen)
            composer = screen.query_one(Composer)
            status = screen.query_one("#status", PlainText)
            composer.text = "first question"
            await pilot.press("enter")
            await wait_until(pilot, lambda: len(ollama.chat_requests) == 1, timeout=30)
            await wait_until(pilot, lambda: composer.text == "", timeout=30)

            own_server.halt()
            composer.text = "is the database still there?"
            await pilot.press("enter")
            await wait_until(pilot, lambda: "Cannot use the database" in status.text, timeout=30)
            assert app.is_running
            assert composer.text == "is the database still there?"

            own_server.start()
            await pilot.press("enter")
            await wait_until(pilot, lambda: len(ollama.chat_requests) == 2, timeout=30)
            await wait_until(pilot, lambda: composer.text == "", timeout=30)
            assert app.is_running


def own_server_path() -> Path:
    """The SQLite path a :class:`Settings` needs; unused when ``db_url`` is set."""
    return Path("/nonexistent/unused.db")
