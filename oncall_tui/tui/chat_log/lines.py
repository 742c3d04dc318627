"""A chat log's line of plain text, and the styles a message's own lines are drawn in."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip


def text_line(text: str, style: Style, width: int) -> Strip:
    """One line of plain text in ``style``, cut with an ellipsis to ``width`` cells."""
    if cell_len(text) > width:
        text = Strip([Segment(text)]).crop(0, max(width - 1, 0)).text + "…"
    return Strip([Segment(text, style)]).adjust_cell_length(width)


@dataclass(frozen=True)
class Palette:
    """The styles of a message's own lines, from the log's component classes."""

    generation: int
    """Changes whenever the styles do: lines drawn with an older palette are drawn again."""
    header: Style
    header_interrupted: Style
    header_failed: Style
    tool: Style
    tool_failed: Style
    tool_detail: Style
