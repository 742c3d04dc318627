"""Modal dialogs that take or show text: one line (a title, a path), a long text to read, a
file to pick. Keyboard-driven and terminal-safe as the questions are (:mod:`.dialogs`)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import ClassVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DirectoryTree, Input, Static, TextArea

from oncall_tui.core.text import terminal_safe
from oncall_tui.texts import text as t
from oncall_tui.tui.widgets.dialogs import DIALOG_CSS, DIALOG_KEYS, ErrorText
from oncall_tui.tui.widgets.in_order import InOrderInput
from oncall_tui.tui.widgets.lang import translate_bindings, ui_lang
from oncall_tui.tui.widgets.text_area import InOrderTextArea


class TextDialog(ModalScreen[str | None]):
    """Ask for one line of text: Enter returns it, Esc returns ``None``."""

    DEFAULT_CSS = "TextDialog {" + DIALOG_CSS + "}"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="dialog.cancel"),
    ]

    def __init__(
        self,
        title: str,
        prompt: str = "",
        *,
        value: str = "",
        placeholder: str = "",
        max_length: int = 0,
        error: str | None = None,
        replace: bool = False,
    ) -> None:
        """``error``: why the text given last time was refused, shown under it. ``replace``:
        ``value`` starts selected, so what is typed replaces it (a new title), where otherwise
        it is edited (a path)."""
        super().__init__()
        self.lang = ui_lang(self)
        translate_bindings(self, DIALOG_KEYS)
        self._title = terminal_safe(title)
        self._prompt = terminal_safe(prompt)
        self._value = value
        self._placeholder = placeholder
        self._max_length = max_length
        self._error = error
        self._replace = replace

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self._title, markup=False, classes="dialog--title")
            if self._prompt:
                yield Static(self._prompt, markup=False, classes="dialog--message")
            yield InOrderInput(
                self._value,
                placeholder=self._placeholder,
                max_length=self._max_length,
                select_on_focus=self._replace,
            )
            error = ErrorText()
            error.show_error(self._error)
            yield error
            yield Static(t("dialog.text.keys", self.lang), classes="dialog--keys", markup=False)

    def on_mount(self) -> None:
        if not self._replace:  # a path: its end in sight, where the cursor is (the extension)
            self.call_after_refresh(self._show_the_end)

    def _show_the_end(self) -> None:
        """Textual's field shows a first value from its start, whatever its cursor; moving the
        cursor scrolls it there."""
        field = self.query_one(InOrderInput)
        if field.cursor_position == len(field.value):
            field.action_home()
            field.action_end()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class TextViewerDialog(ModalScreen[None]):
    """Show a document read-only: scrollable, selectable and copyable, never editable."""

    DEFAULT_CSS = """
    TextViewerDialog {
        align: center middle;
        & > Vertical {
            width: 100%;
            height: 100%;
            border: thick $primary 80%;
            background: $surface;
        }
        & .dialog--title { text-style: bold; padding: 0 1; width: 1fr; }
        & .dialog--keys { color: $text-muted; padding: 0 1; width: 1fr; }
        & TextArea { height: 1fr; border: none; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Close", id="dialog.close"),
    ]

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        self.lang = ui_lang(self)
        translate_bindings(self, DIALOG_KEYS)
        self._title = terminal_safe(title)
        self._text = terminal_safe(text)  # shown and copied as shown: read-only

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self._title, markup=False, classes="dialog--title")
            yield InOrderTextArea(self._text, read_only=True, soft_wrap=True, id="viewer-text")
            keys = t("dialog.viewer.keys", self.lang)
            yield Static(keys, classes="dialog--keys", markup=False)

    def on_mount(self) -> None:
        self.query_one(TextArea).focus()

    def action_close(self) -> None:
        self.dismiss(None)


class FileBrowserDialog(ModalScreen[Path | None]):
    """Pick a file by browsing: Enter opens a directory or chooses a file, Backspace goes up.

    Hidden entries are left out; with ``names`` only files so named are listed (the skill
    library's: ``SKILL.md``, where a README beside it could only be refused).
    """

    DEFAULT_CSS = """
    FileBrowserDialog {
        align: center middle;
        & > Vertical {
            width: 90%;
            height: 90%;
            border: thick $primary 80%;
            background: $surface;
        }
        & .dialog--keys { padding: 0 1; color: $text-muted; }
        & DirectoryTree { height: 1fr; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("backspace", "parent", "Parent directory", id="dialog.parent"),
        Binding("escape", "cancel", "Cancel", id="dialog.cancel"),
    ]

    def __init__(self, start: Path, *, names: Iterable[str] = ()) -> None:
        super().__init__()
        self.lang = ui_lang(self)
        translate_bindings(self, DIALOG_KEYS)
        self._start = start
        self._names = frozenset(names)

    def compose(self) -> ComposeResult:
        with Vertical():
            keys = t("dialog.file.keys", self.lang)
            yield Static(keys, classes="dialog--keys", markup=False)
            yield _FilteredTree(self._start, self._names)

    def action_parent(self) -> None:
        tree = self.query_one(_FilteredTree)
        tree.path = Path(tree.path).resolve().parent

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(DirectoryTree.FileSelected)
    def _chosen(self, event: DirectoryTree.FileSelected) -> None:
        event.stop()
        self.dismiss(event.path)


class _FilteredTree(DirectoryTree):
    def __init__(self, path: Path, names: frozenset[str]) -> None:
        super().__init__(path)
        self._names = names

    def filter_paths(self, paths: Iterable[Path]) -> Iterable[Path]:
        return [
            path
            for path in paths
            if not path.name.startswith(".")
            and (not self._names or path.name in self._names or path.is_dir())
        ]
