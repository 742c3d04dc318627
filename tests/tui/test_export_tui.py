"""Exporting the open session from the TUI, to a file whose path the app shows."""

from __future__ import annotations

import stat
import time
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from oncall_tui.tui.app import OncallApp
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets import dialogs
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.dialogs import ConfirmDialog
from oncall_tui.tui.widgets.plain_text import PlainText
from oncall_tui.tui.widgets.text_dialogs import TextDialog
from tests.tui.harness import (
    keys_in_one_read,
    notifications,
    question_drawn,
    question_read,
    screen_rows,
    scripted_app,
    seed_session,
    wait_until,
)

SIZE = (120, 36)


async def open_seeded(pilot: Pilot[None], pairs: int, title: str = "seeded incident") -> MainScreen:
    """The main screen with a seeded session of ``pairs`` exchanges open."""
    app = pilot.app
    assert isinstance(app, OncallApp)
    screen = app.screen
    assert isinstance(screen, MainScreen)
    await pilot.pause()
    screen.shown.open(seed_session(app, pairs, title=title))
    await wait_until(pilot, lambda: screen.session_id is not None)
    return screen


async def export_dialog(pilot: Pilot[None], key: str = "ctrl+s") -> Input:
    """Press ``key``; the export dialog's path field, once the dialog is in front."""
    app = pilot.app
    await pilot.press(key)
    await wait_until(pilot, lambda: isinstance(app.screen, TextDialog))
    return app.screen.query_one(Input)


async def export_dialog_for(
    pilot: Pilot[None], pairs: int, path: Path, key: str = "ctrl+s"
) -> MainScreen:
    """Open a seeded session of ``pairs`` exchanges and type ``path`` in its export dialog
    (not submitted)."""
    screen = await open_seeded(pilot, pairs)
    (await export_dialog(pilot, key)).value = str(path)
    return screen


async def test_a_path_longer_than_its_field_shows_its_end_where_the_cursor_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 80 columns the offered path is wider than its field: what is in sight is its end
    (the file's name and extension, where typing goes), not the directory it starts with."""
    deep = tmp_path / "incidents" / "2026" / "december"
    deep.mkdir(parents=True)
    monkeypatch.chdir(deep)
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(80, 24)) as pilot:
        await open_seeded(pilot, 1, title="INC-4211 checkout 5xx")
        field = await export_dialog(pilot)
        assert len(field.value) > field.content_size.width
        await pilot.pause()
        await wait_until(pilot, lambda: any("5xx-" in row for row in screen_rows(app)))
        shown = next(row for row in screen_rows(app) if "5xx-" in row)
        assert ".md" in shown
        assert "/incidents/" not in shown
        assert field.cursor_position == len(field.value)


async def test_ctrl_s_offers_a_path_here_and_writes_the_markdown_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_seeded(pilot, 2, title="db-3 disk full")
        offered = Path((await export_dialog(pilot)).value)
        assert offered.parent == tmp_path
        assert offered.name.startswith(f"oncall-session-{screen.session_id}-")
        assert offered.suffix == ".md"
        await pilot.press("enter")
        status = screen.query_one("#status", PlainText)
        await wait_until(pilot, lambda: str(offered) in status.text)
        assert status.text == f"Exported to {offered}"
        written = offered.read_text(encoding="utf-8")
        assert "db-3 disk full" in written
        assert "question 1" in written
        assert "answer 1" in written
        assert stat.S_IMODE(offered.stat().st_mode) == 0o600


async def test_a_path_ending_in_json_writes_the_json_document(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    target = tmp_path / "incident.json"
    async with app.run_test(size=SIZE) as pilot:
        await export_dialog_for(pilot, 1, target, key="alt+e")
        await pilot.press("enter")
        await wait_until(pilot, target.exists)
        assert target.read_text(encoding="utf-8").lstrip().startswith("{")


async def test_a_directory_that_does_not_exist_brings_the_dialog_back_saying_so(
    tmp_path: Path,
) -> None:
    """The path typed is not lost with the dialog (it closed, the error went to the status
    line, and the corrected path typed on went into the composer as a message)."""
    app, model = scripted_app(tmp_path / "t.db")
    target = tmp_path / "missing" / "out.md"
    async with app.run_test(size=SIZE) as pilot:
        screen = await export_dialog_for(pilot, 1, target)
        await pilot.press("enter")
        await wait_until(pilot, lambda: dialogs_error(app) is not None)
        assert f"there is no directory '{target.parent}'" in (dialogs_error(app) or "")
        field = app.screen.query_one(Input)
        assert field.value == str(target)  # to correct, not to type again
        assert not target.parent.exists()
        field.value = str(tmp_path / "out.md")
        await pilot.press("enter")
        status = screen.query_one("#status", PlainText)
        await wait_until(pilot, lambda: "Exported to" in status.text)
        assert (tmp_path / "out.md").exists()
        assert app.query_one(Composer).text == ""
        assert model.calls == []


def dialogs_error(app: OncallApp) -> str | None:
    """The error the text dialog in front shows, if one is."""
    screen = app.screen
    if not isinstance(screen, TextDialog):
        return None
    return screen.query_one(dialogs.ErrorText).message


async def test_an_unstarted_session_has_nothing_to_export(tmp_path: Path) -> None:
    """Found in tmux: the file name typed behind ctrl+s, with its Enter, was sent to the model
    as a message. It stays in the composer, unsent."""
    app, model = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        keys_in_one_read(app, "ctrl+s", *"fastname.md", "enter")
        composer = app.query_one(Composer)
        await wait_until(pilot, lambda: composer.text == "fastname.md")
        await pilot.pause(0.2)
        assert isinstance(app.screen, MainScreen)
        assert any("Nothing to export" in n for n in notifications(app))
        assert composer.text == "fastname.md"
        assert model.calls == []


async def test_a_file_that_exists_is_replaced_only_when_the_user_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An incident log typed as the export's name (found in tmux: it was overwritten at once).
    The keys typed behind Enter go to the question, where a "y" nobody has read yet is no
    answer; "n" once it is read keeps the file; a "y" once it is read replaces it."""
    now = [100.0]  # the dialogs' clock, moved by the test: no machine is too slow for it
    monkeypatch.setattr(dialogs, "clock", lambda: now[0])
    app, _ = scripted_app(tmp_path / "t.db")
    target = tmp_path / "incident.log"
    target.write_text("02:51 ERROR upstream 502\n", encoding="utf-8")
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_seeded(pilot, 1, title="checkout 502s")

        async def export_to(path: Path, *behind: str) -> None:
            (await export_dialog(pilot)).value = str(path)
            keys_in_one_read(app, "enter", *behind)
            await wait_until(
                pilot,
                lambda: (
                    isinstance(app.screen, ConfirmDialog)
                    and bool(app.screen.query(".dialog--message"))
                ),
            )

        await export_to(target, "y")
        assert isinstance(app.screen, ConfirmDialog)
        assert "incident.log exists" in str(app.screen.query_one(".dialog--message").render())
        await question_drawn(pilot)
        assert isinstance(app.screen, ConfirmDialog)  # the early "y" answered nothing
        now[0] += dialogs.READ_SECONDS
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is screen)
        assert target.read_text(encoding="utf-8") == "02:51 ERROR upstream 502\n"
        assert screen.query_one(Composer).text == ""
        # Said (found in tmux: the line still said an export before, as if done).
        assert f"Not exported: {target} is left as it was." in screen.status.text

        monkeypatch.setattr(dialogs, "clock", time.monotonic)  # read as a person reads it
        await export_to(target)
        await question_read(pilot)
        await pilot.press("y")
        status = screen.query_one("#status", PlainText)
        await wait_until(pilot, lambda: status.text == f"Exported to {target}")
        assert "checkout 502s" in target.read_text(encoding="utf-8")


async def test_a_new_file_is_written_without_a_question(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    target = tmp_path / "new.md"
    async with app.run_test(size=SIZE) as pilot:
        screen = await export_dialog_for(pilot, 1, target)
        keys_in_one_read(app, "enter", *"next")
        await wait_until(pilot, target.exists)
        await wait_until(pilot, lambda: screen.query_one(Composer).text == "next")
        assert app.screen is screen


@pytest.mark.parametrize("over", ["f1", "f6"])
async def test_ctrl_s_over_the_keys_help_or_the_summary_opens_the_export_with_the_keys_behind(
    tmp_path: Path, over: str
) -> None:
    """Found in tmux: over the keys help or the summary, ctrl+s did nothing, and the file name
    typed behind it went to the composer, whose Enter sent it to the model. A key of the chat's
    closes the screen read over it and acts there; the keys behind it go where it leads."""
    app, model = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.pause()
        screen.shown.open(seed_session(app, 2, compacted=2, summary="The disk filled up."))
        await wait_until(
            pilot, lambda: screen.memory is not None and bool(screen.memory.memory_summary)
        )
        await pilot.press(over)
        await wait_until(pilot, lambda: app.screen is not screen)
        keys_in_one_read(app, "ctrl+s", *"-x")
        await wait_until(pilot, lambda: isinstance(app.screen, TextDialog))
        await wait_until(pilot, lambda: bool(app.screen.query(Input)))  # mounted a moment later
        field = app.screen.query_one(Input)
        await wait_until(pilot, lambda: field.value.endswith("-x"))
        assert screen.query_one(Composer).text == ""
        assert model.calls == []
