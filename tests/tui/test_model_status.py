"""What the TUI says about the model server: a model that is not pulled is flagged at
start-up with the way out, and a send is never refused on what an earlier check said."""

from __future__ import annotations

from pathlib import Path

from oncall_tui.errors import OncallError
from oncall_tui.llm.gateway import ModelReadiness
from oncall_tui.settings import Settings
from oncall_tui.tui.app import build_app
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.context_panel import OllamaStatus
from oncall_tui.tui.widgets.plain_text import PlainText
from oncall_tui.tui.widgets.status_line import StatusLine
from tests.fakes.chat_model import ScriptedChatModel, Turn
from tests.fakes.gateway import StaticGateway
from tests.fakes.ollama_server import FakeModel, FakeOllama
from tests.tui.harness import wait_until

SIZE = (120, 36)


class Missing(StaticGateway):
    """A server that answers but has not pulled the model, until ``pulled`` is set."""

    pulled = False

    def check_ready(self) -> ModelReadiness:
        if not self.pulled:
            raise OncallError("MODEL_NOT_FOUND", model=self.model_name)
        return super().check_ready()


def status(screen: MainScreen) -> str:
    return screen.query_one("#status", PlainText).text


def model_panel(screen: MainScreen) -> PlainText:
    return screen.query_one("#model", PlainText)


async def test_a_model_that_is_not_pulled_is_flagged_at_start_up(tmp_path: Path) -> None:
    gateway = Missing(ScriptedChatModel(), 8192)
    app = build_app(Settings(db_path=tmp_path / "t.db", user="alice"), gateway=gateway)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await wait_until(pilot, lambda: "f5 / alt+m picks an installed model" in status(screen))
        assert "ollama pull" in status(screen)
        assert screen.query_one("#status").has_class("-error")
        assert "not pulled" in model_panel(screen).text
        assert model_panel(screen).has_class("-error")
        gateway.pulled = True  # pulled meanwhile, or another model picked: the flag goes
        screen.server_check.check()
        await wait_until(pilot, lambda: "picks an installed" not in status(screen))
        assert not model_panel(screen).has_class("-error")


async def test_the_status_line_s_hint_for_a_missing_model_speaks_the_user_s_language(
    tmp_path: Path,
) -> None:
    gateway = Missing(ScriptedChatModel(), 8192)
    settings = Settings(db_path=tmp_path / "t.db", user="alice", lang="zh")
    app = build_app(settings, gateway=gateway)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await wait_until(pilot, lambda: "按 f5 / alt+m 选择已安装的模型" in status(screen))
        assert "picks an installed" not in status(screen)


async def test_the_first_enter_after_ollama_is_back_sends(tmp_path: Path) -> None:
    model = ScriptedChatModel([Turn(text="It is back.")])
    app = build_app(
        Settings(db_path=tmp_path / "t.db", user="alice"), gateway=StaticGateway(model, 8192)
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await app.workers.wait_for_complete()
        screen.server_check.state = OllamaStatus(
            "http://127.0.0.1:11434", "qwen3:8b", reachable=False
        )
        app.query_one(Composer).text = "is it up now?"
        await pilot.press("enter")  # the panel's last word was "down": the service decides
        await wait_until(pilot, lambda: not screen.sending and len(model.calls) == 1)
        assert app.query_one(Composer).text == ""


async def test_a_send_refused_for_a_missing_model_says_which_keys_pick_another(
    tmp_path: Path,
) -> None:
    """The model was there at the start and removed since (`ollama rm`, another engineer on
    the shared box): the failed reply says so with the keys of the picker, as the start-up
    check does; the question is stored, and ctrl+r answers it once the model is back."""
    with FakeOllama() as server:
        settings = Settings(
            db_path=tmp_path / "t.db", user="alice", ollama_url=server.url, model="tiny:2k"
        )
        app = build_app(settings)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, MainScreen)
            await wait_until(pilot, lambda: screen.server_check.state.usable is True)
            del server.models["tiny:2k"]
            app.query_one(Composer).text = "why is checkout slow"
            await pilot.press("enter")
            await wait_until(pilot, lambda: "ollama pull tiny:2k" in status(screen))
            assert status(screen).endswith(
                "Your message is stored; retry answers it again. "
                "(f5 / alt+m picks an installed model, ctrl+r retries)"
            )
            assert app.query_one(Composer).text == ""  # stored: ctrl+r answers it

            server.models["tiny:2k"] = FakeModel("tiny:2k")
            server.script("The pool is exhausted.")
            await pilot.press("ctrl+r")
            await wait_until(pilot, lambda: "picks an installed" not in status(screen))
            await app.workers.wait_for_complete()
            (session,) = app.services.sessions.list_sessions("alice")
            replies = app.services.sessions.messages("alice", session.id)
            # the failed call wrote nothing: no reply of it is stored, the retry's is
            assert [(m.role, m.status) for m in replies] == [
                ("user", "complete"),
                ("assistant", "complete"),
            ]


async def test_a_send_refused_before_it_stores_says_which_keys_pick_another(
    tmp_path: Path,
) -> None:
    """The server says the model is missing as the send asks first: nothing is stored, the
    question stays in the composer, and the line names the picker's keys whatever it said
    before."""
    gateway = Missing(ScriptedChatModel(), 8192)
    app = build_app(Settings(db_path=tmp_path / "t.db", user="alice"), gateway=gateway)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await wait_until(pilot, lambda: "picks an installed" in status(screen))
        screen.query_one("#status", StatusLine).say("")
        app.query_one(Composer).text = "why is checkout slow"
        await pilot.press("enter")
        await wait_until(pilot, lambda: "ollama pull" in status(screen))
        assert status(screen).endswith("(f5 / alt+m picks an installed model)")
        assert app.query_one(Composer).text == "why is checkout slow"
        assert app.services.sessions.list_sessions("alice") == []
