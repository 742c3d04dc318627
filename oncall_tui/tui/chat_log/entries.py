"""What the chat log holds: messages, the line offering earlier ones, the compaction divider."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.color import ColorType
from rich.segment import Segment
from rich.style import Style
from textual.app import App
from textual.strip import Strip

from oncall_tui.errors import Language
from oncall_tui.texts import text as t
from oncall_tui.tui.chat_log.lines import Palette, text_line
from oncall_tui.tui.chat_log.message import MessageBlock
from oncall_tui.tui.chat_log.times import Clock
from oncall_tui.tui.line_breaks import broken

if TYPE_CHECKING:
    from oncall_tui.services.views import MessageView

GUTTER = 3
"""Cells left of a message's text: a space, the selection bar, a space."""
RIGHT = 2
"""Cells right of a message's text."""
COMPONENT_CLASSES = {
    "chat-log--user",
    "chat-log--cursor",
    "chat-log--cursor-bar",
    "chat-log--header",
    "chat-log--header-interrupted",
    "chat-log--header-failed",
    "chat-log--tool",
    "chat-log--tool-failed",
    "chat-log--tool-detail",
    "chat-log--divider",
    "chat-log--earlier",
}
"""The log's component classes: the styles :class:`LogStyles` reads."""


@dataclass
class Notice:
    """A line of the log that is not a message: the messages it counts, and the key that acts
    on them, as bound; :attr:`TEXT` is its catalog key."""

    count: int
    lang: Language
    keys: str
    TEXT: ClassVar[str] = ""

    @property
    def text(self) -> str:
        return t(self.TEXT, self.lang, count=self.count, keys=self.keys)

    def lines(self, width: int) -> list[str]:
        return centred(self.text, width)


@dataclass
class Earlier(Notice):
    """The line above the oldest message shown, while older ones are not loaded."""

    TEXT = "log.earlier"


@dataclass
class Divider(Notice):
    """Where the compaction boundary lies: everything above is summarised, and still here."""

    TEXT = "log.divider"

    def lines(self, width: int) -> list[str]:
        """The text between two rules where it fits on one line with them, else broken over
        lines without them (a rule alone on a line would read as a second divider)."""
        ruled = f"{RULE} {self.text} {RULE}"
        return centred(ruled if cell_len(ruled) <= width else self.text, width)


Entry = Earlier | Divider | MessageBlock
RULE = "──"


def choosable(entry: Entry) -> bool:
    """Whether the cursor stops at ``entry``: a message, or the line offering earlier ones."""
    return isinstance(entry, MessageBlock) or (isinstance(entry, Earlier) and entry.count > 0)


def centred(text: str, width: int) -> list[str]:
    """``text`` broken to ``width`` cells as the chat's lines are (Chinese between its
    characters, a wide character counting two cells), each line centred."""
    width = max(width, 1)
    return [" " * ((width - cell_len(line)) // 2) + line for line in broken(text, width)]


def page_entries(
    messages: Sequence[MessageView],
    boundary: int,
    clock: Clock,
    lang: Language,
    summary_keys: str,
) -> list[Entry]:
    """A page of stored messages as log entries, the divider above message ``boundary`` (or
    below the last, when it is the boundary); ``clock`` tells the headers what day it is,
    ``lang`` the language they are in, ``summary_keys`` the divider which key shows the
    summary."""
    entries: list[Entry] = []
    for message in messages:
        if boundary > 0 and message.position == boundary:
            entries.append(Divider(boundary, lang, summary_keys))
        entries.append(
            MessageBlock(
                message.role,
                message.content,
                status=message.status,
                position=message.position,
                tool_calls=message.tool_calls,
                created_at=message.created_at,
                model=message.model,
                clock=clock,
                lang=lang,
            )
        )
    if boundary > 0 and messages and messages[-1].position == boundary - 1:
        # all of it summarised: the divider comes last
        entries.append(Divider(boundary, lang, summary_keys))
    return entries


def text_width(width: int) -> int:
    """The width of a message's text in a log ``width`` cells wide."""
    return max(width - GUTTER - RIGHT, 1)


def entry_height(entry: Entry, app: App[object], width: int, palette: Palette) -> int:
    """How many lines ``entry`` takes at ``width``, a margin line included."""
    if isinstance(entry, MessageBlock):
        return entry.line_count(app, text_width(width), palette) + 1
    if isinstance(entry, Divider):
        return len(entry.lines(width)) + 1
    return len(entry.lines(width)) if entry.count > 0 else 0


@dataclass(frozen=True)
class LogStyles:
    """The styles of the log's lines: a message's own (its palette) and the log's."""

    palette: Palette
    user: Style
    cursor: Style
    cursor_bar: Style
    divider: Style
    earlier: Style

    @classmethod
    def of(cls, component: Callable[[str], Style], generation: int) -> LogStyles:
        """The styles of the log's component classes (``component`` gives one's style);
        ``generation`` tells lines drawn in these styles from lines drawn in others."""

        def text(name: str) -> Style:  # without a background: the line's own shows through
            style = component(f"chat-log--{name}")
            return style.without_color + Style(color=style.color)

        palette = Palette(
            generation,
            text("header"),
            text("header-interrupted"),
            text("header-failed"),
            text("tool"),
            text("tool-failed"),
            text("tool-detail"),
        )
        user = component("chat-log--user")
        if user.bgcolor is not None and user.bgcolor.type is ColorType.STANDARD:
            user = text("user")  # a terminal's own colour has no shade: a tint was a solid band
        return cls(
            palette,
            user=user,
            cursor=component("chat-log--cursor"),
            cursor_bar=component("chat-log--cursor-bar"),
            divider=text("divider"),
            earlier=text("earlier"),
        )


def entry_line(
    entry: Entry,
    row: int,
    height: int,
    app: App[object],
    width: int,
    styles: LogStyles,
    *,
    selected: bool,
) -> Strip:
    """Line ``row`` of ``entry`` (``height`` lines, a margin line included) at ``width``."""
    if isinstance(entry, Earlier):
        line = text_line(entry.lines(width)[row], styles.earlier, width)
        return line.apply_style(styles.cursor) if selected else line
    if row == height - 1:  # the margin below a message or the divider
        return Strip.blank(width)
    if isinstance(entry, Divider):
        return text_line(entry.lines(width)[row], styles.divider, width)
    text = entry.line(app, text_width(width), styles.palette, row)
    bar = Segment("▌", styles.cursor_bar) if selected else Segment(" ")
    line = Strip.join([Strip([Segment(" "), bar, Segment(" ")]), text, Strip.blank(RIGHT)])
    if selected:
        return line.apply_style(styles.cursor)
    return line.apply_style(styles.user) if entry.role == "user" else line
