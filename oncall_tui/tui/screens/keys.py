"""F1: every key of the app, its actions first, then the keys of the composer, the chat log
and the sessions list; the id beside each action is what the settings file's ``[keys]`` table
rebinds. Enter runs the highlighted action."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label

from oncall_tui.errors import Language
from oncall_tui.texts import text
from oncall_tui.tui.commands import COMMANDS, Command, bound_keys

WIDGET_KEYS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "keys.section.composer",
        (
            ("enter", "keys.composer.send"),
            ("alt+enter, ctrl+j", "keys.composer.newline"),
            ("↑ ↓", "keys.composer.history"),
            ("ctrl+l", "keys.composer.clear"),
            ("alt+a", "keys.composer.select_all"),
            ("tab, shift+tab", "keys.composer.focus"),
        ),
    ),
    (
        "keys.section.log",
        (
            ("↑ ↓", "keys.log.move"),
            ("c", "keys.log.copy"),
            ("b", "keys.log.code"),
            ("enter", "keys.log.open"),
        ),
    ),
    (
        "keys.section.sessions",
        (
            ("↑ ↓, enter", "keys.sessions.open"),
            ("/", "keys.sessions.filter"),
            ("delete", "keys.sessions.delete"),
        ),
    ),
    ("keys.section.everywhere", (("ctrl+p", "keys.palette"),)),
)


class KeysScreen(ModalScreen[str | None]):
    """Dismissed with the action to run (Enter on an action), or ``None``."""

    BINDINGS = [Binding("escape,f1,q", "close", show=False)]

    def __init__(self, lang: Language, keymap: dict[str, str]) -> None:
        super().__init__()
        self.lang: Language = lang
        self.keymap = keymap
        """Keys rebound by the settings file, by binding id."""
        self._actions: dict[str, Command] = {}

    def compose(self) -> ComposeResult:
        with Vertical(id="keys-dialog"):
            yield Label(Text(text("keys.title", self.lang)), classes="dialog-title")
            yield DataTable(id="keys-table", cursor_type="row", zebra_stripes=True)
            yield Label("", id="keys-help")
            yield Label(Text(text("keys.footer", self.lang)), id="keys-note")

    def on_mount(self) -> None:
        lang = self.lang
        table = self.query_one(DataTable)
        table.add_columns(*(text(f"keys.column.{name}", lang) for name in ("keys", "what", "id")))
        self._section(table, text("keys.section.app", lang))
        for command in COMMANDS:
            table.add_row(
                Text(", ".join(bound_keys(command, self.keymap)), style="bold"),
                Text(command.title(lang)),
                Text(command.id, style="dim"),
                key=command.id,
            )
            self._actions[command.id] = command
        for section, rows in WIDGET_KEYS:
            self._section(table, text(section, lang))
            for keys, what in rows:
                table.add_row(Text(keys, style="bold"), Text(text(what, lang)), Text(""))
        table.focus()

    def _section(self, table: DataTable[Text], title: str) -> None:
        table.add_row(Text(""), Text(title, style="bold underline"), Text(""))

    @on(DataTable.RowHighlighted)
    def _explain(self, event: DataTable.RowHighlighted) -> None:
        command = self._actions.get(event.row_key.value or "")
        help_text = "" if command is None else command.help(self.lang)
        self.query_one("#keys-help", Label).update(Text(help_text))

    @on(DataTable.RowSelected)
    def _run(self, event: DataTable.RowSelected) -> None:
        command = self._actions.get(event.row_key.value or "")
        if command is not None and command.id != "keys":
            self.dismiss(command.action)

    def action_close(self) -> None:
        self.dismiss(None)
