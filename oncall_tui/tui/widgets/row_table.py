"""A table whose cursor is a row: the skill library's list and the keys help."""

from __future__ import annotations

from typing import ClassVar, TypeVar

from textual.binding import Binding, BindingType
from textual.widgets import DataTable

Cell = TypeVar("Cell")


class RowTable(DataTable[Cell]):
    """Home and End go to the first and the last row, as in the app's other lists (Textual's
    table scrolls sideways with them, and an End pressed for the last skill did nothing)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("home", "scroll_top", show=False),
        Binding("end", "scroll_bottom", show=False),
    ]
