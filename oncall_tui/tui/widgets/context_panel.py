"""The context panel: gauge, memory mode, compaction, summary, prompt, skills, model."""

from __future__ import annotations

from dataclasses import dataclass

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Button, Label, Select

from oncall_tui.core.memory import MemoryMode, MemoryState
from oncall_tui.core.text import terminal_safe
from oncall_tui.tui.widgets.gauge import ContextGauge
from oncall_tui.tui.widgets.plain_text import PlainText

MODE_LABELS = {
    MemoryMode.EVERY_30_TURNS: "Every 30 replies",
    MemoryMode.CONTEXT_70_PERCENT: "At 70% of the window",
    MemoryMode.MANUAL: "Manual only",
}


MISSING_MODEL_HINT = "f5 picks an installed model"


@dataclass(frozen=True, slots=True)
class OllamaStatus:
    url: str
    model: str
    reachable: bool | None = None
    """``None`` while the first check is running."""
    version: str = ""
    model_missing: bool = False
    """The server answered but has not pulled the model."""

    @property
    def usable(self) -> bool | None:
        return None if self.reachable is None else self.reachable and not self.model_missing

    def describe(self) -> str:
        if self.reachable is None:
            return f"checking {self.url}…"
        if self.model_missing:
            return f"not pulled on Ollama {self.version}: {MISSING_MODEL_HINT}"
        if self.reachable:
            return f"Ollama {self.version} at {self.url}"
        return f"Ollama unreachable at {self.url}"


class ContextPanel(VerticalScroll):
    """Read-mostly view of what the next request will carry; two controls post messages."""

    class ModeChosen(Message):
        def __init__(self, mode: MemoryMode) -> None:
            super().__init__()
            self.mode = mode

    class CompactPressed(Message):
        pass

    def compose(self) -> ComposeResult:
        yield Label("Context", classes="panel-title")
        yield ContextGauge(id="gauge")
        yield Label("Memory", classes="panel-title")
        yield Select(
            [(label, mode) for mode, label in MODE_LABELS.items()],
            allow_blank=False,
            value=MemoryMode.EVERY_30_TURNS,
            id="mode-select",
            compact=True,
        )
        yield Button("Compact now", id="compact", variant="primary", compact=True)
        yield PlainText("No summary yet.", id="summary", classes="panel-text")
        yield Label("Prompt", classes="panel-title")
        yield PlainText(id="prompt", classes="panel-text")
        yield Label("Skills", classes="panel-title")
        yield PlainText(id="skills", classes="panel-text")
        yield Label("Model", classes="panel-title")
        yield PlainText(id="model", classes="panel-text")

    @property
    def gauge(self) -> ContextGauge:
        return self.query_one(ContextGauge)

    def show_memory(self, state: MemoryState | None) -> None:
        select = self.query_one("#mode-select", Select)
        compact = self.query_one("#compact", Button)
        summary = self.query_one("#summary", PlainText)
        if state is None:
            compact.disabled = True
            summary.show("Nothing to summarise yet.")
            return
        self.gauge.update_usage(state.usage.context_tokens, state.usage.context_window_tokens)
        with select.prevent(Select.Changed):
            select.value = state.memory_mode
        compact.disabled = not state.can_compact
        if state.memory_summary:
            when = state.last_compacted_at
            stamp = f" ({when:%Y-%m-%d %H:%M} UTC)" if when else ""
            if state.memory_summary_status == "truncated":
                stamp += " (cut off)"
            summary.show(
                f"{state.compacted_message_count:,} messages summarised{stamp}:\n"
                f"{terminal_safe(state.memory_summary)}"
            )
        else:
            summary.show("No summary yet.")

    def show_selection(self, prompt_label: str, skill_names: list[str]) -> None:
        self.query_one("#prompt", PlainText).show(terminal_safe(prompt_label))
        shown = terminal_safe(", ".join(skill_names)) or "none selected"
        self.query_one("#skills", PlainText).show(shown)

    def show_ollama(self, status: OllamaStatus) -> None:
        model = self.query_one("#model", PlainText)
        model.show(terminal_safe(f"{status.model}\n{status.describe()}"))
        model.set_class(status.usable is False, "-error")

    @on(Select.Changed, "#mode-select")
    def _mode_changed(self, event: Select.Changed) -> None:
        if isinstance(event.value, MemoryMode):
            self.post_message(self.ModeChosen(event.value))

    @on(Button.Pressed, "#compact")
    def _compact(self) -> None:
        self.post_message(self.CompactPressed())
