"""Keys that fit the terminal: a ctrl or alt key for every action, F1's keys help, the command
palette offering every action, and copying a code block on its own."""

from __future__ import annotations

import errno
import re
import stat
from pathlib import Path

import pytest
from textual import events
from textual.command import Command, CommandInput, CommandList, CommandPalette
from textual.pilot import Pilot
from textual.widgets import DataTable
from textual.widgets.data_table import RowKey

from oncall_tui import private_files
from oncall_tui.errors import Language
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from oncall_tui.texts import text
from oncall_tui.tui.app import OncallApp
from oncall_tui.tui.chat_log import ChatLog
from oncall_tui.tui.commands import COMMANDS
from oncall_tui.tui.screens.code_blocks import CodeBlockPicker
from oncall_tui.tui.screens.keys import KeysScreen
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.screens.prompts import PromptEditorScreen
from oncall_tui.tui.screens.skills import SkillLibraryScreen
from oncall_tui.tui.screens.summary import SummaryScreen
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.dialogs import ConfirmDialog
from tests.fakes.chat_model import Turn
from tests.tui.harness import (
    keys_in_one_read,
    notifications,
    screen_rows,
    scripted_app,
    seed_session,
    spy,
    wait_until,
)

SIZE = (120, 36)
TWO_BLOCKS = (
    "Check the pods:\n\n```bash\nkubectl get pods -n api\n```\n\n"
    "Then the logs:\n\n```\nkubectl logs deploy/api --since=10m\ngrep -c 502\n```\n"
)


def test_every_action_has_a_ctrl_or_alt_key() -> None:
    for command in COMMANDS:
        keys = [key.strip() for key in command.keys.split(",")]
        modified = [k for k in keys if k.startswith(("ctrl+", "alt+")) or k == "escape"]
        assert modified, f"{command.id} has only {keys}"
        if any(key.startswith("f") and key[1:].isdigit() for key in keys):
            assert keys[0].startswith("f"), f"{command.id}: its F-key is listed first"


def test_binding_ids_are_unique() -> None:
    ids = [command.id for command in COMMANDS]
    assert len(ids) == len(set(ids))


def seed_reply(app: OncallApp, reply: str) -> int:
    with app.services.database.session() as session:
        chat = SessionRepository(session).create("alice", "code", "every_30_turns")
        messages = MessageRepository(session)
        messages.add(chat, "user", "what do I run?")
        messages.add(chat, "assistant", reply)
        assert chat.id is not None
        return chat.id


def main(app: OncallApp) -> MainScreen:
    assert isinstance(app.screen, MainScreen)
    return app.screen


async def typed_over_the_chat(pilot: Pilot[None], first: str, then: str) -> Composer:
    """``first`` typed in one read on a screen over the chat, which closes; ``then`` typed
    after it. Both are the composer's, which has the focus; it is returned."""
    app = pilot.app
    screen = app.screen_stack[-2]  # the main screen, under the one typed on
    assert isinstance(screen, MainScreen)
    keys_in_one_read(app, *first)
    await wait_until(pilot, lambda: app.screen is screen)
    await pilot.press(*then)
    composer = screen.query_one(Composer)
    await wait_until(pilot, lambda: composer.text == first + then)
    assert app.focused is composer
    return composer


@pytest.mark.parametrize(
    ("key", "screen_type"), [("alt+p", PromptEditorScreen), ("alt+s", SkillLibraryScreen)]
)
async def test_alt_keys_open_screens_while_typing_and_type_nothing(
    tmp_path: Path, key: str, screen_type: type
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        composer = app.query_one(Composer)
        await wait_until(pilot, lambda: app.focused is composer)
        await pilot.press(*"half typed", key)
        await wait_until(pilot, lambda: isinstance(app.screen, screen_type))
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        assert composer.text == "half typed"


async def test_f1_lists_the_apps_actions_first_and_enter_runs_one(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
        table = app.screen.query_one(DataTable)
        ids = [str(table.get_row_at(row)[2]) for row in range(table.row_count)]
        listed = [i for i in ids if i]
        assert listed == [command.id for command in COMMANDS]  # the app's actions, first
        keys = str(table.get_row_at(ids.index("compact"))[0])
        assert keys == "f9, alt+c"
        table.move_cursor(row=ids.index("filter_sessions"))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        await wait_until(pilot, lambda: getattr(app.focused, "id", None) == "session-filter")


async def test_home_and_end_in_the_keys_help_go_to_the_first_and_the_last_key(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
        table = app.screen.query_one(DataTable)
        await pilot.press("end")
        at_the_end = table.cursor_row
        await pilot.press("home")
        assert (at_the_end, table.cursor_row) == (table.row_count - 1, 0)


@pytest.mark.parametrize("key", ["escape", "f1", "alt+h"])
async def test_the_keys_help_closes_with_esc_or_the_keys_that_open_it(
    tmp_path: Path, key: str
) -> None:
    """alt+h over it, no key of its own, was read as Esc and "h": the "h" went to the
    composer."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("alt+h")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
        await pilot.press(key)
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        await pilot.pause(0.2)
        assert isinstance(app.screen, MainScreen)  # closed, not opened again
        assert app.query_one(Composer).text == ""


async def test_typing_in_the_keys_help_goes_on_in_the_composer(tmp_path: Path) -> None:
    """F1 to look a key up, then the question typed at once: its letters went nowhere, and a q
    among them closed the help. The help closes at the first character and every key typed
    behind it is the composer's, Enter included (the help lists it so: typing goes there)."""
    app, model = scripted_app(tmp_path / "t.db", ["Check the probe."])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
        keys_in_one_read(app, *"queue lag?", "enter")
        await wait_until(pilot, lambda: len(model.calls) == 1)
        assert isinstance(app.screen, MainScreen)
        assert app.screen.query_one(ChatLog).messages[0].content == "queue lag?"


async def test_typing_in_the_keys_help_opened_from_the_chat_takes_the_focus_to_the_composer(
    tmp_path: Path,
) -> None:
    """F1 from the chat (Tab, to read a reply), then a question typed: its first letters went
    to the composer, the focus went back to the chat, and the next "c" copied the selected
    message instead of being typed ("renameat" for "renamecat"). Typing handed to the
    composer takes the focus with it, from any screen that hands it."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = main(app)
        screen.shown.open(seed_reply(app, "Restart the probe."))
        log = screen.query_one(ChatLog)
        await wait_until(pilot, lambda: len(log.messages) == 2)
        log.focus()
        await pilot.press("up", "f1")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
        await typed_over_the_chat(pilot, "rename", "cat")
        assert not any("copied" in note for note in notifications(app))


async def summarised_session_open(pilot: Pilot[None], app: OncallApp) -> MainScreen:
    """The main screen on a session whose two exchanges are summarised, its memory read."""
    screen = main(app)
    seed = seed_session(app, 2, compacted=2, summary="db-3 disk full; rotation failed")
    screen.shown.open(seed)
    await wait_until(pilot, lambda: screen.memory is not None)
    return screen


async def test_typing_in_the_summary_goes_on_in_the_composer_q_included(tmp_path: Path) -> None:
    """f6 to read the summary, then the next question typed: its letters were dropped, and a
    q among them closed the summary ("quick" came out as "uick"). As in the keys help, the
    summary closes at the first character and every key behind it is the composer's."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await summarised_session_open(pilot, app)
        await pilot.press("f6")
        await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen))
        await typed_over_the_chat(pilot, "quick look", " at db-3")


@pytest.mark.parametrize(("key", "screen_type"), [("f6", SummaryScreen), ("f1", KeysScreen)])
async def test_a_key_no_screen_takes_before_the_typing_over_the_chat_sends_nothing(
    tmp_path: Path, key: str, screen_type: type
) -> None:
    """An Enter in the summary, then the question, in one read: the Enter, which nothing there
    takes, went on up to the app behind the first character, which had closed the summary and
    gone to the composer, and sent it ("q", answered; "uick" left)."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = await summarised_session_open(pilot, app)
        await pilot.press(key)
        await wait_until(pilot, lambda: isinstance(app.screen, screen_type))
        keys_in_one_read(app, "ctrl+u" if key == "f1" else "enter", *"quick")
        composer = screen.query_one(Composer)
        await wait_until(pilot, lambda: app.screen is screen and composer.text.endswith("ick"))
        await app.workers.wait_for_complete()
        assert (composer.text, len(screen.query_one(ChatLog).messages)) == ("quick", 4)


async def test_the_palette_offers_every_action_with_what_it_does(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE):
        offered = {c.title: c.help for c in app.get_system_commands(app.screen)}
        for command in COMMANDS:
            if command.palette:
                assert offered[command.title("en")] == command.help("en")
        assert "Copy message" in offered
        assert "Copy code block" in offered
        assert not any("Mount" in help_text for help_text in offered.values())


async def test_the_palette_and_footer_speak_chinese_with_lang_zh(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db", lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        offered = {c.title for c in app.get_system_commands(app.screen)}
        assert {"复制代码块", "压缩记忆", "主题"} <= offered
        shown = {b.description for _, b, _, _ in app.screen.active_bindings.values() if b.show}
        assert {"退出", "按键", "压缩", "模型"} <= shown
        await pilot.press("ctrl+p")  # its placeholder was Textual's English one
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        assert app.screen.query_one(CommandInput).placeholder == "搜索命令…"
        assert (await palette_hits(app, pilot, "主题"))[:1] == ["主题"]
        await pilot.press("enter")  # and so was the theme list's
        await wait_until(
            pilot,
            lambda: (
                isinstance(app.screen, CommandPalette)
                and app.screen.query_one(CommandInput).placeholder == "搜索主题…"
            ),
        )


def test_every_command_s_action_is_a_method_of_the_screen_or_the_app() -> None:
    """A key whose action names no method does nothing, silently (alt+g did, for a while)."""
    for command in COMMANDS:
        target, _, name = command.action.rpartition(".")
        owner = OncallApp if target == "app" else MainScreen
        assert callable(getattr(owner, f"action_{name.partition('(')[0]}", None)), command.id


async def test_alt_g_asks_the_model_server_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await wait_until(
            pilot, lambda: screen.server_check.state.reachable is not None
        )  # asked at start
        asked = spy(monkeypatch, app.services, "server_version")
        await pilot.press("alt+g")
        await wait_until(pilot, lambda: len(asked) == 1)
        # Said even though the panel says the same as before: the key was heard.
        said = "Ollama static (scripted) at"
        await wait_until(pilot, lambda: any(said in shown for shown in notifications(app)))


async def test_a_palette_command_runs_its_action(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        chosen = next(c for c in app.get_system_commands(app.screen) if c.title == "Skills")
        chosen.callback()
        await wait_until(pilot, lambda: isinstance(app.screen, SkillLibraryScreen))


async def test_maximize_from_the_message_box_fills_the_screen_with_the_chat(
    tmp_path: Path,
) -> None:
    """The message box alone on the screen hid the replies it sent; Esc gives the panes back,
    the reply still running, and so does the next question typed (it was typed out of sight)."""
    app, _ = scripted_app(
        tmp_path / "t.db", [Turn(text="Look at the 502s " * 20, chunk_size=8, delay_per_chunk=0.03)]
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = main(app)
        assert isinstance(app.focused, Composer)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Maximize" not in titles  # an empty chat: it would hide the message box alone
        app.focused.text = "why 502s?"
        await pilot.press("enter")
        log = screen.query_one(ChatLog)
        await wait_until(pilot, lambda: screen.sending and len(log.messages) == 2)
        chosen = next(c for c in app.get_system_commands(app.screen) if c.title == "Maximize")
        chosen.callback()
        await wait_until(pilot, lambda: screen.maximized is log and app.focused is log)
        assert screen.query_one(Composer).region.height == 0  # the chat alone
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Minimize" in titles
        await pilot.press("escape")
        await wait_until(pilot, lambda: screen.maximized is None)
        chosen.callback()  # again; the next question typed gives the panes back, not typed blind
        await wait_until(pilot, lambda: screen.maximized is log)
        keys_in_one_read(app, *"and now?")
        await wait_until(pilot, lambda: screen.maximized is None)
        composer = screen.query_one(Composer)
        await wait_until(pilot, lambda: composer.text == "and now?")
        assert app.focused is composer
        await wait_until(pilot, lambda: log.messages[-1].status != "streaming")
        assert log.messages[-1].status == "complete"  # Esc restored the panes, cancelled nothing


async def code_blocks_listed(pilot: Pilot[None], app: OncallApp) -> None:
    """A reply with two code blocks opened, and alt+y's list of them shown."""
    screen = main(app)
    screen.shown.open(seed_reply(app, TWO_BLOCKS))
    await wait_until(pilot, lambda: len(screen.query_one(ChatLog).messages) == 2)
    await pilot.press("alt+y")
    await wait_until(pilot, lambda: isinstance(app.screen, CodeBlockPicker))


async def test_one_code_block_of_the_last_reply_is_copied_by_number(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await code_blocks_listed(pilot, app)
        await pilot.press("2")
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        assert app.clipboard == "kubectl logs deploy/api --since=10m\ngrep -c 502"
        assert "Code block copied (2 lines)" in notifications(app)


async def test_typing_in_the_code_block_list_goes_on_in_the_composer(tmp_path: Path) -> None:
    """alt+y lists the blocks to copy; letters typed there were dropped. They are the next
    message's, as in the keys help; a digit is still a block's, one with no block copies
    nothing and types nothing."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await code_blocks_listed(pilot, app)
        await pilot.press("9")
        assert isinstance(app.screen, CodeBlockPicker)
        await typed_over_the_chat(pilot, "ok, 2", " then")
        assert app.clipboard == ""


PASTED_LOG = "02:51 ERROR upstream 502\n02:52 ERROR pool exhausted\n"


@pytest.mark.parametrize(
    ("key", "screen_type"),
    [
        ("f1", KeysScreen),
        ("f6", SummaryScreen),
        ("alt+y", CodeBlockPicker),
        ("alt+x", ConfirmDialog),
    ],
)
async def test_a_log_pasted_over_the_chat_closes_what_is_open_and_lands_in_the_composer_whole(
    tmp_path: Path, key: str, screen_type: type
) -> None:
    """A log pasted with the keys help, the summary, the code list or a yes/no question open
    was lost (the screen stayed, the paste went nowhere). It is the next message's, as a
    character typed there: the screen closes (the question unanswered) and the composer
    holds the paste whole, unsent."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = main(app)
        if key == "alt+y":
            await code_blocks_listed(pilot, app)
        else:
            await summarised_session_open(pilot, app)
            await pilot.press(key)
        await wait_until(pilot, lambda: isinstance(app.screen, screen_type))
        stored = [s.message_count for s in app.services.sessions.list_sessions("alice")]
        app.post_message(events.Paste(PASTED_LOG))
        composer = screen.query_one(Composer)
        await wait_until(pilot, lambda: app.screen is screen and composer.text == PASTED_LOG)
        assert app.focused is composer
        await app.workers.wait_for_complete()
        assert [s.message_count for s in app.services.sessions.list_sessions("alice")] == stored
        assert stored != []


async def test_b_in_the_log_copies_the_selected_messages_only_block_at_once(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = main(app)
        screen.shown.open(seed_reply(app, "Run:\n\n```sh\nsystemctl restart api\n```"))
        log = screen.query_one(ChatLog)
        await wait_until(pilot, lambda: len(log.messages) == 2 and log.can_focus)
        log.focus()
        await wait_until(pilot, lambda: app.focused is log)
        await pilot.press("b")
        await wait_until(pilot, lambda: app.clipboard == "systemctl restart api")
        assert isinstance(app.screen, MainScreen)
        assert "Code block copied (1 line)" in notifications(app)  # one line, not "1 lines"


async def test_a_message_without_code_says_so_and_copies_nothing(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = main(app)
        screen.shown.open(seed_reply(app, "Nothing to run; wait for the alert to clear."))
        await wait_until(pilot, lambda: len(screen.query_one(ChatLog).messages) == 2)
        await pilot.press("alt+y")
        expected = text("code.none", "en")
        await wait_until(pilot, lambda: expected in notifications(app))
        assert app.clipboard == ""


async def test_copy_message_from_the_palette_copies_the_newest_with_its_time(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = main(app)
        screen.shown.open(seed_reply(app, "It is the disk."))
        await wait_until(pilot, lambda: len(screen.query_one(ChatLog).messages) == 2)
        chosen = next(c for c in app.get_system_commands(app.screen) if c.title == "Copy message")
        chosen.callback()
        await wait_until(pilot, lambda: app.clipboard.endswith("assistant\nIt is the disk."))


@pytest.mark.parametrize("size", [(60, 20), (80, 24), (120, 40)])
async def test_the_keys_help_never_cuts_an_id(tmp_path: Path, size: tuple[int, int]) -> None:
    """Each action's row shows its keys and its whole id (what ``[keys]`` needs) on screen,
    without scrolling sideways, and its description in a line or two."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=size) as pilot:
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
        table = app.screen.query_one(DataTable)
        await wait_until(
            pilot, lambda: table.virtual_size.width <= table.scrollable_content_region.width
        )
        for command in COMMANDS:
            table.move_cursor(row=table.get_row_index(command.id))
            await pilot.pause()
            keys = [k.strip() for k in command.keys.split(",")]
            whole_id = re.compile(rf"(?<!\w){re.escape(command.id)}(?!\w)")
            shown = screen_rows(app)
            at = next(i for i, row in enumerate(shown) if whole_id.search(row))
            entry = " ".join(shown[at : at + len(keys)])  # keys one under another if narrow
            for key in keys:
                assert re.search(rf"(?<![\w+]){re.escape(key)}(?![\w+])", entry), (key, entry)
            # The descriptions have room: a row is no taller than its keys stacked, or two
            # lines (at 60 columns they had 9 cells, and "Toggle context panel" three lines).
            assert table.rows[RowKey(command.id)].height <= max(2, len(keys)), command.id
        # And the note on rebinding, whole (wrapped where the dialog is narrow).
        assert 'compact = "alt+k"' in " ".join(row.strip(" █▏▕") for row in screen_rows(app))


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_half_a_split_terminal_shows_the_actions_and_says_the_highlighted_one_s_id(
    tmp_path: Path, lang: Language
) -> None:
    """At 50x16 (half of a 100-column terminal split, few rows) the ids leave the table for
    the line under it, and the note on rebinding leaves the screen: the actions have the room
    (the table showed two rows, "Toggle context panel" three lines high)."""
    app, _ = scripted_app(tmp_path / "t.db", lang=lang)
    async with app.run_test(size=(50, 16)) as pilot:
        await pilot.press("f1")
        await wait_until(pilot, lambda: isinstance(app.screen, KeysScreen))
        table = app.screen.query_one(DataTable)
        await wait_until(pilot, lambda: len(table.ordered_columns) == 2)
        for command in COMMANDS:
            table.move_cursor(row=table.get_row_index(command.id))
            await pilot.pause()
            shown = " ".join(row.strip(" █▏▕") for row in screen_rows(app))
            assert f"[keys] {command.id} · " in shown, command.id
            assert command.title(lang) in shown, command.id
            assert table.rows[RowKey(command.id)].height <= len(command.keys.split(",")), command.id
        assert 'compact = "alt+k"' not in shown
        table.move_cursor(row=0)
        await pilot.pause()
        titles = [command.title(lang) for command in COMMANDS[:4]]
        assert all(title in " ".join(screen_rows(app)) for title in titles), screen_rows(app)
        await pilot.resize_terminal(80, 24)
        await wait_until(pilot, lambda: len(table.ordered_columns) == 3)
        table.move_cursor(row=table.get_row_index("compact"))
        await pilot.pause()
        shown = " ".join(row.strip(" █▏▕") for row in screen_rows(app))
        assert "[keys] compact" not in shown
        assert 'compact = "alt+k"' in shown


README_NAMES = {
    # What the README's key table calls an action (and "ollama", the word an engineer types
    # for alt+g), and the action the palette finds by it.
    "ollama": "check_ollama",
    "ask Ollama again": "check_ollama",
    "every key, and their ids": "keys",
    "toggle the context panel": "toggle_panel",
    "toggle the sessions pane": "toggle_sessions",
    "stop the reply": "cancel_reply",
    "new session": "new_session",
    "compact now": "compact",
    "prompt editor": "prompts",
    "skill library": "skills",
    "pick the model": "models",
    "search every message": "search",
    "rename": "rename_session",
    "delete session": "delete_session",
    "show the summary": "show_summary",
    "cycle the memory mode": "cycle_mode",
    "export the session to a file": "export",
    "copy a message": "copy_message",
    "a code block": "copy_code",
    "filter the sessions list": "filter_sessions",
    "load earlier messages": "load_earlier",
    "answer a failed message again": "retry",
}


async def palette_hits(app: OncallApp, pilot: Pilot[None], query: str) -> list[str]:
    """What the open command palette lists for ``query``, best first, once it has looked."""
    palette = app.screen
    assert isinstance(palette, CommandPalette)
    palette.query_one(CommandInput).value = query
    await pilot.pause()

    def searching() -> bool:
        return any(
            w.group == "--textual-command-palette-gather-commands" and not w.is_finished
            for w in app.workers
        )

    await wait_until(pilot, lambda: not searching())
    await pilot.pause()
    listed = palette.query_one(CommandList)
    options = [listed.get_option_at_index(i) for i in range(listed.option_count)]
    return [str(option.hit.text) for option in options if isinstance(option, Command)]


async def test_the_palette_finds_each_action_by_what_the_readme_calls_it(tmp_path: Path) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8").lower()
    titles = {command.id: command.title("en") for command in COMMANDS}
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        for words, command_id in README_NAMES.items():
            assert words.lower() in readme, words
            hits = await palette_hits(app, pilot, words)
            assert hits[:1] == [titles[command_id]], (words, hits)


async def test_the_chinese_palette_finds_each_command_by_its_english_name(tmp_path: Path) -> None:
    """An engineer who knows the English names (the README's) typed "theme" in the Chinese
    palette and got 模型 (Model) first: a name in English matched nothing but stray letters."""
    app, _ = scripted_app(tmp_path / "t.db", lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        assert (await palette_hits(app, pilot, "theme"))[:1] == ["主题"]
        for command in COMMANDS:
            if command.palette:
                hits = await palette_hits(app, pilot, command.title("en"))
                assert hits[:1] == [command.title("zh")], (command.id, hits)


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_the_palette_s_screenshot_is_saved_here_privately_and_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: Language
) -> None:
    """It went to ~/Downloads, which a server seldom has: "Failed to save screenshot", in
    English, where the palette said "in the current directory"."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "no-such-home"))
    app, _ = scripted_app(tmp_path / "t.db", lang=lang)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        title = text("palette.screenshot", lang)
        assert (await palette_hits(app, pilot, title))[:1] == [title]
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(list(tmp_path.glob("oncall-tui-screen-*.svg"))))
        (saved,) = tmp_path.glob("oncall-tui-screen-*.svg")
        said = text("screenshot.saved", lang, path=str(saved))
        await wait_until(pilot, lambda: said in notifications(app))
    assert saved.read_text("utf-8").lstrip().startswith("<svg")
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600  # it shows the incident


async def test_a_screenshot_that_cannot_be_written_says_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(private_files, "write_privately", full)
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        app.save_screen()
        said = f"The screen was not saved in {tmp_path}: No space left on device"
        await wait_until(pilot, lambda: said in notifications(app))
    assert list(tmp_path.glob("*.svg")) == []
