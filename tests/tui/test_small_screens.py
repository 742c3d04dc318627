"""At 80x24 and after a resize: the keys that matter stay in the footer, the chat keeps its
width, the gauge's figures stay in sight, messages are never cut, and focus is a visible
bar or border on every pane."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.widget import Widget

from oncall_tui.tui.app import OncallApp
from oncall_tui.tui.chat_log import ChatLog
from oncall_tui.tui.panes.layout import SESSIONS_FOLD
from oncall_tui.tui.screens.keys import KeysScreen
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.context_panel import ContextPanel
from oncall_tui.tui.widgets.key_bar import KeyBar
from oncall_tui.tui.widgets.plain_text import PlainText
from oncall_tui.tui.widgets.session_list import SessionList
from tests.fakes.ollama_server import FakeOllama
from tests.terminal import Terminal, wait_for
from tests.tui.harness import screen_rows, scripted_app, seed_session, settled, wait_until


def main(app: OncallApp) -> MainScreen:
    screen = app.screen_stack[0]
    assert isinstance(screen, MainScreen)
    return screen


def shown(widget: Widget) -> bool:
    """Whether ``widget`` is displayed (a call, so each check reads it anew)."""
    return bool(widget.display)


def edge(widget: Widget, side: str) -> str:
    """The kind of border ``widget`` has on ``side`` now."""
    kind: str = getattr(widget.styles, f"border_{side}")[0]
    return kind


def footer_keys(app: OncallApp, width: int) -> list[str]:
    """The footer's keys that are wholly on screen, as their descriptions."""
    bar = app.screen.query_one(KeyBar)
    return [key.description for key in bar.shown if bar.region.x + key.end <= width]


async def test_at_80_columns_the_footer_keeps_quit_keys_and_panel(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(80, 24)) as pilot:
        await app.workers.wait_for_complete()
        await settled(pilot)
        shown = footer_keys(app, 80)
        assert {"Quit", "Keys", "Panel"} <= set(shown), shown


async def test_at_80_columns_the_panel_opens_over_the_chat(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main(app)
        await app.workers.wait_for_complete()
        chat = screen.query_one(ChatLog)
        panel = screen.query_one(ContextPanel)
        assert not shown(panel)
        width = chat.size.width
        assert width >= 50
        await pilot.press("ctrl+b")
        await settled(pilot)
        assert shown(panel)
        assert chat.size.width == width  # over it, not beside it
        assert panel.region.right == 80


@pytest.mark.parametrize("typed_in", ["panel", "composer"])
async def test_typing_with_the_panel_over_the_chat_closes_it_and_goes_on_in_the_composer(
    tmp_path: Path, typed_in: str
) -> None:
    """At 80 columns the panel opens over the chat and the composer: typing in the panel went
    on in a composer the panel hid, and so did typing in the composer, where ctrl+b leaves the
    focus (most of it out of sight)."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main(app)
        await app.workers.wait_for_complete()
        panel, composer = screen.query_one(ContextPanel), screen.query_one(Composer)
        await pilot.press("ctrl+b")
        await settled(pilot)
        assert shown(panel)
        assert composer.has_focus
        if typed_in == "panel":
            await pilot.press("tab")  # from the composer into the panel (its controls wait for
            assert panel.has_focus_within  # a session: the panel's scroll has the focus)
        await pilot.press(*"why")
        await wait_until(pilot, lambda: not shown(panel))
        assert composer.has_focus
        assert composer.text == "why"


async def test_a_resize_applies_the_same_rules_both_ways(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 36)) as pilot:
        screen = main(app)
        panel = screen.query_one(ContextPanel)
        assert panel.display
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: not panel.display)
        assert screen.query_one(ChatLog).size.width >= 50
        await pilot.resize_terminal(120, 36)
        await wait_until(pilot, lambda: panel.display)
        assert not screen.has_class("-narrow")


async def test_the_gauges_figures_stay_in_sight_without_the_panel(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(80, 24)) as pilot:
        composer = app.query_one(Composer)
        await wait_until(pilot, lambda: "% of 8,192" in str(composer.border_title))
        assert str(composer.border_title).startswith("context ")


async def test_a_long_status_message_is_wrapped_in_full(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main(app)
        status = screen.query_one("#status", PlainText)
        words = " ".join(f"word{n}" for n in range(60))  # about six lines at this width
        screen.status.say(words + " END.", error=True)
        await settled(pilot)
        assert status.size.height >= 6
        rendered = [line.text for line in status.render_lines(status.region.reset_offset)]
        assert "END." in " ".join(rendered)


async def test_f1_opens_the_keys_and_closes_them(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))


async def test_focus_is_a_bar_or_border_on_every_pane(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 36)) as pilot:
        screen = main(app)
        composer = app.query_one(Composer)
        log = screen.query_one(ChatLog)
        await wait_until(pilot, lambda: app.focused is composer)
        screen.shown.open(seed_session(app, 1))  # an empty log takes no focus
        await wait_until(pilot, lambda: bool(log.messages))
        assert edge(composer, "top") == "thick"
        assert edge(log, "left") == "vkey"
        log.focus()
        await settled(pilot)
        assert edge(log, "left") == "outer"
        assert edge(composer, "top") == "hkey"
        await pilot.press("alt+l")
        await settled(pilot)
        assert app.focused is not None
        assert app.focused.id == "session-filter"
        assert app.focused.styles.text_style.bold


async def test_focus_in_the_prompt_editor_and_skill_library_is_a_heavy_border(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 36)) as pilot:
        for key, field in (("f3", "#prompt-list"), ("f4", "#skill-path")):
            await pilot.press(key)
            await wait_until(pilot, lambda: app.screen is not app.screen_stack[0])
            await wait_until(pilot, lambda: app.focused is not None)
            focused = app.focused
            assert focused is not None
            assert f"#{focused.id}" == field
            assert edge(focused, "top") == "heavy"
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is app.screen_stack[0])


@pytest.mark.parametrize("width", [60, 69, 70, 80, 100, 119])
async def test_below_120_columns_the_chat_keeps_three_fifths_of_the_width(
    tmp_path: Path, width: int
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(width, 24)) as pilot:
        screen = main(app)
        await app.workers.wait_for_complete()
        await settled(pilot)
        centre = screen.query_one("#centre")
        assert centre.region.width >= 0.6 * width, (centre.region.width, width)
        # still there, narrower; below 70 columns folded away, the chat the whole width
        assert screen.query_one(SessionList).display == (width >= SESSIONS_FOLD)
        assert not screen.query_one(ContextPanel).display  # folded: opens over the chat


async def test_a_panel_hidden_with_ctrl_b_stays_hidden_through_resizes(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 36)) as pilot:
        screen = main(app)
        panel = screen.query_one(ContextPanel)
        await pilot.press("ctrl+b")
        await wait_until(pilot, lambda: not panel.display)
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: screen.has_class("-narrow"))
        await pilot.resize_terminal(130, 36)
        await wait_until(pilot, lambda: not screen.has_class("-narrow"))
        await settled(pilot)
        assert not panel.display
        await pilot.press("ctrl+b")  # and it comes back when asked
        await wait_until(pilot, lambda: panel.display)


async def test_the_sessions_pane_hides_with_alt_1_and_stays_hidden_until_asked(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main(app)
        sessions = screen.query_one(SessionList)
        centre = screen.query_one("#centre")
        await app.workers.wait_for_complete()
        await pilot.press("alt+1")
        await wait_until(pilot, lambda: not sessions.display)
        await settled(pilot)
        assert centre.region.width == 80  # the chat takes its width
        for width in (60, 130):  # folded by the width, or wide enough for it: as it was hidden
            await pilot.resize_terminal(width, 36)
            await settled(pilot)
            assert not sessions.display
        await pilot.press("alt+1")
        await wait_until(pilot, lambda: sessions.display)
        await pilot.press("alt+1")
        await wait_until(pilot, lambda: not sessions.display)
        await pilot.press("alt+l")  # filtering the sessions shows them
        await wait_until(pilot, lambda: sessions.display)
        assert getattr(app.focused, "id", None) == "session-filter"


async def test_in_half_a_split_terminal_the_sessions_fold_away_until_alt_1_shows_them(
    tmp_path: Path,
) -> None:
    """At 60 columns (a 120-column terminal split in two) the chat has the whole width; the
    key bar says alt+1. Shown with it, the pane stays through resizes; left to the width, it
    comes back at 70 columns and folds again below."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(60, 20)) as pilot:
        screen = main(app)
        sessions = screen.query_one(SessionList)
        centre = screen.query_one("#centre")
        await app.workers.wait_for_complete()
        await settled(pilot)
        assert not sessions.display
        assert centre.region.width == 60
        assert "alt+1 Sessions" in screen_rows(app)[-1]
        for width, shown in ((70, True), (69, False), (100, True), (60, False)):
            await pilot.resize_terminal(width, 20)
            await settled(pilot)
            assert sessions.display == shown, width
        await pilot.press("alt+1")
        await wait_until(pilot, lambda: sessions.display)
        await settled(pilot)
        assert centre.region.width == 60 - sessions.region.width
        for width in (50, 130, 60):
            await pilot.resize_terminal(width, 20)
            await settled(pilot)
            assert sessions.display, width


async def test_hiding_the_pane_that_has_the_focus_gives_it_to_the_composer(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("alt+l")
        await wait_until(pilot, lambda: getattr(app.focused, "id", None) == "session-filter")
        await pilot.press("alt+1")
        await wait_until(pilot, lambda: isinstance(app.focused, Composer))


async def test_the_sessions_filter_row_has_the_lists_left_border(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = main(app)
        await app.workers.wait_for_complete()
        await settled(pilot)
        field = screen.query_one("#session-filter")
        options = screen.query_one("#session-options")
        assert edge(field, "left") == edge(options, "left") == "vkey"
        assert field.content_region.x == options.content_region.x


def test_the_footer_leaves_no_stray_characters_after_a_resize(
    tmp_path: Path, ollama: FakeOllama
) -> None:
    """In a real terminal: the footer's last cell is drawn at every width, so nothing of a
    wider frame is left beside the palette's key."""
    env = {
        **os.environ,
        "ONCALL_TUI_DB": str(tmp_path / "oncall.db"),
        "ONCALL_TUI_USER": "alice",
        "OLLAMA_HOST": ollama.url,
        "ONCALL_TUI_MODEL": "qwen3:8b",
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
    }
    terminal = Terminal(env, columns=100, lines=30)
    try:
        terminal.wait_to_show("^p palette")
        for columns, lines in ((80, 24), (60, 20), (100, 30), (60, 20)):
            terminal.resize_to(columns, lines)

            def footer_ends_clean(last: int = lines - 1) -> bool:
                # A cell no widget draws keeps what was there: the row would never end so.
                return terminal.rows()[last].endswith("^p palette")

            wait_for(footer_ends_clean, timeout=10, what=f"the footer at {columns} columns")
    finally:
        terminal.quit()


async def test_a_resize_to_60_columns_under_the_keys_help_lays_the_chat_out_whole(
    tmp_path: Path,
) -> None:
    """The main screen is drawn behind the dialog at the new width before its panes are
    fitted to it: the chat keeps a width even in that frame (at none, the composer's
    placeholder could not be wrapped and the app ended)."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = main(app)
        await app.workers.wait_for_complete()
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
        await pilot.resize_terminal(60, 20)
        await wait_until(pilot, lambda: screen.has_class("-narrow"))
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen)
        await settled(pilot)
        assert app.is_running
        assert screen.query_one("#centre").region.width >= 36
