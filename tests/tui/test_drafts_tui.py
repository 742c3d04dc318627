"""The message being written when the app ends (ctrl+q, a dropped link, a killed process) is
back in the composer at the next start."""

from __future__ import annotations

import asyncio
import errno
import json
import os
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input, TextArea

from oncall_tui.core.prompts import DEFAULT_PROMPT_LABEL
from oncall_tui.services import drafts as drafts_module
from oncall_tui.services.drafts import (
    DRAFT_FILE,
    PROMPT_DRAFT_FILE,
    SLOTS,
    DraftKeeper,
    slot_file,
)
from oncall_tui.services.memory import MemoryService
from oncall_tui.services.spool import database_key, owner_folder
from oncall_tui.settings import Settings
from oncall_tui.tui.app import OncallApp, build_app
from oncall_tui.tui.exit_deadline import HandBack
from oncall_tui.tui.panes import draft as draft_pane
from oncall_tui.tui.panes.draft import DRAFT_SECONDS
from oncall_tui.tui.screens.prompts import PromptEditorScreen
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.dialogs import UnsavedChangesDialog
from tests.fakes.chat_model import ScriptedChatModel
from tests.fakes.gateway import StaticGateway
from tests.terminal import Terminal, wait_for
from tests.tui.harness import keys_in_one_read, notifications, question_read, spy, wait_until

RESTORED = "Restored your unsent message from last time."


def settings_in(tmp_path: Path) -> Settings:
    return Settings(db_path=tmp_path / "t.db", user="alice", spool_dir=tmp_path / "spool")


def draft_file(settings: Settings) -> Path:
    assert settings.spool_dir is not None
    database = database_key(str(settings.db_path.absolute()))
    return owner_folder(settings.spool_dir, database, "alice") / DRAFT_FILE


def kept(path: Path) -> str | None:
    return path.read_text() if path.exists() else None


@pytest.fixture
def claims(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """What each claim of the draft answered, in order."""
    answers: list[bool] = []
    claim = DraftKeeper.claim

    def noted(self: DraftKeeper) -> bool:
        answers.append(claim(self))
        return answers[-1]

    monkeypatch.setattr(DraftKeeper, "claim", noted)
    return answers


def app_for(settings: Settings, typeahead: str = "") -> OncallApp:
    gateway = StaticGateway(ScriptedChatModel(["Roll back payments-api."]), 8192)
    return build_app(settings, gateway=gateway, typeahead=typeahead)


async def test_the_draft_given_back_leaves_the_settings_warning_in_sight(
    tmp_path: Path, claims: list[bool]
) -> None:
    """Both are said as the app starts, in either order: the second had put the first out of
    sight ("nmu_ctx" gone from the line, "Restored…" in its place)."""
    settings = replace(
        settings_in(tmp_path), config_path=tmp_path / "config.toml", config_ignored=("nmu_ctx",)
    )
    app = app_for(settings)
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: claims == [True])
        await pilot.press(*"why is db-3 slow")
        app.quit_now()
    again = app_for(settings)
    async with again.run_test() as pilot:
        status = again.main.status
        await wait_until(pilot, lambda: RESTORED in status.text and "nmu_ctx" in status.text)
        assert "nmu_ctx (num_ctx?)" in status.text
        assert status.is_error  # the warning stays one
        assert again.main.query_one(Composer).text == "why is db-3 slow"


async def test_what_was_being_written_at_quit_is_back_in_the_composer(
    tmp_path: Path, claims: list[bool]
) -> None:
    settings = settings_in(tmp_path)
    app = app_for(settings)
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: claims == [True])
        await pilot.press(*"first", "enter")
        await wait_until(
            pilot, lambda: len(app.main.sessions.sessions) == 1 and not app.main.sending
        )
        await pilot.press(*"why is db-3 slow", "ctrl+j", *"since 02:50")
        await pilot.press("ctrl+q")
    assert draft_file(settings).read_text() == "why is db-3 slow\nsince 02:50"
    assert app.unkept.text == ""  # kept: nothing to hand back
    next_app = DraftKeeper(draft_file(settings).parent)
    assert next_app.claim()  # the app let go of it as it ended
    next_app.release()

    again = app_for(settings)
    async with again.run_test() as pilot:
        composer = again.screen.query_one(Composer)
        await wait_until(pilot, lambda: composer.text == "why is db-3 slow\nsince 02:50")
        # Said of the app: the session that opens (the newest) does not take it away.
        await wait_until(pilot, lambda: again.main.session_id is not None)
        assert RESTORED in again.main.status.text
        assert composer.cursor_location == composer.document.end
        await pilot.press("?")
        assert composer.text.endswith("since 02:50?")


@pytest.mark.parametrize("disk_full", [False, True])
async def test_the_text_at_quit_is_kept_or_else_handed_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, claims: list[bool], disk_full: bool
) -> None:
    """Typed and ctrl+q in one read (a fast typist, a slow link): ctrl+q, a priority key,
    ended the app before the composer's change was heard of, and the draft was kept without
    those keys. And where the disk had filled (logs, mid-incident) since the draft was last
    written, ctrl+q lost the text without a word. The end writes the text as it is and reads
    it back; what the file does not hold is handed back, printed after the app."""
    settings = settings_in(tmp_path)
    app = app_for(settings)
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: claims == [True])
        await pilot.press(*"pod api-7")
        await wait_until(pilot, lambda: kept(draft_file(settings)) == "pod api-7", timeout=5)
        if disk_full:

            def refused(*args: object, **kwargs: object) -> None:
                raise OSError(errno.ENOSPC, "No space left on device")

            monkeypatch.setattr(drafts_module, "write_privately", refused)
        keys_in_one_read(app, *" is down", "ctrl+q")
        await wait_until(pilot, lambda: not app.is_running)
    assert kept(draft_file(settings)) == ("pod api-7" if disk_full else "pod api-7 is down")
    assert app.unkept.text == ("pod api-7 is down" if disk_full else "")


async def test_the_text_is_kept_while_it_is_typed_so_a_killed_process_loses_little(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, claims: list[bool]
) -> None:
    tick = DRAFT_SECONDS / 10  # the same rule, ten times as fast
    monkeypatch.setattr(draft_pane, "DRAFT_SECONDS", tick)
    settings = settings_in(tmp_path)
    app = app_for(settings)
    path = draft_file(settings)
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: claims == [True])
        writes = spy(monkeypatch, app.services.drafts, "keep")
        await pilot.press(*"pod api-7")
        await wait_until(pilot, lambda: kept(path) == "pod api-7", timeout=5)
        await pilot.press(*" is down")
        await wait_until(pilot, lambda: kept(path) == "pod api-7 is down", timeout=5)
        # Nothing new, nothing written: the ticks stop.
        written = len(writes)
        await pilot.pause(5 * tick)
        assert len(writes) == written


async def test_a_message_sent_is_no_longer_the_draft(tmp_path: Path, claims: list[bool]) -> None:
    settings = settings_in(tmp_path)
    app = app_for(settings)
    path = draft_file(settings)
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: claims == [True])
        await pilot.press(*"roll back?")
        await wait_until(pilot, lambda: path.exists(), timeout=5)
        await pilot.press("enter")
        await wait_until(pilot, lambda: not path.exists(), timeout=5)
        assert app.screen.query_one(Composer).text == ""


async def test_keys_typed_as_the_app_started_come_after_the_draft(tmp_path: Path) -> None:
    settings = settings_in(tmp_path)
    path = draft_file(settings)
    path.parent.mkdir(parents=True, mode=0o700)
    path.write_text("the draft")
    app = app_for(settings, typeahead="typed ahead")
    async with app.run_test() as pilot:
        composer = app.screen.query_one(Composer)
        await wait_until(pilot, lambda: composer.text == "the draft\ntyped ahead")
    assert path.read_text() == "the draft\ntyped ahead"


async def test_an_app_opened_beside_another_keeps_a_draft_of_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another app of the same user and database (a second tmux pane) keeps its draft: this
    one neither shows it nor writes over it, and keeps its own text beside it (it was lost
    when this pane's terminal went), for the next app to start while the other still runs."""
    settings = settings_in(tmp_path)
    path = draft_file(settings)
    other = DraftKeeper(path.parent)
    assert other.claim()
    other.keep("the other pane's", 1)
    claims = spy(monkeypatch, DraftKeeper, "claim")
    app = app_for(settings)
    async with app.run_test() as pilot:
        composer = app.screen.query_one(Composer)
        await wait_until(pilot, lambda: bool(claims))
        await pilot.press(*"mine")
        await pilot.pause(DRAFT_SECONDS + 0.2)
        assert composer.text == "mine"
        assert RESTORED not in app.main.status.text
        await pilot.press("ctrl+q")
    assert path.read_text() == "the other pane's"
    assert (path.parent / slot_file(DRAFT_FILE, 2)).read_text() == "mine"
    again = app_for(settings)
    async with again.run_test() as pilot:
        composer = again.screen.query_one(Composer)
        await wait_until(pilot, lambda: composer.text == "mine")
        assert RESTORED in again.main.status.text
    other.release()


async def test_a_draft_that_comes_while_a_send_is_on_its_way_stays_when_it_leaves(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Typed ahead and sent before the draft was read: the sent text leaves the composer once
    stored, as always, and the draft stays."""
    settings = settings_in(tmp_path)
    path = draft_file(settings)
    path.parent.mkdir(parents=True, mode=0o700)
    path.write_text("the draft")
    gate = threading.Event()
    prepare = MemoryService.prepare_message

    async def held_back(self: MemoryService, *args: Any, **kwargs: Any) -> Any:
        await asyncio.to_thread(gate.wait, 10)
        return await prepare(self, *args, **kwargs)

    monkeypatch.setattr(MemoryService, "prepare_message", held_back)
    read = threading.Event()
    claim = DraftKeeper.claim

    def claim_later(self: DraftKeeper) -> bool:
        read.wait(10)
        return claim(self)

    monkeypatch.setattr(DraftKeeper, "claim", claim_later)
    app = app_for(settings, typeahead="typed ahead")
    async with app.run_test() as pilot:
        composer = app.screen.query_one(Composer)
        await pilot.press("enter")  # before the draft is read
        assert app.main.sending
        read.set()
        await wait_until(pilot, lambda: "the draft" in composer.text)
        assert composer.text == "typed ahead\nthe draft"
        gate.set()
        await wait_until(pilot, lambda: not app.main.sending)
        assert composer.text == "the draft"


async def opened_editor(pilot: Pilot[None], app: OncallApp) -> PromptEditorScreen:
    """F3, and the prompt editor once it has read the prompts."""
    await pilot.press("f3")
    await wait_until(pilot, lambda: isinstance(app.screen, PromptEditorScreen))
    editor = app.screen
    assert isinstance(editor, PromptEditorScreen)
    await wait_until(pilot, lambda: editor.loaded)
    return editor


def prompt_draft_file(settings: Settings) -> Path:
    return draft_file(settings).parent / PROMPT_DRAFT_FILE


async def test_prompt_edits_unsaved_when_the_terminal_goes_are_back_in_the_editor(
    tmp_path: Path, claims: list[bool]
) -> None:
    """A system prompt half written when the SSH link dropped was lost (a signal or a closed
    terminal asks nothing). It is kept, and the editor opens on it next time, unsaved; ctrl+q
    and "discard" lets it go for good."""
    settings = settings_in(tmp_path)
    app = app_for(settings)
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: claims == [True])
        await opened_editor(pilot, app)
        await pilot.press("ctrl+n", *"DB on-call", "tab", *"Check replication lag first.")
        app.quit_now()  # as on SIGHUP or the terminal gone: nothing is asked
    assert prompt_draft_file(settings).exists()

    again = app_for(settings)
    async with again.run_test() as pilot:
        await wait_until(pilot, lambda: claims[1:] == [True])  # this app keeps the drafts
        editor = await opened_editor(pilot, again)
        label = editor.query_one("#prompt-label", Input)
        content = editor.query_one("#prompt-content", TextArea)
        assert (label.value, content.text) == ("DB on-call", "Check replication lag first.")
        assert (editor.editing_id, editor.is_dirty) == (None, True)  # a new prompt, unsaved
        assert any("Your unsaved edits are back" in note for note in notifications(again))
        assert not prompt_draft_file(settings).exists()  # given back once
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(again.screen, UnsavedChangesDialog))
        await question_read(pilot)
        await pilot.press("d")
    assert not prompt_draft_file(settings).exists()  # discarded: not kept either
    assert [p.label for p in again.services.configuration.list_prompts("alice")] == [
        DEFAULT_PROMPT_LABEL
    ]


@pytest.mark.parametrize("gone", [False, True])
async def test_edits_of_a_stored_prompt_come_back_on_it_or_as_a_new_one_if_it_has_gone(
    tmp_path: Path, gone: bool, claims: list[bool]
) -> None:
    settings = settings_in(tmp_path)
    app = app_for(settings)
    async with app.run_test() as pilot:
        editor = await opened_editor(pilot, app)
        default_id = editor.editing_id
    assert default_id is not None
    prompt_id = default_id + 1 if gone else default_id
    path = prompt_draft_file(settings)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_text(json.dumps({"prompt_id": prompt_id, "label": "Mine", "content": "Be brief."}))
    again = app_for(settings)
    async with again.run_test() as pilot:
        await wait_until(pilot, lambda: claims[1:] == [True])  # this app keeps the drafts
        editor = await opened_editor(pilot, again)
        content = editor.query_one("#prompt-content", TextArea)
        assert (editor.editing_id, content.text) == (None if gone else default_id, "Be brief.")
        assert editor.is_dirty


async def test_the_start_says_that_a_prompt_s_unsaved_edits_are_kept(
    tmp_path: Path, claims: list[bool]
) -> None:
    """They come back only when the prompt editor opens: the start says so, with its keys,
    until the editor has opened on them (it said so still once they were saved and gone)."""
    settings = settings_in(tmp_path)
    path = prompt_draft_file(settings)
    path.parent.mkdir(parents=True, mode=0o700)
    path.write_text(json.dumps({"prompt_id": None, "label": "DB", "content": "Lag first."}))
    draft_file(settings).write_text("why is db-3 slow")
    app = app_for(settings)
    async with app.run_test() as pilot:
        await wait_until(pilot, lambda: claims == [True])
        said = "Your unsaved prompt edits from last time are kept: f3 / alt+p opens them."
        await wait_until(pilot, lambda: said in app.main.status.text)
        assert RESTORED in app.main.status.text  # and the message's own, on the same line
        await opened_editor(pilot, app)
        await wait_until(pilot, lambda: not path.exists())  # taken: back in the editor
        await wait_until(pilot, lambda: said not in app.main.status.text)
        assert app.main.status.text == RESTORED


def test_a_draft_no_slot_keeps_is_printed_back_masked_after_the_app(tmp_path: Path) -> None:
    """Four other apps keep their drafts (every slot taken): this one's text is printed once
    the terminal is restored, under a line that says why, a secret in it masked as all the
    CLI prints (it stays in the terminal's scrollback). In a real pseudo-terminal."""
    data = tmp_path / "xdg"
    settings = Settings(
        db_path=tmp_path / "t.db", user="alice", spool_dir=data / "oncall-tui" / "spool"
    )
    others = [DraftKeeper(draft_file(settings).parent) for _ in range(SLOTS)]
    assert all(other.claim() for other in others)
    env = {
        **os.environ,
        "ONCALL_TUI_DB": str(settings.db_path),
        "ONCALL_TUI_USER": "alice",
        "XDG_DATA_HOME": str(data),
        "OLLAMA_HOST": "http://127.0.0.1:9",
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
    }
    terminal = Terminal(env, columns=200)
    try:
        terminal.wait_to_show("Message")
        terminal.write("restart api-7 with password=hunter22")
        terminal.wait_to_show("hunter22")
        terminal.write("\x11")  # ctrl+q
        assert os.waitstatus_to_exitcode(terminal.wait()) == 0
        wait_for(lambda: b"password=***" in terminal.output, timeout=5, what="the text")
    finally:
        os.close(terminal.fd)
        for other in others:
            other.release()
    output = terminal.output.decode(errors="replace")
    after = output[output.rindex("could not be kept for the next start") :]
    assert "restart api-7 with password=***" in after
    assert "hunter22" not in after


def test_the_hand_back_is_printed_once_whichever_end_comes_first(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """The app's return and the exit deadline's last step both print it: the text once."""
    hand_back = HandBack("oncall-tui: here it is:")
    hand_back.text = "pod api-7\npassword=hunter22"
    ends = [threading.Thread(target=hand_back.print) for _ in range(2)]
    for end in ends:
        end.start()
    for end in ends:
        end.join()
    hand_back.print()
    assert capfd.readouterr().err == "oncall-tui: here it is:\npod api-7\npassword=***\n"
