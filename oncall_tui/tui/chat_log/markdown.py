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
from collections.abc import Mapping, Sequence
from functools import cache
from typing import ClassVar

from markdown_it import MarkdownIt
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound
from rich.console import Console, ConsoleOptions, JustifyMethod, RenderResult
from rich.markdown import CodeBlock, Heading, MarkdownElement
from rich.markdown import Markdown as RichMarkdown
from rich.style import Style
from rich.syntax import Syntax
from rich.theme import Theme
from textual.app import App
from textual.color import Color
from textual.strip import Strip

SEGMENT_CHARS = 500
"""Stored text is rendered in segments of at least this many characters, cut at paragraph
breaks outside code fences (fewer, larger segments render faster). A streaming reply is cut at
every such break instead, so that only the paragraph being written is rendered again."""
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
    """Headings on the left, as in Textual's own Markdown documents."""

    LEVEL_ALIGN: ClassVar[dict[str, JustifyMethod]] = {"h1": "left"}


@cache
def code_lexer(name: str) -> Lexer | str:
    """The Pygments lexer for a fence's language, looked up once per language: a lookup by
    name searches every lexer's aliases, about a millisecond for each fence of each render.
    An unknown name stays a name (rich then shows the code as plain text)."""
    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=4)
    except ClassNotFound:
        return name


class _CodeBlock(CodeBlock):
    """A fenced code block, highlighted with the language's lexer looked up once."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        lexer = code_lexer(self.lexer_name)
        yield Syntax(code, lexer, theme=self.theme, word_wrap=True, padding=1)


class _RichMarkdown(RichMarkdown):
    """Rich's Markdown with headings on the left, parsed by one shared parser.

    Rich builds a new markdown-it parser for every document, and building one (its rules, and
    a linkify matcher when linkify-it is installed) costs more than parsing a paragraph: a
    streamed reply renders a document per flush, so the parser is built once here.
    """

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **RichMarkdown.elements,
        "heading_open": _Heading,
        "fence": _CodeBlock,
        "code_block": _CodeBlock,
    }
    _parser: ClassVar[MarkdownIt | None] = None

    def __init__(self, markup: str, code_theme: str) -> None:
        # What rich's own __init__ sets (a test checks the two agree), with the shared parser.
        parser = _RichMarkdown._parser
        if parser is None:
            parser = _RichMarkdown._parser = MarkdownIt().enable("strikethrough").enable("table")
        self.markup = markup
        self.parsed = parser.parse(markup)
        self.code_theme = code_theme
        self.justify: JustifyMethod | None = None
        self.style: str | Style = "none"
        self.hyperlinks = True
        self.inline_code_lexer: str | None = None
        self.inline_code_theme = code_theme


def markdown_theme(variables: Mapping[str, str]) -> Theme:
    """Rich's Markdown styles from the app's theme (headings, inline code and links in the
    theme's colours, as in Textual's own Markdown documents)."""

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
        self._lines: list[Strip] = []
        """The lines of the first ``_rendered`` segments at ``_width``."""
        self._rendered = 0
        self._tail_lines: list[Strip] | None = None
        """The tail's lines at ``_width``; None until drawn (again)."""
        self._width = -1
        self._theme = ""
        """The app theme the lines were rendered in; a theme change renders them again."""

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

    def lines(self, app: App[object], width: int) -> tuple[list[Strip], list[Strip]]:
        """The finished lines and the tail's lines at ``width``: what is new since the last
        call is rendered now; a new width or theme renders everything again."""
        if width != self._width or app.theme != self._theme:
            self._width, self._theme = width, app.theme
            self._lines, self._rendered, self._tail_lines = [], 0, None
        if width <= 0:
            return [], []
        for segment in self._segments[self._rendered :]:
            self._lines += self._render(app, segment, after=self._lines)
        self._rendered = len(self._segments)
        if self._tail_lines is None:
            self._tail_lines = self._render(app, self._tail, after=self._lines)
        return self._lines, self._tail_lines

    def line_count(self, app: App[object], width: int) -> int:
        lines, tail = self.lines(app, width)
        return len(lines) + len(tail)

    @property
    def finished_height(self) -> int:
        """Lines of the finished segments drawn so far: the tail (and anything added since)
        starts here."""
        return len(self._lines)

    def _render(self, app: App[object], text: str, *, after: Sequence[Strip]) -> list[Strip]:
        """``text`` as lines at the current width; a blank line first if it follows lines
        (segments meet at a paragraph break)."""
        if not text:
            return []
        console = app.console
        options = console.options.update_width(self._width)
        document = rich_markdown(text, dark=app.current_theme.dark)
        with console.use_theme(_themes(app.theme, app.theme_variables)):
            rendered = [Strip(line) for line in console.render_lines(document, options, pad=False)]
        while rendered and not rendered[0].cell_length:  # rich opens a list with an empty line
            del rendered[0]
        lines = [line.adjust_cell_length(self._width) for line in rendered]
        if after and lines:  # one empty line between segments, as between blocks in one
            lines.insert(0, Strip.blank(self._width))
        return lines
