"""The chat log: the open page of a session, every message drawn by one scrolling widget.

Each message keeps its lines (see :mod:`message`), and the log draws the lines in view from
them: a frame redraws one widget's visible lines, however many messages the page holds and
however long the reply streaming into it. Long sessions mount lazily: a session opens on its
newest page and older pages are added above on request, so a session with 10,000 messages opens
as fast as one with 20.

Keys, with the log focused (shift+Tab from the composer): up and down move between messages,
``c`` copies the selected one, Enter shows its tool calls' arguments (or loads earlier messages,
on the line that offers them). A click selects a message; a click on a tool line opens it.
"""

from __future__ import annotations

import itertools
from bisect import bisect_right
from collections.abc import Sequence

from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from oncall_tui.services.sessions import MessageView
from oncall_tui.tui.widgets.drawn_lines import Drawing, DrawnLines
from oncall_tui.tui.widgets.log_entries import (
    Divider,
    Earlier,
    Entry,
    LogStyles,
    entry_height,
    entry_line,
    page_entries,
    text_width,
)
from oncall_tui.tui.widgets.message import MessageBlock
from oncall_tui.tui.widgets.scrollbar import move_quietly

_generations = itertools.count(1)


class ChatLog(ScrollView, can_focus=True):
    """Messages of the open session, newest at the bottom; follows new output."""

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
    BINDINGS = [
        Binding("up", "cursor(-1)", "Previous message", show=False),
        Binding("down", "cursor(1)", "Next message", show=False),
        Binding("c", "copy", "Copy message"),
        Binding("enter", "open", "Open"),
    ]

    class EarlierRequested(Message):
        """The user asked for the page before the oldest message shown."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.entries: list[Entry] = [Earlier(0)]
        self.cursor: int | None = None
        """The selected entry (a message, or the line offering earlier ones)."""
        self._starts: list[int] = []
        """The first line of each entry; the last item is the total."""
        self._heights: list[int] = []
        self._width = 0
        self._styles: LogStyles | None = None
        self._drawn = DrawnLines()
        self.paints = 0
        """How many times a frame has painted the log (a streaming reply waits for one)."""

    # -- what is shown ---------------------------------------------------------------------------

    @property
    def messages(self) -> list[MessageBlock]:
        return [entry for entry in self.entries if isinstance(entry, MessageBlock)]

    @property
    def earlier(self) -> int:
        """How many older messages are not loaded."""
        first = self.entries[0]
        return first.count if isinstance(first, Earlier) else 0

    @property
    def boundary(self) -> int | None:
        """The compaction boundary shown, if any."""
        return next((e.count for e in self.entries if isinstance(e, Divider)), None)

    def clear_log(self) -> None:
        self._replace([Earlier(0)])

    async def show_page(
        self, messages: Sequence[MessageView], *, earlier: int, boundary: int
    ) -> None:
        """Replace the log with one page (the newest) of a session."""
        self._replace([Earlier(earlier), *page_entries(messages, boundary)])
        self.anchor()

    async def prepend_page(
        self, messages: Sequence[MessageView], *, earlier: int, boundary: int
    ) -> None:
        """Add an older page above; what is in view stays in view."""
        before = self._total
        added = page_entries(messages, boundary)
        if self.boundary is not None and any(isinstance(e, Divider) for e in added):
            added = [entry for entry in added if not isinstance(entry, Divider)]
        if self.cursor:  # the same entry stays selected
            self.cursor += len(added)
        elif self.cursor == 0 and not earlier:  # nothing more to load: the oldest message
            self.cursor = 1
        self._insert(1, added)
        self.entries[0] = Earlier(earlier)
        self._relayout()
        if not self.is_vertical_scroll_end:
            self.scroll_to(y=self.scroll_y + self._total - before, animate=False, immediate=True)

    async def add_message(self, role: str, content: str, status: str = "complete") -> MessageBlock:
        block = MessageBlock(role, content, status=status)
        self._insert(len(self.entries), [block])
        self._relayout()
        self.anchor()
        return block

    async def add_exchange(self, question: str) -> MessageBlock:
        """The user's message and the reply about to stream."""
        reply = MessageBlock("assistant", "", status="streaming")
        self._insert(len(self.entries), [MessageBlock("user", question), reply])
        self._relayout()
        self.anchor()
        return reply

    async def add_reply(self) -> MessageBlock:
        """A reply about to stream, to the last message (a retry)."""
        reply = MessageBlock("assistant", "", status="streaming")
        self._insert(len(self.entries), [reply])
        self._relayout()
        self.anchor()
        return reply

    async def mark_boundary(self, count: int) -> None:
        """After a compaction: move the divider to stand above message ``count``."""
        self.entries = [entry for entry in self.entries if not isinstance(entry, Divider)]
        at = (
            i
            for i, e in enumerate(self.entries)
            if isinstance(e, MessageBlock) and e.position == count
        )
        target = next(at, len(self.entries))
        self._insert(target, [Divider(count)])
        self.cursor = None
        self._relayout()

    def _replace(self, entries: list[Entry]) -> None:
        self.entries = []
        self.cursor = None
        self._insert(0, entries)
        self._relayout()
        self.scroll_to(y=0, animate=False, immediate=True)

    def _insert(self, index: int, entries: Sequence[Entry]) -> None:
        for entry in entries:
            if isinstance(entry, MessageBlock):
                entry.attach(self)
        self.entries[index:index] = entries

    def message_changed(self, block: MessageBlock, first: int = 0) -> None:
        """A message's lines from row ``first`` on changed (streamed text, a tool call, its
        status); the lines above it, and the entries above the message, are drawn as they were."""
        if self._width <= 0 or block not in self.entries:
            return
        index = len(self.entries) - 1 if self.entries[-1] is block else self.entries.index(block)
        height = self._entry_height(block)
        if self.scrollable_content_region.width != self._width:
            self._relayout()
            return
        self._forget_from(self._starts[index] + first)
        if height != self._heights[index]:  # the entries after it move: nothing else changes
            self._heights[index] = height
            for after in range(index, len(self.entries)):
                self._starts[after + 1] = self._starts[after] + self._heights[after]
            self._set_virtual_height(self._total)
            self.refresh()
        else:
            start = self._starts[index] - self.scroll_offset.y
            self.refresh(Region(0, start, self.size.width, height))
        self._draw_ahead()

    def _draw_ahead(self) -> None:
        """Draw the lines now in view, so that the frame that follows finds them drawn: the
        work of a streamed reply's new lines is done by its flush, not by the frame."""
        for row in range(self.scrollable_content_region.height):
            self.render_line(row)

    def render_ahead(self, block: MessageBlock) -> None:
        """Render a message's new text now, in a step of its own; a later step shows it."""
        if self._width > 0:
            self._entry_height(block)

    def _forget_from(self, y: int) -> None:
        """Drop the drawn lines from line ``y`` of the log on."""
        self._drawn.forget_from(y)

    # -- layout ----------------------------------------------------------------------------------

    @property
    def _total(self) -> int:
        return self._starts[-1] if self._starts else 0

    def _entry_height(self, entry: Entry) -> int:
        return entry_height(entry, self.app, self._width, self.styles_of_lines.palette)

    def _relayout(self) -> None:
        self._width = self.scrollable_content_region.width
        if self._width <= 0:
            return
        self._heights = [self._entry_height(entry) for entry in self.entries]
        self._starts = [0, *itertools.accumulate(self._heights)]
        self._drawn.clear()
        self._set_virtual_height(self._total)
        self.refresh()

    def _set_virtual_height(self, height: int) -> None:
        """Grow or shrink the scrollable area, following the end if the view is there.

        Setting ``virtual_size`` lays out the whole screen (every widget on it), which a reply
        would do on every flush; only the log and its scrollbar change, so unless the scrollbar
        comes or goes they are updated here and the layout is skipped."""
        size = Size(self._width, height)
        if size == self.virtual_size:
            return
        following = self.is_anchored and self.scroll_offset.y >= self.max_scroll_y
        scrollbar = (
            self.styles.overflow_y == "scroll" or height > self.scrollable_content_region.height
        )
        if scrollbar != self.show_vertical_scrollbar or size.width != self.virtual_size.width:
            self.virtual_size = size
        else:
            self.set_reactive(ChatLog.virtual_size, size)
            if scrollbar:  # moved at once to where following the end takes it
                end = max(0, height - self.scrollable_content_region.height)
                move_quietly(
                    self.vertical_scrollbar, virtual=height, position=end if following else None
                )
        if following:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        if self.show_vertical_scrollbar:  # Textual then moves the bar: a repaint only if needed
            move_quietly(self.vertical_scrollbar, position=new_value)
        super().watch_scroll_y(old_value, new_value)

    def on_resize(self) -> None:
        if self.scrollable_content_region.width != self._width:
            self._relayout()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._drawn.clear()
        self._styles = None  # a theme or class change: lines are drawn again in the new styles
        if self.is_mounted:
            self.call_after_refresh(self._relayout)

    @property
    def styles_of_lines(self) -> LogStyles:
        """The styles lines are drawn in, from the component classes (kept until they change)."""
        if self._styles is None:
            self._styles = LogStyles.of(self.get_component_rich_style, next(_generations))
        return self._styles

    # -- drawing ---------------------------------------------------------------------------------

    def render_lines(self, crop: Region) -> list[Strip]:
        """The lines in view, drawn by the log (see :class:`DrawnLines`) rather than through
        Textual's styling of each line, which would process every line in view again on every
        frame of a streaming reply."""
        self.paints += 1
        # Once per repaint, not per line: the style walks every ancestor.
        width, focused = self.scrollable_content_region.width, self.has_focus
        self._drawn.begin(
            Drawing(
                width,
                self.rich_style,
                self._current() if focused else None,
                focused,
                tuple(self.get_line_filters()),
                self.background_colors[1],
            ),
            range(self.scroll_offset.y + crop.y, self.scroll_offset.y + crop.bottom),
        )
        lines = [self.render_line(y) for y in crop.line_range]
        if crop.column_span != (0, width):
            lines = [line.crop(*crop.column_span) for line in lines]
        return lines

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the view: drawn lines are kept, so as a reply streams in, only its
        new lines are drawn (a frame scrolls the rest)."""
        laid_out = self._drawn.drawing.width == self._width
        return self._drawn.line(
            y + self.scroll_offset.y, self.line_at if laid_out else lambda _: None
        )

    def line_at(self, y: int) -> Strip | None:
        """Line ``y`` of the whole log (not only the part in view), or None past its end."""
        if not 0 <= y < self._total:
            return None
        index = bisect_right(self._starts, y) - 1
        drawing = self._drawn.drawing
        selected = drawing.focused and index == drawing.cursor
        return entry_line(
            self.entries[index],
            y - self._starts[index],
            self._heights[index],
            self.app,
            self._width,
            self.styles_of_lines,
            selected=selected,
        )

    # -- selection -------------------------------------------------------------------------------

    @property
    def selected(self) -> MessageBlock | None:
        entry = self._entry(self._current())
        return entry if isinstance(entry, MessageBlock) else None

    def _entry(self, index: int | None) -> Entry | None:
        return self.entries[index] if index is not None else None

    def on_focus(self, event: events.Focus) -> None:
        self.refresh()

    def _current(self) -> int | None:
        """The selected entry: the one chosen, else (with the focus) the last message that
        starts in view, so that focusing the log selects without scrolling."""
        if self.cursor is not None or not self.has_focus or not self._starts:
            return self.cursor
        bottom = self.scroll_offset.y + self.size.height
        in_view = [i for i in range(len(self.entries)) if self._starts[i] < bottom]
        return next((i for i in reversed(in_view) if self._choosable(i)), None)

    def on_blur(self, event: events.Blur) -> None:
        self.refresh()

    def _choosable(self, index: int) -> bool:
        entry = self.entries[index]
        return isinstance(entry, MessageBlock) or (isinstance(entry, Earlier) and entry.count > 0)

    def _last_selectable(self) -> int | None:
        return next((i for i in reversed(range(len(self.entries))) if self._choosable(i)), None)

    def action_cursor(self, step: int) -> None:
        current = self._current()
        if current is None:
            self._move_to(self._last_selectable())
            return
        index = current + step
        while 0 <= index < len(self.entries) and not self._choosable(index):
            index += step
        if 0 <= index < len(self.entries):
            self._move_to(index)

    def _move_to(self, index: int | None) -> None:
        self.cursor = index
        if index is not None and self._starts:
            start, height = self._starts[index], self._heights[index]
            region = Region(0, start, self._width, max(min(height, self.size.height), 1))
            self.scroll_to_region(region, animate=False, immediate=True)
        self.refresh()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        entry = self._entry(self._current())
        if action == "open":  # Enter goes on to the screen when there is nothing to open
            return isinstance(entry, Earlier) or (
                isinstance(entry, MessageBlock) and bool(entry.tools)
            )
        if action == "copy":
            return isinstance(entry, MessageBlock)
        return True

    def action_open(self) -> None:
        entry = self._entry(self._current())
        if isinstance(entry, Earlier):
            self.post_message(self.EarlierRequested())
        elif isinstance(entry, MessageBlock):
            entry.toggle_tools()

    def action_copy(self) -> None:
        if (block := self.selected) is not None:
            self.app.copy_to_clipboard(block.content)
            self.notify("Message copied to the clipboard", timeout=2)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        y = self.scroll_offset.y + offset.y
        if not 0 <= y < self._total:
            return
        index = bisect_right(self._starts, y) - 1
        entry = self.entries[index]
        if isinstance(entry, Earlier):
            self.post_message(self.EarlierRequested())
        elif isinstance(entry, MessageBlock):
            self.focus()
            self._move_to(index)
            head = entry.head_lines(text_width(self._width), self.styles_of_lines.palette)
            if 1 <= y - self._starts[index] < len(head):  # a tool line
                entry.toggle_tools()
