"""Typing in a pane that takes no characters goes on in the composer.

An engineer who Tabbed into the messages (or the sessions, or the panel) to read them types the
next question there; those panes take no characters, so it was lost, and its Enter opened a
message. A character that no key on the focus's way takes (the pane's own, the screen's) is
handed to the composer with the focus; the keys of the same read, already handed to the pane
before the focus moved, follow it there, Enter included (``Composer.type_key``).
"""

from __future__ import annotations

from collections.abc import Callable

from textual import events
from textual.widget import Widget

Typed = Callable[[str, "str | None"], None]
"""Takes a key typed for the composer: its name and its character."""


class TypingHandOff:
    """The hand-off of one pane; the pane calls :meth:`key` from its ``on_key`` and
    :meth:`back` when the focus comes back into it."""

    def __init__(self, pane: Widget, typed: Typed | None) -> None:
        self._pane = pane
        self._typed = typed
        self._away = False
        """A character typed here sent the focus to the composer."""

    def key(self, event: events.Key) -> None:
        if self._typed is None:
            return
        if not (self._away and not self._pane.has_focus_within):
            character = event.character
            typing = event.is_printable and bool(character)
            if not typing or event.key in self._pane.screen.active_bindings:
                return
        event.stop()
        event.prevent_default()
        self._away = True
        self._typed(event.key, event.character)

    def back(self) -> None:
        self._away = False
