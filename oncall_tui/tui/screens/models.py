"""Pick the chat model from what Ollama reports (``/api/tags``)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import Language, OncallError

if TYPE_CHECKING:
    from oncall_tui.services.container import Services


class ModelPicker(ModalScreen[str | None]):
    """Lists the installed models; Enter picks one, Esc keeps the current model."""

    BINDINGS = [Binding("escape", "dismiss_none", "Cancel")]

    def __init__(self, services: Services) -> None:
        super().__init__()
        self.services = services
        settings = services.settings
        self.url = settings.ollama_url
        self.current = settings.model
        self.lang: Language = settings.lang

    def compose(self) -> ComposeResult:
        with Vertical(id="model-dialog"):
            title = terminal_safe(f"Models on {self.url} (current: {self.current})")
            yield Label(title, classes="dialog-title", markup=False)
            yield OptionList(id="models")
            yield Label("Loading…", id="model-note")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self.load_models()

    @work(exclusive=True, exit_on_error=False)
    async def load_models(self) -> None:
        try:
            names = await asyncio.to_thread(self.services.installed_models)
        except OncallError as error:
            self._show([], error.message(self.lang))
            return
        self._show(names, "" if names else "Ollama has no models yet: run `ollama pull NAME`.")

    def _show(self, names: list[str], note: str) -> None:
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(Text(terminal_safe(name)), id=name) for name in names])
        if self.current in names:
            options.highlighted = names.index(self.current)
        label = self.query_one("#model-note", Label)
        label.update(Text(terminal_safe(note)))
        label.display = bool(note)

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
