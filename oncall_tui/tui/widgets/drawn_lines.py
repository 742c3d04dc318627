"""The chat log's lines as drawn, kept by line of the log."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter
from textual.strip import Strip

MAX_DRAWN = 2_000
"""Drawn lines kept at most (a few screens): past it they are all dropped and drawn again."""


@dataclass(frozen=True)
class Drawing:
    """How lines are drawn in a repaint: any change draws every line again."""

    width: int = 0
    style: Style = field(default_factory=Style)
    """The log's own style (its colours); a line's content is drawn on it."""
    cursor: int | None = None
    """The entry drawn selected, if the log has focus."""
    focused: bool = False
    filters: tuple[LineFilter, ...] = ()
    """The app's line filters (colour conversion, monochrome, dim)."""
    background: Color = field(default_factory=lambda: Color(0, 0, 0))


class DrawnLines:
    """Lines as drawn, by line of the log (not of the view). As a reply streams in, the view
    scrolls over lines already drawn: only the new ones are drawn. Lines are dropped from
    where something changed (``forget_from``), or all at once when the drawing changes.

    A line is its content on the log's style, cut or padded to the width, through the app's
    line filters: what Textual's styling of each line does for a widget without border,
    padding, tint or opacity, done once per line rather than for every line on every frame.
    """

    def __init__(self) -> None:
        self.drawing = Drawing()
        self._lines: dict[int, Strip] = {}

    def begin(self, drawing: Drawing, view: range) -> None:
        """Start a repaint drawn as ``drawing`` of the lines in ``view``."""
        if drawing != self.drawing:
            self.drawing = drawing
            self._lines.clear()
        elif len(self._lines) > MAX_DRAWN:  # keep what is in view: the rest is drawn if needed
            self._lines = {y: line for y, line in self._lines.items() if y in view}

    def line(self, y: int, content: Callable[[int], Strip | None]) -> Strip:
        """Line ``y`` of the log: kept, or drawn from ``content(y)`` (None past the end)."""
        if (line := self._lines.get(y)) is not None:
            return line
        drawing = self.drawing
        drawn = content(y)
        style = drawing.style
        line = Strip.blank(drawing.width, style) if drawn is None else drawn.apply_style(style)
        line = line.adjust_cell_length(drawing.width, style)
        for line_filter in drawing.filters:
            line = line.apply_filter(line_filter, drawing.background)
        self._lines[y] = line
        return line

    def forget_from(self, y: int) -> None:
        """Drop the lines from line ``y`` of the log on."""
        for drawn in [line for line in self._lines if line >= y]:
            del self._lines[drawn]

    def clear(self) -> None:
        self._lines.clear()
