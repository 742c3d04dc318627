"""A ``confirm`` tool never runs on a stray keystroke.

The dialog opens when the model's reply calls the tool, often while the engineer is typing
the next message. Keys typed as it opens, or in the burst under way then, answer nothing:
they go back to the composer in order, and only a deliberate answer (after the grace period
and a quiet gap) runs or declines the call. The dialog's clock is replaced by one the test
moves, so "300 ms later" is exact and nothing sleeps; the real values are kept in
``test_tools_tui.py`` and in the pseudo-terminal test at the end.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from oncall_tui.core.events import ToolConfirmation
from oncall_tui.tui.app import OncallApp
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets import dialogs, tool_dialog
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.tool_dialog import GRACE_SECONDS, QUIET_SECONDS, ToolConfirmDialog
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.terminal import Terminal, wait_for
from tests.tui.harness import wait_until
from tests.tui.test_tools_tui import OPS, SIZE, tool_result, tools_app

TYPED = "why my sky so grey today, no rain"
"""The next message, typed as the dialog opens: a `y` and an `n` among its keys."""
DECLINED = "Not run: the user declined this call of ops.restart_service"
START = 1000.0


class Clock:
    """The dialog's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(dialogs, "clock", fake)
    return fake


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        yield fake


def key_names(text: str) -> list[str]:
    return [{" ": "space", ",": "comma"}.get(ch, ch) for ch in text]


# -- the dialog on its own, over a real composer ----------------------------------------------


class ComposerHost(App[None]):
    """A composer, and the dialog pushed over it on mount; records answers and sends."""

    def __init__(self, request: ToolConfirmation | None = None) -> None:
        super().__init__()
        self.request = request or ToolConfirmation("ops", "restart_service", {"service": "api"})
        self.answers: list[bool | None] = []
        self.submitted: list[str] = []

    def compose(self) -> ComposeResult:
        yield Composer()

    def on_mount(self) -> None:
        composer = self.query_one(Composer)
        dialog = ToolConfirmDialog(self.request, composer.type_key, composer.type_text)
        self.push_screen(dialog, self.answers.append)

    def on_composer_submitted(self, event: Composer.Submitted) -> None:
        self.submitted.append(event.text)

    @property
    def dialog(self) -> ToolConfirmDialog:
        screen = self.screen
        assert isinstance(screen, ToolConfirmDialog)
        return screen

    def key_line(self) -> str:
        return str(self.screen.query_one("#confirm-keys", Static).render())


async def drawn(pilot: Any, app: ComposerHost) -> ToolConfirmDialog:
    """The dialog, once it has been drawn (its grace period runs from then)."""
    await wait_until(pilot, lambda: isinstance(app.screen, ToolConfirmDialog))
    await wait_until(pilot, lambda: app.dialog.wait_seconds() is not None)
    return app.dialog


async def test_the_dialog_speaks_the_app_s_language() -> None:
    class ChineseHost(ComposerHost):
        lang = "zh"

    app = ChineseHost()
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ToolConfirmDialog))
        shown = " ".join(str(label.render()) for label in app.screen.query(Static))
        assert "运行 ops.restart_service？" in shown, shown


async def test_a_long_call_is_read_with_pgdn_before_answers_count(clock: Clock) -> None:
    """Reading the arguments is what the grace period is for: PgUp/PgDn scroll them at once,
    and neither answers nor counts as typing."""
    app = ComposerHost(ToolConfirmation("ops", "deploy", {f"flag{i}": i for i in range(40)}))
    async with app.run_test(size=(60, 20)) as pilot:
        dialog = await drawn(pilot, app)
        body = dialog.query_one(".dialog--body")
        assert not dialog.answers_count
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: body.scroll_y > 0)
        assert app.query_one(Composer).text == ""
        clock.now = START + GRACE_SECONDS  # no key was typing: the quiet gap did not start
        assert dialog.wait_seconds() == 0.0
        await pilot.press("pageup")
        await wait_until(pilot, lambda: body.scroll_y == 0)
        await pilot.press("n")
        await wait_until(pilot, lambda: app.answers == [False])


async def test_answers_count_only_after_the_grace_period_and_a_quiet_gap_at_their_bounds(
    clock: Clock,
) -> None:
    app = ComposerHost()
    async with app.run_test(size=SIZE) as pilot:
        dialog = await drawn(pilot, app)
        clock.now = START + GRACE_SECONDS - 0.01  # just inside the grace period
        await pilot.press("n")
        assert app.screen is dialog
        assert app.query_one(Composer).text == "n"
        last = clock.now
        clock.now = last + QUIET_SECONDS - 0.01  # past the grace, just inside the quiet gap
        await pilot.press("y")
        assert app.screen is dialog
        assert app.query_one(Composer).text == "ny"
        clock.now = clock.now + QUIET_SECONDS  # at the bound: it counts
        await pilot.press("y")
        await wait_until(pilot, lambda: app.answers == [True])
        assert app.query_one(Composer).text == "ny"


async def test_typing_after_the_dialog_became_answerable_starts_the_quiet_gap_again(
    clock: Clock,
) -> None:
    app = ComposerHost()
    async with app.run_test(size=SIZE) as pilot:
        dialog = await drawn(pilot, app)
        clock.now = START + GRACE_SECONDS
        assert dialog.answers_count
        await pilot.press("s", "k")  # typing again, a key at a time: "sky"
        clock.now += 0.3
        await pilot.press("y")
        assert app.screen is dialog
        assert app.query_one(Composer).text == "sky"
        clock.now += QUIET_SECONDS
        await pilot.press("n")
        await wait_until(pilot, lambda: app.answers == [False])


async def test_a_paste_while_the_dialog_is_up_goes_to_the_composer_and_is_typing(
    clock: Clock,
) -> None:
    """A log pasted as the dialog opened over the composer went nowhere: the dialog's buttons
    take no paste. It is the composer's, and the quiet gap starts from it as from a key."""
    app = ComposerHost()
    async with app.run_test(size=SIZE) as pilot:
        dialog = await drawn(pilot, app)
        clock.now = START + GRACE_SECONDS
        assert dialog.wait_seconds() == 0.0
        dialog.post_message(events.Paste('{"pod": "api-7", "msg": "OOMKilled"}\nwhy?'))
        composer = app.query_one(Composer)
        await wait_until(pilot, lambda: composer.text.endswith("why?"))
        assert composer.text == '{"pod": "api-7", "msg": "OOMKilled"}\nwhy?'
        assert dialog.wait_seconds() == QUIET_SECONDS  # typing just now: the quiet gap again
        await pilot.press("y")
        assert app.screen is dialog
        assert app.answers == []


async def test_a_click_on_run_and_tab_do_nothing_until_answers_count(clock: Clock) -> None:
    app = ComposerHost()
    async with app.run_test(size=SIZE) as pilot:
        dialog = await drawn(pilot, app)
        await pilot.click("#yes")
        await pilot.press("tab")
        assert app.screen is dialog
        assert app.answers == []
        assert dialog.focused is not None
        assert dialog.focused.id == "no"
        clock.now = START + GRACE_SECONDS + QUIET_SECONDS  # the tab was a key: quiet gap
        run = dialog.query_one("#yes", Button)
        await wait_until(pilot, lambda: not run.has_class("-active"))  # Textual's 0.2 s debounce
        await pilot.press("tab", "enter")  # now Tab reaches "Run", and Enter runs
        await wait_until(pilot, lambda: app.answers == [True])


async def test_enter_and_backspace_during_the_grace_period_act_in_the_composer(
    clock: Clock,
) -> None:
    app = ComposerHost()
    async with app.run_test(size=SIZE) as pilot:
        dialog = await drawn(pilot, app)
        await pilot.press("o", "k", "x", "backspace", "escape", "enter")
        assert app.query_one(Composer).text == "ok"
        await wait_until(pilot, lambda: app.submitted == ["ok"])  # the Enter sent, as typed
        assert app.screen is dialog
        assert app.answers == []


async def test_the_grace_period_starts_again_when_the_dialog_is_shown_again(
    clock: Clock,
) -> None:
    app = ComposerHost()
    async with app.run_test(size=SIZE) as pilot:
        dialog = await drawn(pilot, app)
        clock.now = START + GRACE_SECONDS
        assert dialog.answers_count
        await app.push_screen(ModalScreen[None]())  # e.g. the keys help over it
        assert dialog.wait_seconds() is None
        app.pop_screen()
        await wait_until(pilot, lambda: dialog.wait_seconds() == GRACE_SECONDS)
        await pilot.press("y")
        assert app.screen is dialog
        assert app.query_one(Composer).text == "y"


async def test_the_key_line_says_whether_answers_count(
    clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tool_dialog, "GRACE_SECONDS", 0.05)  # its timer looks again soon
    monkeypatch.setattr(tool_dialog, "QUIET_SECONDS", 0.05)
    waiting = "Not answering yet: what you type goes to your message. Stop typing to answer."
    ready = "y run · n/esc don't run · tab switches · enter = Don't run"
    app = ComposerHost()
    async with app.run_test(size=SIZE) as pilot:
        await drawn(pilot, app)
        assert app.key_line() == waiting
        clock.now += 0.05
        await wait_until(pilot, lambda: app.key_line() == ready)
        await pilot.press("x")
        assert app.key_line() == waiting
        clock.now += 0.05
        await wait_until(pilot, lambda: app.key_line() == ready)
        await pilot.press("n")
        await wait_until(pilot, lambda: app.answers == [False])
        assert app.query_one(Composer).text == "x"


# -- the real app: a scripted reply calls the confirm tool while the engineer types ------------


async def ask_to_restart(pilot: Any, app: OncallApp) -> ToolConfirmDialog:
    """Send "restart the api"; the reply calls ops.restart_service. The dialog, once drawn."""
    screen = app.screen
    assert isinstance(screen, MainScreen)
    await wait_until(pilot, lambda: screen.server_check.state.reachable is True, timeout=20)
    screen.query_one(Composer).text = "restart the api"
    await pilot.press("enter")
    await wait_until(pilot, lambda: isinstance(app.screen, ToolConfirmDialog), timeout=30)
    dialog = app.screen
    assert isinstance(dialog, ToolConfirmDialog)
    await wait_until(pilot, lambda: dialog.wait_seconds() is not None)
    return dialog


def type_as_it_opens(monkeypatch: pytest.MonkeyPatch, app: OncallApp, text: str) -> None:
    """Keys that arrive in the same tick as the dialog is pushed, before it is drawn."""
    push_screen = app.push_screen

    def push_and_type(screen: Any, *args: Any, **kwargs: Any) -> Any:
        pushed = push_screen(screen, *args, **kwargs)
        if isinstance(screen, ToolConfirmDialog):
            for key, character in zip(key_names(text), text, strict=True):
                app.post_message(events.Key(key, character))
        return pushed

    monkeypatch.setattr(app, "push_screen", push_and_type)


@pytest.mark.parametrize("later", [0.0, 0.1, 0.3, 1.0], ids=["same-tick", "100ms", "300ms", "1s"])
async def test_keys_typed_as_the_dialog_opens_go_to_the_composer_and_answer_nothing(
    tmp_path: Path,
    ollama: FakeOllama,
    clock: Clock,
    monkeypatch: pytest.MonkeyPatch,
    later: float,
) -> None:
    ollama.script(Reply.tool_call("ops__restart_service", {"service": "api"}), "Done.")
    app = tools_app(tmp_path, ollama)
    if not later:
        type_as_it_opens(monkeypatch, app, TYPED)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await ask_to_restart(pilot, app)
        composer = app.screen_stack[0].query_one(Composer)
        if later:
            clock.now = START + later
            await pilot.press(*key_names(TYPED), "escape")
        await wait_until(pilot, lambda: composer.text == TYPED)
        assert app.screen is dialog  # neither the y, the n nor the Esc answered it
        assert len(ollama.chat_requests) == 1  # the tool has not run, nor been declined
        clock.now = max(START + GRACE_SECONDS, START + later + QUIET_SECONDS)
        await pilot.press("y")  # a deliberate answer, once answers count
        await wait_until(pilot, lambda: len(ollama.chat_requests) == 2, timeout=30)
        await app.workers.wait_for_complete()
        assert tool_result(ollama) == "restarted api"
        assert composer.text == TYPED  # the next message, kept whole


async def test_typing_that_goes_on_through_the_dialog_never_answers_it(
    tmp_path: Path, ollama: FakeOllama, clock: Clock
) -> None:
    """As found: a key every 0.3 s, from before the dialog opened to long past its grace."""
    ollama.script(Reply.tool_call("ops__restart_service", {"service": "api"}), "Done.")
    app = tools_app(tmp_path, ollama)
    async with app.run_test(size=SIZE) as pilot:
        dialog = await ask_to_restart(pilot, app)
        composer = app.screen_stack[0].query_one(Composer)
        for key in key_names(TYPED):  # 33 keys: 9.9 s, the `y` of "today" at 7.2 s
            clock.now += 0.3
            await pilot.press(key)
        assert app.screen is dialog
        assert composer.text == TYPED
        assert len(ollama.chat_requests) == 1
        clock.now += QUIET_SECONDS
        await pilot.press("enter")  # on "Don't run", where the focus stays
        await wait_until(pilot, lambda: len(ollama.chat_requests) == 2, timeout=30)
        await app.workers.wait_for_complete()
        assert tool_result(ollama).startswith(DECLINED)
        assert composer.text == TYPED


# -- the app in a pseudo-terminal, at the real values -----------------------------------------


def test_keys_written_as_the_dialog_appears_go_to_the_composer_in_one_read(
    tmp_path: Path, ollama: FakeOllama
) -> None:
    config = Path(os.environ["ONCALL_TUI_CONFIG"])  # the test's own (private_config)
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        "[[mcp_servers]]\n"
        'name = "ops"\n'
        f"command = {sys.executable!r}\n"
        f"args = [{OPS!r}]\n"
        'allow = ["restart_service"]\n'
        'confirm = ["restart_service"]\n',
        encoding="utf-8",
    )
    ollama.script(Reply.tool_call("ops__restart_service", {"service": "api"}), "Done.")
    env = {
        **os.environ,
        "ONCALL_TUI_DB": str(tmp_path / "oncall.db"),
        "ONCALL_TUI_USER": "alice",
        "OLLAMA_HOST": ollama.url,
        "ONCALL_TUI_MODEL": "qwen3:8b",
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
    }
    terminal = Terminal(env)
    try:
        terminal.wait_to_show("Ollama 0.")
        terminal.write("restart the api\r")
        terminal.wait_to_show("Run ops.restart_service?")
        terminal.write(TYPED)  # one write, one read: the dialog has just been drawn
        terminal.wait_to_show(TYPED, timeout=10)
        assert terminal.shows("Run ops.restart_service?")
        assert len(ollama.chat_requests) == 1
        terminal.wait_to_show("y run · n/esc don't run")  # the real grace and quiet gap
        terminal.write("y")
        wait_for(lambda: len(ollama.chat_requests) == 2, what="the tool's result sent back")
        assert tool_result(ollama) == "restarted api"
        terminal.wait_to_show("Done.")
        assert terminal.shows(TYPED)
    finally:
        terminal.quit()
