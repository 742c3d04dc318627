"""The skill library: the user's uploaded SKILL.md files and which of them are in use.

Files are read and every service call is made in a worker thread, so a slow disk or a
large directory never freezes the screen. Upload errors are the catalog's own messages,
naming the rule that was broken.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import DataTable, Input, Static

from oncall_tui.core.skills import SKILL_FILENAME
from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import OncallError, joined
from oncall_tui.services.skill_files import MAX_FOLDERS
from oncall_tui.services.views import ConfigurationView, SkillView
from oncall_tui.texts import text as t
from oncall_tui.tui.messages import ConfigurationChanged
from oncall_tui.tui.screens.assets import AssetScreen, delete_bindings
from oncall_tui.tui.widgets.dialogs import ErrorText
from oncall_tui.tui.widgets.key_bar import KeyBar
from oncall_tui.tui.widgets.lang import key_texts, translate_bindings
from oncall_tui.tui.widgets.path_input import COMPLETE_KEY
from oncall_tui.tui.widgets.path_input import PathInput as PathInput  # imported from here too
from oncall_tui.tui.widgets.row_table import RowTable
from oncall_tui.tui.widgets.text_dialogs import FileBrowserDialog, TextViewerDialog
from oncall_tui.tui.widgets.typing_on import TypingGoesOn, TypingHandOff

if TYPE_CHECKING:
    from oncall_tui.services.container import Services

MIN_DESCRIPTION_CELLS = 16
"""The table clips descriptions to the screen's width (never below this); the pane below
shows the highlighted one whole."""


def _clipped(text: str, cells: int) -> Text:
    """One line of at most ``cells`` terminal cells (wide CJK characters count twice)."""
    line = Text(" ".join(terminal_safe(text).split()))
    line.truncate(cells, overflow="ellipsis")
    return line


def format_size(size: int) -> str:
    return f"{size:,} B" if size < 1024 else f"{size / 1024:.1f} KiB"


class SkillTable(TypingGoesOn, RowTable[Text]):
    """The skills. A character none of the list's keys takes (space, v, a) goes on in the path
    field, with the focus, and the keys behind it (:mod:`...widgets.typing_on`): a path typed
    here was lost."""

    def __init__(self) -> None:
        super().__init__(id="skill-table", cursor_type="row")
        self._typing: TypingHandOff = TypingHandOff(self, lambda: self.screen.query_one(PathInput))

    def on_focus(self) -> None:
        self._typing.back()


class SkillLibraryScreen(AssetScreen):
    """List, add, view, delete, select and deselect the user's skills.

    It opens in the path field, so whatever is typed first lands there: a space typed into a
    path never reaches the list. The list's own keys (space, v, a) act only while the list
    has the focus, and any other character typed there goes on in the path field; tab and
    shift+tab switch between the two. Esc always leaves in one press
    (once a running upload or save has reported, when one is under way).
    """

    CSS_PATH = "skills.tcss"
    DEFAULT_CSS = """
    SkillLibraryScreen #skill-status {
        height: 1;
        padding: 0 1;
        margin: 0 1;
        color: $text-success;
    }
    """
    AUTO_FOCUS = "#skill-path"
    BINDINGS: ClassVar[list[BindingType]] = [
        # First, so a narrow footer never cuts it off.
        Binding("escape", "back", "Back", id="skills.back"),
        Binding("space", "toggle_use", "Select/unselect", id="skills.toggle"),
        Binding("v", "view", "View", id="skills.view"),
        # Tab reaches the path field as well; the placeholder there says what it is for.
        Binding("a", "add", "Add", id="skills.add", show=False),
        Binding("ctrl+o", "browse", "Browse", id="skills.browse"),
        *delete_bindings("skills"),
        Binding("ctrl+r", "reload", "Reload", id="skills.reload"),
    ]
    TABLE_ACTIONS = frozenset({"toggle_use", "view", "add"})
    """Actions of the list's own keys: offered only while the list has the focus."""

    def __init__(self, services: Services) -> None:
        super().__init__(services)
        translate_bindings(self, key_texts(self.BINDINGS, "skills"))
        self._skills: dict[int, SkillView] = {}
        self._selected: tuple[int, ...] = ()
        self._configuration: ConfigurationView | None = None
        self._status = ""
        self._toggles: deque[int] = deque()
        """Skills to toggle, in the order Space was pressed on them (while the toggles run)."""

    def compose(self) -> ComposeResult:
        yield Static(t("skills.title", self._lang), id="skills-title")
        yield PathInput(
            id="skill-path", placeholder=t("skills.placeholder", self._lang, key=COMPLETE_KEY)
        )
        yield ErrorText(id="skill-error")
        yield SkillTable()
        yield Static("", id="skill-status", markup=False)
        yield Static("", id="skill-description", markup=False)
        yield KeyBar()

    def on_mount(self) -> None:
        self._start(self._reload)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in self.TABLE_ACTIONS:
            return isinstance(self.focused, DataTable)
        return True

    def on_descendant_focus(self) -> None:
        self.refresh_bindings()  # the footer offers the list's keys only while it has focus

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

    @property
    def status(self) -> str:
        """What the last change of the selection did ("" when there is nothing to say)."""
        return self._status

    def _set_status(self, text: str) -> None:
        self._status = terminal_safe(text)
        self.query_one("#skill-status", Static).update(self._status)

    def _show_error(self, error: OncallError | None) -> None:
        if error is not None:
            self._set_status("")  # the error line says what happened instead
        super()._show_error(error)

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
            t("skills.title_counts", self._lang, count=count, used=used)
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
        lang = self._lang
        table.add_column(t("skills.column.use", lang), key="use", width=3)
        table.add_column(t("skills.column.name", lang), key="name", width=max(name_cells, 4))
        table.add_column(t("skills.column.size", lang), key="size", width=8)
        table.add_column(t("skills.column.description", lang), key="description", width=cells)
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
        text = t("skills.none", self._lang) if not self._skills else ""
        if skill is not None:
            text = f"{skill.name}: {' '.join(skill.description.split())}"
        self.query_one("#skill-description", Static).update(terminal_safe(text))

    @on(Input.Submitted, "#skill-path")
    def _path_submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self._start(lambda: self._upload(event.value))

    # -- actions ---------------------------------------------------------------------------

    def action_toggle_use(self) -> None:
        """Space: the row the cursor is on now is toggled, after the toggles before it (keys
        typed fast run ahead of the saves)."""
        skill_id = self._current_row_id()
        if skill_id is None:
            return
        if self._toggles:  # the running toggles take this one too, in its turn
            self._toggles.append(skill_id)
            return
        if self.busy:
            self.app.bell()
            return
        self._toggles.append(skill_id)
        self._start(self._toggle_each)

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
        self.app.push_screen(FileBrowserDialog(start, names=(SKILL_FILENAME,)), self._browsed)

    def _browsed(self, path: Path | None) -> None:
        if path is not None:
            self.query_one("#skill-path", PathInput).value = str(path)
            self._start(lambda: self._upload(str(path)))

    # -- flows (each runs in one worker; only one at a time) --------------------------------

    async def _upload(self, raw: str) -> None:
        """Add the skill at the path typed, or (a folder of skill folders) each of them: the
        ones added are said, and the line under the path says each refused and why."""
        add_files = self._services.configuration.add_skill_files
        result = await self._call(add_files, raw.strip())
        self._show_error(None)
        path_input = self.query_one("#skill-path", PathInput)
        if path_input.value == raw and not result.refused:
            path_input.value = ""
        if result.added:
            self.app.post_message(ConfigurationChanged())
            await self._reload(focus_id=result.added[-1].id)
        lang = self._lang
        if len(result.added) == 1:  # one file, or a folder of one skill folder
            (skill,) = result.added
            size = format_size(skill.size_bytes)
            self._notify_done(t("skills.added", lang, name=skill.name, size=size))
        elif result.added:
            names = ", ".join(skill.name for skill in result.added)
            self._notify_done(t("skills.added_many", lang, count=len(result.added), names=names))
        stored = {
            f: e.params["name"] for f, e in result.refused if e.code == "SKILL_DUPLICATE_NAME"
        }
        refused = [
            f"{folder}: {error.message(lang)}"
            for folder, error in result.refused
            if folder not in stored
        ]
        if stored:  # said once for them all, by name: adding a folder again is a common slip
            names = ", ".join(str(name) for name in stored.values())
            refused.append(t("skills.stored_already", lang, names=names))
        if result.left:
            refused.append(t("skills.left", lang, count=result.left, most=MAX_FOLDERS))
        if refused:
            self.query_one(ErrorText).show_error(joined(lang, *refused))

    async def _toggle_each(self) -> None:
        try:
            while self._toggles:
                await self._toggle(self._toggles[0])
                self._toggles.popleft()
        finally:
            self._toggles.clear()  # a failed save: the ones after it are not made either

    async def _toggle(self, skill_id: int) -> None:
        """Select or unselect the skill; a catalog error if the selection was not saved."""
        skill = self._skills.get(skill_id)
        if skill is None:  # deleted meanwhile (from another terminal)
            return
        if skill.id in self._selected:
            wanted = [i for i in self._selected if i != skill.id]
        else:
            wanted = [*self._selected, skill.id]
        configuration = self._services.configuration
        # Nothing saved: the selection is shown as it really is, and then why.
        view = await self._or_reload(self._call(configuration.save_configuration, skill_ids=wanted))
        self._show_error(None)
        self._apply(view)
        done = "skills.selected" if skill.id in self._selected else "skills.unselected"
        self._set_status(t(done, self._lang, name=skill.name))
        self.app.post_message(ConfigurationChanged())

    async def _show(self) -> None:
        skill = self._current()
        if skill is None:
            return
        detail = await self._or_reload(
            self._call(self._services.configuration.show_skill, skill.id)
        )
        title = f"{detail.skill.name} · {detail.skill.filename} · {format_size(skill.size_bytes)}"
        self.app.push_screen(TextViewerDialog(title, detail.content))

    async def _delete(self) -> None:
        skill = self._current()
        if skill is None:
            return
        lang = self._lang
        question = t("skills.delete.ask", lang, name=skill.name)
        if skill.id in self._selected:
            question += t("skills.delete.in_use", lang)
        title, yes = t("skills.delete.title", lang), t("skills.delete.yes", lang)
        if not await self._confirm_delete(title, question, yes):
            return
        await self._or_reload(self._call(self._services.configuration.delete_skill, skill.id))
        self._show_error(None)
        self.app.post_message(ConfigurationChanged())
        await self._reload()
        self._set_status(t("skills.deleted", lang, name=skill.name))  # not a selection gone by
