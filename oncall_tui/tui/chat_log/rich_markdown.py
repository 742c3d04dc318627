"""Markdown rendered by rich for the chat log: headings on the left, in the theme's colours,
code fences highlighted with each language's lexer looked up once, one shared parser.

Imported when text is first rendered (the warm-up thread does it after the first frame), not
on the way to the first frame: markdown-it, Pygments and rich's Markdown cost tens of
milliseconds to load.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, ClassVar

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound
from rich.console import Console, ConsoleOptions, JustifyMethod, RenderResult
from rich.markdown import (
    CodeBlock,
    Heading,
    MarkdownContext,
    MarkdownElement,
    Paragraph,
    TableDataElement,
)
from rich.markdown import Markdown as RichMarkdown
from rich.padding import Padding
from rich.segment import Segment, Segments
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from rich.theme import Theme
from textual.color import Color

from oncall_tui.tui.chat_log.markdown import Look, markdown_look
from oncall_tui.tui.line_breaks import LineBreakingText

if TYPE_CHECKING:
    from textual.app import App

_THEMES: dict[Look, Theme] = {}


def themes(app: App[object]) -> Theme:
    """Rich's Markdown styles for the app's look, made once a look."""
    look = markdown_look(app)
    if look not in _THEMES:
        _THEMES[look] = markdown_theme(app.theme_variables)
    return _THEMES[look]


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


CUT_MARK = "…"
"""Ends a code line cut at the chat's edge (in reverse video, so it is not taken for code)."""


class _CodeBlock(CodeBlock):
    """A fenced code block, highlighted with the language's lexer looked up once, each line of
    code on one line of the screen.

    Rich wraps a long line of code onto the next line, so a command copied from the terminal
    with the mouse came out broken (``… | tail`` / ``-40``). Here a line too long for the chat
    is cut at the edge and ends with :data:`CUT_MARK`: what is on screen is visibly not the
    whole line, and ``b`` / alt+y copies the block whole. A block whose lines fit is drawn as
    rich draws it."""

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        code = str(self.text).rstrip()
        lexer = code_lexer(self.lexer_name)
        syntax = Syntax(code, lexer, theme=self.theme, word_wrap=False, padding=1)
        width = max(1, options.max_width - 2)  # inside the block's padding
        lines = syntax.highlight(code.expandtabs(4) + "\n").split("\n")
        if all(line.cell_len <= width for line in lines):
            yield syntax
            return
        mark = console.get_style("markdown.code_cut", default="reverse")
        for line in lines:
            if line.cell_len > width:
                line.truncate(width - 1)
                line.append(CUT_MARK, mark)
        body = Text("\n").join(lines)
        body.no_wrap = True
        segments = console.render_lines(
            body, options.update(width=width, height=None, justify="left"), pad=True, new_lines=True
        )
        background = Syntax.get_theme(self.theme).get_background_style()
        yield Padding(
            Segments(segment for line in segments for segment in line), 1, style=background
        )


class _Paragraph(Paragraph):
    """A paragraph whose lines also break between Chinese characters
    (:mod:`~oncall_tui.tui.line_breaks`)."""

    def on_enter(self, context: MarkdownContext) -> None:
        super().on_enter(context)
        self.text = LineBreakingText(justify="left")


class _TableCell(TableDataElement):
    """A table cell whose words, too long for its column, go on over the next lines.

    Rich ends a word longer than its column with "…": in a table of pods a model wrote, at the
    chat's width, ``CrashLoopBackOff`` read ``CrashLoo…`` and the node's name was gone. A word
    is broken where the column ends instead, and nothing of it is left out; Chinese text breaks
    between its characters."""

    def __init__(self, justify: JustifyMethod) -> None:
        super().__init__(justify)
        self.content = LineBreakingText("", justify=justify, overflow="fold")


def _keep_line_breaks(state: StateCore) -> None:
    for token in state.tokens:
        for child in token.children or ():
            if child.type == "softbreak":
                child.type = "hardbreak"


class _RichMarkdown(RichMarkdown):
    """Rich's Markdown with headings on the left, each line break kept, table cells whole,
    parsed by one shared parser.

    A model writes lines one under the other (log lines, a timeline, steps) with single line
    breaks, which Markdown would join into one paragraph; as in a terminal (and in ``ollama
    run``), they stay lines here: the parser makes each soft break a hard one.

    Rich builds a new markdown-it parser for every document, and building one (its rules, and
    a linkify matcher when linkify-it is installed) costs more than parsing a paragraph: a
    streamed reply renders a document per flush, so the parser is built once here.
    """

    elements: ClassVar[dict[str, type[MarkdownElement]]] = {
        **RichMarkdown.elements,
        "paragraph_open": _Paragraph,
        "heading_open": _Heading,
        "fence": _CodeBlock,
        "code_block": _CodeBlock,
        "td_open": _TableCell,
        "th_open": _TableCell,
    }
    _parser: ClassVar[MarkdownIt | None] = None

    def __init__(self, markup: str, code_theme: str) -> None:
        # What rich's own __init__ sets (a test checks the two agree), with the shared parser.
        parser = _RichMarkdown._parser
        if parser is None:
            parser = MarkdownIt().enable(["strikethrough", "table"])
            parser.core.ruler.push("keep_line_breaks", _keep_line_breaks)
            _RichMarkdown._parser = parser
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
        return theme_colour(variables[name]) or "default"

    def text_style(level: int) -> str:  # Textual's "none" is no word of rich's
        words = variables.get(f"markdown-h{level}-text-style", "bold").split()
        return " ".join(word for word in words if word != "none")

    styles = {
        f"markdown.h{level}": f"{text_style(level)} {color(f'markdown-h{level}-color')}".strip()
        for level in range(1, 7)
    }
    muted = theme_colour(variables["warning-muted"])
    styles["markdown.code"] = color("text-warning") + (f" on {muted}" if muted else "")
    styles["markdown.code_cut"] = f"bold reverse {color('text-warning')}"
    styles["markdown.link"] = f"underline {color('text-accent')}"
    styles["markdown.link_url"] = f"underline {color('text-accent')}"
    return Theme(styles, inherit=True)


def theme_colour(value: str) -> str | None:
    """A theme variable's colour as rich writes it, None for one a terminal cannot show. The
    ANSI themes use the terminal's own colours, and some with a share (``ansi_yellow 50%``, a
    muted one: inline code's background), which Textual's CSS reads and ``Color.parse`` does
    not (choosing such a theme ended the app with a traceback, and again at each start, the
    theme being remembered): a terminal's colour has no shades, so one with a share is none."""
    name, *share = value.split()
    colour = Color.parse(name)
    if share and colour.ansi is not None:
        return None
    return colour.rich_color.name


def rich_markdown(text: str, *, dark: bool = True) -> RichMarkdown:
    """``text`` as a rich renderable, as the chat log draws finished text."""
    return _RichMarkdown(text, code_theme="monokai" if dark else "default")


def markdown_lines(app: App[object], text: str, options: ConsoleOptions) -> list[list[Segment]]:
    """``text`` as lines, as the chat log draws finished text: the shared parser, code lines cut
    at the edge, the app theme's Markdown styles; the blank line a list opens with dropped."""
    console = app.console
    document = rich_markdown(text, dark=app.current_theme.dark)
    with console.use_theme(themes(app)):
        lines = console.render_lines(document, options, pad=False)
    while lines and not Segment.get_line_length(lines[0]):  # a list opens blank
        del lines[0]
    return lines


class ThemedMarkdown:
    """A Markdown document as one renderable, drawn by :func:`markdown_lines` at the width it is
    given. For a widget that shows one document whole (the summary dialog): Textual's
    ``Markdown`` widget builds a widget per block, and a summary of 60 points took about a
    second to open."""

    def __init__(self, text: str, app: App[object]) -> None:
        self._text = text
        self._app = app

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        new_line = Segment.line()
        for line in markdown_lines(self._app, self._text, options):
            yield from line
            yield new_line
