from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.app import App, ComposeResult
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, DirectoryTree, Input, Static, TextArea

from oncall_tui.tui.widgets import dialogs
from oncall_tui.tui.widgets.dialogs import ConfirmDialog, ErrorText, Question, UnsavedChangesDialog
from oncall_tui.tui.widgets.text_dialogs import FileBrowserDialog, TextDialog, TextViewerDialog
from tests.tui.conftest import wait_until
from tests.tui.harness import question_drawn, question_read, settled

SIZE = (100, 32)


class DialogHost(App[None]):
    """Pushes one dialog on mount and records what it is dismissed with."""

    def __init__(self, factory: Callable[[], ModalScreen[Any]]) -> None:
        super().__init__()
        self._factory = factory
        self.results: list[object] = []

    def compose(self) -> ComposeResult:
        yield Static("host")
        yield ErrorText(id="error")

    def on_mount(self) -> None:
        self.push_screen(self._factory(), self.results.append)


async def run_dialog(factory: Callable[[], ModalScreen[Any]], keys: list[str]) -> list[object]:
    app = DialogHost(factory)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ModalScreen))
        if isinstance(app.screen, Question):
            await question_read(pilot)
        await pilot.press(*keys)
        await wait_until(pilot, lambda: bool(app.results))
        return app.results


@pytest.mark.parametrize(
    ("keys", "destructive", "expected"),
    [
        (["y"], True, True),
        (["n"], False, False),
        (["escape"], False, False),
        (["enter"], True, False),  # the focus starts on "No"...
        (["enter"], False, False),  # ...destructive or not: a habitual Enter changes nothing
        (["tab", "enter"], True, True),  # tab wraps from "No" round to "Yes"
        (["tab", "enter"], False, True),
    ],
)
async def test_confirm_dialog_answers_from_the_keyboard(
    keys: list[str], destructive: bool, expected: bool
) -> None:
    def dialog() -> ModalScreen[Any]:
        return ConfirmDialog("Delete?", "Really?", destructive=destructive)

    assert await run_dialog(dialog, keys) == [expected]


def button_text(dialog: Screen[Any], button_id: str) -> str:
    return str(dialog.query_one(f"#{button_id}", Button).label)


def keys_text(dialog: Screen[Any]) -> str:
    return str(dialog.query_one("#confirm-keys", Static).render())


@pytest.mark.parametrize("destructive", [True, False])
async def test_confirm_dialog_starts_on_no_and_marks_the_focused_button(
    destructive: bool,
) -> None:
    app = DialogHost(
        lambda: ConfirmDialog(
            "Delete session?", "Delete it?", yes_label="Delete", destructive=destructive
        )
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        dialog = app.screen
        await settled(pilot)
        assert isinstance(dialog.focused, Button)
        assert dialog.focused.id == "no"
        assert button_text(dialog, "no") == "▸ No ◂"
        assert button_text(dialog, "yes").strip() == "Delete"
        assert keys_text(dialog).endswith("enter = No")

        await pilot.press("tab")
        assert isinstance(dialog.focused, Button)
        assert dialog.focused.id == "yes"
        assert button_text(dialog, "yes") == "▸ Delete ◂"
        assert button_text(dialog, "no").strip() == "No"
        assert keys_text(dialog).endswith("enter = Delete")
        assert app.results == []  # moving the focus answers nothing


async def test_confirm_dialog_labels_are_never_markup() -> None:
    app = DialogHost(lambda: ConfirmDialog("t", "m", yes_label="[b]Go[/b]", no_label="[i]x"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await settled(pilot)
        assert button_text(app.screen, "yes").strip() == "[b]Go[/b]"
        assert button_text(app.screen, "no") == "▸ [i]x ◂"


@pytest.mark.parametrize(
    ("keys", "expected"),
    [(["s"], "save"), (["d"], "discard"), (["escape"], "cancel"), (["enter"], "cancel")],
)
async def test_unsaved_changes_dialog_defaults_to_keeping_the_edits(
    keys: list[str], expected: str
) -> None:
    def dialog() -> ModalScreen[Any]:
        return UnsavedChangesDialog("Unsaved.")

    assert await run_dialog(dialog, keys) == [expected]


async def test_text_dialog_returns_the_text_on_enter_and_none_on_escape() -> None:
    def dialog() -> ModalScreen[Any]:
        return TextDialog("Rename", "New name:", value="old")

    assert await run_dialog(dialog, ["end", "!", "enter"]) == ["old!"]
    assert await run_dialog(dialog, ["x", "escape"]) == [None]


async def test_text_viewer_is_read_only_and_closes_with_q() -> None:
    app = DialogHost(lambda: TextViewerDialog("doc", "# Title\n[bold]not markup[/bold]"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TextViewerDialog))
        area = app.screen.query_one(TextArea)
        await pilot.press("x", "enter", "backspace")
        assert area.text == "# Title\n[bold]not markup[/bold]"
        await pilot.press("q")
        await wait_until(pilot, lambda: app.results == [None])


async def test_file_browser_lists_matching_files_and_returns_the_chosen_one(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").write_text("x")
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "README.md").write_text("x")  # listed, it could only have been refused
    app = DialogHost(lambda: FileBrowserDialog(tmp_path, names=["SKILL.md"]))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, FileBrowserDialog))
        tree = app.screen.query_one(DirectoryTree)
        await wait_until(pilot, lambda: len(tree.root.children) == 1)
        assert str(tree.root.children[0].label) == "SKILL.md"
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: app.results == [tmp_path / "SKILL.md"])


async def test_error_text_shows_plain_text_and_hides_when_cleared() -> None:
    app = DialogHost(lambda: TextDialog("t"))
    async with app.run_test(size=SIZE):
        error = app.query_one("#error", ErrorText)
        assert not error.display or not error.has_class("-shown")
        error.show_error("bad [red]name[/red]")
        assert error.has_class("-shown")
        assert str(error.render()) == "bad [red]name[/red]"
        error.show_error(None)
        assert error.message is None
        assert not error.has_class("-shown")


async def test_text_dialog_input_starts_with_the_value() -> None:
    app = DialogHost(lambda: TextDialog("t", value="abc"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, TextDialog))
        assert app.screen.query_one(Input).value == "abc"


def takes_yes(dialog: ConfirmDialog) -> bool:
    """Read anew at each call (mypy would keep what an assert said of the property)."""
    return dialog.answers_count


@pytest.mark.parametrize(
    ("early", "late", "expected"),
    [(["y"], "y", True), (["y", "enter"], "n", False), (["y", "n"], "escape", False)],
)
async def test_no_answer_typed_before_a_destructive_question_could_be_read_counts(
    monkeypatch: pytest.MonkeyPatch, early: list[str], late: str, expected: bool
) -> None:
    """``y`` pressed as the dialog is drawn (typed with the key that opened it) answers
    nothing, and neither does a "No" (``Delete y Enter`` in one burst answered it with the
    Enter: the question went before it was seen). The same keys once the question has been on
    screen long enough answer it; Esc, which answers nothing, closes it at once."""
    now = [100.0]
    monkeypatch.setattr(dialogs, "clock", lambda: now[0])
    app = DialogHost(lambda: ConfirmDialog("Delete?", "Really?", destructive=True))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        await question_drawn(pilot)  # at 100.0
        now[0] += dialogs.READ_SECONDS - 0.01
        assert not takes_yes(dialog)
        await pilot.press(*early)
        await settled(pilot)
        assert app.results == []
        assert dialog.is_current  # still asking
        if late != "escape":
            now[0] += 0.01
            assert takes_yes(dialog)
        await pilot.press(late)
        await wait_until(pilot, lambda: bool(app.results))
    assert app.results == [expected]


async def test_discarding_edits_typed_before_the_question_could_be_read_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Esc or ctrl+q in the prompt editor, then a "d" typed in the same burst: the edits stay;
    the same key once the question has been on screen long enough discards them."""
    now = [100.0]
    monkeypatch.setattr(dialogs, "clock", lambda: now[0])
    app = DialogHost(lambda: UnsavedChangesDialog("Unsaved."))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, UnsavedChangesDialog))
        dialog = app.screen
        await question_drawn(pilot)
        await pilot.press("d")
        assert app.results == []
        assert dialog.is_current
        now[0] += dialogs.READ_SECONDS
        await pilot.press("d")
        await wait_until(pilot, lambda: bool(app.results))
    assert app.results == ["discard"]


LONG_QUESTION = "Run it with these arguments?\n" + "\n".join(f'  "k{i}": {i},' for i in range(40))


@pytest.mark.parametrize(("size", "button_rows"), [((60, 20), 1), ((80, 24), 3)])
async def test_a_long_question_scrolls_and_the_keys_and_buttons_stay_on_screen(
    size: tuple[int, int], button_rows: int
) -> None:
    """At 60x20 a tool's arguments pushed the buttons off the dialog. The question scrolls
    (PgUp/PgDn) instead; on a short terminal the buttons are one row each."""
    app = DialogHost(lambda: ConfirmDialog("Run ops.deploy?", LONG_QUESTION))
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: bool(app.screen.query("#no")))
        dialog = app.screen
        await wait_until(  # laid out for the terminal's height (a class set as it is sized)
            pilot,
            lambda: {button.region.height for button in dialog.query(Button)} == {button_rows},
        )
        for widget in (dialog.query_one("#confirm-keys"), *dialog.query(Button)):
            region = widget.region
            assert region.height > 0
            assert region.y >= 0, (widget, region)
            assert region.bottom <= size[1], (widget, region)
        assert {button.region.height for button in dialog.query(Button)} == {button_rows}
        body = dialog.query_one(".dialog--body")
        assert body.scroll_y == 0
        await pilot.press("pagedown")
        await wait_until(pilot, lambda: body.scroll_y > 0)
        await pilot.press("pageup")
        await wait_until(pilot, lambda: body.scroll_y == 0)
        await question_read(pilot)
        await pilot.press("n")
        await wait_until(pilot, lambda: app.results == [False])


async def test_a_short_question_is_drawn_whole_without_a_scroll() -> None:
    app = DialogHost(lambda: ConfirmDialog("Delete?", "Really?"))
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_until(pilot, lambda: bool(app.screen.query("#no")))
        await settled(pilot)
        body = app.screen.query_one(".dialog--body")
        assert body.region.height == 1
        assert body.max_scroll_y == 0
