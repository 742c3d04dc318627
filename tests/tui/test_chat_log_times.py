"""Each message shows when it was said, compactly in its header and in full in what is copied.

Times are built in local time (``datetime(...).astimezone()``) and the clocks are fixed: the
tests hold whatever the machine's zone and whatever day they run.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from textual.widgets import OptionList

from oncall_tui.core.memory import ContextUsage, MemoryMode, MemoryState
from oncall_tui.store.sessions import SessionRepository
from oncall_tui.tui.chat_log import ChatLog, MessageBlock
from oncall_tui.tui.chat_log.times import full_time, local, short_time
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.screens.search import SearchScreen
from oncall_tui.tui.screens.summary import summary_header
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.plain_text import PlainText
from tests.fakes.chat_model import Turn
from tests.tui.harness import scripted_app, seed_session, wait_until
from tests.tui.test_chat_log_segments import lines_of, texts

NOW = datetime(2026, 11, 30, 0, 20).astimezone()
"""Twenty past midnight, local: an incident that began yesterday evening."""


def stored(moment: datetime) -> datetime:
    """``moment`` as the store keeps it: UTC, naive."""
    return moment.astimezone(UTC).replace(tzinfo=None)


def test_a_header_says_the_time_today_and_the_date_another_day() -> None:
    assert short_time(NOW, NOW, "en") == "00:20"
    assert short_time(NOW.replace(hour=0, minute=0), NOW, "en") == "00:00"  # today from midnight
    assert (
        short_time(NOW.replace(hour=0, minute=0) - timedelta(minutes=1), NOW, "en")
        == "Nov 29 23:59"
    )
    assert short_time(datetime(2026, 1, 2, 9, 5).astimezone(), NOW, "en") == "Jan 2 09:05"
    assert short_time(datetime(2025, 11, 30, 9, 5).astimezone(), NOW, "en") == "2025-11-30 09:05"
    assert full_time(NOW) == "2026-11-30 00:20"  # always the date, for a pasted timeline


def test_a_chinese_header_writes_another_days_date_with_numbers() -> None:
    assert short_time(datetime(2026, 3, 4, 12, 41).astimezone(), NOW, "zh") == "3月4日 12:41"
    assert short_time(NOW, NOW, "zh") == "00:20"
    assert short_time(datetime(2025, 11, 30, 9, 5).astimezone(), NOW, "zh") == "2025-11-30 09:05"


def test_stored_times_are_utc_when_naive_and_shown_in_local_time() -> None:
    naive = stored(NOW)
    assert naive.tzinfo is None
    assert short_time(naive, NOW, "en") == "00:20"
    elsewhere = NOW.astimezone(timezone(timedelta(hours=-7)))  # the same moment, another zone
    assert short_time(elsewhere, NOW, "en") == "00:20"
    assert local(naive) == NOW


def in_zone(monkeypatch: pytest.MonkeyPatch, zone: str) -> Iterator[None]:
    """The process in ``zone`` while the test runs, then back."""
    if not hasattr(time, "tzset"):
        pytest.skip("the zone cannot be changed here")
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture
def kolkata(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A zone 5:30 ahead of UTC, without daylight saving."""
    yield from in_zone(monkeypatch, "Asia/Kolkata")


@pytest.fixture
def berlin(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A zone with daylight saving: UTC+1 in winter, UTC+2 in summer."""
    yield from in_zone(monkeypatch, "Europe/Berlin")


def test_a_naive_stored_time_is_utc_whatever_the_zone(kolkata: None) -> None:
    said = datetime(2026, 11, 30, 0, 20)  # as the store keeps it: UTC, naive
    now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    assert short_time(said, now, "en") == "05:50"
    assert full_time(said) == "2026-11-30 05:50"
    assert short_time(datetime(2026, 11, 29, 18, 29), now, "en") == "Nov 29 23:59"  # local days


def test_a_message_block_is_dated_by_its_clock_unless_told_when_it_was_said() -> None:
    ticks = iter([NOW, NOW + timedelta(minutes=1)])
    question = MessageBlock("user", "db-3 disk alert", clock=lambda: next(ticks), lang="en")
    assert question.created_at == NOW  # a new message: now
    assert question.header == "you · 00:20"
    said = NOW - timedelta(hours=1)
    reply = MessageBlock(
        "assistant",
        "Check the WAL.",
        status="failed",
        created_at=stored(said),
        clock=lambda: NOW,
        lang="en",
    )
    assert reply.header == "assistant · ✗ failed · Nov 29 23:20"
    assert reply.copy_text() == "[2026-11-29 23:20] assistant · ✗ failed\nCheck the WAL."
    assert question.copy_text() == "[2026-11-30 00:20] you\ndb-3 disk alert"


async def test_a_reopened_session_shows_each_message_time_across_midnight(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        screen = app.screen
        assert isinstance(screen, MainScreen)
        log = screen.query_one(ChatLog)
        log.clock = lambda: NOW
        session_id = seed_session(app, 2)
        said = [NOW - timedelta(minutes=m) for m in (40, 35, 10, 5)]  # 23:40 ... 00:15
        with sqlite3.connect(app.services.settings.db_path) as connection:
            connection.executemany(
                "UPDATE message SET created_at = ? WHERE session_id = ? AND position = ?",
                [(str(stored(at)), session_id, i) for i, at in enumerate(said)],
            )
        screen.shown.open(session_id)
        await wait_until(pilot, lambda: len(log.messages) == 4)
        headers = [texts(lines_of(log, message))[0] for message in log.messages]
        assert headers == [
            "you · Nov 29 23:40",
            "assistant · Nov 29 23:45",
            "you · 00:10",
            "assistant · 00:15",
        ]
        await wait_until(pilot, lambda: log.size.height > 0)  # on screen, as a person sees it
        log.focus()
        await pilot.press("up", "up", "up")  # from the newest to the first
        assert log.selected is log.messages[0]
        await pilot.press("c")
        assert app.clipboard == "[2026-11-29 23:40] you\nquestion 0"


async def test_a_sent_message_and_its_reply_show_the_time_and_copy_with_it(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db", [Turn(text="Roll back 1.42.0.")])
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        log = app.screen.query_one(ChatLog)
        log.clock = lambda: NOW
        app.query_one(Composer).text = "p99 2.4 s on POST /charge\nsince 00:12"
        await pilot.press("enter")
        await wait_until(pilot, lambda: [m.status for m in log.messages] == ["complete"] * 2)
        question, reply = log.messages
        assert texts(lines_of(log, question)) == [
            "you · 00:20",
            "p99 2.4 s on POST /charge",
            "since 00:12",
        ]
        assert texts(lines_of(log, reply))[0] == "assistant · 00:20"
        log.focus()
        await pilot.press("c")  # the newest message is selected: copied with its model
        model = app.services.settings.model
        assert app.clipboard == f"[2026-11-30 00:20] assistant · {model}\nRoll back 1.42.0."


def test_the_summary_is_dated_in_local_time_as_the_messages_around_it(kolkata: None) -> None:
    """The panel and the summary said ``04:59 UTC`` where the chat beside them said 10:29."""
    compacted = datetime(2026, 11, 30, 4, 59)  # as the store keeps it: UTC, naive
    memory = MemoryState(
        session_id=1,
        memory_mode=MemoryMode.MANUAL,
        memory_summary="Disk full on db-3.",
        memory_summary_status="complete",
        compacted_message_count=4,
        usage=ContextUsage(100, 8192),
        can_compact=True,
        last_compacted_at=compacted,
    )
    assert summary_header(memory, "en")[0] == "Summarises 4 earlier messages · 2026-11-30 10:29"
    assert full_time(compacted) == "2026-11-30 10:29"


async def test_the_panel_dates_the_summary_in_local_time(tmp_path: Path, kolkata: None) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        session_id = seed_session(app, 2, compacted=4, summary="Disk full on db-3.")
        with app.services.database.session() as session:
            chat = SessionRepository(session).require("alice", session_id)
            chat.last_compacted_at = datetime(2026, 11, 30, 4, 59, tzinfo=UTC)
            SessionRepository(session).save(chat)
        screen.shown.open(session_id)
        summary = screen.query_one("#summary", PlainText)
        await wait_until(pilot, lambda: "Disk full" in summary.text)
        assert "(2026-11-30 10:29)" in summary.text


async def test_a_search_hit_says_the_time_its_message_says(
    tmp_path: Path, berlin: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A summer message searched in winter was an hour early: the hit took today's offset."""
    winter = datetime(2026, 12, 7, 12, 0).astimezone()  # as local_now gives it: a fixed offset
    monkeypatch.setattr("oncall_tui.tui.screens.search.local_now", lambda: winter)
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 36)) as pilot:
        session_id = seed_session(app, 1, title="summer outage")
        with sqlite3.connect(app.services.settings.db_path) as connection:
            connection.execute(
                "UPDATE message SET created_at = '2026-07-15 10:00:00' WHERE session_id = ?",
                (session_id,),
            )
        assert short_time(datetime(2026, 7, 15, 10, 0), winter, "en") == "Jul 15 12:00"
        await pilot.press("ctrl+f", *"question")
        await wait_until(
            pilot, lambda: isinstance(app.screen, SearchScreen) and bool(app.screen.hits)
        )
        assert isinstance(app.screen, SearchScreen)
        hit = str(app.screen.query_one(OptionList).get_option_at_index(0).prompt)
        assert "Jul 15 12:00 · you" in hit
