"""One message of the chat log: Markdown text, tool calls as expandable lines, streaming.

A long message is kept as several Markdown documents split at paragraph breaks outside code
fences; finished parts are frozen into single pre-rendered widgets, so streaming a very long
reply costs the same per token at its end as at its start.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence

from rich.markdown import Markdown as RichMarkdown
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.geometry import Size
from textual.strip import Strip
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import Collapsible, Label, Markdown, Static
from textual.widgets.markdown import MarkdownStream

from oncall_tui.services.sessions import ToolCallView

SEGMENT_CHARS = 1_000
"""A message is split into Markdown documents of about this many characters, at paragraph
breaks outside code fences. Finished segments are frozen into one lightweight widget each."""
FLUSH_SECONDS = 0.05
"""Streamed text is buffered and written to the live Markdown document on this timer."""
MAX_FLUSH_CHARS = 1_500
"""At most this much buffered text is written per flush, so one flush never stalls the UI."""
STATUS_MARKS = {"streaming": "…", "interrupted": "⏸ interrupted", "failed": "✗ failed"}

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})", re.MULTILINE)


def _fence_open(text: str) -> bool:
    """Whether ``text`` ends inside a fenced code block."""
    opener: str | None = None
    for match in _FENCE.finditer(text):
        marker = match.group(1)
        if opener is None:
            opener = marker
        elif marker[0] == opener[0] and len(marker) >= len(opener):
            opener = None
    return opener is not None


def split_point(text: str, min_chars: int = SEGMENT_CHARS) -> int | None:
    """Where a new Markdown segment may start in ``text``: just after the last paragraph break
    outside code fences, provided the head is at least ``min_chars`` long; else None."""
    index = len(text)
    while (index := text.rfind("\n\n", 0, index)) >= 0 and index + 2 >= min_chars:
        if not _fence_open(text[: index + 2]):
            return index + 2
    return None


def split_segments(text: str, min_chars: int = SEGMENT_CHARS) -> list[str]:
    """``text`` cut into segments of at least ``min_chars`` at safe paragraph breaks; joined
    they give ``text`` back. The last segment may be short (or empty)."""
    segments: list[str] = []
    start = 0
    while True:
        rest = text[start:]
        cut = _first_split(rest, min_chars)
        if cut is None:
            segments.append(rest)
            return segments
        segments.append(rest[:cut])
        start += cut


def _first_split(text: str, min_chars: int) -> int | None:
    index = min_chars - 2
    while (index := text.find("\n\n", max(index, 0))) >= 0:
        if index + 2 >= len(text):
            return None
        if not _fence_open(text[: index + 2]):
            return index + 2
        index += 2
    return None


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


class FrozenSegment(Widget):
    """A finished segment of a long message, drawn from a rich Markdown renderable.

    One widget per segment instead of a Textual Markdown document with one widget per block:
    thousands of block widgets make every layout of the chat log slower. The lines are rendered
    once per width and kept, so a layout or a repaint never renders the Markdown again.
    """

    DEFAULT_CSS = """
    FrozenSegment {
        height: auto;
    }
    """

    def __init__(self, text: str) -> None:
        super().__init__(classes="message-body -frozen")
        self.text = text
        self._lines: list[Strip] = []
        self._width = -1

    def prerender(self, width: int) -> None:
        """Render at ``width`` now (when frozen, a flush at a time) rather than in the next
        layout, where many segments frozen at once would add up to one long frame."""
        if width > 0:
            self._render_width(width)

    def _render_width(self, width: int) -> list[Strip]:
        if width != self._width:
            console = self.app.console
            options = console.options.update_width(width)
            lines = console.render_lines(RichMarkdown(self.text), options, pad=False)
            self._lines = [Strip(line).adjust_cell_length(width) for line in lines]
            self._width = width
        return self._lines

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._render_width(width))

    def render_line(self, y: int) -> Strip:
        width = self.content_size.width
        lines = self._render_width(width)
        if y >= len(lines):
            return Strip.blank(width, self.rich_style)
        return lines[y].apply_style(self.rich_style)


class MessageBlock(Vertical, can_focus=True):
    """One message. Focus it to copy its text (``c``) — OSC 52 reaches the local clipboard
    even over SSH in terminals that support it.

    The body is a run of Markdown segments (see :func:`split_segments`): finished ones are
    frozen into :class:`FrozenSegment`, the last one is a Textual ``Markdown`` document that a
    streamed reply appends to through ``Markdown.get_stream()``.
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
        *self._frozen, self._segment = split_segments(content)
        """Text of the last Markdown document of this message (where the stream appends)."""
        self._live = Markdown(self._segment, classes="message-body")
        self._stream: MarkdownStream | None = None
        self._pending: list[str] = []
        """Streamed text not yet written to the document (flushed on a timer)."""
        self._flush_timer: Timer | None = None
        self._lock = asyncio.Lock()

    def compose(self) -> ComposeResult:
        yield Label(self._header(), classes="message-header")
        for call in self._tool_calls:
            yield ToolLine.of(call)
        for text in self._frozen:
            yield FrozenSegment(text)
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
        """Append ``text`` to the live segment; when the segment is long enough and reaches a
        paragraph break outside code fences, freeze its head and start a new live segment."""
        if not text:
            return
        segment = self._segment + text
        split = split_point(segment)
        if split is None:
            self._segment = segment
            await self._write(text)
            return
        head, tail = segment[:split], segment[split:]
        await self._close_stream()
        live = Markdown("", classes="message-body")
        frozen = [FrozenSegment(part) for part in split_segments(head) if part]
        for part in frozen:
            part.prerender(self.content_size.width)
        with self.app.batch_update():
            await self.mount_all(frozen, before=self._live)
            await self.mount(live, after=self._live)
            await self._live.remove()
        self._live = live
        self._segment = ""
        self._segment += tail
        await self._write(tail)

    async def _write(self, text: str) -> None:
        if not text:
            return
        if self._stream is None:
            self._stream = Markdown.get_stream(self._live)
        await self._stream.write(text)

    async def _close_stream(self) -> None:
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None

    async def add_tool(self, call_id: str, name: str, arguments: dict[str, object]) -> None:
        await self.mount(
            ToolLine(call_id, name, arguments), before=self.query(".message-body").first()
        )

    def finish_tool(self, call_id: str, summary: str, ok: bool) -> None:
        for line in self.query(ToolLine):
            if line.call_id == call_id:
                line.finish(summary, "ok" if ok else "error")

    async def finish(self, status: str, note: str | None = None) -> None:
        """End streaming and mark an interrupted or failed reply.

        Whatever is still buffered is written, the stream is stopped, and the live segment gets
        its final text once (it is short: earlier text is already frozen, so this never
        re-renders the whole reply). A note, if any, is appended as a quote.
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
            if self._live.source != self._segment:
                await self._live.update(self._segment)
        for line in self.query(ToolLine):
            if "…" in str(line.title):
                line.finish("", "interrupted")
        self.status = status
        self._mark_status()

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.content)
        self.notify("Message copied to the clipboard", timeout=2)
