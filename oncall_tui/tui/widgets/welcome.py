"""What an empty session shows: how to start, and whether Ollama and the model are ready.

A first start has nothing else on screen, so this is where a new user learns that they can
type at once, where example skills are, and which keys matter; the readiness lines say what
to run when the server or the model is missing, before the first send fails."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from oncall_tui.core.text import terminal_safe
from oncall_tui.texts import text
from oncall_tui.tui.commands import keys_to_say
from oncall_tui.tui.line_breaks import LineBreakingText
from oncall_tui.tui.widgets.context_panel import OllamaStatus
from oncall_tui.tui.widgets.lang import ui_lang

if TYPE_CHECKING:
    from oncall_tui.errors import Language
    from oncall_tui.services.server import ServerWording

_CHECKING: dict[ServerWording, str] = {
    "ollama": "welcome.checking",
    "server": "welcome.checking_server",
}
_DOWN: dict[ServerWording, str] = {"ollama": "welcome.ollama_down", "server": "welcome.server_down"}
_UP: dict[ServerWording, str] = {"ollama": "welcome.ollama_up", "server": "welcome.server_up"}
_MISSING: dict[ServerWording, str] = {
    "ollama": "welcome.model_missing",
    "server": "welcome.model_not_served",
}
"""The readiness lines for each way of naming the server (``OllamaStatus.wording``): Ollama
says how to start it and pull a model; another server, where to point and what to pick."""


class Welcome(Static):
    """Shown in place of the chat log while the open session has no messages."""

    def __init__(
        self,
        examples: Path | None,
        keymap: dict[str, str],
        *,
        reading_sessions: bool = False,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.lang = ui_lang(self)
        self.examples = examples
        self.keymap = keymap
        self.ollama: OllamaStatus | None = None
        self.reading_sessions = reading_sessions
        """The sessions are being read: an empty log does not yet mean an empty database, so
        the guide waits (a slow start would show it for seconds before the session opens)."""

    def loaded(self) -> None:
        """A session is open (or none was stored): the guide, if the log is empty."""
        if self.reading_sessions:
            self.reading_sessions = False
            self.update(self.describe())

    def show_ollama(self, status: OllamaStatus) -> None:
        self.ollama = status
        self.update(self.describe())

    def on_mount(self) -> None:
        self.update(self.describe())

    def keys(self, command_id: str) -> str:
        """The keys of an action as bound now (the settings file may rebind them)."""
        return keys_to_say(command_id, self.keymap)

    def describe(self) -> Group:
        """The readiness lines, then the guide; each item wraps under its own text. While the
        sessions are read, only that. The readiness comes first: below the guide, a short
        terminal (60x20, or 80x24 with a few lines typed) cut it off, and with it what to run
        when the server or the model is missing."""
        lang = self.lang
        if self.reading_sessions:
            return Group(
                Text("oncall-tui", style="bold"),
                Text(),
                _items([("…", Text(text("welcome.loading", lang), style="dim"))]),
            )
        examples = terminal_safe(_home_as_tilde(self.examples)) if self.examples else ""
        skills = text("welcome.skills", lang, keys=self.keys("skills"))
        if examples:
            skills += " " + text("welcome.examples", lang, path=examples)
        guide = [
            ("•", Text(text("welcome.type", lang))),
            ("•", Text(skills)),
            (
                "•",
                Text(
                    text(
                        "welcome.prompt_model",
                        lang,
                        prompts=self.keys("prompts"),
                        models=self.keys("models"),
                    )
                ),
            ),
            ("•", Text(text("welcome.keys", lang, keys=self.keys("keys")))),
        ]
        return Group(
            Text(text("welcome.title", lang), style="bold"),
            Text(),
            _items(self._readiness()),
            Text(),
            _items(guide),
        )

    def _readiness(self) -> list[tuple[str, Text]]:
        lang, status = self.lang, self.ollama
        if status is None or status.reachable is None:
            wording: ServerWording = "ollama" if status is None else status.wording
            return [("…", Text(text(_CHECKING[wording], lang), style="dim"))]
        if not status.reachable:
            down = text(_DOWN[status.wording], lang, url=terminal_safe(status.url))
            if status.answer is not None:  # not down: something else answers there
                down = terminal_safe(status.answer.message(lang))
            return [("✗", Text(down, style="bold red"))]
        answers, ready = readiness(status, lang)
        up = ("✓", Text(answers, style="green"))
        if status.model_missing:
            missing = text(_MISSING[status.wording], lang, model=terminal_safe(status.model))
            return [up, ("✗", Text(missing, style="bold red"))]
        return [up, ("✓", Text(ready, style="green"))]


def readiness(status: OllamaStatus, lang: Language) -> tuple[str, str]:
    """What a server that answers says: that it answers (its version, where), and that the
    model is ready (if it has it)."""
    url, version = terminal_safe(status.url), terminal_safe(status.version)
    answers = text(_UP[status.wording], lang, version=version, url=url)
    return answers, text("welcome.model_ready", lang, model=terminal_safe(status.model))


def _items(rows: list[tuple[str, Text]]) -> Table:
    """Marked lines, each wrapped under its own text, Chinese between its characters; a word
    longer than the line (the examples' path in a narrow terminal) goes on over the next line,
    never cut short with "…", the table's default."""
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=1)
    grid.add_column(ratio=1, overflow="fold")
    for mark, line in rows:
        grid.add_row(mark, LineBreakingText.of(line))
    return grid


def _home_as_tilde(path: Path) -> str:
    """``~/…`` for a path in the home directory, as the engineer would type it."""
    try:
        return f"~/{path.relative_to(Path.home())}"
    except ValueError:
        return str(path)
