"""The composer's keys: ↑/↓ bring back earlier messages, one key empties it, select-all,
and ctrl+c stops a streaming reply as it does in the CLI."""

from __future__ import annotations

from pathlib import Path

from oncall_tui.store.sessions import MessageRepository, SessionRepository
from oncall_tui.tui.app import OncallApp
from oncall_tui.tui.chat_log import ChatLog
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets.composer import HISTORY_LIMIT, Composer
from tests.fakes.chat_model import Turn
from tests.tui.harness import keys_at_the_text_ends, scripted_app, wait_until

SIZE = (120, 36)


def write(app: OncallApp, owner: str, title: str, questions: list[str]) -> int:
    with app.services.database.session() as session:
        chat = SessionRepository(session).create(owner, title, "every_30_turns")
        for question in questions:
            MessageRepository(session).add(chat, "user", question)
            MessageRepository(session).add(chat, "assistant", f"answer to {question}")
        SessionRepository(session).save(chat)
        return chat.id or 0


async def test_up_brings_back_this_sessions_messages_then_the_others_and_down_goes_back(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    other = write(app, "alice", "other incident", ["df -h on db-1"])
    write(app, "bob", "not alice's", ["bob's secret"])
    opened = write(app, "alice", "open incident", ["kubectl get pods", "kubectl logs api-7"])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        composer = app.query_one(Composer)
        await wait_until(pilot, lambda: screen.session_id == opened and len(composer.earlier) == 3)
        assert other != opened
        seen = []
        for _ in range(4):  # one more than there are: the oldest stays
            await pilot.press("up")
            seen.append(composer.text)
        assert seen == ["kubectl logs api-7", "kubectl get pods", "df -h on db-1", "df -h on db-1"]
        await pilot.press("down", "down")
        assert composer.text == "kubectl logs api-7"
        await pilot.press("down")
        assert composer.text == ""


async def test_up_moves_the_cursor_in_typed_or_edited_text(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    write(app, "alice", "open incident", ["kubectl get pods"])
    async with app.run_test(size=SIZE) as pilot:
        composer = app.query_one(Composer)
        await wait_until(pilot, lambda: composer.earlier == ["kubectl get pods"])
        await pilot.press("a", "ctrl+j", "b", "up")
        assert (composer.text, composer.cursor_location) == ("a\nb", (0, 1))
        composer.clear()
        await pilot.press("up", "x", "up")  # recalled, then edited: ↑ is the cursor's again
        assert composer.text == "kubectl get podsx"


async def test_a_sent_message_is_the_first_one_up_brings_back(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db", [Turn(text="ok")])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        composer = app.query_one(Composer)
        await app.workers.wait_for_complete()
        composer.text = "systemctl status nginx"
        await pilot.press("enter")
        await wait_until(pilot, lambda: not screen.sending and composer.text == "")
        await pilot.press("up")
        assert composer.text == "systemctl status nginx"


def test_the_history_keeps_its_limit_and_each_message_once() -> None:
    composer = Composer()
    composer.remember([f"m{n}" for n in range(HISTORY_LIMIT + 1)])
    assert len(composer.earlier) == HISTORY_LIMIT
    assert composer.earlier[-1] == f"m{HISTORY_LIMIT - 1}"
    composer.remember(["m5"], newest=True)
    assert composer.earlier[:2] == ["m5", "m0"]
    assert composer.earlier.count("m5") == 1


async def test_ctrl_l_empties_the_composer_and_ctrl_z_brings_it_back(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        composer = app.query_one(Composer)
        pasted = "x" * 3_000
        composer.text = pasted
        await pilot.press("ctrl+l")
        assert composer.text == ""
        await pilot.press("ctrl+z")
        assert composer.text == pasted


async def test_alt_a_selects_everything_typed(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        composer = app.query_one(Composer)
        composer.text = "line one\nline two"
        await pilot.press("alt+a")
        assert composer.selected_text == "line one\nline two"
        await pilot.press("backspace")
        assert composer.text == ""


async def test_ctrl_home_and_ctrl_end_go_to_the_ends_of_the_text(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        composer = app.query_one(Composer)
        assert composer.has_focus
        typed, to_the_end, to_the_start = await keys_at_the_text_ends(pilot, composer)
    assert typed == "Afirst line\nsecond\nthird lineZ"
    assert to_the_end == "first line\nsecond\nthird lineZ"
    assert to_the_start == typed


async def test_ctrl_c_stops_a_streaming_reply_and_keeps_it_marked(tmp_path: Path) -> None:
    slow = Turn(text="one two three four five six " * 10, chunk_size=4, delay_per_chunk=0.1)
    app, _ = scripted_app(tmp_path / "t.db", [slow])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await app.workers.wait_for_complete()
        app.query_one(Composer).text = "long answer please"
        await pilot.press("enter")
        log = screen.query_one(ChatLog)
        await wait_until(pilot, lambda: len(log.messages) == 2 and bool(log.messages[1].content))
        await pilot.press("ctrl+c")
        await wait_until(pilot, lambda: not screen.sending)
        stored = app.services.sessions.messages("alice", screen.session_id or 0)
        assert stored[-1].status == "interrupted"
        assert 0 < len(stored[-1].content) < len(slow.text)


async def test_ctrl_c_with_no_reply_streaming_copies_as_before(tmp_path: Path) -> None:
    app, model = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        composer = app.query_one(Composer)
        composer.text = "copy me"
        await pilot.press("alt+a", "ctrl+c")
        assert app.clipboard == "copy me"
        assert composer.text == "copy me"
        assert model.calls == []
