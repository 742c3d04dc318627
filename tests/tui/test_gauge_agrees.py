"""The gauge and the refusal agree: a refused message does not move the gauge to where it
would have taken the context, and percentages over 100 are shown as they are."""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import BaseMessage
from textual.app import App, ComposeResult

from oncall_tui.core.memory import MemoryMode
from oncall_tui.settings import Settings
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from oncall_tui.tui.app import OncallApp, build_app
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.context_panel import ContextPanel
from oncall_tui.tui.widgets.gauge import ContextGauge
from oncall_tui.tui.widgets.plain_text import PlainText
from tests.fakes.chat_model import ScriptedChatModel, Turn
from tests.fakes.gateway import StaticGateway
from tests.tui.harness import scripted_app, wait_until


async def test_a_refused_message_leaves_the_gauge_and_a_shorter_one_is_sent(
    tmp_path: Path,
) -> None:
    app, model = scripted_app(tmp_path / "t.db", [Turn(text="ok")], window=2000)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await app.workers.wait_for_complete()
        gauge = screen.query_one(ContextPanel).gauge
        await wait_until(pilot, lambda: gauge.percent > 0)
        before = gauge.percent
        assert before < 95
        app.query_one(Composer).text = "word " * 3000
        await pilot.press("enter")
        status = screen.query_one("#status", PlainText)
        await wait_until(pilot, lambda: "would bring the context to" in status.text)
        assert gauge.percent == before  # where the context is, not where it would have gone
        app.query_one(Composer).text = "short question"
        await pilot.press("enter")
        await wait_until(pilot, lambda: not screen.sending and len(model.calls) == 1)


def full_session(app: OncallApp, mode: MemoryMode) -> int:
    """A session in ``mode`` whose next request is at 95% or more of the window."""
    services = app.services
    with services.database.session() as session:
        chat = SessionRepository(session).create("alice", "api-7 restarts", mode.value)
        assert chat.id is not None
        session_id = chat.id
    while services.memory.state("alice", session_id).usage.percent < 95:
        with services.database.session() as session:
            chat = SessionRepository(session).require("alice", session_id)
            MessageRepository(session).add(chat, "user", "the api-7 pods restart " * 20)
            MessageRepository(session).add(chat, "assistant", "Check the probe. " * 20)
    return session_id


async def test_a_session_past_95_percent_in_the_70_percent_mode_compacts_and_sends(
    tmp_path: Path,
) -> None:
    """The mode promises a compaction before the send; the gauge at 96% must not refuse it."""
    app, model = scripted_app(tmp_path / "t.db")

    def summary_or_answer(messages: list[BaseMessage]) -> Turn:
        summarising = "running memory" in str(messages[0].content)
        return Turn(text="Goal: api-7. Facts: probe fails." if summarising else "ok")

    model.responder = summary_or_answer
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        session_id = full_session(app, MemoryMode.CONTEXT_70_PERCENT)
        screen.shown.load(open_newest=True)
        gauge = screen.query_one(ContextPanel).gauge
        await wait_until(pilot, lambda: screen.session_id == session_id and gauge.at_limit)
        app.query_one(Composer).text = "and now?"
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(model.calls) and not screen.sending)
        assert app.services.sessions.messages("alice", session_id)[-1].content == "ok"
        assert app.services.memory.state("alice", session_id).compacted_message_count > 0
        assert not gauge.at_limit
        assert app.query_one(Composer).text == ""


async def test_a_full_session_s_refusal_names_the_keys_as_bound(tmp_path: Path) -> None:
    model = ScriptedChatModel([])
    settings = Settings(db_path=tmp_path / "t.db", user="alice", keymap={"compact": "f10"})
    app = build_app(settings, gateway=StaticGateway(model, 8192))
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        full_session(app, MemoryMode.MANUAL)
        screen.shown.load(open_newest=True)
        gauge = screen.query_one(ContextPanel).gauge
        await wait_until(pilot, lambda: gauge.at_limit)
        app.query_one(Composer).text = "and now?"
        await pilot.press("enter")
        status = screen.query_one("#status", PlainText)
        await wait_until(pilot, lambda: "limit 95%" in status.text)
        assert status.text.endswith(
            "even a short message would not fit: compact the session memory or start a new "
            "session. (f10 compacts, ctrl+n starts a new session)"
        )
        assert app.query_one(Composer).text == "and now?"
        assert model.calls == []


class GaugeApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ContextGauge()


async def test_a_percentage_over_100_is_shown_as_it_is() -> None:
    app = GaugeApp()
    async with app.run_test(size=(40, 4)) as pilot:
        gauge = app.query_one(ContextGauge)
        gauge.update_usage(2732, 2048)
        await pilot.pause()
        assert "2,732 / 2,048 tokens · 133.4%" in str(gauge.render())
        assert gauge.at_limit
