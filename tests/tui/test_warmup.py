"""First uses that would stall a reply are paid off the event loop: the rendering ones at
start-up, the model stack as the first message is typed."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from threading import current_thread
from typing import Any

import pytest
from textual.app import App
from textual.screen import Screen
from textual.widgets import Label

import oncall_tui.tui.app as app_module
from oncall_tui.services.container import part
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.screens.prompts import PromptEditorScreen
from oncall_tui.tui.screens.search import SearchScreen
from oncall_tui.tui.screens.skills import SkillLibraryScreen
from tests.tui.harness import scripted_app, wait_until

CHECK = """
import sys
from pygments.lexer import RegexLexer
from pygments.lexers import find_lexer_class_by_name
from oncall_tui.tui.warmup import WARM_LANGUAGES, warm_up_rendering
found = [find_lexer_class_by_name(name) for name in WARM_LANGUAGES]
classes = [c for c in found if issubclass(c, RegexLexer)]  # the ones with patterns to compile
before = [c.__name__ for c in classes if "_tokens" in c.__dict__]
warm_up_rendering()
after = [c.__name__ for c in classes if "_tokens" in c.__dict__]
print(len(before), len(after), len(classes), "rich.markdown" in sys.modules)
"""


def test_warming_up_compiles_the_common_lexers_once() -> None:
    result = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, check=True
    )
    before, after, total, rich_loaded = result.stdout.split()
    assert before == "0"  # finding a lexer's class compiles nothing
    assert int(total) >= 4
    assert after == total  # warming compiled every listed language's patterns
    assert rich_loaded == "True"


async def test_rendering_warms_up_in_a_thread_at_start_the_model_stack_once_typing_begins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rendered: list[threading.Thread] = []
    monkeypatch.setattr(app_module, "warm_up_rendering", lambda: rendered.append(current_thread()))
    app, _ = scripted_app(tmp_path / "t.db")
    loads: list[threading.Thread] = []
    monkeypatch.setattr(app.services, "warm_up", lambda: loads.append(current_thread()))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_until(pilot, lambda: bool(rendered))
        await app.workers.wait_for_complete()
        assert loads == []  # an app that is only read holds no model stack
        await pilot.press(*"why")
        await wait_until(pilot, lambda: bool(loads))
        await pilot.press("space", "5", "0", "2")
        await app.workers.wait_for_complete()
    assert len(rendered) == 1
    assert rendered[0] is not threading.main_thread()
    assert len(loads) == 1  # once, however much is typed
    assert loads[0] is not threading.main_thread()


def test_the_first_frame_needs_no_markdown_parser_database_or_model_stack() -> None:
    """What the app module loads, and the server's name the panel shows, are what the first
    frame waits for: Markdown parsing, the store, LangChain, an HTTP client, a send's events and
    the services' views load after it (a first use of each, or the warm-up thread)."""
    check = (
        "import sys, oncall_tui.tui.app, oncall_tui.services.server\n"
        "late = ('markdown_it', 'rich.markdown', 'sqlalchemy', 'sqlmodel', 'langchain_core',\n"
        "        'httpx', 'oncall_tui.core.events', 'oncall_tui.services.views')\n"
        "print(' '.join(m for m in late if m in sys.modules) or 'none')"
    )
    result = subprocess.run(
        [sys.executable, "-c", check], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["none"]


async def test_the_ui_thread_builds_no_part_of_the_services(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A part is built one at a time in the process (see ``tests/services/test_container``):
    the UI thread waiting for one, a second while the model stack loads, would freeze the
    screen. Opening sessions, the search, the skills and the prompts build theirs in threads."""
    built_here: list[str] = []
    get = part.__get__

    def noted(self: part[object], instance: object, owner: type | None = None) -> object:
        on_ui_thread = current_thread() is threading.main_thread()
        if instance is not None and on_ui_thread and self._name not in instance.__dict__:
            built_here.append(self._name)
        return get(self, instance, owner)

    app, _ = scripted_app(tmp_path / "t.db")
    monkeypatch.setattr(part, "__get__", noted)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.main.server_check.state.reachable is not None)
        for key, kind in (("f4", SkillLibraryScreen), ("f3", PromptEditorScreen)):
            await pilot.press(key)
            await wait_until(pilot, on_top(app, kind))
            await wait_until(pilot, lambda: getattr(app.screen, "loaded", False))
            await pilot.press("escape")
            await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        await pilot.press("ctrl+f", *"disk")
        await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen))
        note = app.screen.query_one("#search-note", Label)
        await wait_until(pilot, lambda: "No message or title matches" in str(note.render()))
    assert built_here == []


def on_top(app: App[None], kind: type[Screen[Any]]) -> Callable[[], bool]:
    return lambda: isinstance(app.screen, kind)
