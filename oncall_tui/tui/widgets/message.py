"""One message of the chat log: its header, tool calls and Markdown text, drawn by one widget.

A message is one widget with no children: it draws its lines from caches (the header and tool
lines once per width and state, the text as :class:`MarkdownLines`). A page of 40 messages is
40 widgets for every layout to visit, and a line of the log is drawn by two widgets (the log
and the message), not four. While a reply streams, only its short tail is rendered again on
each flush and nothing is mounted, so the cost of a frame does not grow with the length of the
reply or of the session.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget

from oncall_tui.services.sessions import ToolCallView
from oncall_tui.tui.widgets.markdown import MarkdownLines, split_point, split_segments

FLUSH_SECONDS = 0.05
"""Streamed text is buffered and drawn on this timer."""
MAX_FLUSH_CHARS = 1_500
"""At most this much buffered text is drawn per flush, so one flush never stalls the UI."""
STATUS_MARKS = {"streaming": "…", "interrupted": "⏸ interrupted", "failed": "✗ failed"}


def tool_title(name: str, summary: str, status: str) -> str:
    mark = {"ok": "→", "error": "✗", "interrupted": "⏸", "running": "…"}.get(status, "→")
    return f"⚙ {name} {mark} {summary}".rstrip()


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
        return f"arguments: {shown}".splitlines()

    @classmethod
    def of(cls, call: ToolCallView) -> ToolCallLine:
        return cls(call.call_id, call.name, dict(call.arguments), call.summary, call.status)


def _text_line(text: str, style: Style, width: int) -> Strip:
    """One line of plain text in ``style``, cut with an ellipsis to ``width`` cells."""
    if cell_len(text) > width:
        text = Strip([Segment(text)]).crop(0, max(width - 1, 0)).text + "…"
    return Strip([Segment(text, style)]).adjust_cell_length(width)


class MessageBlock(Widget, can_focus=True):
    """One message. Focus it to copy its text (``c``): OSC 52 reaches the local clipboard
    even over SSH in terminals that support it. Enter (or a click on a tool line) shows the
    arguments of its tool calls.

    Streamed text is buffered and drawn on a short timer. It joins the tail, the paragraph
    being written, which is rendered again; the paragraphs it completes (up to a paragraph
    break outside code fences) become a finished segment, rendered once. When the reply ends,
    the tail does too. So each flush and each frame cost the same at the end of a long reply
    as at its start, whatever the length of the session above it.
    """

    COMPONENT_CLASSES = {
        "message--header",
        "message--tool",
        "message--tool-failed",
        "message--tool-detail",
    }
    DEFAULT_CSS = """
    MessageBlock {
        height: auto;
    }
    """
    BINDINGS = [
        Binding("c", "copy", "Copy message"),
        Binding("enter", "toggle_tools", "Tool details"),
    ]

    def __init__(
        self,
        role: str,
        content: str,
        *,
        status: str = "complete",
        position: int | None = None,
        tool_calls: Sequence[ToolCallView] = (),
    ) -> None:
        super().__init__(classes=f"message -{role}")
        self.role = role
        self.content = content
        self.status = status
        self.position = position
        self.tools = [ToolCallLine.of(call) for call in tool_calls]
        self.tools_open = False
        segments = split_segments(content)
        self._body = (
            MarkdownLines(segments[:-1], tail=segments[-1])
            if status == "streaming"
            else MarkdownLines(segments)
        )
        self._head: list[Strip] = []
        self._head_key: tuple[int, str] | None = None
        """The width and theme ``_head`` was drawn for; None when it must be drawn again."""
        self._style = Style()
        self._pending: list[str] = []
        """Streamed text not yet drawn (flushed on a timer)."""
        self._flush_timer: Timer | None = None

    def on_mount(self) -> None:
        self._mark_status()

    @property
    def header(self) -> str:
        who = "you" if self.role == "user" else "assistant"
        mark = STATUS_MARKS.get(self.status)
        return f"{who} · {mark}" if mark else who

    @property
    def shown_text(self) -> str:
        """The message text on screen (with any note), which may lag ``content`` by a flush."""
        return self._body.text

    @property
    def body(self) -> MarkdownLines:
        return self._body

    def _mark_status(self) -> None:
        for status in STATUS_MARKS:
            self.set_class(self.status == status, f"-{status}")
        self._changed(layout=False)

    def _changed(self, *, layout: bool) -> None:
        self._head_key = None
        self.refresh(layout=layout)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._head_key = None  # the header's and tool lines' styles may have changed

    # -- drawing ---------------------------------------------------------------------------------

    def _head_lines(self, width: int) -> list[Strip]:
        """The header, then a line per tool call (and the arguments, when open)."""
        key = (width, self.app.theme)
        if key == self._head_key:
            return self._head
        style = self.get_component_rich_style

        lines = [_text_line(self.header, style("message--header"), width)]
        marker = "▼" if self.tools_open else "▶"
        for tool in self.tools:
            component = "message--tool-failed" if tool.status == "error" else "message--tool"
            lines.append(_text_line(f"{marker} {tool.title}", style(component), width))
            if self.tools_open:
                detail = style("message--tool-detail")
                lines += [_text_line(f"    {line}", detail, width) for line in tool.detail()]
        self._head, self._head_key = lines, key
        return lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._head_lines(width)) + self._body.line_count(self.app, width)

    def render_lines(self, crop: Region) -> list[Strip]:
        self._style = self.rich_style  # walks every ancestor: once per repaint, not per line
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        head = self._head_lines(width)
        if y < len(head):
            return head[y].apply_style(self._style)
        lines, tail = self._body.lines(self.app, width)
        y -= len(head)
        if y < len(lines):
            return lines[y].apply_style(self._style)
        if y - len(lines) < len(tail):
            return tail[y - len(lines)].apply_style(self._style)
        return Strip.blank(width, self._style)

    # -- tool calls ------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "toggle_tools":
            return bool(self.tools)  # Enter goes on to the log when there is nothing to show
        return True

    def action_toggle_tools(self) -> None:
        self.tools_open = not self.tools_open
        self._changed(layout=True)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is not None and 1 <= offset.y < len(self._head):
            self.action_toggle_tools()

    async def add_tool(self, call_id: str, name: str, arguments: dict[str, object]) -> None:
        self.tools.append(ToolCallLine(call_id, name, arguments))
        self._changed(layout=True)

    def finish_tool(self, call_id: str, summary: str, ok: bool) -> None:
        for tool in self.tools:
            if tool.call_id == call_id:
                tool.summary, tool.status = summary, "ok" if ok else "error"
        self._changed(layout=False)

    # -- streaming -------------------------------------------------------------------------------

    async def append(self, text: str) -> None:
        """Stream a fragment in: buffered, and drawn on a short timer."""
        if not text:
            return
        self.content += text
        self._pending.append(text)
        if self._flush_timer is None:
            self._flush_timer = self.set_timer(FLUSH_SECONDS, self._flush)

    def _flush(self) -> None:
        """The flush timer: draw what is buffered (at most MAX_FLUSH_CHARS per tick; a backlog
        is drawn over the next ticks, so it never turns into one long stall)."""
        self._flush_timer = None
        self._draw_buffered()
        if self._pending and self._flush_timer is None and self.status == "streaming":
            self._flush_timer = self.set_timer(FLUSH_SECONDS, self._flush)

    def _draw_buffered(self) -> None:
        text = "".join(self._pending)
        self._pending.clear()
        if len(text) > MAX_FLUSH_CHARS:
            self._pending.append(text[MAX_FLUSH_CHARS:])
            text = text[:MAX_FLUSH_CHARS]
        if not text:
            return
        body = self._body
        before = body.height
        tail = body.tail + text
        split = split_point(tail, min_chars=1)
        if split is not None:  # whole paragraphs: rendered once, as one segment
            body.add(self.app, [tail[:split]])
            tail = tail[split:]
        body.set_tail(self.app, tail)
        self.refresh(layout=body.height != before or not body.height)

    async def finish(self, status: str, note: str | None = None) -> None:
        """End streaming and mark an interrupted or failed reply.

        Whatever is still buffered is drawn and the tail becomes finished segments, so a
        finished reply is drawn as it will be when the session is opened again. A note, if
        any, is appended as a quote.
        """
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        if note:  # shown, not part of the message text (``content`` is what is stored)
            self._pending.append(f"\n\n> {note}" if self.content else f"> {note}")
        self._draw_buffered()
        while self._pending:  # a backlog: drawn a tick at a time, frames in between
            await asyncio.sleep(FLUSH_SECONDS)
            self._draw_buffered()
        tail = self._body.tail
        self._body.set_tail(self.app, "")
        self._body.add(self.app, [tail])
        for tool in self.tools:
            if tool.status == "running":
                tool.status = "interrupted"
        self.status = status
        self._mark_status()
        self.refresh(layout=True)

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.content)
        self.notify("Message copied to the clipboard", timeout=2)
