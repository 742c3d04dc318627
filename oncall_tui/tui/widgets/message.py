"""One message of the chat log: Markdown text, tool calls as expandable lines, streaming.

A message's text is drawn by one widget from lines rendered once per width. While a reply
streams, only its short tail is rendered again on each flush, and nothing is mounted, so the
cost of a frame does not grow with the length of the reply or of the session.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Collapsible, Label, Static

from oncall_tui.services.sessions import ToolCallView
from oncall_tui.tui.widgets.markdown import RenderedMarkdown, split_point, split_segments

FLUSH_SECONDS = 0.05
"""Streamed text is buffered and drawn on this timer."""
MAX_FLUSH_CHARS = 1_500
"""At most this much buffered text is written per flush, so one flush never stalls the UI."""
STATUS_MARKS = {"streaming": "…", "interrupted": "⏸ interrupted", "failed": "✗ failed"}


def tool_title(name: str, summary: str, status: str) -> str:
    mark = {"ok": "→", "error": "✗", "interrupted": "⏸", "running": "…"}.get(status, "→")
    return f"⚙ {name} {mark} {summary}".rstrip()


class ToolLine(Collapsible):
    """One tool call: a single line (name and one-line result) that expands to the arguments."""

    def __init__(self, call_id: str, name: str, arguments: dict[str, object]) -> None:
        self.call_id = call_id
        self.tool_name = name
        detail = json.dumps(arguments, ensure_ascii=False, indent=2) if arguments else "{}"
        super().__init__(
            Static(f"arguments: {detail}", classes="tool-detail", markup=False),
            title=tool_title(name, "", "running"),
            collapsed=True,
            classes="tool-line",
        )

    def finish(self, summary: str, status: str) -> None:
        self.title = tool_title(self.tool_name, summary, status)
        self.set_class(status != "ok", "-failed")

    @classmethod
    def of(cls, call: ToolCallView) -> ToolLine:
        line = cls(call.call_id, call.name, call.arguments)
        line.finish(call.summary, call.status)
        return line


class MessageBlock(Vertical, can_focus=True):
    """One message. Focus it to copy its text (``c``) — OSC 52 reaches the local clipboard
    even over SSH in terminals that support it.

    Its text is drawn by one :class:`RenderedMarkdown`. Streamed text is buffered and drawn on
    a short timer: it joins the tail (the text since the last paragraph break past
    :data:`SEGMENT_CHARS`), which is rendered again; once the tail is that long and reaches a
    paragraph break outside code fences, its head becomes a finished segment, rendered once.
    When the reply ends, the whole tail does. So each flush and each frame cost the same at the
    end of a long reply as at its start, whatever the length of the session above it.
    """

    BINDINGS = [Binding("c", "copy", "Copy message")]

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
        self._tool_calls = tuple(tool_calls)
        segments = split_segments(content)
        streaming = status == "streaming"
        self._body = (
            RenderedMarkdown(segments[:-1], tail=segments[-1])
            if streaming
            else RenderedMarkdown(segments)
        )
        self._pending: list[str] = []
        """Streamed text not yet drawn (flushed on a timer)."""
        self._flush_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Label(self._header(), classes="message-header")
        for call in self._tool_calls:
            yield ToolLine.of(call)
        yield self._body

    def on_mount(self) -> None:
        self._mark_status()

    def _header(self) -> str:
        who = "you" if self.role == "user" else "assistant"
        mark = STATUS_MARKS.get(self.status)
        return f"{who} · {mark}" if mark else who

    def _mark_status(self) -> None:
        for status in STATUS_MARKS:
            self.set_class(self.status == status, f"-{status}")
        self.query_one(".message-header", Label).update(self._header())

    @property
    def shown_text(self) -> str:
        """The text on screen (with any note), which may lag ``content`` by one flush."""
        return self._body.text

    # -- streaming -----------------------------------------------------------------------------

    async def append(self, text: str) -> None:
        """Stream a fragment in: buffered, and drawn on a short timer."""
        if not text:
            return
        self.content += text
        self._pending.append(text)
        if self._flush_timer is None:
            self._flush_timer = self.set_timer(FLUSH_SECONDS, self._flush)

    async def _flush(self) -> None:
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
        tail = self._body.tail + text
        split = split_point(tail)
        if split is not None:  # the head is long enough and ends at a safe paragraph break
            self._body.add(split_segments(tail[:split]))
            tail = tail[split:]
        self._body.set_tail(tail)

    async def add_tool(self, call_id: str, name: str, arguments: dict[str, object]) -> None:
        await self.mount(ToolLine(call_id, name, arguments), before=self._body)

    def finish_tool(self, call_id: str, summary: str, ok: bool) -> None:
        for line in self.query(ToolLine):
            if line.call_id == call_id:
                line.finish(summary, "ok" if ok else "error")

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
        self._body.set_tail("")
        self._body.add(split_segments(tail))
        for line in self.query(ToolLine):
            if "…" in str(line.title):
                line.finish("", "interrupted")
        self.status = status
        self._mark_status()

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.content)
        self.notify("Message copied to the clipboard", timeout=2)
