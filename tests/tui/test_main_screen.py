"""The main screen driven by Pilot: the real app, a real SQLite file, a scripted model."""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import pytest
from textual import events
from textual.app import App
from textual.pilot import Pilot
from textual.widgets import OptionList, Static

from oncall_tui.core.events import ChatEvent, TokenDelta, UserMessageStored
from oncall_tui.core.memory import DEFAULT_MEMORY_MODE, MemoryMode
from oncall_tui.errors import OncallError
from oncall_tui.llm.gateway import ModelReadiness
from oncall_tui.settings import Settings
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from oncall_tui.tui.app import OncallApp, build_app
from oncall_tui.tui.chat_log import ChatLog, MessageBlock
from oncall_tui.tui.panes.chat import PAGE_SIZE
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.context_panel import ContextPanel
from oncall_tui.tui.widgets.dialogs import ConfirmDialog
from oncall_tui.tui.widgets.key_bar import KeyBar
from oncall_tui.tui.widgets.plain_text import PlainText
from oncall_tui.tui.widgets.session_list import SessionList
from tests.fakes.chat_model import ScriptedChatModel, Turn, TurnLike
from tests.fakes.gateway import StaticGateway
from tests.tui.harness import bulk_seed, question_read, scripted_app, seed_session, wait_until

SIZE = (120, 36)


def main_screen(app: App[Any]) -> MainScreen:
    screen = app.screen
    assert isinstance(screen, MainScreen)
    return screen


def blocks(screen: MainScreen) -> list[MessageBlock]:
    return screen.query_one(ChatLog).messages


def drawn(log: ChatLog) -> list[str]:
    """Every line of the log as drawn, in view or not."""
    return [line.text for y in range(log.virtual_size.height) if (line := log.line_at(y))]


async def reply_under_way(pilot: Pilot[None]) -> MainScreen:
    """Send from a new session and wait for the first text of the reply."""
    screen = main_screen(pilot.app)
    pilot.app.query_one(Composer).text = "long answer please"
    await pilot.press("enter")
    await wait_until(pilot, lambda: len(blocks(screen)) == 2 and bool(blocks(screen)[1].content))
    return screen


def status_text(screen: MainScreen) -> str:
    return str(screen.query_one("#status", Static).render())


async def test_opens_on_the_newest_session_with_the_cursor_in_the_composer(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        older = seed_session(app, 1, title="older")
        newest = seed_session(app, 2, title="newest")
        main_screen(app).shown.load(open_newest=True)
        await wait_until(pilot, lambda: main_screen(app).session_id == newest)
        await wait_until(pilot, lambda: len(blocks(main_screen(app))) == 4)
        assert isinstance(app.focused, Composer)
        titles = [s.title for s in main_screen(app).query_one(SessionList).sessions]
        assert titles == ["newest", "older"]
        assert older != newest


async def test_an_empty_database_opens_a_new_session_ready_to_type(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert main_screen(app).session_id is None
        assert isinstance(app.focused, Composer)
        await pilot.press("h", "i")
        assert app.query_one(Composer).text == "hi"


async def test_send_streams_the_reply_and_stores_both_messages(tmp_path: Path) -> None:
    app, model = scripted_app(
        tmp_path / "t.db", [Turn(text="Check **OOMKilled** first.", chunk_size=3)]
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await app.workers.wait_for_complete()
        app.query_one(Composer).text = "api-7 crashloops"
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: (
                not screen.sending
                and len(blocks(screen)) == 2
                and blocks(screen)[1].status == "complete"
            ),
        )
        user, reply = blocks(screen)
        assert (user.content, reply.content) == ("api-7 crashloops", "Check **OOMKilled** first.")
        assert app.query_one(Composer).text == ""
        assert screen.session_id is not None
        stored = app.services.sessions.messages("alice", screen.session_id)
        assert [(m.role, m.content) for m in stored] == [
            ("user", "api-7 crashloops"),
            ("assistant", "Check **OOMKilled** first."),
        ]
        await wait_until(pilot, lambda: screen.query_one(ContextPanel).gauge.used > 0)
        assert len(model.calls) == 1


async def test_a_model_that_reasons_first_is_said_to_think_and_its_answer_alone_shows(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reasoning = "<think>\nThe pods restarted after the deploy of r42.\n</think>\n\n"
    app, _ = scripted_app(tmp_path / "t.db", [Turn(text=reasoning + "Roll back.", chunk_size=4)])
    thought: list[str] = []
    monkeypatch.setattr(MessageBlock, "think", lambda block: thought.append(block.content))
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await app.workers.wait_for_complete()
        app.query_one(Composer).text = "api-7 crashloops"
        await pilot.press("enter")
        await wait_until(pilot, lambda: not screen.sending and len(blocks(screen)) == 2)
        assert thought == [""]  # once, before the answer's first word
        assert blocks(screen)[1].content == "Roll back."


async def test_ctrl_j_inserts_a_newline_instead_of_sending(tmp_path: Path) -> None:
    app, model = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("a", "ctrl+j", "b")
        assert app.query_one(Composer).text == "a\nb"
        assert model.calls == []


async def test_escape_cancels_and_keeps_the_partial_reply_marked(tmp_path: Path) -> None:
    slow = Turn(
        text="one two three four five six seven eight nine ten", chunk_size=4, delay_per_chunk=0.15
    )
    app, _ = scripted_app(tmp_path / "t.db", [slow])
    async with app.run_test(size=SIZE) as pilot:
        screen = await reply_under_way(pilot)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not screen.sending)
        reply = blocks(screen)[1]
        await wait_until(pilot, lambda: reply.status == "interrupted")
        assert any("assistant · ⏸ interrupted" in line for line in drawn(screen.query_one(ChatLog)))
        stored = app.services.sessions.messages("alice", screen.session_id or 0)
        assert stored[1].status == "interrupted"
        assert stored[1].content == reply.content
        assert 0 < len(reply.content) < len(slow.text)


async def test_another_session_waits_for_the_reply_and_the_status_line_says_why(
    tmp_path: Path,
) -> None:
    """Found in tmux: a session chosen in the list mid-reply did not open, and nothing said
    why. The reply keeps its session open; each way to leave it says so."""
    slow = Turn(text="one two three four five six " * 20, chunk_size=4, delay_per_chunk=0.1)
    app, _ = scripted_app(tmp_path / "t.db", [slow])
    async with app.run_test(size=SIZE) as pilot:
        screen = await reply_under_way(pilot)
        streaming = screen.session_id
        other = seed_session(app, 1, title="db-3 disk full")  # seeded first, it could open
        screen.shown.load()
        listing = screen.query_one(SessionList)
        await wait_until(pilot, lambda: any(s.id == other for s in listing.sessions))
        await pilot.press("alt+l", *"db-3", "enter")  # the list's filter, then Enter
        await wait_until(pilot, lambda: "still streaming" in status_text(screen))
        assert screen.session_id == streaming
        # Back in the composer: a question typed next went into the filter.
        await wait_until(pilot, lambda: isinstance(app.focused, Composer))
        screen.status.say("")
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: "still streaming" in status_text(screen))
        assert screen.session_id == streaming
        assert screen.sending
        await pilot.press("escape")
        await wait_until(pilot, lambda: not screen.sending)
        screen.query_one(SessionList).post_message(SessionList.Opened(other))
        await wait_until(pilot, lambda: screen.session_id == other)


async def test_the_refusal_is_said_no_more_once_the_reply_has_ended(tmp_path: Path) -> None:
    """Found in tmux: ctrl+n mid-reply said "A reply is still streaming" and went on saying
    it after the reply had ended."""
    short = Turn(text="one two three four " * 4, chunk_size=8, delay_per_chunk=0.1)
    app, _ = scripted_app(tmp_path / "t.db", [short])
    async with app.run_test(size=SIZE) as pilot:
        screen = await reply_under_way(pilot)
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: "still streaming" in status_text(screen))
        await wait_until(pilot, lambda: not screen.sending)
        assert blocks(screen)[1].status == "complete"
        assert status_text(screen) == ""


async def test_a_last_message_without_an_answer_says_how_to_ask_again(tmp_path: Path) -> None:
    """Found in tmux: a session whose reply had failed with nothing kept reopened as a question
    with nothing under it, and nothing said that ctrl+r asks again."""
    app, _ = scripted_app(tmp_path / "t.db", [])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen_stack[0]
        assert isinstance(screen, MainScreen)
        answered = seed_session(app, 1, title="answered")
        unanswered = seed_session(app, 1, title="unanswered")
        with app.services.database.session() as session:
            chat = SessionRepository(session).require("alice", unanswered)
            MessageRepository(session).add(chat, "user", "why is checkout failing?")

        async def opened(session_id: int, count: int) -> str:
            screen.query_one(SessionList).post_message(SessionList.Opened(session_id))
            await wait_until(pilot, lambda: len(blocks(screen)) == count)
            await pilot.pause()
            return status_text(screen)

        said = "Your last message has no answer yet: ctrl+r asks the model again"
        assert (await opened(unanswered, 3)).startswith(said)
        assert await opened(answered, 2) == ""
        app.services.has_held = lambda: True  # type: ignore[method-assign]  # its answer is held
        assert await opened(unanswered, 3) == ""  # for the database: it goes in, not asked again


async def test_the_session_a_reply_streams_into_is_not_deleted_from_under_it(
    tmp_path: Path,
) -> None:
    """Found in tmux: f8 and y mid-reply deleted the session; its answer streamed on into a
    session gone, was not saved, and nothing said so. Deleting it is leaving it: refused, with
    how to stop the reply. Another session may still be deleted."""
    slow = Turn(text="one two three four five six " * 20, chunk_size=4, delay_per_chunk=0.1)
    app, _ = scripted_app(tmp_path / "t.db", [slow])
    async with app.run_test(size=SIZE) as pilot:
        screen = await reply_under_way(pilot)
        streaming = screen.session_id
        other = seed_session(app, 1, title="db-3 disk full")
        await pilot.press("f8")
        await wait_until(pilot, lambda: "still streaming" in status_text(screen))
        assert app.screen is screen  # no question asked
        screen.query_one(SessionList).post_message(SessionList.DeleteRequested(other))
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await pilot.pause(0.5)  # the question is on screen long enough for a y to count
        await pilot.press("y")
        await wait_until(pilot, lambda: [s.id for s in screen.sessions.sessions] == [streaming])
        assert screen.sending
        assert screen.session_id == streaming


@pytest.mark.parametrize(("elsewhere", "done"), [("delete", "deleted"), ("clear", "cleared")])
async def test_a_session_deleted_or_cleared_elsewhere_mid_reply_says_its_answer_is_not_kept(
    tmp_path: Path, elsewhere: str, done: str
) -> None:
    """Found in tmux, with the CLI while the answer came. Deleted: the session closed and the
    status line said "No session '1' found" (the panel's read), then nothing at all. Cleared:
    the answer stayed on screen as if streaming still, and as if it were kept."""
    slow = Turn(text="one two three four five six " * 10, chunk_size=4, delay_per_chunk=0.05)
    app, _ = scripted_app(tmp_path / "t.db", [slow])
    async with app.run_test(size=SIZE) as pilot:
        screen = await reply_under_way(pilot)
        streaming = screen.session_id
        assert streaming is not None
        getattr(app.services.sessions, elsewhere)("alice", streaming)  # another window
        await wait_until(pilot, lambda: not screen.sending)
        await pilot.pause(0.3)  # the reads after the send have answered
        said = status_text(screen)
        assert f"Session {streaming} was {done} while its answer came" in said
        assert "the answer was not saved" in said
        if elsewhere == "delete":  # the screen leaves it; what is said stays
            await wait_until(pilot, lambda: screen.session_id is None)
            assert f"Session {streaming} was deleted" in status_text(screen)
            return
        reply = blocks(screen)[-1]
        assert (reply.role, reply.status) == ("assistant", "failed")
        note = " ".join(" ".join(drawn(screen.query_one(ChatLog))).replace("▌", " ").split())
        assert "the answer was not saved" in note  # its note, wrapped at the log's width


async def test_the_gauge_counts_the_message_just_sent_while_the_reply_comes(
    tmp_path: Path,
) -> None:
    """Found in tmux: a 4,000-character message sent in a new session, and the gauge stayed at
    the empty session's 10% until the reply ended, then jumped to 61%."""
    slow = Turn(text="one two three four five six " * 20, chunk_size=4, delay_per_chunk=0.1)
    app, _ = scripted_app(tmp_path / "t.db", [slow])
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        gauge = screen.query_one(ContextPanel).gauge
        await wait_until(pilot, lambda: gauge.window > 0)
        empty = gauge.used
        app.query_one(Composer).text = "disk full on db-3, here is df -h: " + "/dev/sda1 99% " * 200
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.sending and bool(blocks(screen)[-1].content))
        await wait_until(pilot, lambda: gauge.used > empty + 500)
        assert screen.sending  # counted while the reply streams, not after it
        await pilot.press("escape")


async def test_quitting_mid_reply_keeps_it_marked_interrupted(tmp_path: Path) -> None:
    slow = Turn(text="one two three four five six " * 20, chunk_size=4, delay_per_chunk=0.1)
    app, _ = scripted_app(tmp_path / "t.db", [slow])
    async with app.run_test(size=SIZE) as pilot:
        screen = await reply_under_way(pilot)
        session_id = screen.session_id or 0
        await pilot.press("ctrl+q")
    # Run inside another program (this test), the app never ends it: its exit deadline,
    # which ends the real program 0.7 s after ctrl+q, stays unarmed.
    assert not app.deadline.armed
    deadline = time.monotonic() + 10
    while (stored := app.services.sessions.messages("alice", session_id))[-1].role != "assistant":
        assert time.monotonic() < deadline, "the partial reply was not stored"
        time.sleep(0.05)
    assert stored[-1].status == "interrupted"
    assert 0 < len(stored[-1].content) < len(slow.text)


async def test_at_95_percent_the_send_is_blocked_and_the_text_stays(tmp_path: Path) -> None:
    app, model = scripted_app(tmp_path / "t.db", window=400)  # the base prompt alone is >95%
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await wait_until(pilot, lambda: screen.query_one(ContextPanel).gauge.ratio >= 0.95)
        app.query_one(Composer).text = "please help"
        await pilot.press("enter")
        await wait_until(pilot, lambda: "limit 95%" in status_text(screen))
        assert app.query_one(Composer).text == "please help"
        assert "the prompt, the skills and the tools alone take" in status_text(screen)
        assert "compacts" not in status_text(screen)  # there is nothing to compact
        assert model.calls == []
        assert app.services.sessions.list_sessions("alice") == []


async def test_the_service_rejection_also_keeps_the_text(tmp_path: Path) -> None:
    app, model = scripted_app(tmp_path / "t.db", window=2000)
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await app.workers.wait_for_complete()
        app.query_one(Composer).text = "word " * 3000  # fine for the gauge, too big to send
        await pilot.press("enter")
        await wait_until(pilot, lambda: "limit 95%" in status_text(screen))
        assert app.query_one(Composer).text == "word " * 3000
        assert model.calls == []


async def test_compaction_shows_a_divider_and_older_messages_stay_readable(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db", ["Goal: fix api-7.", "Reply after summary."])
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await app.workers.wait_for_complete()
        session_id = seed_session(app, 30)
        screen.shown.open(session_id)
        await wait_until(pilot, lambda: len(blocks(screen)) == PAGE_SIZE)
        app.query_one(Composer).text = "what next?"
        await pilot.press("enter")
        log = screen.query_one(ChatLog)
        await wait_until(pilot, lambda: not screen.sending and log.boundary == 60)
        assert any("60 earlier messages summarised" in line for line in drawn(log))
        assert app.services.sessions.get("alice", session_id).compacted_message_count == 60
        await pilot.press("ctrl+up")  # older messages are still there to read
        await wait_until(
            pilot, lambda: len([b for b in blocks(screen) if b.position is not None]) == 60
        )
        assert blocks(screen)[0].content == "question 0"
        await wait_until(
            pilot, lambda: "Goal: fix api-7." in str(screen.query_one("#summary", Static).render())
        )


def keys_shown(bar: KeyBar) -> list[tuple[str, str]]:
    return [(key.key, key.description) for key in bar.shown]


def mode_shown(screen: MainScreen) -> str:
    return screen.query_one("#mode", PlainText).text


async def test_changing_the_memory_mode_is_saved(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db", ["summary of it"])
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await app.workers.wait_for_complete()
        session_id = seed_session(app, 2)
        screen.shown.open(session_id)
        await wait_until(pilot, lambda: screen.memory is not None)

        def stored() -> MemoryMode:
            return app.services.sessions.get("alice", session_id).memory_mode

        assert mode_shown(screen) == "◂ Every 30 replies ▸"
        screen.query_one("#mode").focus()
        bar = screen.query_one(KeyBar)
        await wait_until(pilot, lambda: ("enter", "Next mode") in keys_shown(bar))
        await pilot.press("right")
        await wait_until(pilot, lambda: mode_shown(screen) == "◂ At 70% of the window ▸")
        assert stored() is MemoryMode.CONTEXT_70_PERCENT
        await pilot.press("left")
        await wait_until(pilot, lambda: stored() is MemoryMode.EVERY_30_TURNS)
        await pilot.click("#mode")  # a click, as Enter: the next mode
        await wait_until(pilot, lambda: stored() is MemoryMode.CONTEXT_70_PERCENT)
        await pilot.press("enter")  # manual compacts first: it asks, and shows it once stored
        await question_read(pilot)
        assert mode_shown(screen) == "◂ At 70% of the window ▸"
        await pilot.press("y")
        await wait_until(
            pilot,
            lambda: app.services.sessions.get("alice", session_id).compacted_message_count == 4,
        )
        await wait_until(pilot, lambda: mode_shown(screen) == "◂ Manual only ▸")
        assert stored() is MemoryMode.MANUAL


async def test_the_mode_chosen_while_a_reply_streams_is_refused_and_not_shown(
    tmp_path: Path,
) -> None:
    slow = Turn(text="one two three four five six " * 20, chunk_size=4, delay_per_chunk=0.1)
    app, _ = scripted_app(tmp_path / "t.db", [slow])
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        mode = screen.query_one("#mode")
        assert mode.disabled  # before the open session's memory is read: nothing to set
        await app.workers.wait_for_complete()
        session_id = seed_session(app, 2)
        screen.shown.open(session_id)
        await wait_until(pilot, lambda: not mode.disabled)
        app.query_one(Composer).text = "long answer please"
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: len(blocks(screen)) == 6 and bool(blocks(screen)[5].content)
        )
        mode.focus()
        await pilot.press("space")  # typed here by mistake: it goes on in the composer
        await pilot.pause(0.2)
        assert "memory can change after it" not in status_text(screen)
        assert app.focused is app.query_one(Composer)
        mode.focus()
        await pilot.press("enter")
        await wait_until(pilot, lambda: "memory can change after it" in status_text(screen))
        assert mode_shown(screen) == "◂ Every 30 replies ▸"
        assert app.services.sessions.get("alice", session_id).memory_mode is DEFAULT_MEMORY_MODE


async def test_a_10000_message_session_mounts_one_page(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await app.workers.wait_for_complete()
        session_id = bulk_seed(app, 10_000, compacted=9_990)
        screen.shown.open(session_id)
        log = screen.query_one(ChatLog)
        await wait_until(pilot, lambda: log.earlier == 9_960)
        assert "9,960 earlier messages" in drawn(log)[0]
        assert len(blocks(screen)) == PAGE_SIZE
        assert blocks(screen)[-1].content == "message 9999"
        assert sum("earlier messages summarised" in line for line in drawn(log)) == 1


async def first_send_failed(pilot: Pilot[None], app: OncallApp) -> MainScreen:
    """ "is it up?" sent, and its reply shown failed, the send over."""
    screen = main_screen(app)
    app.query_one(Composer).text = "is it up?"
    await pilot.press("enter")
    await wait_until(
        pilot, lambda: len(blocks(screen)) == 2 and blocks(screen)[1].status == "failed"
    )
    await app.workers.wait_for_complete()
    return screen


async def test_a_reply_that_fails_after_the_message_is_stored_leaves_the_composer_empty(
    tmp_path: Path,
) -> None:
    """The message is in the log and the database: Enter must not store it a second time."""
    app, _ = scripted_app(tmp_path / "t.db", [Turn.raises(ConnectionRefusedError("down"))])
    async with app.run_test(size=SIZE) as pilot:
        screen = await first_send_failed(pilot, app)
        assert app.query_one(Composer).text == ""
        assert "not reachable" in status_text(screen)
        assert "retry answers it again. (ctrl+r retries)" in status_text(screen)
        assert "(ctrl+r retries)" in " ".join(drawn(screen.query_one(ChatLog)))  # its note


async def test_ctrl_r_answers_the_failed_message_again(tmp_path: Path) -> None:
    turns: list[TurnLike] = [
        Turn.raises(ConnectionRefusedError("down"), after=1),
        "Upstream timeouts.",
    ]
    app, model = scripted_app(tmp_path / "t.db", turns)
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        app.query_one(Composer).text = "why 502s?"
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: len(blocks(screen)) == 2 and blocks(screen)[1].status != "streaming"
        )
        await app.workers.wait_for_complete()
        await pilot.press("ctrl+r")
        await wait_until(
            pilot, lambda: len(blocks(screen)) == 3 and blocks(screen)[2].status != "streaming"
        )
        assert [(b.role, b.status) for b in blocks(screen)] == [
            ("user", "complete"),
            ("assistant", "failed"),
            ("assistant", "complete"),
        ]
        assert blocks(screen)[2].content == "Upstream timeouts."
        assert [m.content for m in model.calls[1][1:]] == ["why 502s?"]  # the partial is not sent
        await app.workers.wait_for_complete()
        await pilot.press("ctrl+r")  # answered now: nothing to retry, and it says so
        await wait_until(pilot, lambda: "Nothing to retry" in status_text(screen))
        assert status_text(screen) == (
            "Nothing to retry: the last message here has its answer (a failed or stopped one "
            "is answered again)."
        )
        assert not screen.status.is_error  # a key pressed: no "Invalid argument"
        assert len(blocks(screen)) == 3


async def test_a_retry_that_fails_before_any_word_shows_a_failed_attempt_of_its_own(
    tmp_path: Path,
) -> None:
    """ctrl+r on a reply that failed with no word, failing again with none: the screen stayed
    as it was (the same failed entry, its time the first attempt's, the same status line), as
    if the key had done nothing. Each attempt shows as an entry of its own, failed."""
    down = ConnectionRefusedError("down")
    app, model = scripted_app(tmp_path / "t.db", [Turn(error=down), Turn(error=down)])
    async with app.run_test(size=SIZE) as pilot:
        screen = await first_send_failed(pilot, app)
        await pilot.press("ctrl+r")
        await wait_until(pilot, lambda: len(model.calls) == 2 and not screen.sending)
        await wait_until(pilot, lambda: len(blocks(screen)) == 3)
        assert [(b.role, b.status) for b in blocks(screen)] == [
            ("user", "complete"),
            ("assistant", "failed"),
            ("assistant", "failed"),
        ]
        assert "(ctrl+r retries)" in " ".join(drawn(screen.query_one(ChatLog)))


async def test_a_send_refused_before_storing_keeps_the_text_to_resend(tmp_path: Path) -> None:
    class ServerDown(StaticGateway):
        def check_ready(self) -> ModelReadiness:
            raise OncallError("MODEL_UNAVAILABLE", url="http://127.0.0.1:11434")

    settings = Settings(db_path=tmp_path / "t.db", user="alice")
    app = build_app(settings, gateway=ServerDown(ScriptedChatModel(), 8192))
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        app.query_one(Composer).text = "is it up?"
        await pilot.press("enter")
        await wait_until(pilot, lambda: "not reachable" in status_text(screen))
        await app.workers.wait_for_complete()
        assert app.query_one(Composer).text == "is it up?"
        assert blocks(screen) == []
        assert app.services.sessions.list_sessions("alice") == []


async def test_sessions_can_be_created_filtered_and_reopened(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await app.workers.wait_for_complete()
        first = seed_session(app, 1, title="db-3 disk full")
        seed_session(app, 1, title="api latency")
        screen.shown.load(open_newest=True)
        await wait_until(pilot, lambda: len(screen.query_one(SessionList).sessions) == 2)
        await pilot.press("alt+l")
        await pilot.press(*"disk")
        options = screen.query_one("#session-options", OptionList)
        await wait_until(pilot, lambda: options.option_count == 1)
        await pilot.press("enter", "enter")
        await wait_until(pilot, lambda: screen.session_id == first)
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: screen.session_id is None and not blocks(screen))


async def test_a_late_start_up_load_does_not_switch_away_from_the_users_session(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await pilot.pause()  # the first frame, after which the start-up load begins
        await app.workers.wait_for_complete()
        chosen = seed_session(app, 1, title="the one the user picked")
        seed_session(app, 1, title="newest")
        screen.shown.id = None
        screen.shown.load(open_newest=True)  # its answer arrives after the user acted
        screen.shown.id = chosen
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.session_id == chosen


async def test_enter_right_behind_typed_text_sends_all_of_it(tmp_path: Path) -> None:
    """Keys arriving in one burst (a fast typist, tmux send-keys, an unbracketed paste)."""
    app, _ = scripted_app(tmp_path / "t.db", [Turn(text="Checking.")])
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await app.workers.wait_for_complete()
        for character in "pods?":
            app.post_message(events.Key(character, character))
        app.post_message(events.Key("enter", "\r"))
        await wait_until(pilot, lambda: len(blocks(screen)) == 2 and not screen.sending)
        assert blocks(screen)[0].content == "pods?"
        assert app.query_one(Composer).text == ""


async def test_a_fault_mid_reply_marks_it_failed_and_ends_the_stream(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    opened = seed_session(app, 1)

    async def broken(
        owner: str, session_id: int | None, text: str, *, confirm: object = None
    ) -> AsyncGenerator[ChatEvent, None]:
        yield UserMessageStored(opened, 3, text)
        yield TokenDelta("Checking the pods")
        raise RuntimeError("a bug, not a model failure")

    app.services.chat.send = broken  # type: ignore[method-assign]  # a fault inside the service
    async with app.run_test(size=SIZE) as pilot:
        screen = main_screen(app)
        await wait_until(pilot, lambda: len(blocks(screen)) == 2)  # the seeded session
        await app.workers.wait_for_complete()
        app.query_one(Composer).text = "status?"
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: len(blocks(screen)) == 4 and blocks(screen)[3].status != "streaming"
        )
        reply = blocks(screen)[3]
        await wait_until(pilot, lambda: reply.status == "failed")
        assert reply.content == "Checking the pods"
        assert "RuntimeError" in reply.body.text  # the catalogued message, as a note
        assert "RuntimeError" in status_text(screen)
        await wait_until(pilot, lambda: not screen.sending)  # the stream is over
