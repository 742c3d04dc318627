"""Plain text that lays the screen out only when its height changes."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static


class PlainText(Static):
    """A ``Static`` for text the app writes (status, panel values), never markup.

    ``Static.update`` lays out the whole screen, which with every pane on it costs tens of
    milliseconds: a frame that stalls a streaming reply. The status line and the panel's values
    change around every send, mostly to text of the same height, or to the same text.
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

    @property
    def text(self) -> str:
        return str(self.content)

    def show(self, text: str) -> None:
        """Show ``text``: nothing to do if it is shown already, a repaint if it wraps to as many
        lines as the text it replaces, and a layout only if the height changes."""
        shown = self.text
        if text == shown:
            return
        width = self.content_size.width
        same_height = width > 0 and self._rows(shown, width) == self._rows(text, width)
        self.update(text, layout=not same_height)

    def _rows(self, text: str, width: int) -> int:
        return Content(text).get_height(self.styles.get_rules(), width)
