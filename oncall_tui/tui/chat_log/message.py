"""One message of the chat log: a plain model of its state and of its lines.

A message is not a widget, and knows no widget. The chat log draws every message of its page
from the lines each keeps: the header (who, any status, when, and the model of a reply another
than the one in use wrote) and tool lines, drawn again only when they change, and the text: a
reply's as :class:`MarkdownLines`, the user's verbatim, as :class:`PlainLines`. Streamed text
waits in the message until the log flushes it: the paragraphs it completes become a finished
segment, rendered once, and the paragraph being written is the tail, rendered again at each
flush. The message remembers from which of its rows its lines changed, and tells its listener
(the log) that it has something to draw.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from textual.app import App
from textual.strip import Strip

from oncall_tui.core.text import in_text_order, terminal_safe
from oncall_tui.errors import Language
from oncall_tui.texts import text as t
from oncall_tui.tui.chat_log.lines import Palette, text_line
from oncall_tui.tui.chat_log.markdown import MarkdownLines, split_point, split_segments
from oncall_tui.tui.chat_log.plain import PlainLines
from oncall_tui.tui.chat_log.times import Clock, full_time, local_now, short_time
from oncall_tui.tui.chat_log.tool_calls import (
    ToolCallLine,
    place,
    tool_call_lines,
    tool_call_rows,
)

if TYPE_CHECKING:
    from oncall_tui.services.views import ToolCallView

STATUS_MARKS = {"streaming": "…", "interrupted": "⏸", "failed": "✗", "truncated": "✂"}
"""A status's mark in the header, followed by the catalog's word for the status (its key:
``log.status.`` and the status), but for a reply still streaming."""

WAIT_SHOWN_FROM = 2
"""Seconds a reply streams with nothing to show before its header counts them: a model being
loaded, or thinking (its thinking is not shown), says no word for tens of seconds, and a "…"
that never moves cannot be told from an app that hangs."""
STALL_SHOWN_FROM = 5
"""Seconds a reply that has begun goes without a new word or tool call before its header
counts them again: a server that hangs (a GPU out of memory, a stalled link) stops a reply
mid-sentence, which looked the same as an app that hangs. Local models leave gaps of a second
or two between words at their slowest; a tool that runs long is counted too."""


class MessageBlock:
    """One message: role, text, status, time, tool calls, and the lines that show them."""

    def __init__(
        self,
        role: str,
        content: str,
        *,
        status: str = "complete",
        position: int | None = None,
        tool_calls: Sequence[ToolCallView] = (),
        created_at: datetime | None = None,
        model: str | None = None,
        clock: Clock = local_now,
        lang: Language,
    ) -> None:
        self.lang: Language = lang
        """The language of the header's words (role and status); the content is as written."""
        self.role = role
        self.content = content
        self.status = status
        self.position = position
        self.model = model
        """The model that wrote a reply (``None``: a person's message, or a reply stored before
        replies kept their model)."""
        self.model_in_use: str | None = None
        """The model replies are written by now (the log's): a reply by another names its own."""
        self.clock = clock
        """Now: the day the header's time is compared with."""
        self.created_at = clock() if created_at is None else created_at
        """When the message was said (as stored: UTC if naive); a new one, now."""
        self._last_at = self.created_at
        """When the reply last showed something new (a word, a tool call)."""
        self.thinks = False
        """The model reasons, and nothing new shows since (the count in the header says so)."""
        self.tools = [ToolCallLine.of(call) for call in tool_calls]
        self.tools_open = False
        # ``content`` is the message as stored (copied as it is); what is drawn is made
        # terminal-safe as it enters, here (and in PlainLines) and in ``append``.
        self.body: MarkdownLines | PlainLines
        """The text being written (a reply's after its last tool call), or the whole message."""
        self._above: list[MarkdownLines | ToolCallLine] = []
        """A reply's text and tool calls before ``body``, in the order they came."""
        if role == "user":  # as typed: a pasted log's lines, a ``#`` in it, stay as they are
            self.body = PlainLines(content)
        else:
            rest = self._place_tools(terminal_safe(content))
            segments = split_segments(rest)
            tail = segments.pop() if status == "streaming" else ""
            self.body = MarkdownLines(segments, tail=tail)
        self.listener: Callable[[MessageBlock], None] | None = None
        """Told when the message has something new to draw (the log that shows it)."""
        self._head: list[Strip] = []
        self._head_key: tuple[int, int] | None = None
        """The width and palette ``_head`` was drawn for; None when it must be drawn again."""
        self._pending: list[str] = []
        """Streamed text not yet drawn."""
        self._ending: str | None = None
        """The status a reply that has ended takes once its waiting text is drawn."""
        self._changed_from: int | None = None
        """The first row whose line changed since the log last asked."""

    def _place_tools(self, text: str) -> str:
        """Put the text before each placed tool call above it, and the call under its piece
        (``terminal_safe`` keeps the length, so the stored places hold); the text after the
        last call is returned."""
        order = in_text_order(text, [tool for tool in self.tools if tool.at is not None], place)
        rest = order[-1] if order and isinstance(order[-1], str) else ""
        if rest:
            order.pop()
        self._above = [
            MarkdownLines(split_segments(part)) if isinstance(part, str) else part for part in order
        ]
        return rest

    @property
    def who(self) -> str:
        """Who said it, and the status unless complete: ``assistant · ✗ failed``."""
        who = t("log.you" if self.role == "user" else "log.assistant", self.lang)
        mark = STATUS_MARKS.get(self.status)
        if mark and self.status != "streaming":
            mark = f"{mark} {t(f'log.status.{self.status}', self.lang)}"
        waited = self.shown_wait
        if mark and waited is not None:
            said = t("log.thinking" if self.thinks else "log.waited", self.lang, seconds=waited)
            mark = f"{mark} {said}"
        return f"{who} · {mark}" if mark else who

    @property
    def shown_wait(self) -> int | None:
        """The whole seconds the header counts: those a streaming reply has gone with nothing
        new to show (no word, no tool call), from its start past :data:`WAIT_SHOWN_FROM`, from
        the last thing that came past :data:`STALL_SHOWN_FROM`; else ``None``."""
        if self.status != "streaming" or self._ending is not None:
            return None
        waited = int((self.clock() - self._last_at).total_seconds())
        bound = STALL_SHOWN_FROM if self.content or self.tools else WAIT_SHOWN_FROM
        return waited if waited >= bound else None

    def tick(self) -> bool:
        """A second has passed: the header is drawn again while it counts; whether the reply
        still streams (a count may start at any second until it ends)."""
        if self.status != "streaming" or self._ending is not None:
            return False
        if self.shown_wait is not None:
            self._changed(head=True)
        return True

    def think(self) -> None:
        """The model reasons before it writes: the header's count says so."""
        self.thinks = True
        if self.shown_wait is not None:
            self._changed(head=True)

    def _arrived(self) -> None:
        """Something new to show came: a count in the header goes, and with it the thinking."""
        if self.shown_wait is not None:
            self._head_key = None
            self._mark(0)
        self._last_at, self.thinks = self.clock(), False

    @property
    def header(self) -> str:
        """The first line: who, then when (``you · 14:03``, ``assistant · ✗ failed · 14:03``),
        for the incident's timeline, then the model of a reply another than the one in use
        wrote (``assistant · 14:03 · qwen3:32b``). Today is the clock's day when it is drawn."""
        header = f"{self.who} · {short_time(self.created_at, self.clock(), self.lang)}"
        return f"{header} · {self._model}" if self.names_model else header

    @property
    def names_model(self) -> bool:
        """Whether the header names the model: a reply's written by another than the one in
        use (one the engineer moved away from mid-incident)."""
        model, in_use = self.model, self.model_in_use
        if not model or not in_use or model == in_use:
            return False
        from oncall_tui.core.model_names import same_model  # rarely needed: off the start-up path

        return not same_model(model, in_use)

    def follow_model(self, model: str) -> None:
        """``model`` is the one in use now: the header names this reply's if it is another."""
        named = self.names_model
        self.model_in_use = model
        if self.names_model != named:
            self._changed(head=True)

    @property
    def _model(self) -> str:
        return terminal_safe(self.model or "")

    def copy_text(self) -> str:
        """The message as copied: when (in full), who and a reply's model on a first line,
        then the text as stored with a line for each tool call where it was made (calls
        without a place first), so that pasted in an incident's timeline it keeps when it was
        said, by which model, and what it looked at."""
        model = f" · {self._model}" if self.model else ""
        order = in_text_order(self.content, self.tools, place)
        lines = [part.strip("\n") if isinstance(part, str) else part.title for part in order]
        text = "\n".join(lines) if self.tools else self.content
        return f"[{full_time(self.created_at)}] {self.who}{model}\n{text}"

    @property
    def ended(self) -> bool:
        """Whether the message is finished, or a reply that will be at the next flush."""
        return self.status != "streaming" or self._ending is not None

    @property
    def waiting(self) -> bool:
        """Whether text or an ending waits for the next flush."""
        return bool(self._pending) or self._ending is not None

    # -- lines -----------------------------------------------------------------------------------

    def _head_lines(self, width: int, palette: Palette) -> list[Strip]:
        """The header, then a line per tool call (and the arguments, when open)."""
        if self._head_key == (width, palette.generation):
            return self._head
        header = {
            "interrupted": palette.header_interrupted,
            "truncated": palette.header_interrupted,
            "failed": palette.header_failed,
        }
        lines = [text_line(self.header, header.get(self.status, palette.header), width)]
        for tool in self.tools:
            if tool.at is None:
                lines += self._tool_lines(tool, width, palette)
        self._head, self._head_key = lines, (width, palette.generation)
        return lines

    def _tool_lines(self, tool: ToolCallLine, width: int, palette: Palette) -> list[Strip]:
        return tool_call_lines(tool, width, palette, opened=self.tools_open, lang=self.lang)

    def _tool_rows(self, tool: ToolCallLine) -> int:
        return tool_call_rows(tool, opened=self.tools_open)

    def _parts(
        self, app: App[object], width: int
    ) -> Iterator[tuple[MarkdownLines | PlainLines | ToolCallLine, int]]:
        """The parts under the head, each with its height at ``width``: the text and tool
        calls above the text being written, then that text."""
        for part in self._above:
            if isinstance(part, ToolCallLine):
                yield part, self._tool_rows(part)
            else:
                yield part, part.line_count(app, width)
        yield self.body, self.body.line_count(app, width)

    def line_count(self, app: App[object], width: int, palette: Palette) -> int:
        rows = sum(height for _, height in self._parts(app, width))
        return len(self._head_lines(width, palette)) + rows

    def line(self, app: App[object], width: int, palette: Palette, row: int) -> Strip:
        """Line ``row`` of the message at ``width`` cells."""
        head = self._head_lines(width, palette)
        if row < len(head):
            return head[row]
        row -= len(head)
        for part, height in self._parts(app, width):
            if row < height:
                if isinstance(part, ToolCallLine):
                    return self._tool_lines(part, width, palette)[row]
                return part.line(app, width, row) or Strip.blank(width)
            row -= height
        return Strip.blank(width)

    def is_tool_row(self, app: App[object], width: int, palette: Palette, row: int) -> bool:
        """Whether line ``row`` belongs to a tool call (a click there opens the details)."""
        head = self._head_lines(width, palette)
        if row < len(head):
            return row >= 1
        row -= len(head)
        for part, height in self._parts(app, width):
            if row < height:
                return isinstance(part, ToolCallLine)
            row -= height
        return False

    def take_changes(self) -> int | None:
        """The first row whose line changed since the last call, if any."""
        first, self._changed_from = self._changed_from, None
        return first

    def _changed(self, *, head: bool = False) -> None:
        """Lines changed: all of them if the head did, else those from the tail on (text is
        only ever added after it). The listener hears of it."""
        if head:
            self._head_key = None
        self._mark(0 if head else self._tail_row)
        if self.listener is not None:
            self.listener(self)

    @property
    def _tail_row(self) -> int:
        """The row the tail starts at (everything added later comes after it), from the heights
        last drawn (a part not drawn yet counts none: more is drawn again, never less)."""
        above = sum(
            self._tool_rows(part) if isinstance(part, ToolCallLine) else part.finished_height
            for part in self._above
        )
        return len(self._head) + above + self.body.finished_height

    def _mark(self, first: int) -> None:
        self._changed_from = first if self._changed_from is None else min(self._changed_from, first)

    # -- tool calls ------------------------------------------------------------------------------

    def toggle_tools(self) -> None:
        self.tools_open = not self.tools_open
        self._changed(head=True)

    def add_tool(self, call_id: str, name: str, arguments: dict[str, object]) -> None:
        """A call the reply makes, drawn after the text written so far; the text after it is
        written under it."""
        self._arrived()
        tool = ToolCallLine(call_id, terminal_safe(name), arguments, at=len(self.content))
        self.tools.append(tool)
        body = self.body
        if isinstance(body, MarkdownLines):
            text = body.tail + "".join(self._pending)
            self._pending.clear()
            body.add([text])
            body.set_tail("")
            self._above += [body, tool] if body.text else [tool]
            self.body = MarkdownLines()
        self._changed(head=True)

    def finish_tool(self, call_id: str, summary: str, status: str) -> None:
        self._arrived()
        for tool in self.tools:
            if tool.call_id == call_id:
                tool.summary, tool.status = terminal_safe(summary), status
        self._changed(head=True)

    # -- streaming -------------------------------------------------------------------------------

    def append(self, text: str) -> None:
        """Stream a piece of text in; it is drawn at the log's next flush."""
        if not text:
            return
        self._arrived()
        self.content += text
        self._pending.append(terminal_safe(text))
        if self.listener is not None:
            self.listener(self)

    def finish(self, status: str, note: str | None = None) -> None:
        """End a streaming reply (at the next flush, after the text still waiting), or change
        a finished one's status. A note, if any, is shown below the text as a quote; it is not
        part of the message (``content`` is what is stored)."""
        if note:
            self._pending.append(f"\n\n> {note}" if self.content else f"> {note}")
        self._ending = status
        if self.listener is not None:
            self.listener(self)

    def flush(self) -> None:
        """Draw the text waiting (whole paragraphs become a finished segment, the rest the
        tail), and end the reply if it has ended."""
        text = "".join(self._pending)
        self._pending.clear()
        body = self.body
        if text and isinstance(body, MarkdownLines):  # a user's text is whole: none streams in
            self._mark(self._tail_row)
            tail = body.tail + text
            split = split_point(tail, min_chars=1)
            if split is not None:  # whole paragraphs: rendered once, as one segment
                body.add([tail[:split]])
                tail = tail[split:]
            body.set_tail(tail)
        if self._ending is not None:
            status, self._ending = self._ending, None
            if isinstance(body, MarkdownLines):  # drawn as it will be when the session is reopened
                body.add([body.tail])
                body.set_tail("")
            for tool in self.tools:
                if tool.status == "running":
                    tool.status = "interrupted"
            self.status = status
            self._head_key = None
            self._mark(0)
