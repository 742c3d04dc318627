"""The skill library: the user's uploaded SKILL.md files and which of them are in use.

Files are read and every service call is made in a worker thread, so a slow disk or a
large directory never freezes the screen. Upload errors are the catalog's own messages,
naming the rule that was broken.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.suggester import Suggester
from textual.widgets import DataTable, Footer, Input, Static

from oncall_tui.core.skills import MAX_SKILL_BYTES, SKILL_FILENAME, check_upload_size
from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import OncallError
from oncall_tui.inputs import find_named_file, read_file
from oncall_tui.services.views import ConfigurationView, SkillView
from oncall_tui.tui.messages import ConfigurationChanged
from oncall_tui.tui.screens.flows import FlowScreen
from oncall_tui.tui.widgets.dialogs import (
    ConfirmDialog,
    ErrorText,
    FileBrowserDialog,
    TextViewerDialog,
)

if TYPE_CHECKING:
    from oncall_tui.services.container import Services

MIN_DESCRIPTION_CELLS = 16
"""The table clips descriptions to the screen's width (never below this); the pane below
shows the highlighted one whole."""


def complete_path(value: str) -> str | None:
    """Complete the last component of a typed path, keeping what was typed (``~`` too).

    Directories complete with a trailing ``/``; hidden entries only when asked for with ``.``.
    """
    if not value:
        return None
    directory, prefix = os.path.split(os.path.expanduser(value))
    try:
        with os.scandir(directory or ".") as entries:
            names = sorted(
                entry.name + ("/" if entry.is_dir() else "")
                for entry in entries
                if entry.name.startswith(prefix)
                and (prefix.startswith(".") or not entry.name.startswith("."))
            )
    except OSError:
        return None
    for name in names:
        if len(name) > len(prefix):
            return value + name[len(prefix) :]
    return None


class PathSuggester(Suggester):
    """Suggest file system completions; the directory is listed off the UI thread."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        return await asyncio.to_thread(complete_path, value)


class PathInput(Input):
    """An input for a file path: Tab accepts the completion, as in a shell."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "complete", "Complete path", show=False),
    ]

    def action_complete(self) -> None:
        before = self.value
        if self.cursor_at_end:
            self.action_cursor_right()  # accepts the suggestion, if there is one
        if self.value == before:
            self.screen.focus_next()


def read_skill_file(raw: str) -> tuple[str, bytes]:
    """Read the file the user named: its base name and bytes, for ``add_skill``.

    ``~`` is expanded and a directory means the ``SKILL.md`` inside it. A huge file is not
    read whole: its real size is reported with the catalog's size rule. A named pipe or a
    device is refused without being waited on (see :mod:`oncall_tui.inputs`).
    """
    path = find_named_file(raw.strip(), SKILL_FILENAME)
    upload = read_file(path, MAX_SKILL_BYTES)
    check_upload_size(path.name, upload.size)
    return path.name, upload.data


def _clipped(text: str, cells: int) -> Text:
    """One line of at most ``cells`` terminal cells (wide CJK characters count twice)."""
    line = Text(" ".join(terminal_safe(text).split()))
    line.truncate(cells, overflow="ellipsis")
    return line


def format_size(size: int) -> str:
    return f"{size:,} B" if size < 1024 else f"{size / 1024:.1f} KiB"


class SkillLibraryScreen(FlowScreen):
    """List, add, view, delete, select and deselect the user's skills."""

    CSS_PATH = "skills.tcss"
    AUTO_FOCUS = "#skill-table"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "toggle_use", "Use/unuse", id="skills.toggle"),
        Binding("v", "view", "View", id="skills.view"),
        Binding("a", "add", "Add", id="skills.add"),
        Binding("ctrl+o", "browse", "Browse", id="skills.browse"),
        # Safe everywhere because it asks first (in the path field it replaces "delete right").
        Binding("ctrl+d", "delete", "Delete", id="skills.delete", priority=True),
        Binding("delete", "delete", "Delete", show=False),
        Binding("ctrl+r", "reload", "Reload", id="skills.reload"),
        Binding("escape", "back", "Back", id="skills.back"),
    ]

    ERROR_TEXT_ID = "skill-error"

    def __init__(self, services: Services) -> None:
        super().__init__(services)
        self._skills: dict[int, SkillView] = {}
        self._selected: tuple[int, ...] = ()
        self._configuration: ConfigurationView | None = None

    def compose(self) -> ComposeResult:
        yield Static("Skills", id="skills-title")
        yield PathInput(
            id="skill-path",
            placeholder="Add a SKILL.md: type its path (tab completes, enter adds)",
            suggester=PathSuggester(),
        )
        yield ErrorText(id="skill-error")
        table: DataTable[Text] = DataTable(id="skill-table", cursor_type="row")
        yield table
        yield Static("", id="skill-description", markup=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._start(self._reload)

    # -- state helpers ---------------------------------------------------------------------

    @property
    def loaded(self) -> bool:
        """Whether the skills have been read from the service at least once."""
        return self._configuration is not None

    @property
    def skills(self) -> tuple[SkillView, ...]:
        """The skills listed, in the table's order."""
        return tuple(self._skills.values())

    @property
    def selected_ids(self) -> tuple[int, ...]:
        """The skill ids in use, as last read from the service."""
        return self._selected

    def _current_row_id(self) -> int | None:
        table = self.query_one("#skill-table", DataTable)
        if table.row_count == 0 or not table.is_valid_row_index(table.cursor_row):
            return None
        row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        return None if row_key.value is None else int(row_key.value)

    def _current(self) -> SkillView | None:
        row_id = self._current_row_id()
        return None if row_id is None else self._skills.get(row_id)

    def _apply(self, view: ConfigurationView, focus_id: int | None = None) -> None:
        self._configuration = view
        self._skills = {skill.id: skill for skill in view.skills}
        self._selected = view.skill_ids
        self._render_table(focus_id)
        count, used = len(self._skills), len(self._selected)
        self.query_one("#skills-title", Static).update(
            f"Skills · {count} stored · {used} selected for use"
        )
        self._describe()

    def _render_table(self, focus_id: int | None = None) -> None:
        table = self.query_one("#skill-table", DataTable)
        current = self._current_row_id()
        focus_id = focus_id if focus_id is not None else current
        skills = [] if self._configuration is None else list(self._configuration.skills)
        name_cells = max((cell_len(terminal_safe(skill.name)) for skill in skills), default=4)
        # Fixed widths, computed here: the table's own auto-sizing lags a re-fill by a frame.
        # Margins and scrollbar, then the use and size columns, then each column's padding.
        cells = max(MIN_DESCRIPTION_CELLS, self.size.width - 4 - 3 - name_cells - 8 - 4 * 2)
        table.clear(columns=True)
        table.add_column("Use", key="use", width=3)
        table.add_column("Name", key="name", width=max(name_cells, 4))
        table.add_column("Size", key="size", width=8)
        table.add_column("Description", key="description", width=cells)
        for skill in skills:
            table.add_row(
                Text("[x]" if skill.id in self._selected else "[ ]"),
                Text(terminal_safe(skill.name)),
                Text(format_size(skill.size_bytes), justify="right"),
                _clipped(skill.description, cells),
                key=str(skill.id),
            )
        if focus_id is not None and focus_id in self._skills:
            table.move_cursor(row=table.get_row_index(str(focus_id)))

    def on_resize(self) -> None:
        if self._configuration is not None:
            self._render_table()

    @on(DataTable.RowHighlighted, "#skill-table")
    def _describe(self) -> None:
        skill = self._current()
        text = "No skills yet: add a SKILL.md above." if not self._skills else ""
        if skill is not None:
            text = f"{skill.name}: {' '.join(skill.description.split())}"
        self.query_one("#skill-description", Static).update(terminal_safe(text))

    @on(Input.Submitted, "#skill-path")
    def _path_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self._start(lambda: self._upload(event.value))

    # -- actions ---------------------------------------------------------------------------

    def action_toggle_use(self) -> None:
        self._start(self._toggle)

    @on(DataTable.RowSelected, "#skill-table")
    def action_view(self) -> None:
        self._start(self._show)

    def action_delete(self) -> None:
        self._start(self._delete)

    def action_reload(self) -> None:
        self._start(self._reload)

    def action_add(self) -> None:
        self.query_one("#skill-path", PathInput).focus()

    def action_browse(self) -> None:
        raw = self.query_one("#skill-path", PathInput).value.strip()
        start = Path(raw).expanduser() if raw else Path.cwd()
        while not start.is_dir() and start != start.parent:
            start = start.parent
        self.app.push_screen(FileBrowserDialog(start, suffixes=(".md",)), self._browsed)

    def _browsed(self, path: Path | None) -> None:
        if path is not None:
            self.query_one("#skill-path", PathInput).value = str(path)
            self._start(lambda: self._upload(str(path)))

    def action_back(self) -> None:
        if self._busy:  # let an upload or save finish (and report) before leaving
            self.app.bell()
            return
        if isinstance(self.focused, Input):
            self.query_one("#skill-table", DataTable).focus()  # keep the typed path
            return
        self.dismiss(None)

    # -- flows (each runs in one worker; only one at a time) --------------------------------

    async def _reload(self, focus_id: int | None = None) -> None:
        try:
            view = await asyncio.to_thread(
                self._services.configuration.get_configuration, self._services.owner
            )
        except OncallError as error:
            self._show_error(error)
            return
        self._apply(view, focus_id)

    async def _upload(self, raw: str) -> None:
        owner = self._services.owner
        try:
            filename, data = await asyncio.to_thread(read_skill_file, raw)
            skill = await asyncio.to_thread(
                self._services.configuration.add_skill, owner, filename, data
            )
        except OncallError as error:
            self._show_error(error)
            return
        self._show_error(None)
        path_input = self.query_one("#skill-path", PathInput)
        if path_input.value == raw:
            path_input.value = ""
        self.app.post_message(ConfigurationChanged())
        await self._reload(focus_id=skill.id)
        added = f"Added skill {skill.name} ({format_size(skill.size_bytes)})."
        self.notify(terminal_safe(added), markup=False, timeout=3)

    async def _toggle(self) -> None:
        skill = self._current()
        if skill is None:
            return
        if skill.id in self._selected:
            wanted = [i for i in self._selected if i != skill.id]
        else:
            wanted = [*self._selected, skill.id]
        try:
            view = await asyncio.to_thread(
                self._services.configuration.save_configuration,
                self._services.owner,
                skill_ids=wanted,
            )
        except OncallError as error:
            # Nothing was saved: show why, then show the selection as it really is.
            await self._reload()
            self._show_error(error)
            return
        self._show_error(None)
        self._apply(view)
        self.app.post_message(ConfigurationChanged())

    async def _show(self) -> None:
        skill = self._current()
        if skill is None:
            return
        try:
            detail = await asyncio.to_thread(
                self._services.configuration.show_skill, self._services.owner, skill.id
            )
        except OncallError as error:
            self._show_error(error)
            await self._reload()
            return
        title = f"{detail.skill.name} · {detail.skill.filename} · {format_size(skill.size_bytes)}"
        self.app.push_screen(TextViewerDialog(title, detail.content))

    async def _delete(self) -> None:
        skill = self._current()
        if skill is None:
            return
        note = " It is also removed from the skills in use." if skill.id in self._selected else ""
        confirmed = await self.app.push_screen_wait(
            ConfirmDialog(
                "Delete skill?",
                f"Delete the skill '{skill.name}'? This cannot be undone.{note}",
                yes_label="Delete",
                destructive=True,
            )
        )
        if not confirmed:
            return
        try:
            await asyncio.to_thread(
                self._services.configuration.delete_skill, self._services.owner, skill.id
            )
        except OncallError as error:
            self._show_error(error)
            await self._reload()
            return
        self._show_error(None)
        self.app.post_message(ConfigurationChanged())
        await self._reload()
        self.notify(terminal_safe(f"Deleted skill {skill.name}."), markup=False, timeout=3)
