"""The chat log: messages as Markdown, tool calls as expandable lines, the compaction divider.

Long sessions mount lazily: a session opens on its newest page and older pages are mounted
above on request, so a session with 10,000 messages opens as fast as one with 20.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Collapsible, Label, Markdown, Static
from textual.widgets.markdown import MarkdownStream

from oncall_tui.services.sessions import MessageView, ToolCallView

SEGMENT_CHARS = 2_000
"""A streamed reply starts a new Markdown document after this many characters."""
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
    even over SSH in terminals that support it."""

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
        self._stream: MarkdownStream | None = None
        self._segment = content
        """Text of the last Markdown document of this message (where the stream appends)."""

    def compose(self) -> ComposeResult:
        yield Label(self._header(), classes="message-header")
        for call in self._tool_calls:
            yield ToolLine.of(call)
        yield Markdown(self.content, classes="message-body")

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
        """Stream a fragment in. A long reply is split into several Markdown documents at
        paragraph breaks outside code fences: appending to one huge document gets slower
        with its size, and would stall the UI on a 20,000-token answer."""
        self.content += text
        self._segment += text
        split = self._split_point(text)
        if split is not None:
            head, tail = text[:split], text[split:]
            await self._write(head)
            await self._close_stream()
            segment = Markdown("", classes="message-body")
            await self.mount(segment)
            self._segment = tail
            text = tail
        await self._write(text)

    def _split_point(self, text: str) -> int | None:
        if len(self._segment) < SEGMENT_CHARS or self._segment.count("```") % 2:
            return None
        index = text.rfind("\n\n")
        return None if index < 0 else index + 2

    async def _write(self, text: str) -> None:
        if not text:
            return
        if self._stream is None:
            self._stream = Markdown.get_stream(self.query(".message-body").last(Markdown))
        await self._stream.write(text)

    async def _close_stream(self) -> None:
        if self._stream is not None:
            await self._stream.stop()
            self._stream = None

    async def add_tool(self, call_id: str, name: str, arguments: dict[str, object]) -> None:
        await self.mount(ToolLine(call_id, name, arguments), before=self.query(Markdown).first())

    def finish_tool(self, call_id: str, summary: str, ok: bool) -> None:
        for line in self.query(ToolLine):
            if line.call_id == call_id:
                line.finish(summary, "ok" if ok else "error")

    async def finish(self, status: str, note: str | None = None) -> None:
        """End streaming and mark an interrupted or failed reply.

        The stream has already appended every fragment, so the document is not parsed again
        (re-rendering a 20,000-token reply at once would freeze the UI for a moment); a note,
        if any, is appended the same way.
        """
        if note:
            await self._write(f"\n\n> {note}" if self.content else f"> {note}")
        await self._close_stream()
        for line in self.query(ToolLine):
            if "…" in str(line.title):
                line.finish("", "interrupted")
        self.status = status
        self._mark_status()

    def action_copy(self) -> None:
        self.app.copy_to_clipboard(self.content)
        self.notify("Message copied to the clipboard", timeout=2)


class EarlierMessages(Static, can_focus=True):
    """Stands above the oldest mounted message while older ones remain unmounted."""

    BINDINGS = [Binding("enter", "load", "Load earlier")]

    class LoadRequested(Message):
        pass

    def set_count(self, count: int) -> None:
        self.update(f"↑ {count:,} earlier messages · ctrl+up or Enter here to load more")
        self.display = count > 0

    def action_load(self) -> None:
        self.post_message(self.LoadRequested())

    def on_click(self) -> None:
        self.post_message(self.LoadRequested())


class BoundaryDivider(Static):
    """Where the compaction boundary lies: everything above is summarised, and still here."""

    def __init__(self, count: int) -> None:
        super().__init__(
            f"── {count:,} earlier messages summarised · f6 shows the summary ──",
            classes="boundary",
        )
        self.count = count


class ChatLog(VerticalScroll):
    """Messages of the open session, newest at the bottom; follows new output."""

    def compose(self) -> ComposeResult:
        yield EarlierMessages(id="earlier")

    def clear_log(self) -> None:
        for child in list(self.children):
            if not isinstance(child, EarlierMessages):
                child.remove()
        self.query_one(EarlierMessages).set_count(0)

    async def show_page(
        self, messages: Sequence[MessageView], *, earlier: int, boundary: int
    ) -> None:
        """Replace the log with one page (the newest) of a session."""
        await self.remove_children("MessageBlock, BoundaryDivider")
        await self.mount_all(self._blocks(messages, boundary))
        self.query_one(EarlierMessages).set_count(earlier)
        self.anchor()
        self.scroll_end(animate=False)

    async def prepend_page(
        self, messages: Sequence[MessageView], *, earlier: int, boundary: int
    ) -> None:
        first = next(iter(self.query(MessageBlock)), None)
        blocks = self._blocks(messages, boundary)
        if first is None:
            await self.mount_all(blocks)
        else:
            await self.mount_all(blocks, before=first)
        self.query_one(EarlierMessages).set_count(earlier)

    def _blocks(self, messages: Sequence[MessageView], boundary: int) -> list[Static | Vertical]:
        widgets: list[Static | Vertical] = []
        for message in messages:
            if boundary > 0 and message.position == boundary:
                widgets.append(BoundaryDivider(boundary))
            widgets.append(
                MessageBlock(
                    message.role,
                    message.content,
                    status=message.status,
                    position=message.position,
                    tool_calls=message.tool_calls,
                )
            )
        return widgets

    async def add_message(self, role: str, content: str, status: str = "complete") -> MessageBlock:
        block = MessageBlock(role, content, status=status)
        await self.mount(block)
        self.anchor()
        return block

    async def mark_boundary(self, count: int) -> None:
        """After a compaction: move the divider to stand above message ``count``."""
        for divider in self.query(BoundaryDivider):
            await divider.remove()
        target = next((b for b in self.query(MessageBlock) if b.position == count), None)
        divider = BoundaryDivider(count)
        if target is not None:
            await self.mount(divider, before=target)
        else:
            await self.mount(divider)
