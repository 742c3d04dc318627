"""ctrl+q in the prompt editor with unsaved edits asks first, as leaving it does; with none, or
anywhere else, it quits at once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import TextArea

from oncall_tui.services.container import Services
from oncall_tui.settings import Settings
from oncall_tui.tui.app import OncallApp, build_app
from oncall_tui.tui.screens.prompts import PromptEditorScreen
from oncall_tui.tui.widgets.dialogs import UnsavedChangesDialog
from tests.tui.harness import question_read, wait_until

SIZE = (100, 32)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(db_path=tmp_path / "t.db", user="alice", ollama_url="http://127.0.0.1:9")


def stored_content(settings: Settings) -> str:
    services = Services(settings)
    try:
        return services.configuration.list_prompts("alice")[0].content
    finally:
        services.close()


async def edit_the_prompt(app: OncallApp, pilot: Pilot[Any]) -> PromptEditorScreen:
    await pilot.press("f3")
    await wait_until(
        pilot, lambda: isinstance(app.screen, PromptEditorScreen) and app.screen.loaded
    )
    editor = app.screen
    assert isinstance(editor, PromptEditorScreen)
    editor.query_one("#prompt-content", TextArea).focus()
    await pilot.press("end", *" Be brief.")
    assert editor.is_dirty
    return editor


@pytest.mark.parametrize(("answer", "saved"), [("s", True), ("d", False)])
async def test_quitting_with_unsaved_edits_asks_and_does_as_answered(
    settings: Settings, answer: str, saved: bool
) -> None:
    app = build_app(settings)
    async with app.run_test(size=SIZE) as pilot:
        editor = await edit_the_prompt(app, pilot)
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: isinstance(app.screen, UnsavedChangesDialog))
        await pilot.press("escape")  # stay: nothing lost, the app goes on
        await wait_until(pilot, lambda: app.screen is editor and not editor.busy)
        assert app.is_running
        await pilot.press("ctrl+q")
        await question_read(pilot)
        await pilot.press(answer)
        await wait_until(pilot, lambda: not app.is_running)
    assert (" Be brief." in stored_content(settings)) is saved


async def test_quitting_with_nothing_unsaved_asks_nothing(settings: Settings) -> None:
    app = build_app(settings)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f3")
        await wait_until(
            pilot, lambda: isinstance(app.screen, PromptEditorScreen) and app.screen.loaded
        )
        await pilot.press("ctrl+q")
        await wait_until(pilot, lambda: not app.is_running)
