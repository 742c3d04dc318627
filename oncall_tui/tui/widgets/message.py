"""One message of the chat log: its state, its streaming, and its lines for the log to draw.

A message is not a widget. The chat log draws every message of its page itself, from lines
each message keeps: the header and tool lines (drawn again only when they change) and the text
as :class:`MarkdownLines`. While a reply streams, only the paragraph being written is rendered
again on each flush, so neither a flush nor a frame grows with the length of the reply or of
the session.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass
from time import monotonic, perf_counter
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual.app import App
from textual.strip import Strip
from textual.timer import Timer

from oncall_tui.core.text import terminal_safe
from oncall_tui.services.sessions import ToolCallView
from oncall_tui.tui.widgets.markdown import MarkdownLines, split_point, split_segments

if TYPE_CHECKING:
    from oncall_tui.tui.widgets.chat_log import ChatLog

FLUSH_SECONDS = 0.05
"""Streamed text is buffered and drawn on this timer."""
MAX_FLUSH_CHARS = 150
"""At most this much buffered text is drawn per flush, so one flush never stalls the UI."""
BACKLOG_SECONDS = 0.003
"""A backlog (more than MAX_FLUSH_CHARS waiting) is rendered in steps this far apart: a frame or
a keystroke can run between two steps, and the screen catches up with a fast model. What the
steps rendered is shown to the log at most once per FLUSH_SECONDS, by a step that renders
nothing. The frame that follows a showing paints the whole view (it follows the end), so the
next step waits until the log has been painted, and a step later still: a frame and a step
never run back to back, however late the frame comes on a loaded machine. A log that is not
painted (another screen on top) is waited for at most FLUSH_SECONDS."""
SLOW_STEP_PAUSE = 2.0
"""After a step, the next one waits at least this many times as long as the step took. A step
is about a millisecond, but on a loaded machine the same work can take ten times as long for a
few tens of milliseconds at a time; then the steps space out, so that frames, keys and timers
are not queued behind one slowed step after another."""
STATUS_MARKS = {
    "streaming": "…",
    "interrupted": "⏸ interrupted",
    "failed": "✗ failed",
    "truncated": "✂ truncated",
}


def tool_title(name: str, summary: str, status: str) -> str:
    marks = {"ok": "→", "error": "✗", "withheld": "✗", "interrupted": "⏸", "running": "…"}
    mark = marks.get(status, "→")
    return f"⚙ {name} {mark} {summary}".rstrip()


def text_line(text: str, style: Style, width: int) -> Strip:
    """One line of plain text in ``style``, cut with an ellipsis to ``width`` cells."""
    if cell_len(text) > width:
        text = Strip([Segment(text)]).crop(0, max(width - 1, 0)).text + "…"
    return Strip([Segment(text, style)]).adjust_cell_length(width)


@dataclass(frozen=True)
class Palette:
    """The styles of a message's own lines, from the log's component classes."""

    generation: int
    """Changes whenever the styles do: lines drawn with an older palette are drawn again."""
    header: Style
    header_interrupted: Style
    header_failed: Style
    tool: Style
    tool_failed: Style
    tool_detail: Style


@dataclass
class ToolCallLine:
    """One tool call of a message: a single line (name and one-line result); the arguments are
    shown below it when the message's tool details are open."""

    call_id: str
    name: str
    arguments: dict[str, object]
    summary: str = ""
    status: str = "running"

    @property
    def title(self) -> str:
        return tool_title(self.name, self.summary, self.status)

    def detail(self) -> list[str]:
        shown = json.dumps(self.arguments, ensure_ascii=False, indent=2) if self.arguments else "{}"
        return terminal_safe(f"arguments: {shown}").splitlines()  # JSON leaves C1 controls

    @classmethod
    def of(cls, call: ToolCallView) -> ToolCallLine:
        name, summary = terminal_safe(call.name), terminal_safe(call.summary)
        return cls(call.call_id, name, dict(call.arguments), summary, call.status)


class MessageBlock:
    """One message: role, text, status, tool calls, and the lines that show them.

    Streamed text is buffered and drawn on a short timer. It joins the tail, the paragraph
    being written, which is rendered again; the paragraphs it completes (up to a paragraph
    break outside code fences) become a finished segment, rendered once. When the reply ends,
    the tail does too.
    """

    def __init__(
        self,
        role: str,
        content: str,
        *,
        status: str = "complete",
        position: int | None = None,
        tool_calls: Sequence[ToolCallView] = (),
    ) -> None:
        self.role = role
        self.content = content
        self.status = status
        self.position = position
        self.tools = [ToolCallLine.of(call) for call in tool_calls]
        self.tools_open = False
        # ``content`` is the message as stored (copied as it is); what is drawn is made
        # terminal-safe as it enters, here and in ``append``.
        segments = split_segments(terminal_safe(content))
        self.body = (
            MarkdownLines(segments[:-1], tail=segments[-1])
            if status == "streaming"
            else MarkdownLines(segments)
        )
        self._head: list[Strip] = []
        self._head_key: tuple[int, int] | None = None
        """The width and palette ``_head`` was drawn for; None when it must be drawn again."""
        self._log: ChatLog | None = None
        self._pending: list[str] = []
        """Streamed text not yet drawn (flushed on a timer)."""
        self._flush_timer: Timer | None = None
        self._unshown: int | None = None
        """The first row that changed since the log was last told, if any."""
        self._shown_at = 0.0
        """When the log was last told of a change (``time.monotonic()``)."""
        self._paints_at_show: int | None = None
        """The log's paint count when a backlog was last shown; None once its frame came."""
        self._ending: str | None = None
        """The status a reply that has ended takes once its buffered text is drawn."""
        self.drawn = asyncio.Event()
        """Set once the message is finished and all its text is drawn."""
        if status != "streaming":
            self.drawn.set()

    def attach(self, log: ChatLog) -> None:
        """The log that shows this message, told of every change to its lines."""
        self._log = log

    @property
    def header(self) -> str:
        who = "you" if self.role == "user" else "assistant"
        mark = STATUS_MARKS.get(self.status)
        return f"{who} · {mark}" if mark else who

    @property
    def ended(self) -> bool:
        """Whether the message is finished, or a reply that will be once it is drawn."""
        return self.status != "streaming" or self._ending is not None

    @property
    def shown_text(self) -> str:
        """The message text on screen (with any note), which may lag ``content`` by a flush."""
        return self.body.text

    # -- lines -----------------------------------------------------------------------------------

    def head_lines(self, width: int, palette: Palette) -> list[Strip]:
        """The header, then a line per tool call (and the arguments, when open)."""
        if self._head_key == (width, palette.generation):
            return self._head
        header = {
            "interrupted": palette.header_interrupted,
            "truncated": palette.header_interrupted,
            "failed": palette.header_failed,
        }
        lines = [text_line(self.header, header.get(self.status, palette.header), width)]
        marker = "▼" if self.tools_open else "▶"
        for tool in self.tools:
            style = palette.tool_failed if tool.status in ("error", "withheld") else palette.tool
            lines.append(text_line(f"{marker} {tool.title}", style, width))
            if self.tools_open:
                lines += [
                    text_line(f"    {line}", palette.tool_detail, width) for line in tool.detail()
                ]
        self._head, self._head_key = lines, (width, palette.generation)
        return lines

    def line_count(self, app: App[object], width: int, palette: Palette) -> int:
        return len(self.head_lines(width, palette)) + self.body.line_count(app, width)

    def line(self, app: App[object], width: int, palette: Palette, row: int) -> Strip:
        """Line ``row`` of the message at ``width`` cells."""
        head = self.head_lines(width, palette)
        if row < len(head):
            return head[row]
        lines, tail = self.body.lines(app, width)
        row -= len(head)
        if row < len(lines):
            return lines[row]
        if row - len(lines) < len(tail):
            return tail[row - len(lines)]
        return Strip.blank(width)

    def _changed(self, *, head: bool = False) -> None:
        """Tell the log which lines may have changed: all of them if the head did, else those
        from the first line of the tail as it was (text is only ever added after it)."""
        first = 0 if head else len(self._head) + self.body.finished_height
        if head:
            self._head_key = None
        self._mark_changed(first)
        self._show()

    def _mark_changed(self, first: int) -> None:
        """Rows from ``first`` on changed; the log is told at the next :meth:`_show`."""
        self._unshown = first if self._unshown is None else min(self._unshown, first)

    def _show(self) -> None:
        """Tell the log of the rows changed since it was last told (it refreshes them)."""
        if self._unshown is None or self._log is None:
            return
        first, self._unshown = self._unshown, None
        self._shown_at = monotonic()
        self._log.message_changed(self, first)

    # -- tool calls ------------------------------------------------------------------------------

    def toggle_tools(self) -> None:
        self.tools_open = not self.tools_open
        self._changed(head=True)

    async def add_tool(self, call_id: str, name: str, arguments: dict[str, object]) -> None:
        self.tools.append(ToolCallLine(call_id, terminal_safe(name), arguments))
        self._changed(head=True)

    def finish_tool(self, call_id: str, summary: str, status: str) -> None:
        for tool in self.tools:
            if tool.call_id == call_id:
                tool.summary, tool.status = terminal_safe(summary), status
        self._changed(head=True)

    # -- streaming -------------------------------------------------------------------------------

    async def append(self, text: str) -> None:
        """Stream a fragment in: buffered, and drawn on a short timer."""
        if not text:
            return
        self.content += text
        self._pending.append(terminal_safe(text))
        self._schedule()

    def _schedule(self, delay: float = FLUSH_SECONDS) -> None:
        if self._flush_timer is None and self._log is not None:
            self._flush_timer = self._log.set_timer(delay, self._flush)

    def _flush(self) -> None:
        """The flush timer: draw what is buffered (at most MAX_FLUSH_CHARS per tick; a backlog
        is drawn over the next ticks, so it never turns into one long stall). Once the reply
        has ended and the last of it is drawn, the reply is finished."""
        self._flush_timer = None
        started = perf_counter()
        if self._waiting_for_frame():
            self._schedule(BACKLOG_SECONDS)
            return
        if self._pending and self._unshown is not None and self._show_due:
            self._show()  # a backlog: this step only shows what the steps before it rendered
            if self._log is not None:
                self._paints_at_show = self._log.paints
            self._schedule(self._pause(BACKLOG_SECONDS, started))
            return
        self._draw_buffered()
        if not self._pending:
            self._show()
        elif self._log is not None:
            self._log.render_ahead(self)  # a later step shows it
        if self._pending:
            self._schedule(self._pause(BACKLOG_SECONDS, started))
        elif self._ending is not None:
            self._finished(self._ending)

    @staticmethod
    def _pause(least: float, started: float) -> float:
        """How long to wait before the next step: ``least``, or longer after a slow step."""
        return max(least, SLOW_STEP_PAUSE * (perf_counter() - started))

    def _waiting_for_frame(self) -> bool:
        """Whether the next step waits for the frame of the last showing: until the log has
        been painted (or FLUSH_SECONDS have passed), and then one step more."""
        paints = self._paints_at_show
        if paints is None or self._log is None:
            return False
        if self._log.paints == paints and not self._show_due:
            return True
        self._paints_at_show = None
        return self._log.paints != paints

    @property
    def _show_due(self) -> bool:
        return monotonic() - self._shown_at >= FLUSH_SECONDS

    def _draw_buffered(self) -> None:
        """Move buffered text (at most MAX_FLUSH_CHARS) into the body; the log is told of it
        by the next :meth:`_show`."""
        text = "".join(self._pending)
        self._pending.clear()
        if len(text) > MAX_FLUSH_CHARS:
            self._pending.append(text[MAX_FLUSH_CHARS:])
            text = text[:MAX_FLUSH_CHARS]
        if not text:
            return
        self._mark_changed(len(self._head) + self.body.finished_height)
        tail = self.body.tail + text
        split = split_point(tail, min_chars=1)
        if split is not None:  # whole paragraphs: rendered once, as one segment
            self.body.add([tail[:split]])
            tail = tail[split:]
        self.body.set_tail(tail)

    async def finish(self, status: str, note: str | None = None) -> None:
        """End streaming and mark an interrupted or failed reply.

        What is still buffered is drawn on the flush timer, frames in between, and then the
        reply is finished: its tail becomes a finished segment (so it is drawn as it will be
        when the session is opened again) and its status is shown. A note, if any, is
        appended as a quote.
        """
        if note:  # shown, not part of the message text (``content`` is what is stored)
            self._pending.append(f"\n\n> {note}" if self.content else f"> {note}")
        if self.status != "streaming":  # already finished: only the status changes
            self._draw_buffered()
            self._finished(status)
            return
        self._ending = status
        if self._flush_timer is None:
            self._flush()

    def _finished(self, status: str) -> None:
        self._ending = None
        tail = self.body.tail
        self.body.set_tail("")
        self.body.add([tail])
        for tool in self.tools:
            if tool.status == "running":
                tool.status = "interrupted"
        self.status = status
        self._changed(head=True)
        self.drawn.set()
