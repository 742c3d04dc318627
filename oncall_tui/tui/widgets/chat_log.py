"""The chat log: messages, the compaction divider, and lazy pages of older messages.

Long sessions mount lazily: a session opens on its newest page and older pages are mounted
above on request, so a session with 10,000 messages opens as fast as one with 20.
"""

from __future__ import annotations

from collections.abc import Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static

from oncall_tui.services.sessions import MessageView
from oncall_tui.tui.widgets.message import MessageBlock


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

    def _blocks(self, messages: Sequence[MessageView], boundary: int) -> list[Widget]:
        widgets: list[Widget] = []
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

    async def add_exchange(self, question: str) -> MessageBlock:
        """The user's message and the reply about to stream, mounted in one layout pass."""
        reply = MessageBlock("assistant", "", status="streaming")
        await self.mount_all([MessageBlock("user", question), reply])
        self.anchor()
        return reply

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
