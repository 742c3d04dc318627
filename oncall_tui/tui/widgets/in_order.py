"""Editing keys applied in order with the characters typed around them.

Textual runs a widget's bindings (Backspace, ctrl+a, ctrl+k, Enter…) only once the key has
gone up to the app, while the characters typed behind it are inserted by the widget at once:
from a fast typist, a paste without brackets or ``tmux send-keys``, ``BSpace BSpace json``
wrote ``….mdjs`` instead of ``….json``. A widget with :class:`InOrderBindings` runs its own
bindings as its key handler, in the order the keys came; a key it has no binding for (or
whose action is not available now) goes on as before, to the screen's and the app's.

Here too, the keys every text area of the app adds to Textual's: ctrl+home and ctrl+end
(:data:`TEXT_ENDS`, :class:`TextEnds`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.widgets import Input

if TYPE_CHECKING:
    from textual.widget import Widget
    from textual.widgets import TextArea

    _Mixin = Widget
    _TextMixin = TextArea
else:  # not a widget class itself: Textual takes a widget's CSS from its first widget base
    _Mixin = _TextMixin = object


class InOrderBindings(_Mixin):
    """Mixed in before a Textual widget class: its own bindings run in its key handler."""

    async def on_key(self, event: events.Key) -> None:
        # Textual calls each class's key handler in turn, most derived first, until one
        # prevents the default: the widget's own (text insertion) comes after this one.
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if binding.priority:  # the app tried it before the key came here
                continue
            if await self.app.run_action(binding.action, self):  # check_action honoured
                event.stop()
                event.prevent_default()
                return


class InOrderInput(InOrderBindings, Input):
    """The one-line input of the app: export file name, session filter, rename, prompt label,
    skill path, search. A paste of several lines is kept whole, on one line (Textual's input
    keeps the first line only: the rest of a prompt pasted into its label was dropped, unsaid);
    what is too long for the field is then said as for typing. alt+a selects all, as in the
    composer (no key of the field, it was read as Esc and ``a``: the prompt editor closed)."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("alt+a", "select_all", show=False)]

    def on_paste(self, event: events.Paste) -> None:
        event.stop()
        event.prevent_default()  # Input's own, which keeps the first line, does not run after
        self.insert_pasted(event.text)

    def insert_pasted(self, text: str) -> None:
        """``text`` as pasted here: its lines joined by a space (blank ones left out), in place
        of the selection or at the cursor; cut to the field's ``max_length``, if it has one
        (a 270-character line pasted into the search, whose bound is 200, was dropped)."""
        line = " ".join(part for part in text.splitlines() if part.strip())
        if not line:
            return
        start, end = sorted(self.selection)
        if self.max_length:  # Textual's input drops a paste it cannot take whole, unsaid
            room = self.max_length - len(self.value) + (end - start)
            if len(line) > room:
                line = line[: max(0, room)]  # what fits is kept, and the bell says the rest
                self.app.bell()
        self.replace(line, start, end)


TEXT_ENDS: list[BindingType] = [
    Binding("ctrl+home", "cursor_text_start", show=False),
    Binding("ctrl+end", "cursor_text_end", show=False),
    Binding("ctrl+shift+home", "cursor_text_start(True)", show=False),
    Binding("ctrl+shift+end", "cursor_text_end(True)", show=False),
]
"""ctrl+home and ctrl+end: the start and the end of a text area's text (with shift, selecting),
as in other editors. Textual's own keys reach only a line's ends: a pasted log's end was a
page of ↓ away. Bound by each area with :class:`TextEnds`."""


class TextEnds(_TextMixin):
    """Mixed in before ``TextArea``, with :data:`TEXT_ENDS` in the area's bindings: not a widget
    class between them, which would change the composer's place in the CSS (its styles parsed
    again on the way to the first frame)."""

    def action_cursor_text_start(self, select: bool = False) -> None:
        self.move_cursor((0, 0), select=select)

    def action_cursor_text_end(self, select: bool = False) -> None:
        self.move_cursor(self.document.end, select=select)
