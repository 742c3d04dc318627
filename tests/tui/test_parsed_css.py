"""The test processes' apps share their parsed CSS (``tests.parsed_css``): the same rules for
the same CSS and theme, their own for another theme."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.color import Color
from textual.widgets import Static


class Themed(App[None]):
    CSS = "Static { color: $primary; }"

    def __init__(self, theme: str) -> None:
        super().__init__()
        self.theme = theme

    def compose(self) -> ComposeResult:
        yield Static("x")


def app_rules(app: App[None]) -> list[object]:
    """The rules of the app's own CSS (its only rules that are not widgets' defaults)."""
    return [rule for rule in app.stylesheet.rules if not rule.is_default_rules]


async def colour_of_static(theme: str) -> tuple[Color, list[object]]:
    app = Themed(theme)
    async with app.run_test():
        return app.query_one(Static).styles.color, app_rules(app)


async def test_two_apps_with_one_theme_share_the_parsed_rules() -> None:
    first_colour, first = await colour_of_static("textual-dark")
    second_colour, second = await colour_of_static("textual-dark")
    assert first
    assert all(a is b for a, b in zip(first, second, strict=True))
    assert first_colour == second_colour


async def test_another_theme_gets_rules_parsed_with_its_colours() -> None:
    dark_colour, dark = await colour_of_static("textual-dark")
    light_colour, light = await colour_of_static("textual-light")
    assert not any(a is b for a, b in zip(dark, light, strict=True))
    assert dark_colour != light_colour
