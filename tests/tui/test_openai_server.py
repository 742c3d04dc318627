"""The app on an OpenAI-compatible server: its first screen and panel name that server, not
Ollama, and a chat through the real ChatOpenAI fills the gauge from the server's usage."""

from __future__ import annotations

import socket
from pathlib import Path

from textual.widgets import Static

from oncall_tui.settings import Settings
from oncall_tui.tui.app import build_app
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.context_panel import ContextPanel
from oncall_tui.tui.widgets.welcome import Welcome
from tests.fakes.ollama_server import FakeModel, Reply
from tests.fakes.openai_server import FakeOpenAI
from tests.tui.harness import wait_until

SIZE = (120, 36)


def shown(static: Static) -> str:
    """The words on screen, lines joined (a wrapped sentence reads whole)."""
    lines = static.render_lines(static.region.reset_offset)
    return " ".join(" ".join(line.text for line in lines).split())


async def test_the_first_screen_says_the_server_is_down_in_its_own_words(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    settings = Settings(db_path=tmp_path / "t.db", user="alice", provider="openai", base_url=url)
    app = build_app(settings)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        welcome = screen.query_one(Welcome)
        await wait_until(pilot, lambda: "does not answer" in shown(welcome))
        assert f"The model server does not answer at {url}" in shown(welcome)
        assert "Ollama" not in shown(welcome)
        panel = str(screen.query_one("#model", Static).render())
        assert f"model server unreachable at {url}" in panel


async def test_a_refused_key_is_said_as_such_not_as_a_server_that_does_not_answer(
    tmp_path: Path,
) -> None:
    with FakeOpenAI(api_key="sk-right-key") as server:
        settings = Settings(
            db_path=tmp_path / "t.db",
            user="alice",
            provider="openai",
            base_url=server.url,
            api_key="sk-wrong-key",
        )
        app = build_app(settings)
        async with app.run_test(size=SIZE) as pilot:
            welcome = app.screen.query_one(Welcome)
            await wait_until(pilot, lambda: "refused" in shown(welcome))
            assert "set OPENAI_API_KEY to the key it expects" in shown(welcome)
            assert "does not answer" not in shown(welcome)
            panel = str(app.screen.query_one("#model", Static).render())
            assert f"{server.url} answers HTTP 401" in panel
            assert "sk-wrong-key" not in shown(welcome) + panel


async def test_a_chat_on_the_server_fills_the_gauge_from_its_usage(tmp_path: Path) -> None:
    with FakeOpenAI(models=[FakeModel("llama3.1:8b")], props_n_ctx=4096) as server:
        server.script(Reply("Pods look fine.", prompt_eval_count=900))
        settings = Settings(
            db_path=tmp_path / "t.db", user="alice", provider="openai", base_url=server.url
        )
        app = build_app(settings)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, MainScreen)
            await wait_until(pilot, lambda: screen.server_check.state.reachable is True)
            # The first screen says it once the sessions are read too (it reads "Reading your
            # sessions…" until then), which may come after the server's answer.
            answers = f"The model server (b6000-fake) answers at {server.url}"
            await wait_until(pilot, lambda: answers in shown(screen.query_one(Welcome)))
            welcome = shown(screen.query_one(Welcome))
            assert "Ollama" not in welcome
            screen.query_one(Composer).text = "status?"
            await pilot.press("enter")
            gauge = screen.query_one(ContextPanel).gauge
            await wait_until(pilot, lambda: gauge.used >= 900 and not screen.sending)
            assert gauge.window == 4096  # llama.cpp's /props
