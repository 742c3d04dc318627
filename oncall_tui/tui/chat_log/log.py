"""The chat log: the open page of a session, every message drawn by one scrolling widget.

Each message keeps its lines (see :mod:`.message`), and the log draws the lines in view from
them through ``render_line``, with a cache of drawn lines as Textual's ``RichLog`` keeps: a
frame draws only lines it has not drawn before, however many messages the page holds and
however long the reply streaming into it. Streamed text is drawn on one flush timer
(:mod:`.flush`). Long sessions mount lazily: a session opens on its newest page
and older pages are added above on request, so a session with 10,000 messages opens as fast as
one with 20.

Keys, with the log focused (shift+Tab from the composer): up and down move between messages,
``c`` copies the selected one with its time, Enter shows its tool calls' arguments (or loads
earlier messages, on the line that offers them). A click selects a message; a click on a tool
line opens it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from oncall_tui.texts import text as t
from oncall_tui.tui.chat_log.entries import (
    COMPONENT_CLASSES,
    Divider,
    Earlier,
    Entry,
    LogStyles,
    choosable,
    entry_height,
    entry_line,
    page_entries,
    text_width,
)
from oncall_tui.tui.chat_log.flush import StreamFlush
from oncall_tui.tui.chat_log.layout import LogLayout
from oncall_tui.tui.chat_log.message import MessageBlock
from oncall_tui.tui.chat_log.times import Clock, local_now
from oncall_tui.tui.commands import keys_here
from oncall_tui.tui.widgets.lang import key_texts, translate_bindings, ui_lang
from oncall_tui.tui.widgets.typing_on import TypingGoesOn, TypingHandOff

if TYPE_CHECKING:
    from oncall_tui.services.views import MessageView

_generations = itertools.count(1)


class ChatLog(TypingGoesOn, ScrollView, can_focus=True):
    """Messages of the open session, newest at the bottom; follows new output."""

    COMPONENT_CLASSES = COMPONENT_CLASSES
    BINDINGS = [
        Binding("up", "cursor(-1)", "Previous message", id="log.previous", show=False),
        Binding("down", "cursor(1)", "Next message", id="log.next", show=False),
        Binding("home", "cursor(-1, True)", "First message", id="log.first", show=False),
        Binding("end", "cursor(1, True)", "Last message", id="log.last", show=False),
        Binding("c", "copy", "Copy message", id="log.copy"),
        Binding("b", "screen.copy_code", "Copy code", id="log.copy_code", show=False),
        Binding("enter", "open", "Open", id="log.open"),
    ]

    class EarlierRequested(Message):
        """The user asked for the page before the oldest message shown."""

    class EmptyChanged(Message):
        """The log has come to show no message at all, or its first one."""

        def __init__(self, empty: bool) -> None:
            super().__init__()
            self.empty = empty

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._typing: TypingHandOff = TypingHandOff(self)
        """Typing here goes on in the composer (:mod:`...widgets.typing_on`)."""
        self.lang = ui_lang(self)
        translate_bindings(self, key_texts(self.BINDINGS, "log"))
        self._earlier_keys = keys_here(self, "load_earlier", first=True)
        self._summary_keys = keys_here(self, "show_summary", first=True)
        """What the earlier-messages line and the divider name, as the keys are bound."""
        self.entries: list[Entry] = [self._earlier(0)]
        self.cursor: int | None = None
        """The selected entry (a message, or the line offering earlier ones)."""
        self._layout = LogLayout()
        self._styles: LogStyles | None = None
        self._stream = StreamFlush(self, self._redraw)
        self.clock: Clock = local_now
        """Now: the time of a message created here, and the day headers compare with."""
        self.model_in_use: str | None = None
        """The model replies are written by now: a new reply's, and the one the headers of
        replies by another name theirs against (:meth:`follow_model`)."""
        self.empty = True
        """Whether no message is shown, nor any earlier one offered (then it takes no focus)."""
        self.can_focus = False

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

    def show_page(self, messages: Sequence[MessageView], *, earlier: int, boundary: int) -> None:
        """Replace the log with one page (the newest) of a session."""
        page = page_entries(messages, boundary, self.clock, self.lang, self._summary_keys)
        self._replace([self._earlier(earlier), *page])
        self.anchor()

    def prepend_page(self, messages: Sequence[MessageView], *, earlier: int, boundary: int) -> None:
        """Add an older page above; what is in view stays in view."""
        before = self._layout.total
        added = page_entries(messages, boundary, self.clock, self.lang, self._summary_keys)
        if self.boundary is not None and any(isinstance(e, Divider) for e in added):
            added = [entry for entry in added if not isinstance(entry, Divider)]
        if self.cursor:  # the same entry stays selected
            self.cursor += len(added)
        elif self.cursor == 0 and not earlier:  # nothing more to load: the oldest message
            self.cursor = 1
        self._insert(1, added)
        self.entries[0] = self._earlier(earlier)
        self._relayout()
        if not self.is_vertical_scroll_end:
            cursor = self.cursor  # kept, in view or not: Enter on the earlier line loads more
            self.scroll_to(
                y=self.scroll_y + self._layout.total - before, animate=False, immediate=True
            )
            self.cursor = cursor

    def _earlier(self, count: int) -> Earlier:
        return Earlier(count, self.lang, self._earlier_keys)

    def add_exchange(self, question: str) -> MessageBlock:
        """The user's message and the reply about to stream."""
        reply = self._new_reply()
        self._append([MessageBlock("user", question, clock=self.clock, lang=self.lang), reply])
        return self._stream.count_wait(reply)

    def add_reply(self) -> MessageBlock:
        """A reply about to stream, to the last message (a retry)."""
        return self._stream.count_wait(self._append([self._new_reply()]))

    def _new_reply(self) -> MessageBlock:
        return MessageBlock(
            "assistant",
            "",
            status="streaming",
            model=self.model_in_use,
            clock=self.clock,
            lang=self.lang,
        )

    def follow_model(self, model: str) -> None:
        """Replies are written by ``model`` from now on: those by another say which wrote
        them, in their headers."""
        self.model_in_use = model
        for block in self.messages:
            block.follow_model(model)

    def _append(self, blocks: list[MessageBlock]) -> MessageBlock:
        self._insert(len(self.entries), blocks)
        self._relayout()
        self.anchor()
        return blocks[-1]

    def mark_boundary(self, count: int) -> None:
        """After a compaction: move the divider to stand above message ``count``."""
        self.entries = [entry for entry in self.entries if not isinstance(entry, Divider)]
        at = (
            i
            for i, e in enumerate(self.entries)
            if isinstance(e, MessageBlock) and e.position == count
        )
        target = next(at, len(self.entries))
        self._insert(target, [Divider(count, self.lang, self._summary_keys)])
        self.cursor = None
        self._relayout()

    def _replace(self, entries: list[Entry]) -> None:
        for entry in self.entries:
            if isinstance(entry, MessageBlock):
                entry.listener = None
        self.entries = []
        self._stream.clear()
        self.cursor = None
        self._insert(0, entries)
        self._relayout()
        self.scroll_to(y=0, animate=False, immediate=True)

    def _insert(self, index: int, entries: Sequence[Entry]) -> None:
        for entry in entries:
            if isinstance(entry, MessageBlock):
                entry.model_in_use = self.model_in_use
                entry.listener = self._message_changed
        self.entries[index:index] = entries
        empty = self.earlier == 0 and not any(isinstance(e, MessageBlock) for e in self.entries)
        if empty != self.empty:
            self.empty = empty
            self.can_focus = not empty  # nothing to select
            self.post_message(self.EmptyChanged(empty))

    # -- changes and the flush -------------------------------------------------------------------

    def _message_changed(self, block: MessageBlock) -> None:
        """A message has something new to draw: streamed text and endings wait for the flush;
        other changes (a tool line, its details) are drawn now."""
        if block.waiting:
            self._stream.add(block)
        else:
            self._redraw(block)
            self._offer_keys()  # a tool line came: Enter may open it now

    def _redraw(self, block: MessageBlock) -> None:
        """Forget the lines of ``block`` that changed and those after them if it grew."""
        first = block.take_changes()
        if first is None or self._layout.width <= 0 or block not in self.entries:
            return
        if self.scrollable_content_region.width != self._layout.width:
            self._relayout()
            return
        index = len(self.entries) - 1 if self.entries[-1] is block else self.entries.index(block)
        if self._layout.changed(index, first, self._entry_height(block)):
            self._set_virtual_height(self._layout.total)
        self.refresh()

    # -- layout ----------------------------------------------------------------------------------

    def _entry_height(self, entry: Entry) -> int:
        return entry_height(entry, self.app, self._layout.width, self.styles_of_lines.palette)

    def _relayout(self) -> None:
        width = self.scrollable_content_region.width
        self._layout.width = width
        if width <= 0:
            return  # nothing is drawn at no width
        self._layout.lay_out([self._entry_height(entry) for entry in self.entries])
        self._set_virtual_height(self._layout.total)
        self.refresh()
        self._offer_keys()  # what is selected may be another entry now

    def _set_virtual_height(self, height: int) -> None:
        """Grow or shrink the scrollable area, following the end if the view was there."""
        following = self.is_anchored and self.scroll_offset.y >= self.max_scroll_y
        self.virtual_size = Size(self._layout.width, height)
        if following:
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        """A selection scrolled wholly out of view (PgUp, the wheel) is let go: the last message
        that starts in view is selected again, as when the log took the focus, so that ``c``
        copies one that can be seen (it copied the one chosen pages below)."""
        super().watch_scroll_y(old_value, new_value)
        if self.cursor is None or not self._layout.holds(len(self.entries)):
            return
        start, height = self._layout.span(self.cursor)
        top = self.scroll_offset.y
        if start + height <= top or start >= top + self.size.height:
            self.cursor = None
            self._offer_keys()

    def on_resize(self) -> None:
        if self.scrollable_content_region.width != self._layout.width:
            self._relayout()

    def notify_style_update(self) -> None:
        super().notify_style_update()
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

    def render_line(self, y: int) -> Strip:
        """Line ``y`` of the view, drawn once and then kept until it changes."""
        line_y = y + self.scroll_offset.y
        styles = self.styles_of_lines
        selected = self._current() if self.has_focus else None
        background = self.rich_style
        width, drawn = self._layout.width, self._layout.drawn
        key = (line_y, width, selected, styles.palette.generation, background)
        line = drawn.get(key)
        if line is None:  # kept as drawn: the styled strip, not also the one it was made from
            line = (self._line_at(line_y, selected) or Strip.blank(width)).apply_style(background)
            drawn.set(key, line)
        return line

    def line_at(self, y: int) -> Strip | None:
        """Line ``y`` of the whole log (not only the part in view), or None past its end."""
        return self._line_at(y, self._current() if self.has_focus else None)

    def _line_at(self, y: int, selected: int | None) -> Strip | None:
        layout = self._layout
        if not 0 <= y < layout.total or layout.width != self.scrollable_content_region.width:
            return None
        index = layout.index_at(y)
        start, height = layout.span(index)
        entry, styles = self.entries[index], self.styles_of_lines
        return entry_line(
            entry, y - start, height, self.app, layout.width, styles, selected=index == selected
        )

    # -- selection -------------------------------------------------------------------------------

    @property
    def selected(self) -> MessageBlock | None:
        entry = self._entry(self._current())
        return entry if isinstance(entry, MessageBlock) else None

    def _entry(self, index: int | None) -> Entry | None:
        return self.entries[index] if index is not None else None

    def on_focus(self, event: events.Focus) -> None:
        self._typing.back()
        self.refresh()

    def _current(self) -> int | None:
        """The selected entry: the one chosen, else (with the focus) the last message that
        starts in view, so that focusing the log selects without scrolling."""
        if self.cursor is not None or not self.has_focus or not self._layout.starts:
            return self.cursor
        bottom = self.scroll_offset.y + self.size.height
        in_view = [i for i in range(len(self.entries)) if self._layout.starts[i] < bottom]
        return next((i for i in reversed(in_view) if choosable(self.entries[i])), None)

    def on_blur(self, event: events.Blur) -> None:
        self.refresh()

    def action_cursor(self, step: int, far: bool = False) -> None:
        """Up and down: the message before or after the selected one (none: the last); Home
        and End (``far``): the first entry there is to choose, the last message."""
        current, count = self._current(), len(self.entries)
        if far:
            start, step = (0, 1) if step < 0 else (count - 1, -1)
        else:
            start, step = (count - 1, -1) if current is None else (current + step, step)
        index = start
        while 0 <= index < count and not choosable(self.entries[index]):
            index += step
        if 0 <= index < count:
            self._move_to(index)

    def select_position(self, position: int, find: str = "") -> bool:
        """Select the message at ``position`` in its session and bring it into view (a search
        hit opened), at its first line that holds ``find`` (the term found: in a long pasted
        log, its top was shown, the match hundreds of lines below); whether it is loaded."""
        for index, entry in enumerate(self.entries):
            if isinstance(entry, MessageBlock) and entry.position == position:
                if not self._layout.holds(len(self.entries)):  # not laid out since the page
                    self._relayout()
                self._move_to(index)
                if find and self._layout.starts:
                    self._show_line_with(index, find.casefold())
                return True
        return False

    def _show_line_with(self, index: int, find: str) -> None:
        start, height = self._layout.span(index)
        for row in range(start, start + height):
            line = self.line_at(row)
            if line is not None and find in line.text.casefold():
                if not self._in_view(row):
                    self.scroll_to_region(
                        Region(0, row, self._layout.width, 1), animate=False, immediate=True
                    )
                return

    def _in_view(self, row: int) -> bool:
        top = self.scroll_offset.y
        return top <= row < top + self.size.height

    def _move_to(self, index: int | None) -> None:
        self.cursor = index
        if index is not None and self._layout.starts:
            start, height = self._layout.span(index)
            region = Region(0, start, self._layout.width, max(min(height, self.size.height), 1))
            self.scroll_to_region(region, animate=False, immediate=True)
        self.refresh()
        self._offer_keys()

    def _offer_keys(self) -> None:
        """The key bar offers Open and Copy by the entry selected (:meth:`check_action`): it
        is drawn again when that may have changed, while it shows the log's keys."""
        if self.has_focus:
            self.refresh_bindings()

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
            self.app.copy_to_clipboard(block.copy_text())
            self.notify(t("copy.message_done", self.lang), timeout=2)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None:
            return
        y = self.scroll_offset.y + offset.y
        if not 0 <= y < self._layout.total:
            return
        index = self._layout.index_at(y)
        entry = self.entries[index]
        if isinstance(entry, Earlier):
            self.post_message(self.EarlierRequested())
        elif isinstance(entry, MessageBlock):
            self.focus()
            self._move_to(index)
            width, palette = text_width(self._layout.width), self.styles_of_lines.palette
            if entry.is_tool_row(self.app, width, palette, y - self._layout.starts[index]):
                entry.toggle_tools()
