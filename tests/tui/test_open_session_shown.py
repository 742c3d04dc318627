"""Every pane shows the session that is open: the panel's memory mode after ctrl+n, a status
line that spoke of another session, work of a session that ends after another was opened, and
reads that come back after the user moved on."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from oncall_tui.core.memory import DEFAULT_MEMORY_MODE, MemoryMode, MemoryState
from oncall_tui.store.sessions import SessionRepository
from oncall_tui.tui.app import OncallApp
from oncall_tui.tui.chat_log import ChatLog
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets.context_panel import mode_label
from oncall_tui.tui.widgets.plain_text import PlainText
from oncall_tui.tui.widgets.session_list import SessionList
from tests.fakes.chat_model import Turn
from tests.tui.harness import scripted_app, seed_session, spy, wait_until

SIZE = (120, 36)
SLOW_SUMMARY = Turn(text="Goal: fix api-7. Found OOM.", chunk_size=2, delay_per_chunk=0.1)


def main(app: OncallApp) -> MainScreen:
    screen = app.screen_stack[0]
    assert isinstance(screen, MainScreen)
    return screen


def status(screen: MainScreen) -> str:
    return screen.query_one("#status", PlainText).text


def mode_shown(screen: MainScreen) -> str:
    return screen.query_one("#mode", PlainText).text


def shown(mode: MemoryMode) -> str:
    return f"◂ {mode_label(mode, 'en')} ▸"


def with_mode(app: OncallApp, session_id: int, mode: MemoryMode) -> None:
    with app.services.database.session() as session:
        sessions = SessionRepository(session)
        row = sessions.require("alice", session_id)
        row.memory_mode = mode.value
        sessions.save(row)


def opened_from_the_list(screen: MainScreen, session_id: int) -> None:
    """As Enter on a row of the sessions list opens it."""
    screen.query_one(SessionList).post_message(SessionList.Opened(session_id))


async def test_after_ctrl_n_the_panel_shows_the_mode_a_new_session_starts_with(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = main(app)
        await app.workers.wait_for_complete()
        manual = seed_session(app, 2)
        with_mode(app, manual, MemoryMode.MANUAL)
        screen.shown.open(manual)
        await wait_until(pilot, lambda: mode_shown(screen) == shown(MemoryMode.MANUAL))
        assert not screen.query_one("#mode").disabled
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: screen.session_id is None and not app.workers)
        await pilot.pause()
        assert DEFAULT_MEMORY_MODE is not MemoryMode.MANUAL
        assert mode_shown(screen) == shown(DEFAULT_MEMORY_MODE)
        # Nothing to set it on until the first message is stored: not offered as if it were.
        assert screen.query_one("#mode").disabled


async def test_what_the_status_line_said_of_a_session_goes_when_another_opens(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db", ["Goal: fix api-7."])
    async with app.run_test(size=SIZE) as pilot:
        screen = main(app)
        await app.workers.wait_for_complete()
        first, second = seed_session(app, 3, title="first"), seed_session(app, 1, title="second")
        screen.shown.open(first)
        await wait_until(pilot, lambda: screen.memory is not None and not app.workers)
        await pilot.press("f9")
        await wait_until(pilot, lambda: "Memory compacted" in status(screen))
        await wait_until(pilot, lambda: not app.workers)
        opened_from_the_list(screen, second)
        await wait_until(pilot, lambda: screen.session_id == second and not app.workers)
        assert "compacted" not in status(screen)


async def test_a_compaction_that_ends_after_another_session_opened_leaves_that_one_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = scripted_app(tmp_path / "t.db", [SLOW_SUMMARY])
    async with app.run_test(size=SIZE) as pilot:
        screen = main(app)
        await app.workers.wait_for_complete()
        first, second = seed_session(app, 3, title="first"), seed_session(app, 1, title="second")
        screen.shown.open(first)
        await wait_until(pilot, lambda: screen.memory is not None and not app.workers)
        notices = spy(monkeypatch, app, "notify", lambda message, **_: str(message))
        await pilot.press("f9")
        await wait_until(pilot, lambda: "Compacting" in status(screen))
        opened_from_the_list(screen, second)
        log = screen.query_one(ChatLog)
        await wait_until(pilot, lambda: len(log.messages) == 2)
        assert "Compacting" not in status(screen)  # it spoke of the first session

        def compacted() -> bool:
            return app.services.sessions.get("alice", first).compacted_message_count > 0

        await wait_until(pilot, compacted)
        await wait_until(pilot, lambda: any("compacted" in notice for notice in notices))
        await wait_until(pilot, lambda: not app.workers)
        await pilot.pause()
        assert screen.session_id == second
        assert screen.query_one(SessionList).current == second
        assert len(log.messages) == 2  # the second session's page, not the first's
        assert "compacted" not in status(screen)


@pytest.fixture
def held_reads() -> Iterator[threading.Event]:
    release = threading.Event()
    yield release
    release.set()


async def test_a_read_of_the_session_left_that_comes_back_late_is_not_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, held_reads: threading.Event
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = main(app)
        await app.workers.wait_for_complete()
        slow, fast = seed_session(app, 3, title="slow"), seed_session(app, 1, title="fast")
        with_mode(app, slow, MemoryMode.MANUAL)
        memory = app.services.memory
        original_state = memory.state

        def state(owner: str, session_id: int) -> MemoryState:
            if session_id == slow:
                held_reads.wait(10)
            return original_state(owner, session_id)

        monkeypatch.setattr(memory, "state", state)
        original_messages = app.services.sessions.messages

        def messages(owner: str, session_id: int, **kwargs: int) -> list[object]:
            if session_id == slow:
                held_reads.wait(10)
            return list(original_messages(owner, session_id, **kwargs))

        monkeypatch.setattr(app.services.sessions, "messages", messages)
        screen.shown.open(slow)
        await pilot.pause()
        opened_from_the_list(screen, fast)
        log = screen.query_one(ChatLog)
        await wait_until(pilot, lambda: len(log.messages) == 2 and screen.memory is not None)
        held_reads.set()  # the first session's reads come now, after the second's
        await wait_until(pilot, lambda: not app.workers)
        await pilot.pause()
        assert screen.session_id == fast
        assert len(log.messages) == 2
        assert [m.content for m in log.messages] == ["question 0", "answer 0"]
        assert screen.memory is not None
        assert screen.memory.session_id == fast
        assert mode_shown(screen) == shown(DEFAULT_MEMORY_MODE)
