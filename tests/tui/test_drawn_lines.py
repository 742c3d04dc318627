"""The log's drawn lines: kept by line of the log, dropped from a change on, or when the way
they are drawn changes; past MAX_DRAWN only the lines in view are kept."""

from __future__ import annotations

from rich.segment import Segment
from textual.strip import Strip

from oncall_tui.tui.widgets.drawn_lines import MAX_DRAWN, Drawing, DrawnLines

WIDTH = 20


class Content:
    """Line ``y`` of a log of ``total`` lines, counting how often a line is drawn."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.drawn = 0

    def __call__(self, y: int) -> Strip | None:
        self.drawn += 1
        return Strip([Segment(f"line {y}")]) if y < self.total else None


def draw(lines: DrawnLines, content: Content, ys: range) -> list[str]:
    return [lines.line(y, content).text.rstrip() for y in ys]


def test_kept_lines_are_drawn_once_and_padded_to_the_width() -> None:
    lines, content = DrawnLines(), Content(total=10)
    lines.begin(Drawing(WIDTH), range(0, 12))
    first = draw(lines, content, range(0, 12))
    assert first[9:] == ["line 9", "", ""]  # past the end: blank
    assert all(lines.line(y, content).cell_length == WIDTH for y in range(12))
    assert draw(lines, content, range(0, 12)) == first
    assert content.drawn == 12  # the second time, all were kept


def test_a_change_drops_lines_from_there_on_and_a_new_drawing_drops_all() -> None:
    lines, content = DrawnLines(), Content(total=10)
    lines.begin(Drawing(WIDTH), range(0, 10))
    draw(lines, content, range(10))
    lines.forget_from(6)
    draw(lines, content, range(10))
    assert content.drawn == 10 + 4
    lines.begin(Drawing(WIDTH, focused=True), range(0, 10))
    draw(lines, content, range(10))
    assert content.drawn == 10 + 4 + 10


def test_past_the_bound_only_the_lines_in_view_are_kept() -> None:
    lines, content = DrawnLines(), Content(total=MAX_DRAWN + 50)
    drawing, view = Drawing(WIDTH), range(MAX_DRAWN - 10, MAX_DRAWN + 1)
    lines.begin(drawing, view)
    draw(lines, content, range(MAX_DRAWN))  # at the bound: all kept
    lines.begin(drawing, view)
    draw(lines, content, range(MAX_DRAWN))
    assert content.drawn == MAX_DRAWN
    draw(lines, content, range(MAX_DRAWN, MAX_DRAWN + 1))  # one past it
    lines.begin(drawing, view)
    before = content.drawn
    draw(lines, content, view)  # the view was kept
    assert content.drawn == before
    draw(lines, content, range(0, 5))  # the rest is drawn again
    assert content.drawn == before + 5
