"""A user's message drawn verbatim: every line break kept, nothing read as Markdown.

What is typed or pasted is shown as it is: a ``#`` or a ``*`` in a log is not a heading or a
list item. A message of up to :data:`PROSE_LINES` lines (a question) wraps at words, as prose
does (and between Chinese characters: :mod:`~oncall_tui.tui.line_breaks`). A longer one (a
pasted log, most often) is a block: one screen line per line, never wrapped, so that its
columns stay columns; a line wider than the log is cut, the cut marked at the right edge. Lines
are rendered once per width (and the colours of a block), and kept as segment tuples, as
:class:`~.markdown.MarkdownLines` keeps them (a strip is made only when a line is drawn).
"""

from __future__ import annotations

from functools import cache

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.app import App
from textual.color import Color
from textual.strip import Strip

from oncall_tui.core.text import terminal_safe
from oncall_tui.tui.chat_log.markdown import Line
from oncall_tui.tui.line_breaks import LineBreakingText

PROSE_LINES = 3
"""A message of more lines than this is drawn as a block: a question is rarely longer, and
wrapping the lines of a log (or of a stack trace, a diff) mixes them into one another."""
TAB_SIZE = 8
"""Tab stops every 8 cells, as in the terminal a log is copied from."""
CUT = "…"
"""Marks the right edge of a block line cut to the log's width."""
BLOCK_TINT = 0.05
"""How much of the theme's primary colour tints a block's background: half as much as the
user's message around it, so that pasted output stands a little apart from what is said."""
Look = tuple[Style, Style] | None
"""A block's text style and its cut mark's; None for prose (the message's own style)."""


@cache
def block_look(background: str, primary: str, accent: str) -> tuple[Style, Style]:
    """The styles of a block in a theme of these colours (none yet: plain ones)."""
    if not (background and primary and accent):
        return Style(), Style(bold=True)
    if Color.parse(primary).ansi is not None:  # a terminal's own colours: no shade to tint with
        return Style(), Style(color=Color.parse(accent).rich_color, bold=True)
    tint = Color.parse(background).blend(Color.parse(primary), BLOCK_TINT)
    text = Style(bgcolor=tint.rich_color)
    return text, text + Style(color=Color.parse(accent).rich_color, bold=True)


class PlainLines:
    """A user's text as lines, offered as :class:`~.markdown.MarkdownLines` offers a reply's:
    a count and a line at a width. A user's message is whole when it is shown (it does not
    stream), so every line is finished."""

    def __init__(self, content: str) -> None:
        # A line break stays one (a Windows one too); trailing ones would only draw blank lines.
        self._text = terminal_safe(content.replace("\r\n", "\n").rstrip("\n"))
        self.rows = self._text.split("\n") if self._text else []
        """The lines of the text, as typed (the text made terminal-safe)."""
        self.block = len(self.rows) > PROSE_LINES
        """Whether the text is drawn as a block (a line a row) rather than wrapped."""
        self._lines: list[Line] = []
        """The lines at ``_width`` in ``_look``."""
        self._width = -1
        self._look: Look = None

    @property
    def text(self) -> str:
        """The text shown (terminal-safe)."""
        return self._text

    @property
    def finished_height(self) -> int:
        """Every line drawn so far: none of them is still being written."""
        return len(self._lines)

    def line_count(self, app: App[object], width: int) -> int:
        return len(self._lines_at(app, width))

    def line(self, app: App[object], width: int, row: int) -> Strip | None:
        """Line ``row`` at ``width``, None past the last."""
        lines = self._lines_at(app, width)
        return Strip(lines[row], width) if 0 <= row < len(lines) else None

    def _lines_at(self, app: App[object], width: int) -> list[Line]:
        """The lines at ``width``, rendered when the width or the block's colours are new (the
        colours, not the theme's name: the theme's variables change after its name does)."""
        look: Look = None
        if self.block:
            variables = app.theme_variables
            look = block_look(
                variables.get("background", ""),
                variables.get("primary", ""),
                variables.get("text-accent", ""),
            )
        if width != self._width or look != self._look:
            self._width, self._look = width, look
            self._lines = self._render(app, width, look) if width > 0 and self.rows else []
        return self._lines

    def _render(self, app: App[object], width: int, look: Look) -> list[Line]:
        if look is not None:
            return self._block(width, *look)
        console = app.console
        text = LineBreakingText(
            self._text, tab_size=TAB_SIZE, overflow="fold"
        )  # a long word is folded
        rendered = console.render_lines(text, console.options.update_width(width), pad=False)
        return [tuple(Segment.adjust_line_length(line, width)) for line in rendered]

    def _block(self, width: int, style: Style, cut: Style) -> list[Line]:
        """Each row on one line of ``width`` cells, tabs expanded, cut and marked if wider."""
        lines: list[Line] = []
        for row in self.rows:
            if "\t" in row and row.isascii():  # a character a cell (controls are pictures)
                row = row.expandtabs(TAB_SIZE)
            elif "\t" in row:  # tab stops counted in cells: rich's, ten times slower
                expanded = Text(row, tab_size=TAB_SIZE)
                expanded.expand_tabs()
                row = expanded.plain
            if cell_len(row) <= width:
                lines.append((Segment(set_cell_size(row, width), style),))
            else:
                shown = set_cell_size(row, width - 1)  # a wide character cut in two: a space
                lines.append((Segment(shown, style), Segment(CUT, cut)))
        return lines
