"""Typing in a pane or a screen that takes no characters goes on in the composer.

An engineer who Tabbed into the messages (or the sessions, or the panel) to read them types the
next question there, or pastes a log; those panes take no characters, so it was lost, and its
Enter opened a message. A character that no key on the focus's way takes (the pane's own, the
screen's) is handed to the composer with the focus; the keys of the same read, already handed
to the pane before the focus moved, follow it there, Enter included (``Composer.type_key``). A
paste goes there whole. The skill library's list hands its typing to the path field the same
way.

A screen read over the chat (the keys help, the summary, the list of code blocks) closes at the
first character typed there, which goes on in the composer with every key behind it
(:class:`TypingClosesIt`): the question typed after reading was lost, and a ``q`` in it closed
the summary. A paste there goes to the composer whole and closes it too. A yes/no question over
the chat does the same at the first character that is not an answer, and closes unanswered
(``f7`` and "and now?" in one read lost the words).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from textual import events
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widget import Widget

from oncall_tui.tui.widgets.composer import Composer

Typed = Callable[[str, str | None], None]
"""Takes a key handed on (its name and character), as :meth:`Composer.type_key` does."""


class TypingField(Protocol):
    """Where typing is handed: it takes the focus with the first key (the composer; the skill
    library's path field)."""

    def type_key(self, key: str, character: str | None) -> None: ...

    def type_text(self, text: str) -> None: ...


class TypingHandOff:
    """The hand-off of one pane; the pane calls :meth:`key` and :meth:`paste` from its
    handlers and :meth:`back` when the focus comes back into it. ``field`` finds where the
    typing goes (by default the screen's composer); where there is none (a test's screen),
    nothing is handed."""

    def __init__(self, pane: Widget, field: Callable[[], TypingField | None] | None = None) -> None:
        self._pane = pane
        self._field = field or self._composer
        self._away = False
        """A character typed here sent the focus to the field."""

    def key(self, event: events.Key) -> None:
        if not (self._away and not self._pane.has_focus_within):
            if event.key in self._pane.screen.active_bindings:
                return  # the pane's, the screen's or the app's (the keys behind it wait for it)
            if not (event.is_printable and event.character):
                # No key takes it: it ends here. Gone on up to the app, it was matched there
                # against the focus of then, the composer's when a character typed behind it
                # had gone there first: an Enter in the chat or the panel sent that character.
                event.stop()
                event.prevent_default()
                return
        field = self._field()
        if field is None:
            return
        event.stop()
        event.prevent_default()
        self._away = True
        field.type_key(event.key, event.character)  # (the focus goes with it)

    def paste(self, event: events.Paste) -> None:
        field = self._field()
        if field is None:
            return
        event.stop()
        event.prevent_default()
        field.type_text(event.text)

    def back(self) -> None:
        self._away = False

    def _composer(self) -> Composer | None:
        try:
            return self._pane.screen.query_one(Composer)
        except NoMatches:
            return None


def composer_of(widget: Widget) -> Composer | None:
    """Where typing handed on from a screen opened over ``widget`` goes: its screen's
    composer (``None``: a screen without one)."""
    try:
        return widget.screen.query_one(Composer)
    except NoMatches:
        return None


class TypingClosesIt:
    """The hand-off of a screen read over the chat; the screen calls :meth:`key` and
    :meth:`paste` from its ``on_key`` and ``on_paste``. ``field`` takes what is typed and
    pasted (the composer; ``None``: a screen with no composer under it drops them)."""

    def __init__(
        self, screen: Screen[Any], field: TypingField | None, *, closed: object = None
    ) -> None:
        """``closed``: what the screen dismisses with as it closes (a question: no answer)."""
        self._screen = screen
        self._field = field
        self._closed = closed
        self._handing_on = False
        """A character was typed: the screen is closing, and every key that still comes to
        it goes on to the composer, in order."""

    @property
    def closing(self) -> bool:
        """A character was typed: every key that still comes is the composer's."""
        return self._handing_on

    def key(self, event: events.Key) -> None:
        typing = event.is_printable and bool(event.character)
        if self._field is None or not (typing or self._handing_on):
            if not typing and event.key not in self._screen.active_bindings:
                event.stop()  # no key takes it: it ends here, not in the composer (as above)
                event.prevent_default()
            return
        event.stop()
        event.prevent_default()
        self._field.type_key(event.key, event.character)
        self._close()

    def paste(self, event: events.Paste) -> None:
        """A paste is typing too: it goes to the composer whole, and the screen closes (a log
        pasted over the keys help or the summary was lost)."""
        if self._field is None:
            return
        event.stop()
        event.prevent_default()
        self._field.type_text(event.text)
        self._close()

    def close(self) -> bool:
        """Close the screen unanswered, for a key of the screen under it; ``False`` where
        there is no composer under it (nothing it closes for goes on there)."""
        if self._field is None:
            return False
        self._close()
        return True

    def _close(self) -> None:
        if not self._handing_on:
            self._handing_on = True
            self._screen.dismiss(self._closed)


class TypingGoesOn:
    """Mixed in ahead of a widget's or a screen's Textual class: the keys and pastes that come
    to it go to its ``_typing`` hand-off, which passes on what it does not take."""

    _typing: TypingHandOff | TypingClosesIt

    @property
    def closed_for_key_under(self) -> bool:
        return isinstance(self._typing, TypingClosesIt) and self._typing.closing

    def close_for_key_under(self) -> bool:
        """A screen read over the chat (:class:`~..key_order.ClosedByKeysUnder`)."""
        return isinstance(self._typing, TypingClosesIt) and self._typing.close()

    def on_key(self, event: events.Key) -> None:
        self._typing.key(event)

    def on_paste(self, event: events.Paste) -> None:
        self._typing.paste(event)
