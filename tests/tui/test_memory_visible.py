"""Compaction is never silent: it says it is compacting, the divider comes at once, a failure
is said, and choosing manual mode (which compacts) asks first."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest
from textual.pilot import Pilot

from oncall_tui.core.memory import MemoryMode, MemoryState
from oncall_tui.errors import OncallError
from oncall_tui.store import sqlite
from oncall_tui.tui.app import OncallApp
from oncall_tui.tui.chat_log import ChatLog
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.dialogs import ConfirmDialog
from oncall_tui.tui.widgets.plain_text import PlainText
from tests.fakes.chat_model import Turn
from tests.tui.harness import (
    keys_in_one_read,
    question_read,
    scripted_app,
    seed_session,
    wait_until,
)

SIZE = (120, 36)
SLOW_SUMMARY = Turn(text="Goal: fix api-7. Found OOM.", chunk_size=3, delay_per_chunk=0.05)


def status(screen: MainScreen) -> str:
    return screen.query_one("#status", PlainText).text


async def opened(app: OncallApp, pairs: int) -> tuple[MainScreen, int]:
    screen = app.screen
    assert isinstance(screen, MainScreen)
    await app.workers.wait_for_complete()
    session_id = seed_session(app, pairs)
    screen.shown.open(session_id)
    return screen, session_id


async def ready_to_compact(pilot: Pilot[None], pairs: int = 3) -> tuple[MainScreen, int, ChatLog]:
    """A seeded session open, its page and its memory shown: f9 compacts it."""
    app = pilot.app
    assert isinstance(app, OncallApp)
    screen, session_id = await opened(app, pairs)
    log = screen.query_one(ChatLog)
    await wait_until(pilot, lambda: len(log.messages) == 2 * pairs and screen.memory is not None)
    return screen, session_id, log


async def test_an_automatic_compaction_says_so_and_draws_the_divider_at_once(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db", [SLOW_SUMMARY, "Reply after summary."])
    async with app.run_test(size=SIZE) as pilot:
        screen, _ = await opened(app, 30)
        log = screen.query_one(ChatLog)
        await wait_until(pilot, lambda: len(log.messages) == 40)
        app.query_one(Composer).text = "what next?"
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Compacting" in status(screen))
        assert "60 messages" in status(screen)
        await wait_until(pilot, lambda: log.boundary == 60)  # in this view, not after reopening
        await wait_until(pilot, lambda: not screen.sending)


async def test_f9_says_it_is_compacting_then_shows_the_divider(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db", [SLOW_SUMMARY])
    async with app.run_test(size=SIZE) as pilot:
        screen, _, log = await ready_to_compact(pilot)
        await pilot.press("f9")
        assert "Compacting" in status(screen)
        await wait_until(pilot, lambda: log.boundary == 6)
        assert "Memory compacted" in status(screen)


async def test_a_summary_the_database_did_not_take_is_said_lost_beside_the_database_s_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As found with PostgreSQL stopped during f9: the line said only "Cannot open the
    database", and went once the database was back, leaving no word that the compaction was
    lost. (Here another writer holds SQLite's lock as the summary is stored.)"""
    monkeypatch.setattr(sqlite, "BUSY_TIMEOUT_MS", 20)  # the rules, on a faster clock
    slow = Turn(text="Goal: fix api-7. Found OOM.", chunk_size=3, delay_per_chunk=0.05)
    app, model = scripted_app(tmp_path / "t.db", [slow])
    async with app.run_test(size=SIZE) as pilot:
        screen, session_id, log = await ready_to_compact(pilot)
        await pilot.press("f9")
        await wait_until(pilot, lambda: len(model.calls) == 1)  # it read the session
        writer = sqlite3.connect(tmp_path / "t.db", isolation_level=None)
        try:
            writer.execute("BEGIN IMMEDIATE")
            await wait_until(pilot, lambda: "stayed busy" in status(screen))
            await app.workers.wait_for_complete()
        finally:
            writer.close()
        said = status(screen)
        assert said.endswith(
            "The compaction was not stored: the summary and the history are as they were "
            "(compact again once it answers)."
        )
        stored = app.services.memory.state("alice", session_id)
        assert (stored.compacted_message_count, stored.memory_summary) == (0, None)
        assert log.boundary is None


async def test_esc_stops_a_compaction_and_the_session_is_as_it_was(tmp_path: Path) -> None:
    """f9 pressed by mistake on a local model that takes minutes to summarise: Esc, offered
    on the key bar and now on the status line, did nothing until the model was done."""
    slow = Turn(text="Goal: fix api-7. " * 40, chunk_size=2, delay_per_chunk=0.05)
    app, model = scripted_app(tmp_path / "t.db", [slow])
    async with app.run_test(size=SIZE) as pilot:
        screen, session_id, log = await ready_to_compact(pilot)
        await pilot.press("f9")
        assert status(screen).endswith("(escape stops)")
        await wait_until(pilot, lambda: len(model.calls) == 1)
        await pilot.press("escape")
        await wait_until(pilot, lambda: status(screen) == "Compacting stopped.")
        await app.workers.wait_for_complete()
        stored = app.services.memory.state("alice", session_id)
        assert (stored.compacted_message_count, stored.memory_summary) == (0, None)
        assert log.boundary is None
        await pilot.press("escape")  # nothing runs now: back to the composer, said nothing
        assert status(screen) == "Compacting stopped."
        assert isinstance(app.focused, Composer)


async def test_esc_leaves_a_memory_mode_being_saved_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the model's summarising is stopped by Esc: a mode being saved is saved."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen, session_id, _ = await ready_to_compact(pilot)
        gate = asyncio.Event()
        save = app.services.memory.set_mode

        async def held(owner: str, sid: int, mode: MemoryMode) -> MemoryState:
            await gate.wait()
            return await save(owner, sid, mode)

        monkeypatch.setattr(app.services.memory, "set_mode", held)
        await pilot.press("f7")  # every 30 replies -> at 70%: saved, no model call
        await pilot.press("escape")
        assert status(screen) == "Saving the memory mode…"
        gate.set()
        await wait_until(
            pilot,
            lambda: (
                app.services.sessions.get("alice", session_id).memory_mode
                is MemoryMode.CONTEXT_70_PERCENT
            ),
        )


async def test_a_failed_compaction_is_said(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen, session_id = await opened(app, 3)
        await wait_until(pilot, lambda: screen.memory is not None)

        async def failing(owner: str, sid: int) -> None:
            raise OncallError("MEMORY_COMPACTION_FAILED", detail="the model went away")

        app.services.memory.compact = failing  # type: ignore[assignment,method-assign]
        await pilot.press("f9")
        await wait_until(pilot, lambda: "compaction failed" in status(screen).lower())
        assert screen.query_one("#status").has_class("-error")
        assert app.services.sessions.get("alice", session_id).compacted_message_count == 0


async def test_cycling_to_manual_asks_before_it_compacts(tmp_path: Path) -> None:
    app, model = scripted_app(tmp_path / "t.db", ["summary of it"])
    async with app.run_test(size=SIZE) as pilot:
        screen, session_id = await opened(app, 2)
        await wait_until(pilot, lambda: screen.memory is not None)
        await pilot.press("f7")  # every 30 replies -> at 70%: no model call, no question
        await wait_until(
            pilot,
            lambda: (
                app.services.sessions.get("alice", session_id).memory_mode
                is MemoryMode.CONTEXT_70_PERCENT
            ),
        )
        await wait_until(
            pilot,
            lambda: (
                screen.memory is not None
                and screen.memory.memory_mode is MemoryMode.CONTEXT_70_PERCENT
            ),
        )
        await pilot.press("f7")  # -> manual: asks
        await question_read(pilot)
        await pilot.press("n")
        await wait_until(pilot, lambda: app.screen is screen)
        await app.workers.wait_for_complete()
        assert model.calls == []
        stored = app.services.sessions.get("alice", session_id)
        assert stored.memory_mode is MemoryMode.CONTEXT_70_PERCENT
        await pilot.press("f7")
        await question_read(pilot)
        await pilot.press("y")
        await wait_until(
            pilot,
            lambda: app.services.sessions.get("alice", session_id).memory_mode is MemoryMode.MANUAL,
        )
        assert len(model.calls) == 1
        assert app.services.sessions.get("alice", session_id).compacted_message_count == 4


async def mode_before_manual(pilot: Pilot[None]) -> tuple[MainScreen, int]:
    """A seeded session open at "at 70%": the next f7 asks before it switches to manual."""
    app = pilot.app
    assert isinstance(app, OncallApp)
    screen, session_id = await opened(app, 2)
    await wait_until(pilot, lambda: screen.memory is not None)
    await pilot.press("f7")  # every 30 replies -> at 70%: manual is the next
    await wait_until(
        pilot,
        lambda: (
            screen.memory is not None and screen.memory.memory_mode is MemoryMode.CONTEXT_70_PERCENT
        ),
    )
    return screen, session_id


async def test_f7_and_a_y_typed_in_one_burst_do_not_switch_to_manual(
    tmp_path: Path,
) -> None:
    """A y typed behind f7 (a slip while typing "yes…") answered the question that switching
    to manual asks before it compacts, before anyone saw it: a model call began. It is the
    question's, which takes an answer once it has been read."""
    app, model = scripted_app(tmp_path / "t.db", ["summary of it"])
    async with app.run_test(size=SIZE) as pilot:
        _, session_id = await mode_before_manual(pilot)
        keys_in_one_read(app, "f7", "y")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.pause(0.1)
        assert isinstance(app.screen, ConfirmDialog)
        assert model.calls == []
        assert app.services.sessions.get("alice", session_id).memory_mode is not MemoryMode.MANUAL


@pytest.mark.parametrize("read", [False, True])
async def test_a_question_typed_behind_f7_closes_the_question_and_is_kept(
    tmp_path: Path, read: bool
) -> None:
    """f7 and "and now?" in one read opened the question switching to manual asks, and the
    words went to it: none was an answer, and all were lost. The first character that is not
    an answer closes the question unanswered (nothing changes), and it goes on in the composer
    with every key behind it, the Enter included; so does one typed once it has been read."""
    app, model = scripted_app(tmp_path / "t.db", ["summary of it", "It is fine."])
    async with app.run_test(size=SIZE) as pilot:
        screen, session_id = await mode_before_manual(pilot)
        if read:
            await pilot.press("f7")
            await question_read(pilot)
            keys_in_one_read(app, *"and now?", "enter")
        else:
            keys_in_one_read(app, "f7", *"and now?", "enter")
        log = screen.query_one(ChatLog)
        await wait_until(pilot, lambda: app.screen is screen and len(log.messages) == 6)
        assert log.messages[-2].content == "and now?"
        await wait_until(pilot, lambda: not screen.sending)
        assert screen.query_one(Composer).text == ""
        assert len(model.calls) == 1  # the question's answer, not a summary
        stored = app.services.sessions.get("alice", session_id)
        assert stored.memory_mode is MemoryMode.CONTEXT_70_PERCENT  # the question: unanswered
        assert stored.compacted_message_count == 0


async def test_a_second_f9_while_compacting_is_refused_and_the_first_goes_on(
    tmp_path: Path,
) -> None:
    app, model = scripted_app(tmp_path / "t.db", [SLOW_SUMMARY, "a second summary"])
    async with app.run_test(size=SIZE) as pilot:
        screen, _, log = await ready_to_compact(pilot)
        await pilot.press("f9", "f9")
        assert "already" in status(screen)
        await wait_until(pilot, lambda: log.boundary == 6)
        assert len(model.calls) == 1
