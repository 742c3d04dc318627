"""Markdown in the chat log: finished text drawn from cached lines, and the live document.

A finished message, however long, is one :class:`RenderedMarkdown` widget: its text is cut into
segments at paragraph breaks outside code fences (:func:`split_segments`), each rendered with
rich once per width and kept. Only the tail of a reply that is streaming is a Textual
``Markdown`` document (:class:`LiveMarkdown`), fed through ``Markdown.get_stream()``. So a frame
costs the same at the end of a long reply as at its start, whatever the session above it holds.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import ClassVar

from rich.console import JustifyMethod
from rich.markdown import Heading, MarkdownElement
from rich.markdown import Markdown as RichMarkdown
from rich.style import Style
from rich.theme import Theme
from textual.color import Color
from textual.content import Content
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Markdown
from textual.widgets.markdown import MarkdownBlock, MarkdownFence

SEGMENT_CHARS = 500
"""Text is rendered in segments of about this many characters, cut at paragraph breaks outside
code fences; the live tail of a streamed reply is kept under about this size."""
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)


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


_THEMES: dict[str, Theme] = {}


def _themes(name: str, variables: Mapping[str, str]) -> Theme:
    if name not in _THEMES:
        _THEMES[name] = markdown_theme(variables)
    return _THEMES[name]


class _Heading(Heading):
    """Headings on the left, as in the Textual documents the live tail streams into."""

    LEVEL_ALIGN: ClassVar[dict[str, JustifyMethod]] = {"h1": "left"}


class _RichMarkdown(RichMarkdown):
    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **RichMarkdown.elements,
        "heading_open": _Heading,
    }


def markdown_theme(variables: Mapping[str, str]) -> Theme:
    """Rich's Markdown styles from the app's theme, so rendered text matches the live document
    (headings and inline code in the theme's colours)."""

    def color(name: str) -> str:
        return Color.parse(variables[name]).hex6

    styles = {
        f"markdown.h{level}": (
            f"{variables.get(f'markdown-h{level}-text-style', 'bold')} "
            f"{color(f'markdown-h{level}-color')}"
        )
        for level in range(1, 7)
    }
    styles["markdown.code"] = f"{color('text-warning')} on {color('warning-muted')}"
    styles["markdown.link"] = f"underline {color('text-accent')}"
    styles["markdown.link_url"] = f"underline {color('text-accent')}"
    return Theme(styles, inherit=True)


def rich_markdown(text: str, *, dark: bool = True) -> RichMarkdown:
    """``text`` as a rich renderable, as the chat log draws finished text."""
    return _RichMarkdown(text, code_theme="monokai" if dark else "default")


class RenderedMarkdown(Widget):
    """Finished Markdown text, however long, as one widget drawn from rich renderables.

    A Textual ``Markdown`` document mounts a widget per block, and every layout of the screen
    visits every widget: a page of long messages would make each frame of a streamed reply
    slower. Here the text is kept as segments (see :func:`split_segments`), each rendered once
    per width when it arrives, and the lines are kept, so a layout asks for a line count and a
    repaint copies cached lines.
    """

    DEFAULT_CSS = """
    RenderedMarkdown {
        height: auto;
    }
    """

    def __init__(self, segments: Sequence[str] = ()) -> None:
        super().__init__(classes="message-body")
        self._segments = [segment for segment in segments if segment]
        self._lines: list[Strip] = []
        self._width = -1
        self._theme = ""
        """The app theme the lines were rendered in; a theme change renders them again."""
        self._style = Style()

    @property
    def text(self) -> str:
        return "".join(self._segments)

    @property
    def segments(self) -> tuple[str, ...]:
        return tuple(self._segments)

    def add(self, segments: Sequence[str]) -> None:
        """Append finished segments, rendered now if the width is known (a segment at a time,
        as they freeze), else at the first layout."""
        added = [segment for segment in segments if segment]
        if not added:
            return
        self._segments += added
        if self._width > 0:
            for segment in added:
                self._append(segment)
        self.refresh(layout=True)

    def _append(self, segment: str) -> None:
        app = self.app
        console = app.console
        options = console.options.update_width(self._width)
        document = rich_markdown(segment, dark=app.current_theme.dark)
        with console.use_theme(_themes(app.theme, app.theme_variables)):
            rendered = console.render_lines(document, options, pad=False)
        if self._lines and rendered:  # segments meet at a paragraph break
            self._lines.append(Strip.blank(self._width))
        self._lines += [Strip(line).adjust_cell_length(self._width) for line in rendered]

    def _lines_at(self, width: int) -> list[Strip]:
        if width != self._width or self.app.theme != self._theme:
            self._width, self._lines, self._theme = width, [], self.app.theme
            if width > 0:
                for segment in self._segments:
                    self._append(segment)
        return self._lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._lines_at(width))

    def render_lines(self, crop: Region) -> list[Strip]:
        self._style = self.rich_style  # walks every ancestor: once per repaint, not per line
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        lines = self._lines_at(width)
        if y >= len(lines):
            return Strip.blank(width, self._style)
        return lines[y].apply_style(self._style)


class _Fence(MarkdownFence):
    """A code fence highlighted by its stated language, or as plain text.

    Textual guesses the language of an unlabelled fence by trying every Pygments lexer: tens
    of milliseconds each time a streamed fence grows, and far more the first time, when every
    lexer module is imported. Rich, which draws the finished text, does not guess either.
    """

    @classmethod
    def highlight(cls, code: str, language: str, ansi: bool = False, dark: bool = False) -> Content:
        return super().highlight(code, language or "text", ansi, dark)


class LiveMarkdown(Markdown):
    """The Markdown document a reply streams into."""

    BLOCKS: dict[str, type[MarkdownBlock]] = {
        **Markdown.BLOCKS,
        "fence": _Fence,
        "code_block": _Fence,
    }
