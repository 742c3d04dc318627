"""Pick the chat model from what Ollama reports: ``/api/tags``, then ``/api/show`` for each.

Each model is two lines: its name (the current one marked ``●`` and ``(current)``), then its
parameter count, family, quantization, size on disk, context length, and ``no tools`` when its
capabilities lack tools (skills load through a tool call). The list is shown as soon as
``/api/tags`` answers; the context lengths and tool flags are filled in as ``/api/show``
answers, without moving the cursor. The cursor starts on the current model; on the first when
the configured model is not on the server, and the note says so. Typing a model's name moves the
cursor to it (``ll`` to ``llama3.2:3b``): a GPU box lists dozens. While there is nothing to list
(the server away, no model pulled) the server is asked again, as the panel's check does.
"""

from __future__ import annotations

from collections.abc import Sequence
from time import monotonic
from typing import TYPE_CHECKING

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from oncall_tui.core.model_names import same_model
from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import Language, OncallError
from oncall_tui.texts import counted
from oncall_tui.texts import text as t
from oncall_tui.tui.key_order import hold_keys_for
from oncall_tui.tui.panes.server import RECHECK_SECONDS
from oncall_tui.tui.service_calls import ServiceCalls
from oncall_tui.tui.widgets.lang import translate_bindings, ui_lang

if TYPE_CHECKING:
    from textual.worker import Worker

    from oncall_tui.services.container import Services
    from oncall_tui.services.server import ServerWording
    from oncall_tui.services.views import ModelInfo

CURRENT_MARK = "● "
_MISSING: dict[ServerWording, str] = {"ollama": "models.missing", "server": "models.missing_server"}
"""What the note says of a configured model the server does not list: Ollama can pull it."""
TYPED_SECONDS = 1.0
"""Letters typed within this of each other make one name to look for; after a pause, a new one."""


class ModelPicker(ModalScreen[str | None]):
    """Lists the installed models; Enter picks one, Esc keeps the current model."""

    BINDINGS = [Binding("escape", "dismiss_none", "Cancel")]

    def __init__(self, services: Services) -> None:
        super().__init__()
        self.services = services
        settings = services.settings
        self.url = settings.server_url
        self.current = settings.model
        self.lang = ui_lang(self)
        translate_bindings(self, {"dismiss_none": "dialog.cancel"})
        self._calls = ServiceCalls(self, self._refused)
        self.models: list[ModelInfo] = []
        """What is listed now: from ``/api/tags``, then with ``/api/show``'s details."""
        self._missing = ""
        """Said while the list is shown when the configured model is not among it."""
        self._typed = ""
        self._typed_at = 0.0

    def compose(self) -> ComposeResult:
        with Vertical(id="model-dialog"):
            title = terminal_safe(t("models.title", self.lang, url=self.url, current=self.current))
            yield Label(title, classes="dialog-title", markup=False)
            yield OptionList(id="models")
            yield Label(t("models.loading", self.lang), id="model-note")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        # The keys typed behind the one that opened the picker (↓, Enter) wait for the list.
        hold_keys_for(self.app, self.load_models())

    def load_models(self) -> Worker[None]:
        """The list first, then each model's details: a server that does not answer is said
        where the list would be."""
        return self._calls.start(
            self.services.installed_models, self._listed, group="models", exclusive=True
        )

    def _listed(self, listed: list[ModelInfo]) -> None:
        if not listed:
            self._list([], t("models.none", self.lang))
            self._ask_again()
            return
        self._list(listed, t("models.reading", self.lang))
        describe = self.services.describe_models
        self._calls.start(lambda: describe(listed), self._describe, group="details", exclusive=True)

    def _refused(self, error: OncallError) -> None:
        self._list([], error.message(self.lang))
        self._ask_again()

    def _ask_again(self) -> None:
        """Nothing to list (the server away, or no model pulled): asked again, so an ``ollama
        serve`` or ``ollama pull`` run in another pane shows without closing the picker."""
        self.set_timer(RECHECK_SECONDS, self.load_models)

    def _list(self, models: list[ModelInfo], note: str) -> None:
        self.models = models
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options(
            [Option(self._prompt(model), id=model.name) for model in models],
        )
        current = next((i for i, m in enumerate(models) if same_model(m.name, self.current)), None)
        self._missing = ""
        if models and current is None:  # the configured model is not there: Enter picks another
            key = _MISSING[self.services.server.wording]
            self._missing = t(key, self.lang, model=self.current)
        if models:
            options.highlighted = 0 if current is None else current
        self._note(note)

    def _describe(self, models: list[ModelInfo]) -> None:
        """Put the details in place, leaving the cursor and the scroll where they are."""
        self.models = models
        options = self.query_one(OptionList)
        for model in models:
            options.replace_option_prompt(model.name, self._prompt(model))
        self._note(details_note(sum(not model.described for model in models), self.lang))

    def _prompt(self, model: ModelInfo) -> Content:
        return model_prompt(model, current=same_model(model.name, self.current), lang=self.lang)

    def _note(self, note: str) -> None:
        """The note under the list: that the configured model is missing (kept while the
        details come), then what is being read or could not be."""
        shown = "\n".join(line for line in (self._missing, note) if line)
        label = self.query_one("#model-note", Label)
        label.update(Content(terminal_safe(shown)))
        label.display = bool(shown)

    def on_key(self, event: events.Key) -> None:
        """A letter moves the cursor to the first model whose name begins with what was typed
        (within :data:`TYPED_SECONDS` of each key), else the first that holds it."""
        character = event.character
        if character is None or not character.isprintable() or character.isspace():
            return
        event.stop()
        now = monotonic()
        recent = now - self._typed_at < TYPED_SECONDS
        self._typed = (self._typed if recent else "") + character.lower()
        self._typed_at = now
        names = [model.name.lower() for model in self.models]
        found = next((i for i, name in enumerate(names) if name.startswith(self._typed)), None)
        if found is None:
            found = next((i for i, name in enumerate(names) if self._typed in name), None)
        if found is not None:
            self.query_one(OptionList).highlighted = found

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


def details_note(undescribed: int, lang: Language) -> str:
    """What the picker says when ``/api/show`` did not answer for some models."""
    if not undescribed:
        return ""
    return counted("models.no_details", undescribed, lang)


def model_prompt(model: ModelInfo, *, current: bool, lang: Language) -> Content:
    """The two lines of one model: its name, then what it is. Text from the server is made
    terminal-safe and never parsed as markup."""
    name = terminal_safe(model.name)
    first: list[str | tuple[str, str]] = (
        [
            (f"{CURRENT_MARK}{name}", "bold $text-accent"),
            (f"  {t('models.current', lang)}", "$text-accent"),
        ]
        if current
        else [f"{' ' * len(CURRENT_MARK)}{name}"]
    )
    facts = Content(terminal_safe(" · ".join(model_facts(model, lang))))
    no_tools = (" · ", (t("models.no_tools", lang), "bold $text-warning"))
    warning = no_tools if model.tools is False else ()
    indent = " " * len(CURRENT_MARK)
    return Content.assemble(*first, "\n", indent, facts.stylize("$text-muted"), *warning)


def model_facts(model: ModelInfo, lang: Language) -> list[str]:
    """What is known of a model, in the order it is read: ``8.2B qwen3``, ``Q4_K_M``,
    ``5.2 GB``, ``40k ctx`` (with ``uses 8k`` when the app sends a smaller window)."""
    facts: list[str] = []
    kind = " ".join(part for part in (model.parameter_size, model.family) if part)
    if kind:
        facts.append(kind)
    if model.quantization_level:
        facts.append(model.quantization_level)
    if model.size_bytes is not None:
        facts.append(human_size(model.size_bytes))
    if model.context_length is not None:
        trained, window = model.context_length, model.window_tokens
        if window is not None and window != trained:
            used = t(
                "models.window_used", lang, trained=token_count(trained), used=token_count(window)
            )
            facts.append(used)
        else:
            facts.append(t("models.window", lang, trained=token_count(trained)))
    return facts


_SIZE_UNITS: Sequence[str] = ("B", "KB", "MB", "GB", "TB", "PB")


def human_size(size_bytes: int) -> str:
    """A size as Ollama's ``ollama list`` writes it (powers of 1000): ``4.9 GB``, ``637 MB``;
    one decimal below 10."""
    value = float(size_bytes)
    unit = 0
    while round(value) >= 1000 and unit < len(_SIZE_UNITS) - 1:
        value /= 1000
        unit += 1
    if unit == 0:
        return f"{size_bytes} B"
    shown = f"{value:.1f}" if round(value, 1) < 10 else f"{value:.0f}"
    return f"{shown} {_SIZE_UNITS[unit]}"


def token_count(tokens: int) -> str:
    """A context length in the units models are described in (powers of 1024): ``128k``,
    ``40k``, ``1M``; a length that is not a whole number of k is rounded (``1.5k``, ``98k``)."""
    if tokens >= 1 << 20 and tokens % (1 << 20) == 0:
        return f"{tokens >> 20}M"
    if tokens < 1024:
        return str(tokens)
    if tokens % 1024 == 0:
        return f"{tokens >> 10}k"
    kilo = round(tokens / 1024, 1)
    return f"{kilo:.1f}k" if kilo < 10 else f"{round(kilo)}k"
