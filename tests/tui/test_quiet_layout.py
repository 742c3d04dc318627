"""A send lays out nothing: a layout of the whole screen is a frame of tens of milliseconds,
which stalls a streaming reply (the status line, the scrollbar, the sessions and the panel all
used to ask for one around every send)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import OptionList

from oncall_tui.tui.app import OncallApp
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets.chat_log import ChatLog
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.plain_text import PlainText
from tests.fakes.chat_model import Turn
from tests.tui.harness import scripted_app, seed_session, spy, wait_until
from tests.tui.test_main_screen import SIZE, blocks, main_screen

LONG_REPLY = "\n\n".join(f"Step {n}: check the pods and compare restarts." for n in range(60))


def count_layouts(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """The screen's layouts from now on (Textual's ``Screen._refresh_layout``, which runs only
    when something asked for one, or on a resize)."""
    return spy(monkeypatch, Screen, "_refresh_layout")


async def send_and_settle(pilot: Pilot[None], messages: int) -> None:
    """Press Enter, and wait until the reply is in and everything the send ends with is done."""
    screen = main_screen(pilot.app)
    await pilot.press("enter")
    await wait_until(pilot, lambda: len(blocks(screen)) == messages and blocks(screen)[-1].ended)
    await wait_until(pilot, lambda: screen._runner is None)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause(0.1)


async def open_newest(pilot: Pilot[None], *titles: str) -> MainScreen:
    """Seed a session per title (one exchange each; the last is the newest) and open the
    newest, as at start-up."""
    app, screen = pilot.app, main_screen(pilot.app)
    assert isinstance(app, OncallApp)
    for title in titles:
        seed_session(app, 1, title=title)
    screen.load_sessions(open_newest=True)
    await wait_until(pilot, lambda: len(blocks(screen)) == 2)
    await app.workers.wait_for_complete()
    return screen


async def test_a_send_in_an_open_session_lays_out_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = scripted_app(tmp_path / "t.db", [Turn(text=LONG_REPLY, chunk_size=40)])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_newest(pilot, "older", "payments p99")
        app.query_one(Composer).text = "and the next step?"
        await pilot.pause(0.1)
        log = app.query_one(ChatLog)
        assert log.virtual_size.height < log.scrollable_content_region.height

        layouts = count_layouts(monkeypatch)
        await send_and_settle(pilot, messages=4)

        assert blocks(screen)[3].content == LONG_REPLY
        assert log.virtual_size.height > log.scrollable_content_region.height  # it overflowed
        assert len(layouts) == 0


def session_rows(app: App[None]) -> list[str]:
    options = app.query_one("#session-options", OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_the_first_send_of_a_new_session_lays_out_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The new session has its row before its first message, which only retitles it."""
    app, _ = scripted_app(tmp_path / "t.db", [Turn(text=LONG_REPLY, chunk_size=40)])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_newest(pilot, "db-3 disk full")
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: not blocks(screen))
        await app.workers.wait_for_complete()
        assert session_rows(app) == ["▸ New session", "  db-3 disk full"]
        app.query_one(Composer).text = "api-7 p99 is 2 s since 02:47"
        await pilot.pause(0.1)

        layouts = count_layouts(monkeypatch)
        await send_and_settle(pilot, messages=2)

        assert session_rows(app) == ["▸ api-7 p99 is 2 s since 02:47", "  db-3 disk full"]
        assert screen.session_id is not None
        assert len(layouts) == 0


class TextApp(App[None]):
    CSS = "PlainText { width: 24; }"

    def compose(self) -> ComposeResult:
        yield PlainText("one line")


async def test_plain_text_lays_out_only_when_its_height_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = TextApp()
    async with app.run_test(size=(40, 10)) as pilot:
        text = app.query_one(PlainText)
        await pilot.pause()
        layouts = count_layouts(monkeypatch)

        text.show("one line")
        text.show("another line")
        await pilot.pause()
        assert (len(layouts), text.size.height) == (0, 1)
        assert str(text.render()) == "another line"

        text.show("a longer text that wraps to two lines")
        await pilot.pause()
        assert len(layouts) > 0
        assert text.size.height == 2

        text.show("one line again")
        await pilot.pause()
        assert text.size.height == 1
        assert text.text == "one line again"


async def test_the_panel_and_sessions_are_refreshed_once_the_reply_is_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fast model ends before the screen has drawn its reply; the panel and the sessions
    list wait for the drawing (their repaints would widen every frame to the whole screen)."""
    backlog = LONG_REPLY * 4  # in pieces far larger than a flush draws
    app, _ = scripted_app(tmp_path / "t.db", [Turn(text=backlog, chunk_size=3000)])
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await app.workers.wait_for_complete()

        def reply_drawn(*_: object, **__: object) -> bool:
            shown = blocks(screen) if screen.query(ChatLog) else []
            return bool(shown) and shown[-1].drawn.is_set()

        refreshes = spy(monkeypatch, screen, "refresh_context", reply_drawn)
        reloads = spy(monkeypatch, screen, "load_sessions", reply_drawn)
        app.query_one(Composer).text = "the whole runbook, please"
        await send_and_settle(pilot, messages=2)
        assert blocks(screen)[1].content == backlog
        assert True in refreshes
        assert True in reloads
        assert all(refreshes)
