"""F1: every key of the app, its actions first, then the keys of the composer, the chat log
and the sessions list; the id beside each action is what the settings file's ``[keys]`` table
rebinds. Enter runs the highlighted action. A character typed here is the next message's, as
in a pane that takes none: the help closes and the key goes on in the composer, with the keys
typed behind it; a paste goes there whole.

The keys and the ids are never cut, at any width: their columns are as wide as the longest
of each, and the descriptions between them take the rest, wrapped onto more lines where they
need them. Where that would leave the descriptions less than :data:`ROOMY` cells (a narrow
terminal), an action's keys stand one under the other, each whole; where that leaves them less
than :data:`CRAMPED` (half of a terminal split in two), the ids leave the table and the line
under it names the highlighted action's. A screen too short for the note on rebinding leaves
it out."""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingsMap
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label

from oncall_tui.texts import text
from oncall_tui.tui.commands import COMMANDS, Command, bound_keys, closing_keys
from oncall_tui.tui.widgets.lang import ui_lang
from oncall_tui.tui.widgets.row_table import RowTable
from oncall_tui.tui.widgets.typing_on import TypingClosesIt, TypingGoesOn

if TYPE_CHECKING:
    from oncall_tui.tui.widgets.typing_on import TypingField

WIDGET_KEYS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "keys.section.composer",
        (
            ("enter", "keys.composer.send"),
            ("alt+enter, ctrl+j", "keys.composer.newline"),
            ("↑ ↓", "keys.composer.history"),
            ("ctrl+home, ctrl+end", "keys.composer.ends"),
            ("ctrl+l", "keys.composer.clear"),
            ("alt+a", "keys.composer.select_all"),
            ("tab, shift+tab", "keys.composer.focus"),
        ),
    ),
    (
        "keys.section.log",
        (
            ("↑ ↓", "keys.log.move"),
            ("home, end", "keys.log.ends"),
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
    (
        "keys.section.everywhere",
        (("ctrl+p", "keys.palette"), ("a-z, 0-9, …", "keys.typing")),
    ),
)


MIN_WHAT = 8
"""The descriptions' column is never narrower (a terminal too narrow for it scrolls)."""
ROOMY = 24
"""Descriptions narrower than this stack each action's keys (at 60 columns they had 9 cells,
a word or two a line, three lines a row)."""
CRAMPED = 12
"""Descriptions narrower than this with the keys stacked leave out the ids' column (at 50
columns, half of a split terminal, they had 8 cells: the table showed two actions)."""
SHORT_ROWS = 20
"""A screen with fewer rows leaves out the note on rebinding (at 16 the table had two)."""


class KeysScreen(TypingGoesOn, ModalScreen[str | None]):
    """Dismissed with the action to run (Enter on an action), or ``None``."""

    def __init__(self, keymap: dict[str, str], typing_to: TypingField | None = None) -> None:
        super().__init__()
        self.lang = ui_lang(self)
        self.keymap = keymap
        """Keys rebound by the settings file, by binding id."""
        closing = ",".join(closing_keys("keys", keymap))
        self._bindings = BindingsMap.merge(
            [self._bindings, BindingsMap([Binding(closing, "close", show=False)])]
        )
        self._typing = TypingClosesIt(self, typing_to)
        self._actions: dict[str, Command] = {}
        self._what_width: int | None = None
        """The descriptions' column width the table was filled with (``None``: their own)."""
        self._stacked = False
        """Whether the table was filled with each action's keys one under the other."""
        self._ids = True
        """Whether the table has the ids' column (else the line under it says the id)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="keys-dialog"):
            yield Label(Text(text("keys.title", self.lang)), classes="dialog-title")
            yield RowTable(id="keys-table", cursor_type="row", zebra_stripes=True)
            yield Label("", id="keys-help")
            yield Label(Text(text("keys.footer", self.lang)), id="keys-note")

    def on_mount(self) -> None:
        self._fill(None)
        self.query_one(DataTable).focus()
        self.call_after_refresh(self._fit)

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.height < SHORT_ROWS, "-short")
        self.call_after_refresh(self._fit)

    @cached_property
    def _rows(self) -> list[tuple[str, str, str, str | None]]:
        """Every row: its keys, what they do, the action's id (empty for a widget's key or a
        section's title) and the row's key (the action's id). Read once: the keymap and the
        language do not change while the dialog is open, and a resize fills it again."""
        lang = self.lang
        rows: list[tuple[str, str, str, str | None]] = [
            ("", text("keys.section.app", lang), "", "")
        ]
        for command in COMMANDS:
            keys = ", ".join(bound_keys(command, self.keymap))
            rows.append((keys, command.title(lang), command.id, command.id))
            self._actions[command.id] = command
        for section, entries in WIDGET_KEYS:
            rows.append(("", text(section, lang), "", ""))
            rows.extend((keys, text(what, lang), "", None) for keys, what in entries)
        return rows

    def _headers(self) -> list[str]:
        return [text(f"keys.column.{name}", self.lang) for name in ("keys", "what", "id")]

    def _widths(self, stacked: bool) -> tuple[int, int]:
        """The keys' column width (each action's keys on one line, or ``stacked``) and the
        ids'."""
        rows, (keys_head, _, id_head) = self._rows, self._headers()
        keys = [line for row in rows for line in _keys_text(row[0], stacked).split("\n")]
        keys_width = max(cell_len(cell) for cell in [keys_head, *keys])
        return keys_width, max(cell_len(cell) for cell in [id_head, *(row[2] for row in rows)])

    def _fill(self, what_width: int | None, stacked: bool = False, ids: bool = True) -> None:
        """The table, its descriptions ``what_width`` wide (wrapped) or as wide as they are
        (``None``: before the table's width is known), each action's keys on one line or
        ``stacked``, with the ``ids`` column or without. The highlighted row stays."""
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        headers = self._headers()
        keys_width, id_width = self._widths(stacked)
        table.clear(columns=True)
        table.add_column(headers[0], width=keys_width)
        table.add_column(headers[1], width=what_width)
        if ids:
            table.add_column(headers[2], width=id_width)
        height = None if what_width is not None else 1  # wrapped: as many lines as it takes
        for keys, what, command_id, key in self._rows:
            style = "bold underline" if key == "" else ""
            cells = [Text(_keys_text(keys, stacked), style="bold"), Text(what, style=style)]
            if ids:
                cells.append(Text(command_id, style="dim"))
            table.add_row(*cells, key=key or None, height=height)
        table.move_cursor(row=cursor)
        self._what_width, self._stacked, self._ids = what_width, stacked, ids

    def _fit(self) -> None:
        """Give the descriptions what the keys and the ids leave of the table's width, the
        keys stacked where that is not :data:`ROOMY`."""
        table = self.query_one(DataTable)
        if not table.size.width:
            return
        padding = 2 * table.cell_padding
        scrollbar = table.styles.scrollbar_size_vertical
        keys_width, id_width = self._widths(stacked=False)
        room = table.content_region.width - 3 * padding - scrollbar - id_width
        stacked = room - keys_width < ROOMY
        if stacked:
            keys_width, _ = self._widths(stacked=True)
        ids = room - keys_width >= CRAMPED
        if not ids:
            room += id_width + padding
        width = max(MIN_WHAT, room - keys_width)
        if (width, stacked, ids) != (self._what_width, self._stacked, self._ids):
            self._fill(width, stacked, ids)
            self._say_help(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value)

    @on(DataTable.RowHighlighted)
    def _explain(self, event: DataTable.RowHighlighted) -> None:
        self._say_help(event.row_key.value)

    def _say_help(self, row_key: str | None) -> None:
        """What the action of the row ``row_key`` does, and its id when the table does not
        show it."""
        command = self._actions.get(row_key or "")
        help_text = "" if command is None else command.help(self.lang)
        if command is not None and not self._ids:
            help_text = text("keys.help_with_id", self.lang, help=help_text, id=command.id)
        self.query_one("#keys-help", Label).update(Text(help_text))

    @on(DataTable.RowSelected)
    def _run(self, event: DataTable.RowSelected) -> None:
        command = self._actions.get(event.row_key.value or "")
        if command is not None and command.id != "keys":
            self.dismiss(command.action)

    def action_close(self) -> None:
        self.dismiss(None)


def _keys_text(keys: str, stacked: bool) -> str:
    """``f2, alt+r`` as shown: on one line, or each key on a line of its own."""
    return keys.replace(", ", ",\n") if stacked else keys
