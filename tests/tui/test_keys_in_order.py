"""Everything is reached from the keyboard, and keys act in the order they were typed, where
the key before them led.

Keys are posted to the app as one read of the terminal posts them (``keys_in_one_read``): all
queued before the first is handled, as a fast typist, a paste or ``tmux send-keys`` deliver
them. The same found in a real terminal is in ``test_keys_in_order_terminal.py``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.coordinate import Coordinate
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import DataTable, Input, TextArea

from oncall_tui.core.prompts import DEFAULT_PROMPT_LABEL, MAX_CONTENT_CHARS
from oncall_tui.services.container import Services
from oncall_tui.tui import key_order
from oncall_tui.tui.app import OncallApp
from oncall_tui.tui.chat_log import ChatLog
from oncall_tui.tui.key_order import KeyOrderApp, hold_keys_for
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.screens.prompts import PromptEditorScreen
from oncall_tui.tui.screens.skills import SkillLibraryScreen
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.context_panel import ContextPanel
from oncall_tui.tui.widgets.dialogs import UnsavedChangesDialog
from oncall_tui.tui.widgets.in_order import InOrderInput
from oncall_tui.tui.widgets.session_list import SessionList
from tests.tui.conftest import AssetsHostApp, ScreenFactory
from tests.tui.harness import keys_in_one_read, scripted_app, seed_session, wait_until
from tests.tui.test_skill_library import (
    OWNER,
    add_skill,
    error_message,
    opened,
    skill_md,
    write_skill,
)

HostFactory = Callable[[ScreenFactory], AssetsHostApp]


def focused(app: App[None]) -> Widget | None:
    """The focused widget, read anew at each call."""
    return app.focused


async def main_screen(app: OncallApp) -> MainScreen:
    screen = app.screen
    assert isinstance(screen, MainScreen)
    await app.workers.wait_for_complete()
    return screen


# -- 1. Tab, shift+Tab and the chat from the keyboard ------------------------------------------


async def test_tab_and_shift_tab_go_round_sessions_chat_composer_and_the_panel(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    seed_session(app, 3)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await main_screen(app)
        log, composer = screen.query_one(ChatLog), screen.query_one(Composer)
        await wait_until(pilot, lambda: len(log.messages) == 6 and log.can_focus)
        panes = (screen.query_one(SessionList), log, composer, screen.query_one(ContextPanel))

        def pane() -> object:
            focused = app.focused
            assert focused is not None
            return next(p for p in panes if p is focused or p in focused.ancestors)

        seen = [pane()]
        while len(seen) == 1 or seen[-1] is not composer:  # once round, back to the composer
            await pilot.press("tab")
            seen.append(pane())
            assert len(seen) < 10, seen
        assert set(seen) == set(panes)
        backwards = [pane()]
        for _ in seen[1:]:
            await pilot.press("shift+tab")
            backwards.append(pane())
        assert backwards == seen[::-1]
        assert focused(app) is composer
        await pilot.press("shift+tab")  # from the composer: the messages
        assert focused(app) is log
        await pilot.press("c")  # copies the message the cursor is on: the newest
        assert app.clipboard.endswith("answer 2")
        await pilot.press("up", "c")
        assert app.clipboard.endswith("question 2")
        await pilot.press("tab")
        assert focused(app) is composer


def in_pane(widget: Widget | None, pane: type[Widget]) -> bool:
    return widget is not None and pane in {type(node) for node in widget.ancestors_with_self}


async def focus_in_pane(
    pilot: Pilot[None], app: OncallApp, keys: list[str], pane: type[Widget]
) -> tuple[ChatLog, Composer]:
    """The open session's six messages shown, then ``keys`` typed, which take the focus into
    ``pane``; the chat log and the composer."""
    screen = await main_screen(app)
    log, composer = screen.query_one(ChatLog), screen.query_one(Composer)
    await wait_until(pilot, lambda: len(log.messages) == 6 and log.can_focus)
    await pilot.press(*keys)
    assert in_pane(focused(app), pane)
    return log, composer


@pytest.mark.parametrize(
    ("keys", "pane"),
    [(["shift+tab"], ChatLog), (["shift+tab"] * 2, SessionList), (["tab"], ContextPanel)],
)
async def test_typing_in_a_pane_without_text_goes_on_in_the_composer_and_enter_sends_it(
    tmp_path: Path, keys: list[str], pane: type[Widget]
) -> None:
    """Tabbed into the messages (the sessions, the panel) to read them, the engineer types the
    next question: it was lost (those panes take no characters), and its Enter opened a
    message. The panes' own keys (the log's c and b, ↑ ↓, Enter) still act on their own."""
    app, _ = scripted_app(tmp_path / "t.db", ["it is the pool"])
    seed_session(app, 3)
    async with app.run_test(size=(120, 40)) as pilot:
        log, composer = await focus_in_pane(pilot, app, keys, pane)
        keys_in_one_read(app, *"why slow?", "enter")
        await wait_until(pilot, lambda: log.messages[-1].content == "it is the pool")
        assert [m.content for m in log.messages[-2:]] == ["why slow?", "it is the pool"]
        assert focused(app) is composer
        assert composer.text == ""
        if pane is ChatLog:
            await pilot.press(*keys, "c")  # on its own, c is the log's: it copies
            assert focused(app) is log
            assert app.clipboard.endswith("\nit is the pool")
        composer.focus()
        await pilot.press(*keys)  # a log pasted there goes to the composer whole
        assert in_pane(focused(app), pane)
        app.post_message(events.Paste("02:51 ERROR upstream 502\n02:52 ERROR pool exhausted"))
        await wait_until(pilot, lambda: composer.text.endswith("pool exhausted"))
        assert composer.text == "02:51 ERROR upstream 502\n02:52 ERROR pool exhausted"
        assert focused(app) is composer


@pytest.mark.parametrize(
    ("keys", "pane", "key"),
    [
        (["shift+tab"], ChatLog, "enter"),
        (["shift+tab"], ChatLog, "c"),
        (["shift+tab"] * 2, SessionList, "enter"),
        (["tab"], ContextPanel, "enter"),
    ],
)
async def test_a_panes_key_typed_before_the_question_acts_there_and_sends_nothing(
    tmp_path: Path, keys: list[str], pane: type[Widget], key: str
) -> None:
    """An Enter in the chat or the panel, then the question, in one read: the Enter went up to
    the app behind the question's first character, which had taken the focus to the composer,
    and sent that character ("w", answered). The pane's key acts where it was typed."""
    app, _ = scripted_app(tmp_path / "t.db", ["it is the pool"])
    seed_session(app, 3)
    async with app.run_test(size=(120, 40)) as pilot:
        log, composer = await focus_in_pane(pilot, app, keys, pane)
        keys_in_one_read(app, key, *"why slow?")
        await wait_until(pilot, lambda: composer.text.endswith("slow?"))
        await app.workers.wait_for_complete()
        assert (composer.text, len(log.messages)) == ("why slow?", 6)
        assert focused(app) is composer
        if key == "c":  # the log's copy, of the message selected
            assert app.clipboard.endswith("answer 2")
        keys_in_one_read(app, "enter")
        await wait_until(pilot, lambda: log.messages[-1].content == "it is the pool")
        assert [m.content for m in log.messages[-2:]] == ["why slow?", "it is the pool"]


async def test_pgup_and_pgdn_in_the_composer_scroll_the_chat_and_the_chat_scrolls_itself(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    seed_session(app, 20)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await main_screen(app)
        log, composer = screen.query_one(ChatLog), screen.query_one(Composer)
        await wait_until(pilot, lambda: len(log.messages) == 40 and log.size.height > 0)
        await wait_until(pilot, lambda: 0 < log.scroll_y == log.max_scroll_y)
        bottom = log.scroll_y
        await pilot.press("pageup")
        assert log.scroll_y == bottom - log.scrollable_content_region.height
        await pilot.press("pageup", "pagedown")
        assert log.scroll_y == bottom - log.scrollable_content_region.height
        await pilot.press("pagedown")
        assert log.scroll_y == bottom
        assert focused(app) is composer
        assert composer.text == ""
        await pilot.press("shift+tab", "home")  # in the chat itself: Home, End, PgUp
        assert (focused(app), log.scroll_y) == (log, 0)
        await pilot.press("end")
        assert log.scroll_y == bottom
        await pilot.press("pageup")
        assert log.scroll_y == bottom - log.scrollable_content_region.height


# -- 2. keys behind a key that moves the focus or opens a screen go where it leads -------------


async def test_keys_typed_behind_alt_l_filter_the_sessions_and_enter_opens_the_match(
    tmp_path: Path,
) -> None:
    app, model = scripted_app(tmp_path / "t.db")
    wanted = seed_session(app, 1, title="long incident")
    seed_session(app, 1, title="other")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await main_screen(app)
        composer = screen.query_one(Composer)
        await wait_until(pilot, lambda: len(screen.query_one(SessionList).sessions) == 2)
        keys_in_one_read(app, "alt+l", *"long", "enter", *"next")
        await wait_until(pilot, lambda: screen.session_id == wanted and composer.text == "next")
        assert focused(app) is composer
        assert screen.query_one("#session-filter", Input).value == ""
        assert model.calls == []  # "long" was never sent as a message


@pytest.mark.parametrize("key", ["alt+t", "alt+shift+t"])
async def test_esc_typed_then_a_letter_at_once_leaves_the_letter_in_the_composer(
    tmp_path: Path, key: str
) -> None:
    """Esc and then ``t`` within Textual's wait for what follows an ESC is alt+t, with its
    character: the Esc was lost, and a letter no binding takes as alt (in one read, without
    its character) was lost with it."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await main_screen(app)
        composer = screen.query_one(Composer)
        typed = "T" if "shift" in key else "t"
        app.post_message(events.Key(key, typed))
        app.post_message(events.Key(key, None))
        keys_in_one_read(app, *"ail")
        await wait_until(pilot, lambda: composer.text == typed * 2 + "ail")


async def test_esc_typed_then_a_letter_an_alt_binding_takes_is_still_the_letter(
    tmp_path: Path,
) -> None:
    """alt+p in one read opens the prompts; Esc and then ``p`` (two reads: alt+p with its
    character) is Esc, then ``p``."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await main_screen(app)
        composer = screen.query_one(Composer)
        app.post_message(events.Key("alt+p", "p"))
        keys_in_one_read(app, *"ods")
        await wait_until(pilot, lambda: composer.text == "pods")
        assert app.screen is screen
        app.post_message(events.Key("alt+p", None))
        await wait_until(pilot, lambda: isinstance(app.screen, PromptEditorScreen))
        editor = app.screen
        assert isinstance(editor, PromptEditorScreen)
        await wait_until(pilot, lambda: editor.loaded)


async def test_keys_typed_behind_alt_s_go_to_the_skill_path(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await main_screen(app)
        keys_in_one_read(app, "alt+s", *"~/skills/ ")
        await wait_until(pilot, lambda: isinstance(app.screen, SkillLibraryScreen))
        library = app.screen
        assert isinstance(library, SkillLibraryScreen)
        await wait_until(pilot, lambda: library.loaded)
        path = library.query_one("#skill-path", Input)
        await wait_until(pilot, lambda: path.value == "~/skills/ ")
        assert screen.query_one(Composer).text == ""


async def test_a_path_typed_with_ctrl_t_and_enter_in_one_read_adds_the_completed_file(
    tmp_path: Path,
) -> None:
    """ctrl+t completes what is typed when it comes, though the inline suggestion is still
    that of a shorter text; the Enter behind it submits the completed path."""
    write_skill(tmp_path / "runbooks", skill_md())
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await main_screen(app)
        keys_in_one_read(app, "alt+s")
        await wait_until(pilot, lambda: isinstance(app.screen, SkillLibraryScreen))
        library = app.screen
        assert isinstance(library, SkillLibraryScreen)
        await wait_until(pilot, lambda: library.loaded)
        keys_in_one_read(app, *f"{tmp_path}/runbooks/SK", "ctrl+t", "enter")
        await wait_until(pilot, lambda: bool(library.skills) or error_message(library) is not None)
        assert error_message(library) is None
        assert [skill.name for skill in library.skills] == ["disk-full"]


async def editor_opened_by(pilot: Pilot[None], *keys: str) -> PromptEditorScreen:
    """The prompt editor opened by ``keys`` typed in one read, once it has loaded."""
    app = pilot.app
    keys_in_one_read(app, *keys)
    await wait_until(pilot, lambda: isinstance(app.screen, PromptEditorScreen))
    editor = app.screen
    assert isinstance(editor, PromptEditorScreen)
    await wait_until(pilot, lambda: editor.loaded)
    return editor


async def test_keys_typed_behind_ctrl_n_in_the_prompt_editor_name_the_new_prompt(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await main_screen(app)
        keys = ("alt+p", "ctrl+n", *"disk full", "enter", *"Check df first.")
        editor = await editor_opened_by(pilot, *keys)
        content = editor.query_one("#prompt-content", TextArea)
        await wait_until(pilot, lambda: content.text == "Check df first.")
        assert editor.query_one("#prompt-label", Input).value == "disk full"
        assert editor.editing_id is None  # a new prompt


async def test_alt_a_in_a_one_line_field_selects_all_and_leaves_nothing(tmp_path: Path) -> None:
    """alt+a in the prompt's label (the README: "ctrl+a or alt+a selects all") was no key of
    the field, so it was read as Esc and ``a``: the editor closed and the ``a`` went to the
    composer. In every one-line field alt+a selects all, as in the composer."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await main_screen(app)
        editor = await editor_opened_by(pilot, "alt+p", "ctrl+n", *"disk", "alt+a", *"k8s triage")
        label = editor.query_one("#prompt-label", Input)
        await wait_until(pilot, lambda: label.value == "k8s triage")
        assert app.screen is editor
        assert app.focused is label


async def test_a_name_typed_behind_ctrl_n_over_unsaved_edits_answers_nothing(
    tmp_path: Path,
) -> None:
    """ctrl+n and the new prompt's name in one read, with the open prompt's edits unsaved: the
    keys went to the dialog asking about them, and the ``s`` of "k8s triage" saved them,
    unseen (the name was lost too)."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await main_screen(app)
        await pilot.press("alt+p")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptEditorScreen))
        editor = app.screen
        assert isinstance(editor, PromptEditorScreen)
        await wait_until(pilot, lambda: editor.loaded)
        editor.query_one("#prompt-label", Input).value = "half-edited"
        keys_in_one_read(app, "ctrl+n", *"k8s triage")
        await wait_until(pilot, lambda: isinstance(app.screen, UnsavedChangesDialog))
        for _ in range(3):  # the keys held behind ctrl+n, given to the dialog
            await pilot.pause()
        assert isinstance(app.screen, UnsavedChangesDialog)  # still asking
        prompts = app.services.configuration.list_prompts("alice")
        assert [prompt.label for prompt in prompts] == [DEFAULT_PROMPT_LABEL]


async def test_keys_typed_behind_ctrl_s_edit_the_export_path_and_enter_writes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app, _ = scripted_app(tmp_path / "t.db")
    seed_session(app, 1)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await main_screen(app)
        await wait_until(pilot, lambda: screen.session_id is not None)
        keys_in_one_read(app, "ctrl+s", "backspace", "backspace", *"json", "enter", *"next")
        composer = screen.query_one(Composer)
        await wait_until(pilot, lambda: list(tmp_path.glob("*.json")) != [])
        await wait_until(pilot, lambda: composer.text == "next")
        (written,) = tmp_path.glob("oncall-session-*")
        assert written.suffix == ".json"
        assert written.read_text("utf-8").startswith("{")


# -- 3. editing keys in order with the characters around them ----------------------------------


class InputHost(App[None]):
    """A bare Textual app (no ordering of its own) with one input of the given class."""

    def __init__(self, kind: type[Input]) -> None:
        super().__init__()
        self.kind = kind

    def compose(self) -> ComposeResult:
        yield self.kind("oncall-session-1.md")


@pytest.mark.parametrize(
    ("keys", "expected"),
    [
        (("backspace", "backspace", *"json"), "oncall-session-1.json"),
        (("ctrl+a", *"x-", "ctrl+e", *".bak"), "x-oncall-session-1.md.bak"),
        (("ctrl+u", *"new name"), "new name"),
        (("home", "ctrl+k", *"kept"), "kept"),
    ],
    ids=["backspace", "ctrl+a-ctrl+e", "ctrl+u", "home-ctrl+k"],
)
async def test_an_input_applies_its_editing_keys_in_order_with_the_typing(
    keys: tuple[str, ...], expected: str
) -> None:
    app = InputHost(InOrderInput)
    async with app.run_test() as pilot:
        field = app.query_one(Input)
        field.focus()
        field.cursor_position = len(field.value)
        await pilot.pause()
        keys_in_one_read(app, *keys)
        await wait_until(pilot, lambda: field.value == expected)


async def test_the_composer_applies_its_editing_keys_in_order_with_the_typing(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await main_screen(app)
        composer = screen.query_one(Composer)
        keys_in_one_read(app, *"draft", "ctrl+a", "ctrl+k", *"tell me")
        await wait_until(pilot, lambda: composer.text == "tell me")
        keys_in_one_read(app, *"x", "backspace", *" a story")
        await wait_until(pilot, lambda: composer.text == "tell me a story")


async def test_every_one_line_input_of_the_app_applies_its_keys_in_order(
    tmp_path: Path,
) -> None:
    """The export path, the rename, the prompt label, the skill path, the search and the
    session filter are the app's own inputs."""
    from oncall_tui.tui.screens.search import SearchScreen
    from oncall_tui.tui.widgets.path_input import PathInput
    from oncall_tui.tui.widgets.text_dialogs import TextDialog

    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await main_screen(app)
        for screen in (
            TextDialog("Rename", value="incident"),
            SearchScreen(app.services),
            PromptEditorScreen(app.services),
            SkillLibraryScreen(app.services),
        ):
            await app.push_screen(screen)
            await app.workers.wait_for_complete()
            field = screen.query_one(Input)
            assert isinstance(field, InOrderInput)
            field.focus()
            await pilot.pause()
            field.value, field.cursor_position = "ab", 2
            keys_in_one_read(app, "backspace", *"cd", "home", "x")
            await wait_until(pilot, lambda f=field: f.value == "xacd")  # type: ignore[misc]
            app.pop_screen()
            await pilot.pause()
        assert issubclass(PathInput, InOrderInput)
        field = app.screen.query_one("#session-filter", Input)
        assert isinstance(field, InOrderInput)
        field.focus()
        await pilot.pause()
        field.value, field.cursor_position = "ab", 2
        keys_in_one_read(app, "backspace", *"cd", "home", "x")
        await wait_until(pilot, lambda: field.value == "xacd")


# -- 4. the skill library: each Space toggles the row the cursor is on at that key -------------


async def test_fast_spaces_each_toggle_the_row_the_cursor_was_on(
    assets_host: HostFactory, library_services: Services
) -> None:
    for name in ("alpha", "beta", "gamma", "delta"):
        add_skill(library_services, name)
    app = assets_host(SkillLibraryScreen)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await opened(pilot)
        table = screen.query_one("#skill-table", DataTable)
        table.focus()
        table.move_cursor(row=3)
        await pilot.pause()
        rows = [
            int(table.coordinate_to_cell_key(Coordinate(row, 0)).row_key.value or 0)
            for row in range(4)
        ]
        keys_in_one_read(app, "up", "space", "up", "space", "up", "up", "space")
        expected = {rows[2], rows[1], rows[0]}  # the last Up is at the top already
        selected = library_services.configuration.get_configuration
        await wait_until(pilot, lambda: set(selected(OWNER).skill_ids) == expected)
        await wait_until(pilot, lambda: not screen.busy)
        assert set(selected(OWNER).skill_ids) == expected
        assert set(screen.selected_ids) == expected
        assert table.cursor_row == 0


# -- 5. the prompt editor: select all in the content --------------------------------------------


@pytest.mark.parametrize("key", ["ctrl+a", "alt+a"])
async def test_select_all_in_the_content_lets_one_key_remove_a_paste_over_the_limit(
    key: str, assets_host: HostFactory
) -> None:
    app = assets_host(PromptEditorScreen)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, PromptEditorScreen))
        editor = app.screen
        assert isinstance(editor, PromptEditorScreen)
        await wait_until(pilot, lambda: editor.loaded)
        content = editor.query_one("#prompt-content", TextArea)
        content.focus()
        await pilot.pause()
        content.load_text("x" * (MAX_CONTENT_CHARS + 499))  # 12,499 characters, as pasted
        await pilot.press(key, "backspace")
        assert content.text == ""
        keys_in_one_read(app, *"keep", key, *"Check df first.")
        await wait_until(pilot, lambda: content.text == "Check df first.")


# -- the app's ordering on its own: work a key started, and its limit ---------------------------


class SlowDialogHost(KeyOrderApp):
    """ctrl+o moves the focus to the second field once some work has ended (as the export
    dialog comes after a database read)."""

    BINDINGS = [Binding("ctrl+o", "open_later")]

    def __init__(self) -> None:
        super().__init__()
        self.gate = asyncio.Event()

    def compose(self) -> ComposeResult:
        yield InOrderInput(id="first")
        yield InOrderInput(id="second")

    def action_open_later(self) -> None:
        hold_keys_for(self, self.run_worker(self._slow()))

    async def _slow(self) -> None:
        await self.gate.wait()
        self.query_one("#second").focus()


async def test_keys_and_pastes_behind_a_key_wait_for_the_work_it_started() -> None:
    app = SlowDialogHost()
    async with app.run_test() as pilot:
        first, second = app.query_one("#first", Input), app.query_one("#second", Input)
        await pilot.pause()
        keys_in_one_read(app, "ctrl+o", *"df ")
        app.post_message(events.Paste("-h"))
        await pilot.pause(0.2)
        assert (first.value, second.value) == ("", "")  # held while the work runs
        app.gate.set()
        await wait_until(pilot, lambda: second.value == "df -h")
        assert first.value == ""


async def test_keys_are_held_no_longer_than_the_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(key_order, "HOLD_SECONDS", 0.3)
    app = SlowDialogHost()
    async with app.run_test() as pilot:
        first = app.query_one("#first", Input)
        await pilot.pause()
        keys_in_one_read(app, "ctrl+o", *"df")
        await wait_until(pilot, lambda: first.value == "df")  # the work never ends
        assert app.query_one("#second", Input).value == ""
