"""Moving a scrollbar without repainting it when what it draws stays the same.

A log that follows a streaming reply scrolls on every flush, and Textual repaints the
scrollbar on every change of its position or of the scrollable size: all its lines, through
the whole styling pipeline, about 2 ms a frame. Once the log is a few screens long, its thumb
is one cell sitting at the bottom, and those repaints draw the same bar again.
"""

from __future__ import annotations

from math import ceil

from rich.segment import Segment
from textual.scrollbar import ScrollBar, ScrollBarRender


def bar_cells(bar: ScrollBar, virtual: int, position: float) -> list[Segment]:
    """What ``bar`` draws for a scrollable size and a position (as ``ScrollBar.render``
    asks its renderer to draw, at the bar's size; colours aside, which a move does not
    change)."""
    window = bar.window_size if bar.window_size < virtual else 0
    length, thickness = bar.size if not bar.vertical else reversed(bar.size)
    drawn = ScrollBarRender.render_bar(
        size=length,
        virtual_size=ceil(virtual),
        window_size=ceil(window),
        position=position,
        thickness=thickness,
        vertical=bar.vertical,
    )
    return drawn.segments


def move_quietly(
    bar: ScrollBar, *, virtual: int | None = None, position: float | None = None
) -> None:
    """Give ``bar`` a new scrollable size and/or position, repainting it only if it then
    draws a different bar. (Setting them afterwards, as Textual does as the view scrolls, is
    then no change, so no repaint either.)"""
    new_virtual = bar.window_virtual_size if virtual is None else virtual
    new_position = bar.position if position is None else position
    if bar_cells(bar, bar.window_virtual_size, bar.position) == bar_cells(
        bar, new_virtual, new_position
    ):
        bar.set_reactive(ScrollBar.window_virtual_size, new_virtual)
        bar.set_reactive(ScrollBar.position, new_position)
    else:
        bar.window_virtual_size = new_virtual
        bar.position = new_position
