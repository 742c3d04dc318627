"""Markdown in the chat log: text kept as lines rendered by rich, for one widget to draw.

A message's text, however long, is kept as :class:`MarkdownLines`: its text is cut into
segments at paragraph breaks outside code fences (:func:`split_segments`), each rendered with
rich once per width and kept. A reply that is streaming adds a short *tail*, the paragraph
being written, rendered again each time it changes. A message is one widget that draws these
lines, and nothing is mounted while a reply streams, so a frame costs the same at the end of a
long reply as at its start, whatever the session above it holds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rich.segment import Segment
from textual.app import App
from textual.strip import Strip

SEGMENT_CHARS = 500
"""Stored text is rendered in segments of at least this many characters, cut at paragraph
breaks outside code fences (fewer, larger segments render faster). A streaming reply is cut at
every such break instead, so that only the paragraph being written is rendered again."""
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)
MARKDOWN_VARIABLES = (
    *(f"markdown-h{level}-{part}" for level in range(1, 7) for part in ("color", "text-style")),
    "text-warning",
    "warning-muted",
    "text-accent",
)
"""The theme's variables the Markdown's styles are made of (:func:`.markdown_theme`)."""

Look = tuple[object, ...]


def markdown_look(app: App[object]) -> Look:
    """What rendered Markdown looks like in the app's theme: its name (dark or light: code's
    highlighting) and its colours. Not the name alone: a theme's variables change after its
    name does, and a frame drawn between the two kept the old colours under the new name."""
    variables = app.theme_variables
    return (app.theme, *(variables.get(name) for name in MARKDOWN_VARIABLES))


def _fence_open(text: str) -> bool:
    """Whether ``text`` ends inside a fenced code block."""
    opener: str | None = None
    for match in _FENCE.finditer(text):
        marker = match.group(1)
        if opener is None:
            opener = marker
        elif marker[0] == opener[0] and len(marker) >= len(opener):
            opener = None
    return opener is not None


def split_point(text: str, min_chars: int = SEGMENT_CHARS) -> int | None:
    """Where a new Markdown segment may start in ``text``: just after the last paragraph break
    outside code fences, provided the head is at least ``min_chars`` long; else None."""
    index = len(text)
    while (index := text.rfind("\n\n", 0, index)) >= 0 and index + 2 >= min_chars:
        if not _fence_open(text[: index + 2]):
            return index + 2
    return None


def split_segments(text: str, min_chars: int = SEGMENT_CHARS) -> list[str]:
    """``text`` cut into segments of at least ``min_chars`` at safe paragraph breaks; joined
    they give ``text`` back. The last segment may be short (or empty)."""
    segments: list[str] = []
    start = 0
    while True:
        rest = text[start:]
        cut = _first_split(rest, min_chars)
        if cut is None:
            segments.append(rest)
            return segments
        segments.append(rest[:cut])
        start += cut


def _first_split(text: str, min_chars: int) -> int | None:
    index = min_chars - 2
    while (index := text.find("\n\n", max(index, 0))) >= 0:
        if index + 2 >= len(text):
            return None
        if not _fence_open(text[: index + 2]):
            return index + 2
        index += 2
    return None


Line = tuple[Segment, ...]
"""One rendered line: its segments, padded to the width. A line is kept this way, not as a
:class:`Strip`: a strip carries seven caches of its own, so a long reply kept as strips is tens
of thousands of objects for each full garbage collection to visit while the reply streams. A
strip is made when the line is drawn, and the chat log keeps the few it has drawn."""


class MarkdownLines:
    """Markdown text, however long, kept as lines rendered by rich, for a widget to draw.

    A Textual ``Markdown`` document mounts a widget per block, and every layout of the screen
    visits every widget: a page of long messages would make each frame of a streamed reply
    slower, and each block a streamed reply adds would be a mount (styles, compose, a first
    layout) in the middle of the stream. Here the finished text is kept as segments (see
    :func:`split_segments`), each rendered once per width when it arrives, and the lines are
    kept. Text that is still streaming is the *tail*: the text since the last segment, short
    by construction, rendered again each time it grows. A layout asks for a line count and a
    repaint copies cached lines.
    """

    def __init__(self, segments: Sequence[str] = (), tail: str = "") -> None:
        self._segments = [segment for segment in segments if segment]
        self._tail = tail
        self._lines: list[Line] = []
        """The lines of the first ``_rendered`` segments at ``_width``."""
        self._rendered = 0
        self._tail_lines: list[Line] | None = None
        """The tail's lines at ``_width``; None until drawn (again)."""
        self._width = -1
        self._look: Look = ()
        """The look the lines were rendered in (:func:`markdown_look`); a new one renders them
        again."""

    @property
    def text(self) -> str:
        """All the text: the finished segments, then the tail."""
        return "".join(self._segments) + self._tail

    @property
    def segments(self) -> tuple[str, ...]:
        return tuple(self._segments)

    @property
    def tail(self) -> str:
        return self._tail

    def add(self, segments: Sequence[str]) -> None:
        """Append finished segments; each is rendered once, when the lines are next asked for."""
        self._segments += [segment for segment in segments if segment]
        self._tail_lines = None  # it may now follow more lines

    def set_tail(self, tail: str) -> None:
        """Show ``tail`` below the finished segments (the part of a reply still streaming)."""
        self._tail = tail
        self._tail_lines = None

    def line(self, app: App[object], width: int, row: int) -> Strip | None:
        """Line ``row`` at ``width``, None past the last."""
        lines, tail = self._lines_at(app, width)
        if row < len(lines):
            return Strip(lines[row], width)
        if row - len(lines) < len(tail):
            return Strip(tail[row - len(lines)], width)
        return None

    def line_count(self, app: App[object], width: int) -> int:
        lines, tail = self._lines_at(app, width)
        return len(lines) + len(tail)

    @property
    def finished_height(self) -> int:
        """Lines of the finished segments drawn so far: the tail (and anything added since)
        starts here."""
        return len(self._lines)

    def _lines_at(self, app: App[object], width: int) -> tuple[list[Line], list[Line]]:
        """The finished lines and the tail's lines at ``width``: what is new since the last
        call is rendered now; a new width or look renders everything again."""
        look = markdown_look(app)
        if width != self._width or look != self._look:
            self._width, self._look = width, look
            self._lines, self._rendered, self._tail_lines = [], 0, None
        if width <= 0:
            return [], []
        for segment in self._segments[self._rendered :]:
            self._lines += self._render(app, segment, after=self._lines)
        self._rendered = len(self._segments)
        if self._tail_lines is None:
            self._tail_lines = self._render(app, self._tail, after=self._lines)
        return self._lines, self._tail_lines

    def _render(self, app: App[object], text: str, *, after: Sequence[Line]) -> list[Line]:
        """``text`` as lines at the current width; a blank line first if it follows lines
        (segments meet at a paragraph break)."""
        if not text:
            return []
        from oncall_tui.tui.chat_log.rich_markdown import markdown_lines

        width = self._width
        rendered = markdown_lines(app, text, app.console.options.update_width(width))
        lines = [tuple(Segment.adjust_line_length(line, width)) for line in rendered]
        if after and lines:  # one empty line between segments, as between blocks in one
            lines.insert(0, (Segment(" " * width),))
        return lines
