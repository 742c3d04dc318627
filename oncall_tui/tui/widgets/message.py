"""One message of the chat log: Markdown text, tool calls as expandable lines, streaming.

A message's text is drawn by one widget from lines rendered once per width; only the tail of a
reply that is streaming is a live Textual Markdown document, so the cost of a frame does not
grow with the length of the reply or of the session.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.timer import Timer
from textual.widgets import Collapsible, Label, Markdown, Static
from textual.widgets.markdown import MarkdownStream

from oncall_tui.services.sessions import ToolCallView
from oncall_tui.tui.widgets.markdown import (
    LiveMarkdown,
    RenderedMarkdown,
    split_point,
    split_segments,
)

FLUSH_SECONDS = 0.05
"""Streamed text is buffered and written to the live Markdown document on this timer."""
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

    Its text is drawn by one :class:`RenderedMarkdown`. While a reply streams, only its tail
    (the text since the last paragraph break past :data:`SEGMENT_CHARS`) is a Textual
    ``Markdown`` document that tokens are appended to through ``Markdown.get_stream()``; when
    the tail grows past that size its head moves into the rendered text, and when the reply
    ends the whole tail does. So each frame costs the same at the end of a long reply as at its
    start, whatever the length of the session above it.
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
        self._body = RenderedMarkdown(segments[:-1] if streaming else segments)
        self._segment = segments[-1] if streaming else ""
        """Text of the live document (the streamed tail), shown below the rendered text."""
        self._live: Markdown | None = (
            LiveMarkdown(self._segment, classes="message-body -live") if streaming else None
        )
        self._stream: MarkdownStream | None = None
        self._pending: list[str] = []
        """Streamed text not yet written to the document (flushed on a timer)."""
        self._flush_timer: Timer | None = None
        self._lock = asyncio.Lock()

    def compose(self) -> ComposeResult:
        yield Label(self._header(), classes="message-header")
        for call in self._tool_calls:
            yield ToolLine.of(call)
        yield self._body
        if self._live is not None:
            yield self._live

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
        """The text on screen: the rendered part, then the live tail (with any note)."""
        live = self._live.source if self._live is not None else ""
        return self._body.text + live

    # -- streaming -----------------------------------------------------------------------------

    async def append(self, text: str) -> None:
        """Stream a fragment in: buffered, and written to the document on a short timer."""
        if not text:
            return
        self.content += text
        self._pending.append(text)
        if self._flush_timer is None:
            self._flush_timer = self.set_timer(FLUSH_SECONDS, self._flush)

    async def _flush(self) -> None:
        """The flush timer: write what is buffered (at most MAX_FLUSH_CHARS per tick; a backlog
        is written over the next ticks, so it never turns into one long stall)."""
        self._flush_timer = None
        async with self._lock:
            await self._write_buffered()
        if self._pending and self._flush_timer is None and self.status == "streaming":
            self._flush_timer = self.set_timer(FLUSH_SECONDS, self._flush)

    async def _write_buffered(self) -> None:
        text = "".join(self._pending)
        self._pending.clear()
        if len(text) > MAX_FLUSH_CHARS:
            self._pending.append(text[MAX_FLUSH_CHARS:])
            text = text[:MAX_FLUSH_CHARS]
        await self._feed(text)

    async def _feed(self, text: str) -> None:
        """Append ``text`` to the live tail; when the tail is long enough and reaches a
        paragraph break outside code fences, move its head into the rendered text."""
        if not text or self._live is None:
            return
        segment = self._segment + text
        split = split_point(segment)
        if split is None:
            self._segment = segment
            await self._write(text)
            return
        head, tail = segment[:split], segment[split:]
        await self._close_stream()
        with self.app.batch_update():
            self._body.add(split_segments(head))
            self._segment = tail
            await self._live.update(tail)

    async def _write(self, text: str) -> None:
        if not text or self._live is None:
            return
        if self._stream is None:
            self._stream = Markdown.get_stream(self._live)
        await self._stream.write(text)

    async def _close_stream(self) -> None:
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None

    async def add_tool(self, call_id: str, name: str, arguments: dict[str, object]) -> None:
        await self.mount(ToolLine(call_id, name, arguments), before=self._body)

    def finish_tool(self, call_id: str, summary: str, ok: bool) -> None:
        for line in self.query(ToolLine):
            if line.call_id == call_id:
                line.finish(summary, "ok" if ok else "error")

    async def finish(self, status: str, note: str | None = None) -> None:
        """End streaming and mark an interrupted or failed reply.

        Whatever is still buffered is written, the stream is stopped, and the live tail moves
        into the rendered text, so a finished reply is drawn as it will be when the session is
        opened again. A note, if any, is appended as a quote.
        """
        if self._flush_timer is not None:
            self._flush_timer.stop()
            self._flush_timer = None
        if note:  # shown, not part of the message text (``content`` is what is stored)
            self._pending.append(f"\n\n> {note}" if self.content else f"> {note}")
        async with self._lock:
            await self._write_buffered()
            while self._pending:  # a backlog: written a tick at a time, frames in between
                await asyncio.sleep(FLUSH_SECONDS)
                await self._write_buffered()
            await self._close_stream()
            if self._live is not None:
                with self.app.batch_update():
                    self._body.add(split_segments(self._segment))
                    await self._live.remove()
                self._live, self._segment = None, ""
        for line in self.query(ToolLine):
            if "…" in str(line.title):
                line.finish("", "interrupted")
        self.status = status
        self._mark_status()

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.content)
        self.notify("Message copied to the clipboard", timeout=2)
