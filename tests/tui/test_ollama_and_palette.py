"""The app against the loopback Ollama server: offline start, model picking, the palette."""

from __future__ import annotations

import socket
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from oncall_tui.settings import Settings
from oncall_tui.tui.app import OncallApp, build_app
from oncall_tui.tui.chat_log import ChatLog
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.screens.models import ModelPicker
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.context_panel import ContextPanel
from tests.fakes.ollama_server import FakeModel, FakeOllama, Reply
from tests.tui.harness import wait_until

SIZE = (120, 36)


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


async def send_when_ready(app: OncallApp, pilot: Pilot[None], text: str) -> MainScreen:
    """Wait for Ollama to answer the app's probe, then send ``text`` from the composer."""
    screen = app.screen
    assert isinstance(screen, MainScreen)
    await wait_until(pilot, lambda: screen.server_check.state.reachable is True)
    screen.query_one(Composer).text = text
    await pilot.press("enter")
    return screen


def panel_model_text(app: OncallApp) -> str:
    screen = app.screen
    return str(screen.query_one("#model", Static).render())


async def test_ollama_down_the_app_opens_says_so_and_keeps_the_text(tmp_path: Path) -> None:
    url = closed_port_url()
    app = build_app(Settings(db_path=tmp_path / "t.db", user="alice", ollama_url=url))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await wait_until(pilot, lambda: "unreachable" in panel_model_text(app))
        await app.workers.wait_for_complete()
        assert url in panel_model_text(app)
        composer = screen.query_one(Composer)
        composer.text = "is anything up?"
        await pilot.press("enter")
        status = screen.query_one("#status", Static)
        await wait_until(pilot, lambda: url in str(status.render()))
        assert composer.text == "is anything up?"
        assert app.services.sessions.list_sessions("alice") == []
        # everything but sending still works: the prompt editor opens
        await pilot.press("f3")
        await wait_until(pilot, lambda: app.screen is not screen)


async def test_chat_through_the_real_ollama_client_updates_the_gauge(tmp_path: Path) -> None:
    with FakeOllama(models=[FakeModel("llama3.1:8b", context_length=131072)]) as server:
        server.script(Reply("Pods look fine.", prompt_eval_count=900))
        app = build_app(Settings(db_path=tmp_path / "t.db", user="alice", ollama_url=server.url))
        async with app.run_test(size=SIZE) as pilot:
            screen = await send_when_ready(app, pilot, "status?")
            gauge = screen.query_one(ContextPanel).gauge
            await wait_until(pilot, lambda: gauge.used >= 900 and not screen.sending)
            assert gauge.window == 8192 == server.chat_requests[-1]["options"]["num_ctx"]


async def test_esc_keeps_the_partial_reply_and_the_next_send_works(tmp_path: Path) -> None:
    with FakeOllama(models=[FakeModel("llama3.1:8b")]) as server:
        server.script(Reply("first " * 300, delay_per_chunk=0.02), Reply("Second answer."))
        app = build_app(Settings(db_path=tmp_path / "t.db", user="alice", ollama_url=server.url))
        async with app.run_test(size=SIZE) as pilot:
            screen = await send_when_ready(app, pilot, "walk me through it")
            await wait_until(pilot, lambda: "first" in reply_text(screen), timeout=30)
            await pilot.press("escape")
            await wait_until(pilot, lambda: not screen.sending, timeout=30)
            session_id = screen.session_id
            assert session_id is not None
            stored = app.services.sessions.messages("alice", session_id)
            assert [(m.role, m.status) for m in stored] == [
                ("user", "complete"),
                ("assistant", "interrupted"),
            ]
            assert 0 < len(stored[1].content) < len("first " * 300)
            screen.query_one(Composer).text = "and now?"
            await pilot.press("enter")
            await wait_until(pilot, lambda: "Second answer." in reply_text(screen), timeout=30)
            await wait_until(pilot, lambda: not screen.sending)


def reply_text(screen: MainScreen) -> str:
    blocks = screen.query_one(ChatLog).messages
    return blocks[-1].body.text if blocks and blocks[-1].role == "assistant" else ""


async def test_the_model_picker_lists_ollama_models_and_switches(tmp_path: Path) -> None:
    with FakeOllama(models=["llama3.1:8b", "qwen3:8b"]) as server:
        settings = Settings(db_path=tmp_path / "t.db", user="alice", ollama_url=server.url)
        app = build_app(settings)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("f5")
            await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker))
            options = app.screen.query_one(OptionList)
            await wait_until(pilot, lambda: options.option_count == 2)
            await pilot.press("down", "enter")
            await wait_until(pilot, lambda: app.services.settings.model == "qwen3:8b")
            await wait_until(pilot, lambda: "qwen3:8b" in panel_model_text(app))


async def test_a_picked_model_is_kept_in_the_settings_file(tmp_path: Path) -> None:
    config = tmp_path / "config" / "config.toml"
    with FakeOllama(models=["llama3.1:8b", "qwen3:8b"]) as server:
        settings = Settings(
            db_path=tmp_path / "t.db", user="alice", ollama_url=server.url, config_path=config
        )
        app = build_app(settings)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("f5")
            await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker))
            options = app.screen.query_one(OptionList)
            await wait_until(pilot, lambda: options.option_count == 2)
            await pilot.press("down", "enter")
            await wait_until(pilot, lambda: app.services.settings.model == "qwen3:8b")
    assert config.read_text(encoding="utf-8") == 'model = "qwen3:8b"\n'


async def test_a_model_the_settings_file_cannot_keep_is_refused_on_the_status_line(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("model = \n", encoding="utf-8")
    with FakeOllama(models=["llama3.1:8b", "qwen3:8b"]) as server:
        settings = Settings(
            db_path=tmp_path / "t.db", user="alice", ollama_url=server.url, config_path=config
        )
        app = build_app(settings)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            await pilot.press("f5")
            await wait_until(pilot, lambda: isinstance(app.screen, ModelPicker))
            options = app.screen.query_one(OptionList)
            await wait_until(pilot, lambda: options.option_count == 2)
            await pilot.press("down", "enter")
            status = screen.query_one("#status", Static)
            await wait_until(pilot, lambda: "was not saved" in str(status.render()))
            assert app.services.settings.model == "llama3.1:8b"
            assert app.is_running
    assert config.read_text(encoding="utf-8") == "model = \n"


async def test_every_action_is_in_the_command_palette(tmp_path: Path) -> None:
    app = build_app(Settings(db_path=tmp_path / "t.db", user="alice", ollama_url=closed_port_url()))
    async with app.run_test(size=SIZE):
        titles = {command.title for command in app.get_system_commands(app.screen)}
        assert {
            "New session",
            "Rename session",
            "Delete session",
            "Compact memory",
            "Cycle memory mode",
            "Show summary",
            "Cancel reply",
            "Prompts",
            "Skills",
            "Model",
            "Toggle context panel",
            "Load earlier messages",
        } <= titles
