"""The screen's keys on its last line, drawn as one widget.

Textual's ``Footer`` shows the same keys as a widget per key, and builds them anew at every
change of focus: styling those widgets made a Tab cost four times what it does here
(``bench/focus.py``). This bar reads the screen's active bindings when it draws, and
draws them as one line of text: the keys that fit whole, from the left, and the command
palette's key at the right edge. A click on a key presses it; hovering one says what it does.
"""

from __future__ import annotations

from typing import NamedTuple

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text
from textual import events
from textual.screen import Screen
from textual.widget import Widget

from oncall_tui.tui.commands import COMMANDS

FOOTER_ORDER = {command.id: place for place, command in enumerate(COMMANDS)}
"""Where each of the main screen's actions stands on the bar, by its binding id."""


class Key(NamedTuple):
    """A key to show: pressed as ``key``, drawn as ``display`` and ``description``."""

    key: str
    display: str
    description: str
    tooltip: str
    enabled: bool

    @property
    def width(self) -> int:
        return cell_len(f"{self.display} {self.description}")


class ShownKey(NamedTuple):
    """A key the bar draws whole, and the cells it takes (``start`` to ``end``)."""

    key: str
    display: str
    description: str
    tooltip: str
    enabled: bool
    start: int
    end: int


class KeyBar(Widget, can_focus=False):
    """One line of ``key description`` pairs, a cell apart, and the palette's key at the right,
    after a thin rule. Bindings of the same action show once (the first key); a disabled one is
    dim and a click on it rings the bell."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {"key-bar--key", "key-bar--description", "key-bar--rule", "key-bar--hover"}
    DEFAULT_CSS = """
    KeyBar {
        dock: bottom;
        height: 1;
        text-wrap: nowrap;
        text-overflow: clip;
        color: $footer-foreground;
        background: $footer-background;
        .key-bar--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .key-bar--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .key-bar--rule {
            color: $foreground 20%;
        }
        .key-bar--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
    }
    """

    def __init__(self) -> None:
        super().__init__()
        self.shown: list[ShownKey] = []
        """The keys drawn at the last paint, left to right (the palette's last)."""
        self._hovered: str | None = None
        self._bound: tuple[list[Key], Key | None] | None = None
        """The keys as last read while the app had the terminal's focus."""

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self._bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def _bindings_changed(self, _screen: Screen[object]) -> None:
        self.refresh()

    def _keys(self) -> tuple[list[Key], Key | None]:
        """The keys to show, and the palette's key apart (``None``: the app has none)."""
        app = self.app
        active = self.screen.active_bindings
        keys: list[Key] = []
        actions: set[str] = set()
        ids: list[str | None] = []
        for _node, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in actions:
                actions.add(binding.action)
                display = app.get_key_display(binding)
                keys.append(Key(binding.key, display, binding.description, tooltip, enabled))
                ids.append(binding.id)
        # A rebound action's bindings come last (Textual's keymap appends them): the main
        # screen's stay in their places, as in the table of commands (at 80 columns, in sight).
        places = [place for place, binding_id in enumerate(ids) if binding_id in FOOTER_ORDER]
        ordered = sorted(places, key=lambda place: FOOTER_ORDER[ids[place] or ""])
        if ordered != places:  # something was rebound
            found = {place: keys[place] for place in places}
            for place, source in zip(places, ordered, strict=True):
                keys[place] = found[source]
        palette = active.get(app.COMMAND_PALETTE_BINDING) if app.ENABLE_COMMAND_PALETTE else None
        if palette is None:
            return keys, None
        _node, binding, enabled, _tooltip = palette
        display = app.get_key_display(binding)
        about = binding.tooltip or binding.description
        return keys, Key(binding.key, display, binding.description, about, enabled)

    def render(self) -> Text:
        width = self.size.width
        # As Textual's footer: while the terminal has not the focus (Textual takes the focus
        # off the screen then), the keys lost with it stay on the bar.
        if self._bound is None or self.app.app_focus:
            self._bound = self._keys()
        keys, palette = self._bound
        line = Text(no_wrap=True, overflow="crop", end="")
        shown: list[ShownKey] = []
        # A key fits if a space, the rule and the palette's key still do after it.
        limit = width - (palette.width + 2 if palette else 0)
        for key in keys:
            start = line.cell_len
            if start + key.width > limit:
                break
            self._append(line, key)
            shown.append(ShownKey(*key, start, line.cell_len))
            line.append(" ")
        if palette is not None and limit >= 0:
            line.append(" " * (limit + 1 - line.cell_len))
            line.append("▏", self.get_component_rich_style("key-bar--rule"))
            start = line.cell_len
            self._append(line, palette)
            shown.append(ShownKey(*palette, start, line.cell_len))
        line.truncate(width)
        self.shown = shown
        return line

    def _append(self, line: Text, key: Key) -> None:
        start = len(line)
        line.append(key.display, self.get_component_rich_style("key-bar--key"))
        line.append(" ")
        line.append(key.description, self.get_component_rich_style("key-bar--description"))
        if not key.enabled:
            line.stylize(Style(dim=True), start)
        if key.key == self._hovered:
            line.stylize(self.get_component_rich_style("key-bar--hover"), start)

    def _at(self, x: int) -> ShownKey | None:
        return next((key for key in self.shown if key.start <= x < key.end), None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        key = self._at(event.x)
        if key is None:
            return
        if key.enabled:
            self.app.simulate_key(key.key)
        else:
            self.app.bell()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        key = self._at(event.x)
        hovered = key.key if key else None
        if hovered != self._hovered:
            self._hovered = hovered
            self.tooltip = key.tooltip or key.description if key else None
            self.refresh()

    def on_leave(self) -> None:
        if self._hovered is not None:
            self._hovered = None
            self.tooltip = None
            self.refresh()
