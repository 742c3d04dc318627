"""Editing keys applied in order with the characters typed around them.

Textual runs a widget's bindings (Backspace, ctrl+a, ctrl+k, Enter…) only once the key has
gone up to the app, while the characters typed behind it are inserted by the widget at once:
from a fast typist, a paste without brackets or ``tmux send-keys``, ``BSpace BSpace json``
wrote ``….mdjs`` instead of ``….json``. A widget with :class:`InOrderBindings` runs its own
bindings as its key handler, in the order the keys came; a key it has no binding for (or
whose action is not available now) goes on as before, to the screen's and the app's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual import events
from textual.binding import Binding, BindingType
from textual.widgets import Input, TextArea

if TYPE_CHECKING:
    from textual.widget import Widget

    _Mixin = Widget
else:  # not a widget class itself: Textual takes a widget's CSS from its first widget base
    _Mixin = object


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
    skill path, search."""


class InOrderTextArea(InOrderBindings, TextArea):
    """The multi-line editor of the app: the composer, a prompt's content. ctrl+home and
    ctrl+end go to the start and the end of the text (with shift, selecting), as in other
    editors: Textual's own keys reach only a line's ends, and a pasted log's end was a page of
    ↓ away."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+home", "cursor_text_start", show=False),
        Binding("ctrl+end", "cursor_text_end", show=False),
        Binding("ctrl+shift+home", "cursor_text_start(True)", show=False),
        Binding("ctrl+shift+end", "cursor_text_end(True)", show=False),
    ]

    def action_cursor_text_start(self, select: bool = False) -> None:
        self.move_cursor((0, 0), select=select)

    def action_cursor_text_end(self, select: bool = False) -> None:
        self.move_cursor(self.document.end, select=select)
