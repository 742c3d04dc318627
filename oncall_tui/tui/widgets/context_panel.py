"""The context panel: gauge, memory mode, compaction, summary, prompt, skills, model."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.message import Message
from textual.widgets import Label

from oncall_tui.core.memory import DEFAULT_MEMORY_MODE, MemoryMode, MemoryState
from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import Language, OncallError
from oncall_tui.texts import text as t
from oncall_tui.tui.chat_log.times import full_time
from oncall_tui.tui.commands import keys_here
from oncall_tui.tui.widgets.gauge import ContextGauge
from oncall_tui.tui.widgets.lang import translate_bindings, ui_lang
from oncall_tui.tui.widgets.plain_text import PlainText
from oncall_tui.tui.widgets.typing_on import TypingGoesOn, TypingHandOff

if TYPE_CHECKING:
    from oncall_tui.services.server import ServerWording
    from oncall_tui.services.tools import ToolServerView


def mode_label(mode: MemoryMode, lang: Language) -> str:
    """The memory mode's name as the panel's choice shows it."""
    return t(f"panel.mode.{mode.value}", lang)


_MISSING: dict[ServerWording, str] = {
    "ollama": "panel.ollama.not_pulled",
    "server": "panel.server.not_served",
}
_REACHABLE: dict[ServerWording, str] = {
    "ollama": "panel.ollama.reachable",
    "server": "panel.server.reachable",
}
_UNREACHABLE: dict[ServerWording, str] = {
    "ollama": "panel.ollama.unreachable",
    "server": "panel.server.unreachable",
}
"""The panel's lines for each way of naming the server (``Services.server.wording``)."""


class PanelControl(PlainText, can_focus=True):
    """A line of the panel that acts when pressed: Enter or a click.

    In place of Textual's ``Button`` and ``Select``, whose styles and widgets were a twelfth of
    the app's start-up (``bench/startup.py``) for two controls of one line each. Not space, as
    a button would: words typed while the focus is here, not in the composer, go on there
    (:mod:`.typing_on`), spaces included."""

    BINDINGS = [Binding("enter", "press(1)", show=False)]

    class Pressed(Message):
        """``step``: 1 for Enter, a click or →; -1 for ←."""

        def __init__(self, pressed: PanelControl, step: int) -> None:
            super().__init__()
            self.pressed = pressed
            self.step = step

        @property
        def control(self) -> PanelControl:
            return self.pressed

    def action_press(self, step: int) -> None:
        self.post_message(self.Pressed(self, step))

    def on_click(self, event: events.Click) -> None:
        event.stop()
        self.action_press(1)


class ModeChoice(PanelControl, inherit_bindings=False):
    """The memory mode, shown as ``◂ mode ▸``: a press or → the next mode, ← the one before.
    While it has the focus, the key bar says what Enter does."""

    BINDINGS = [
        Binding("enter", "press(1)", "Next mode", id="panel.next_mode"),
        Binding("right", "press(1)", show=False),
        Binding("left", "press(-1)", show=False),
    ]

    def __init__(self, text: str, *, id: str, disabled: bool) -> None:
        super().__init__(text, id=id, disabled=disabled)
        translate_bindings(self, {"panel.next_mode": "panel.key.next_mode"})


@dataclass(frozen=True, slots=True)
class OllamaStatus:
    """What the model server said last (its address, the model, whether it answers and has
    the model), and how the texts name it."""

    url: str
    model: str
    reachable: bool | None = None
    """``None`` while the first check is running."""
    version: str = ""
    model_missing: bool = False
    """The server answered but does not have the model."""
    wording: ServerWording = "ollama"
    """How the texts name the server: ``ollama`` (Ollama), or ``server`` (a model server, not
    called Ollama), as :attr:`Services.server <oncall_tui.services.container.Services.server>`
    says."""
    answer: OncallError | None = None
    """It answered, but not as its API (another service on the port, the key refused): what
    the catalog says of that answer. ``reachable`` is false: it cannot be used."""

    @property
    def usable(self) -> bool | None:
        return None if self.reachable is None else self.reachable and not self.model_missing

    def describe(self, lang: Language, models_keys: str) -> str:
        """Where the server stands; ``models_keys`` open the model picker (as bound)."""
        if self.reachable is None:
            return t("panel.ollama.checking", lang, url=self.url)
        said = {"url": self.url, "version": self.version}
        if self.model_missing:
            hint = t("panel.missing_model_hint", lang, keys=models_keys)
            return t(_MISSING[self.wording], lang, hint=hint, **said)
        if self.reachable:
            return t(_REACHABLE[self.wording], lang, **said)
        if self.answer is not None:
            return t("panel.answers_otherwise", lang, **{**self.answer.params, "url": self.url})
        return t(_UNREACHABLE[self.wording], lang, **said)


class ContextPanel(TypingGoesOn, VerticalScroll):
    """Read-mostly view of what the next request will carry; two controls post messages.

    The mode shown is the session's stored one: a press asks for the next, and the panel shows
    it once the screen has stored it and shows the memory again."""

    class ModeStepped(Message):
        """The mode choice was pressed: ``step`` 1 for the next mode, -1 for the one before."""

        def __init__(self, step: int) -> None:
            super().__init__()
            self.step = step

    class CompactPressed(Message):
        pass

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._typing: TypingHandOff = TypingHandOff(self)
        """Typing in the panel goes on in the composer (:mod:`.typing_on`)."""

    @property
    def lang(self) -> Language:
        return ui_lang(self)

    def on_descendant_focus(self) -> None:
        self._typing.back()

    def compose(self) -> ComposeResult:
        lang = self.lang
        yield Label(t("panel.context", lang), classes="panel-title")
        gauge = ContextGauge(id="gauge")
        gauge.reading = True  # until the first reading of the open session (or the baseline)
        yield gauge
        yield Label(t("panel.memory", lang), classes="panel-title")
        # Disabled until the open session's memory is shown: nothing to act on before.
        yield ModeChoice(self._mode_text(DEFAULT_MEMORY_MODE), id="mode", disabled=True)
        yield PanelControl(t("panel.compact_now", lang), id="compact", disabled=True)
        yield PlainText(t("panel.no_summary", lang), id="summary", classes="panel-text")
        yield Label(t("panel.prompt", lang), classes="panel-title")
        yield PlainText(id="prompt", classes="panel-text")
        yield Label(t("panel.skills", lang), classes="panel-title")
        yield PlainText(id="skills", classes="panel-text")
        tools = Label(t("panel.tools", lang), classes="panel-title", id="tools-title")
        tools.display = False  # only when the settings file registers tool servers
        yield tools
        tools_text = PlainText(id="tools", classes="panel-text")
        tools_text.display = False
        yield tools_text
        yield Label(t("panel.model", lang), classes="panel-title")
        yield PlainText(id="model", classes="panel-text")

    @property
    def gauge(self) -> ContextGauge:
        return self.query_one(ContextGauge)

    def _mode_text(self, mode: MemoryMode) -> str:
        return f"◂ {mode_label(mode, self.lang)} ▸"

    def show_memory(self, state: MemoryState | None) -> None:
        choice = self.query_one("#mode", ModeChoice)
        compact = self.query_one("#compact", PanelControl)
        summary = self.query_one("#summary", PlainText)
        lang = self.lang
        if state is None:  # a new session: the mode it starts with, chosen once it is stored
            choice.show(self._mode_text(DEFAULT_MEMORY_MODE))
            choice.disabled = compact.disabled = True
            summary.show(t("panel.nothing_to_summarise", lang))
            return
        self.gauge.update_usage(state.usage.context_tokens, state.usage.context_window_tokens)
        choice.show(self._mode_text(state.memory_mode))
        choice.disabled = False
        compact.disabled = not state.can_compact
        if state.memory_summary:
            when = state.last_compacted_at
            stamp = t("panel.summary_stamp", lang, when=full_time(when)) if when else ""
            if state.memory_summary_status == "truncated":
                stamp += t("panel.summary_cut_off", lang)
            count = state.compacted_message_count
            head = t("panel.summary_head", lang, count=count, stamp=stamp)
            summary.show(f"{head}\n{terminal_safe(state.memory_summary)}")
        else:
            summary.show(t("panel.no_summary", lang))

    def show_selection(self, prompt_label: str, skill_names: list[str]) -> None:
        self.query_one("#prompt", PlainText).show(terminal_safe(prompt_label))
        shown = terminal_safe(", ".join(skill_names)) or t("panel.no_skills", self.lang)
        self.query_one("#skills", PlainText).show(shown)

    def show_tools(self, servers: list[ToolServerView]) -> None:
        """The tool servers' tools the model may call (⚠ asks first), and the servers that
        failed; hidden when the settings file registers none."""
        lang = self.lang
        lines = []
        for server in servers:
            if server.state != "ready":
                said = "panel.tools_stopped" if server.state == "stopped" else "panel.tools_failed"
                lines.append(t(said, lang, server=server.name))
                continue
            for tool in server.tools:
                if tool.allowed and tool.offered:
                    mark = " ⚠" if tool.policy == "confirm" else ""
                    lines.append(f"{tool.name}{mark}")
        for widget_id in ("#tools-title", "#tools"):
            self.query_one(widget_id).display = bool(servers)
        text = "\n".join(lines) or t("panel.no_tools", lang)
        self.query_one("#tools", PlainText).show(terminal_safe(text))

    def show_ollama(self, status: OllamaStatus) -> None:
        model = self.query_one("#model", PlainText)
        model.show(
            terminal_safe(
                f"{status.model}\n{status.describe(self.lang, keys_here(self, 'models'))}"
            )
        )
        model.set_class(status.usable is False, "-error")

    @on(PanelControl.Pressed, "#mode")
    def _mode_pressed(self, event: PanelControl.Pressed) -> None:
        self.post_message(self.ModeStepped(event.step))

    @on(PanelControl.Pressed, "#compact")
    def _compact(self) -> None:
        self.post_message(self.CompactPressed())
