"""A read-only view of the session summary: what the model is told about earlier messages."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Markdown

from oncall_tui.core.memory import MemoryState
from oncall_tui.core.text import terminal_safe


class SummaryScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,f6", "dismiss", "Close")]

    def __init__(self, memory: MemoryState | None) -> None:
        super().__init__()
        self.memory = memory

    def compose(self) -> ComposeResult:
        memory = self.memory
        with Vertical(id="summary-dialog"):
            if memory is None or not memory.memory_summary:
                yield Label("No summary yet: nothing in this session has been compacted.")
                return
            when = memory.last_compacted_at
            stamp = f"{when:%Y-%m-%d %H:%M} UTC" if when else "unknown time"
            if memory.memory_summary_status == "truncated":
                stamp += ", cut off at the model's length limit"
            yield Label(
                f"Model-written summary of {memory.compacted_message_count:,} earlier messages"
                f" ({stamp}). Every message is still in the log above the divider.",
                classes="dialog-title",
            )
            yield Markdown(terminal_safe(memory.memory_summary))

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
