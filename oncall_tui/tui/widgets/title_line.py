"""A one-line title: what is shown, then its flags, the first flag never cut off.

The prompt editor's title said "Editing: <label> · default · active · modified" on one row cut
at the pane's right edge: a long label, or a narrow terminal, hid "modified", and with it that
the edits were unsaved. Here the name is cut first ("…"; it is in full in the field below it),
so that the first flag (the one that matters most) stays in view; the flags after it may still
be cut off at the edge.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.content import Content
from textual.widgets import Static

from oncall_tui.core.text import terminal_safe


class TitleLine(Static):
    DEFAULT_CSS = "TitleLine { height: 1; }"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self._subject = ""
        self._framed: Callable[[str], str] = str
        self._flags: tuple[str, ...] = ()

    def show(self, name: str, flags: Sequence[str], framed: Callable[[str], str] = str) -> None:
        """``framed(name)`` (``Editing: {name}``), then each flag after a ``·``, the most
        important first."""
        self._subject, self._framed = terminal_safe(name), framed
        self._flags = tuple(terminal_safe(flag) for flag in flags)
        self.refresh()

    def render(self) -> Content:
        return Content(self._line(self.size.width))

    def _line(self, room: int) -> str:
        flags, name = self._flags, self._subject
        first = self._framed(name) + "".join(f" · {flag}" for flag in flags[:1])
        if room and cell_len(first) > room:
            cut = Text(name)
            cut.truncate(max(1, cell_len(name) - (cell_len(first) - room)), overflow="ellipsis")
            name = cut.plain
        return self._framed(name) + "".join(f" · {flag}" for flag in flags)
