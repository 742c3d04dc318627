"""Plain text that lays the screen out only when its height changes."""

from __future__ import annotations

from textual.content import Content
from textual.events import Resize
from textual.widgets import Static

from oncall_tui.tui.line_breaks import fitted, has_wide


class PlainText(Static):
    """A ``Static`` for text the app writes (status, panel values), never markup.

    ``Static.update`` lays out the whole screen, which with every pane on it costs tens of
    milliseconds: a frame that stalls a streaming reply. The status line and the panel's values
    change around every send, mostly to text of the same height, or to the same text.

    Chinese text is given to Textual already broken between its characters (Textual breaks at
    spaces only: :mod:`~oncall_tui.tui.line_breaks`), and broken again when the width changes.
    """

    def __init__(
        self,
        text: str = "",
        *,
        id: str | None = None,
        classes: str | None = None,
        disabled: bool = False,
    ):
        super().__init__(text, markup=False, id=id, classes=classes, disabled=disabled)
        self._said = text

    @property
    def text(self) -> str:
        """The text as given (without the line breaks added to fit it)."""
        return self._said

    def show(self, text: str) -> None:
        """Show ``text``: nothing to do if it is shown already, a repaint if it wraps to as many
        lines as the text it replaces, and a layout only if the height changes."""
        if text == self._said:
            return
        width = self.content_size.width
        shown, before = self._fitted(text, width), str(self.content)
        self._said = text
        same_height = width > 0 and self._rows(before, width) == self._rows(shown, width)
        self.update(shown, layout=not same_height)

    def on_resize(self, event: Resize) -> None:
        if has_wide(self._said):
            self.update(self._fitted(self._said, self.content_size.width))

    def _fitted(self, text: str, width: int) -> str:
        """``text`` broken to fit ``width``, unless this widget does not wrap (one line, cut)."""
        return text if self.styles.text_wrap == "nowrap" else fitted(text, width)

    def _rows(self, text: str, width: int) -> int:
        return Content(text).get_height(self.styles.get_rules(), width)
