"""ctrl+f searches every message; Enter opens the session at the message found."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from textual import events
from textual.pilot import Pilot
from textual.widgets import Input, OptionList

from oncall_tui.store.sessions import MessageRepository, SessionRepository
from oncall_tui.tui.app import OncallApp
from oncall_tui.tui.chat_log import ChatLog
from oncall_tui.tui.panes.chat import PAGE_SIZE
from oncall_tui.tui.panes.shown import REACH_BACK
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.screens.search import SearchScreen
from oncall_tui.tui.widgets.plain_text import PlainText
from tests.tui.harness import bulk_seed, scripted_app, wait_until

SIZE = (120, 36)


def seed(app: OncallApp, title: str, texts: list[str]) -> int:
    with app.services.database.session() as session:
        chat = SessionRepository(session).create("alice", title, "every_30_turns")
        messages = MessageRepository(session)
        for i, content in enumerate(texts):
            messages.add(chat, "user" if i % 2 == 0 else "assistant", content)
        assert chat.id is not None
        return chat.id


async def typed_into_search(pilot: Pilot[None], term: str, hits: int) -> SearchScreen:
    """ctrl+f, ``term`` typed, and the search screen once it lists ``hits`` hits."""
    app = pilot.app
    await pilot.press("ctrl+f")
    await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen))
    await pilot.press(*term)
    search = app.screen
    assert isinstance(search, SearchScreen)
    await wait_until(pilot, lambda: len(search.hits) == hits)
    return search


def main(app: OncallApp) -> MainScreen:
    screen = app.screen_stack[0]
    assert isinstance(screen, MainScreen)
    return screen


async def test_a_chinese_term_finds_the_message_and_enter_opens_it_there(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        filler = [f"routine check {i}" for i in range(60)]
        target = seed(app, "payments", [*filler[:10], "网关报告上游超时", *filler[10:]])
        seed(app, "other", ["nothing here", "still nothing"])
        search = await typed_into_search(pilot, "超时", 1)
        results = search.query_one(OptionList)
        assert "网关报告上游超时" in str(results.get_option_at_index(0).prompt)
        await pilot.press("enter")
        screen = main(app)
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        log = screen.query_one(ChatLog)
        await wait_until(pilot, lambda: log.selected is not None)
        assert screen.session_id == target
        assert log.selected is not None
        assert log.selected.content == "网关报告上游超时"
        assert log.selected.position == 10  # older than the newest page: the page reached back
        assert len(log.messages) > PAGE_SIZE


async def test_a_match_further_back_than_the_reach_opens_the_newest_page_and_says_so(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        session_id = bulk_seed(app, REACH_BACK + PAGE_SIZE + 10)
        with sqlite3.connect(app.services.settings.db_path) as connection:
            connection.execute(
                "UPDATE message SET content = 'kafka rebalance storm' "
                "WHERE session_id = ? AND position = 3",
                (session_id,),
            )
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen))
        app.screen.query_one(Input).value = "rebalance"
        search = app.screen
        assert isinstance(search, SearchScreen)
        await wait_until(pilot, lambda: len(search.hits) == 1)
        await pilot.press("down", "enter")
        screen = main(app)
        status = screen.query_one("#status", PlainText)
        await wait_until(pilot, lambda: "ctrl+up" in status.text)
        assert screen.session_id == session_id
        assert len(screen.query_one(ChatLog).messages) == PAGE_SIZE


async def test_a_query_too_short_says_why_and_esc_closes(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen))
        await pilot.press("x")
        note = app.screen.query_one("#search-note")
        await wait_until(pilot, lambda: "2" in str(note.render()))
        await pilot.press("escape")
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))


async def test_nothing_found_is_said(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        seed(app, "db", ["disk full on db-3"])
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen))
        await pilot.press(*"zookeeper")
        note = app.screen.query_one("#search-note")
        await wait_until(pilot, lambda: "No message" in str(note.render()))


async def test_enter_right_behind_the_query_opens_the_newest_hit(tmp_path: Path) -> None:
    """Keys and Enter in one burst (tmux send-keys, a fast typist): no typing pause ran."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        older = seed(app, "first", ["pool exhausted on payments"])
        newer = seed(app, "second", ["pool exhausted again"])
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen))
        await pilot.press(*"exhausted", "enter")
        screen = main(app)
        await wait_until(pilot, lambda: screen.session_id == newer)
        assert older != newer


async def test_a_line_pasted_past_the_querys_bound_keeps_what_fits(tmp_path: Path) -> None:
    """Found in tmux: a 270-character log line pasted into the search (its bound is 200)
    was dropped, the field left empty and nothing said. What fits is kept, and the bell
    rings for the rest."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+f")
        await wait_until(pilot, lambda: isinstance(app.screen, SearchScreen))
        field = app.screen.query_one(Input)
        await wait_until(pilot, lambda: app.focused is field)
        app.post_message(events.Paste("redis " * 45))
        await wait_until(pilot, lambda: len(field.value) == 200)
        assert field.value == ("redis " * 45)[:200]


async def test_a_hit_deep_in_a_long_message_opens_with_its_line_in_view(tmp_path: Path) -> None:
    """Found in tmux: a hit in a 900-line log pasted as one message opened at the message's
    top, the matching line hundreds of lines below it."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        lines = [f"02:{n % 60:02} api-{n} upstream ok" for n in range(300)]
        lines[150] = "02:30 pool-299 exhausted"
        seed(app, "payments", ["the log:\n\n" + "\n".join(lines), "The pool ran out."])
        await typed_into_search(pilot, "pool-299", 1)
        await pilot.press("enter")
        screen = main(app)
        await wait_until(pilot, lambda: isinstance(app.screen, MainScreen))
        log = screen.query_one(ChatLog)
        await wait_until(pilot, lambda: log.selected is not None)

        def in_view() -> list[str]:
            top = log.scroll_offset.y
            rows = [log.line_at(top + y) for y in range(log.size.height)]
            return [row.text for row in rows if row is not None]

        await wait_until(pilot, lambda: any("pool-299 exhausted" in row for row in in_view()))
