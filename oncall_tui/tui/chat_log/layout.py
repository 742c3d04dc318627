"""Where the chat log's entries stand, and the lines drawn from them.

The log is laid out at one width: each entry's height, and the line each starts at. A line is
drawn once and kept (:data:`CACHED_LINES` of them) until its entry changes, the width or the
styles do, or it is drawn selected; an entry that grows moves the ones after it down.
"""

from __future__ import annotations

import itertools
from bisect import bisect_right

from rich.style import Style
from textual.cache import LRUCache
from textual.strip import Strip

CACHED_LINES = 256
"""Drawn lines kept (a few screens): scrolling back over them draws nothing again. Lines
further back are drawn again from their messages' rendered lines, which costs little; a strip
kept costs the garbage collector more than it saves (see :mod:`.markdown`)."""

DrawnKey = tuple[int, int, int | None, int, Style]
"""A drawn line: line of the log, width, entry drawn selected, styles generation, the log's
own style."""


class LogLayout:
    """The entries' lines at one width, and the lines drawn at it."""

    def __init__(self) -> None:
        self.width = 0
        """The width laid out for (the entries' heights are measured at it)."""
        self.heights: list[int] = []
        self.starts: list[int] = []
        """The first line of each entry; the last item is the total."""
        self.drawn: LRUCache[DrawnKey, Strip] = LRUCache(CACHED_LINES)

    @property
    def total(self) -> int:
        """How many lines the log has."""
        return self.starts[-1] if self.starts else 0

    def lay_out(self, heights: list[int]) -> None:
        """The entries are ``heights`` lines tall at :attr:`width`: nothing drawn is kept."""
        self.heights = heights
        self.starts = [0, *itertools.accumulate(heights)]
        self.drawn.clear()

    def holds(self, count: int) -> bool:
        """Whether ``count`` entries are laid out (not a page shown since)."""
        return len(self.starts) == count + 1

    def span(self, index: int) -> tuple[int, int]:
        """Entry ``index``'s first line and height."""
        return self.starts[index], self.heights[index]

    def index_at(self, y: int) -> int:
        """The entry line ``y`` of the log belongs to."""
        return bisect_right(self.starts, y) - 1

    def changed(self, index: int, first: int, height: int) -> bool:
        """Entry ``index`` changed from its line ``first`` on and is ``height`` lines now: the
        lines drawn from there are forgotten; whether the log's length changed."""
        start = self.starts[index] + first
        keys = self.drawn.keys()  # an LRUCache is not iterable itself
        for key in [key for key in keys if key[0] >= start]:
            self.drawn.discard(key)
        if height == self.heights[index]:
            return False
        self.heights[index] = height  # the entries after it move down
        for after in range(index, len(self.heights)):
            self.starts[after + 1] = self.starts[after] + self.heights[after]
        return True
