"""The key bar: the screen's keys on one line, the palette's at the right edge, clickable."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from oncall_tui.tui.screens.keys import KeysScreen
from oncall_tui.tui.widgets.key_bar import KeyBar
from tests.tui.harness import scripted_app, spy, wait_until


class TwoKeys(App[None]):
    """Two keys and the palette's; ``beta`` is disabled while ``beta_enabled`` is false."""

    BINDINGS = [
        Binding("a", "alpha", "Alpha", tooltip="the first"),
        Binding("b", "beta", "Beta"),
        Binding("c", "alpha", "Again"),  # a second key of the same action: not shown
    ]

    def __init__(self) -> None:
        super().__init__()
        self.beta_enabled = True
        self.ran: list[str] = []

    def compose(self) -> ComposeResult:
        yield KeyBar()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return None if action == "beta" and not self.beta_enabled else True

    def action_alpha(self) -> None:
        self.ran.append("alpha")

    def action_beta(self) -> None:
        self.ran.append("beta")


class Field(Static, can_focus=True):
    """A focusable widget with a key of its own."""

    BINDINGS = [Binding("x", "noop", "Expand")]

    def action_noop(self) -> None:
        pass


class WithField(TwoKeys):
    def compose(self) -> ComposeResult:
        yield Field("field")
        yield KeyBar()


def line(bar: KeyBar) -> str:
    return bar.render().plain


async def test_two_keys_and_the_palette_fill_the_line_exactly_at_their_width() -> None:
    async with TwoKeys().run_test(size=(40, 5)) as pilot:
        bar = pilot.app.query_one(KeyBar)
        await pilot.pause()
        keys = [key.key for key in bar.shown]
        assert keys == ["a", "b", "ctrl+p"], bar.shown  # "c" is alpha's second key
        palette = bar.shown[-1]
        assert line(bar).endswith(f"▏{palette.display} {palette.description}")
        # The narrowest line that holds both keys: "a Alpha b Beta", a space, the rule, palette.
        both = bar.shown[1].end + 2 + (palette.end - palette.start)
    async with TwoKeys().run_test(size=(both, 5)) as pilot:
        bar = pilot.app.query_one(KeyBar)
        await pilot.pause()
        assert [key.key for key in bar.shown] == ["a", "b", "ctrl+p"]
        assert bar.shown[-1].end == both
        assert line(bar) == f"a Alpha b Beta ▏{palette.display} {palette.description}"
    async with TwoKeys().run_test(size=(both - 1, 5)) as pilot:
        bar = pilot.app.query_one(KeyBar)
        await pilot.pause()
        assert [key.key for key in bar.shown] == ["a", "ctrl+p"]  # beta would not fit whole
        assert bar.shown[-1].end == both - 1
        assert "Beta" not in line(bar)


async def test_a_click_presses_the_key_and_a_disabled_key_only_rings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = TwoKeys()
    async with app.run_test(size=(60, 5)) as pilot:
        bar = app.query_one(KeyBar)
        await pilot.pause()
        alpha, beta = bar.shown[0], bar.shown[1]
        await pilot.click(KeyBar, offset=(alpha.start, 0))
        await pilot.click(KeyBar, offset=(beta.end - 1, 0))
        assert app.ran == ["alpha", "beta"]
        app.beta_enabled = False
        app.refresh_bindings()
        await wait_until(pilot, lambda: not bar.shown[1].enabled)
        bells = spy(monkeypatch, app, "bell")
        await pilot.click(KeyBar, offset=(beta.start, 0))
        await pilot.click(KeyBar, offset=(alpha.end, 0))  # the space between two keys
        assert app.ran == ["alpha", "beta"]
        assert len(bells) == 1


async def test_hovering_a_key_says_what_it_does() -> None:
    app = TwoKeys()
    async with app.run_test(size=(60, 5)) as pilot:
        bar = app.query_one(KeyBar)
        await pilot.pause()
        await pilot.hover(KeyBar, offset=(bar.shown[0].start + 1, 0))
        assert bar.tooltip == "the first"
        await pilot.hover(KeyBar, offset=(bar.shown[1].start, 0))
        assert bar.tooltip == "Beta"  # no tooltip: its description
        await pilot.hover(KeyBar, offset=(bar.shown[1].end, 0))
        assert bar.tooltip is None


@pytest.mark.parametrize(
    ("lang", "palette"), [("en", "^p palette"), ("zh", "^p 命令")], ids=["en", "zh"]
)
@pytest.mark.parametrize("width", [120, 80, 60])
async def test_the_main_screen_shows_whole_keys_and_the_palette_at_the_edge(
    tmp_path: Path, width: int, lang: str, palette: str
) -> None:
    """Double-width descriptions are measured in cells: at 80 columns the Chinese palette key
    is whole (Textual's footer drew it over the other keys and cut its last character)."""
    app, _ = scripted_app(tmp_path / "t.db", lang="zh" if lang == "zh" else "en")
    async with app.run_test(size=(width, 24)) as pilot:
        bar = app.screen.query_one(KeyBar)
        await wait_until(pilot, lambda: bool(bar.shown))
        text = line(bar)
        assert text.endswith(f"▏{palette}"), text
        assert bar.shown[-1].end == width
        assert bar.shown[0].key == "ctrl+q"  # quitting is always on the bar
        for key in bar.shown:
            assert f"{key.display} {key.description}" in text


async def test_a_click_on_a_key_of_the_main_screen_runs_it(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 40)) as pilot:
        bar = app.screen.query_one(KeyBar)
        await wait_until(pilot, lambda: bool(bar.shown))
        keys = next(key for key in bar.shown if key.key == "f1")
        await pilot.click(KeyBar, offset=(keys.start, 0))
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))


async def test_while_the_terminal_has_not_the_focus_the_bar_keeps_the_keys_it_showed() -> None:
    """Textual takes the focus off the screen when the terminal loses it (another tmux pane):
    the bar goes on showing the focused widget's keys, as Textual's footer does, even when it is
    drawn again meanwhile (a resize)."""
    app = WithField()
    async with app.run_test(size=(60, 5)) as pilot:
        bar = app.query_one(KeyBar)
        app.query_one(Field).focus()
        await wait_until(pilot, lambda: "x" in [key.key for key in bar.shown])
        app.post_message(events.AppBlur())
        await wait_until(pilot, lambda: not app.app_focus and app.screen.focused is None)
        await pilot.resize_terminal(61, 5)
        await wait_until(pilot, lambda: bar.size.width == 61 and bar.shown[-1].end == 61)
        assert "x" in [key.key for key in bar.shown]
        app.post_message(events.AppFocus())
        await wait_until(pilot, lambda: app.screen.focused is app.query_one(Field))
        assert "x" in [key.key for key in bar.shown]
