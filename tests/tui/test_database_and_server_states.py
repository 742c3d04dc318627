"""The TUI when the database or the model server fails under it, as in an incident: no worker
failure ends the app, nothing typed or seen is lost, and what the screen says of the model
server follows every contact with it."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from textual.pilot import Pilot

from oncall_tui.settings import Settings
from oncall_tui.store import opening, sqlite
from oncall_tui.store.engine import Database
from oncall_tui.tui.app import OncallApp, build_app
from oncall_tui.tui.chat_log import ChatLog
from oncall_tui.tui.panes import server as server_pane
from oncall_tui.tui.screens import main as main_screen
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.context_panel import ContextPanel
from oncall_tui.tui.widgets.plain_text import PlainText
from tests.conftest import ollama_at, port_outside_the_ephemeral_range, sqlite_full
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.postgres import PostgresServer, running_server, unavailable_reason
from tests.tui.harness import (
    notifications,
    scripted_app,
    seed_session,
    sessions_read_late,
    spy,
    wait_until,
)

SIZE = (120, 40)
ANSWER = "Roll back payments-api to revision 41, then watch p99 for ten minutes."


async def test_enter_while_the_database_is_refused_at_start_gives_the_text_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database is refused while the user types and presses Enter (a send starts before
    the refusal is said): the app ends as before with the catalog's message, no worker
    failure in the way, and what was typed is handed back."""
    damaged = tmp_path / "oncall.db"
    damaged.write_bytes(b"these are not the pages of a SQLite database\n" * 100)
    opened = opening.open_database
    gate = threading.Event()

    def slow_to_refuse(location: Path | str) -> Database:
        gate.wait(10)  # the refusal comes once the keys are in
        return opened(location)

    monkeypatch.setattr(opening, "open_database", slow_to_refuse)
    with FakeOllama() as ollama:
        app = build_app(Settings(db_path=damaged, user="alice", ollama_url=ollama.url))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("x", "y", "enter", "z")
            gate.set()
            await wait_until(pilot, lambda: not app.is_running, timeout=15)
    assert app.failure is not None
    assert app.failure.code == "DATABASE_UNAVAILABLE"
    assert app.unsent == "xy\nz"  # what came after the Enter is on a line of its own
    assert app.return_code == 2


async def test_a_full_disk_is_said_as_such_and_what_was_typed_stays(tmp_path: Path) -> None:
    """The disk under the database fills during an incident (a log shipper gone wild): a send
    says the disk is full, in the catalog's words, not "the model stream failed", and says it
    until something else is said (the database still answers reads); the message stays in the
    composer to send once there is room. (Every unit of work says a full disk so: the store's
    test.)"""
    app, model = scripted_app(tmp_path / "oncall.db", ["Check the probe."])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        status = screen.query_one("#status", PlainText)
        await app.workers.wait_for_complete()
        with sqlite_full(app.services.database):
            app.query_one(Composer).text = "api-7 restarts, logs below " + "x" * 20_000
            await pilot.press("enter")
            await wait_until(pilot, lambda: "the disk is full" in status.text)
            assert "stream failed" not in status.text
            assert app.query_one(Composer).text.startswith("api-7 restarts")
            assert model.calls == []
            await pilot.pause(0.3)  # the sessions pane reads the database meanwhile
            assert "the disk is full" in status.text  # a read that works does not unsay it
            assert not notifications(app)  # no "unexpected error"
        await pilot.press("enter")  # room again: the message goes
        await wait_until(pilot, lambda: len(model.calls) == 1 and not screen.sending)
        session_id = screen.session_id or 0
        assert app.services.sessions.messages("alice", session_id)[-1].content == "Check the probe."


async def test_a_database_another_writer_holds_is_said_busy_until_something_else_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another oncall-tui held the write lock past the busy timeout: the send was refused, and
    the listing that follows it (reads never wait) took the message back at once, leaving the
    status line blank and the text in the composer with no word why."""
    monkeypatch.setattr(sqlite, "BUSY_TIMEOUT_MS", 20)  # the rules, on a faster clock
    monkeypatch.setattr(main_screen, "POLL_SECONDS", 0.2)
    app, model = scripted_app(tmp_path / "oncall.db", ["Check the probe."])
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await app.workers.wait_for_complete()
        listed = spy(monkeypatch, app.services.sessions, "list_sessions")
        writer = sqlite3.connect(tmp_path / "oncall.db", isolation_level=None)
        try:
            writer.execute("BEGIN IMMEDIATE")
            app.query_one(Composer).text = "is db-3 full?"
            await pilot.press("enter")
            await wait_until(pilot, lambda: "stayed busy" in screen.status.text)
            said = len(listed)
            await wait_until(pilot, lambda: len(listed) > said)  # the sessions are read again
            await app.workers.wait_for_complete()
            await pilot.pause(0.3)  # what the listing found is shown
            assert "stayed busy" in screen.status.text
            assert app.query_one(Composer).text == "is db-3 full?"
        finally:
            writer.close()
        await pilot.press("enter")  # the lock is gone: the message goes
        await wait_until(pilot, lambda: len(model.calls) == 1 and not screen.sending)


@pytest.fixture
def own_server() -> Iterator[PostgresServer]:
    """A server of this test's own, since the test stops it."""
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    with running_server() as server:
        yield server


def postgres_app(server: PostgresServer, ollama: FakeOllama, tmp_path: Path) -> OncallApp:
    """The app on a database of ``server``, held replies kept under ``tmp_path``."""
    settings = Settings(
        db_path=tmp_path / "unused.db",
        db_url=server.new_database(),
        user="alice",
        ollama_url=ollama.url,
        model="qwen3:8b",
        spool_dir=tmp_path / "spool",
    )
    return build_app(settings)


async def test_postgresql_away_at_the_first_listing_opens_the_newest_session_once_back(
    own_server: PostgresServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The database stops between the start (which reached it) and the first read of the
    sessions: the welcome said "Reading your sessions… the most recent one opens here" for good,
    though the listings every 3 s read them once it was back. The newest session opens at the
    first listing that comes."""
    monkeypatch.setattr(main_screen, "POLL_SECONDS", 0.2)  # the rule, on a faster clock
    with FakeOllama() as ollama:
        app = postgres_app(own_server, ollama, tmp_path)
        seed_session(app, 1, title="api latency")
        with sessions_read_late(app, monkeypatch) as release:
            async with app.run_test(size=SIZE) as pilot:
                screen = app.screen
                assert isinstance(screen, MainScreen)
                status = screen.query_one("#status", PlainText)
                own_server.halt()
                release.set()
                await wait_until(pilot, lambda: "database" in status.text, timeout=15)
                own_server.start()
                log = screen.query_one(ChatLog)
                await wait_until(pilot, lambda: len(log.messages) == 2, timeout=15)
                assert log.messages[0].content == "question 0"


async def test_an_answer_shown_while_postgresql_stops_is_kept_and_saved_when_it_is_back(
    own_server: PostgresServer, tmp_path: Path
) -> None:
    with FakeOllama() as ollama:
        app = postgres_app(own_server, ollama, tmp_path)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, MainScreen)
            composer = screen.query_one(Composer)
            status = screen.query_one("#status", PlainText)
            ollama.script(Reply(text=ANSWER, chunk_size=8))
            ollama.on_first_chunk = own_server.halt
            composer.text = "what now?"
            await pilot.press("enter")
            spool = tmp_path / "spool"
            await wait_until(pilot, lambda: bool(list(spool.glob("*/*.json"))), timeout=30)
            assert "not saved yet" in status.text
            ollama.on_first_chunk = None
            assert app.is_running
            log = screen.query_one(ChatLog)
            shown = log.messages[-1]
            assert shown.content == ANSWER  # still on screen, with the note below it
            assert list((tmp_path / "spool").glob("*/*.json"))

            own_server.start()
            await wait_until(
                pilot,
                lambda: any("saved now" in n for n in notifications(app)),
                timeout=30,
            )
            assert not list((tmp_path / "spool").glob("*/*.json"))
            # The listing that saved them ends by saying the database answers again.
            await wait_until(pilot, lambda: "Cannot use the database" not in status.text)
            session_id = screen.session_id
            assert session_id is not None
            stored = app.services.sessions.messages("alice", session_id)
            assert [(m.role, m.content) for m in stored] == [
                ("user", "what now?"),
                ("assistant", ANSWER),
            ]


async def test_the_panel_follows_a_model_server_that_comes_back(tmp_path: Path) -> None:
    """The server was away when the app started; once a send gets a reply, the panel says it
    answers, without asking for a check."""
    port = port_outside_the_ephemeral_range()
    closed_url = f"http://127.0.0.1:{port}"
    app = build_app(
        Settings(
            db_path=tmp_path / "oncall.db", user="alice", ollama_url=closed_url, model="qwen3:8b"
        )
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await wait_until(pilot, lambda: screen.server_check.state.reachable is False)
        panel = screen.query_one(ContextPanel).query_one("#model", PlainText)
        assert "unreachable" in panel.text
        with ollama_at(port) as ollama:
            composer = screen.query_one(Composer)
            composer.text = "are you back?"
            await pilot.press("enter")
            await wait_until(pilot, lambda: len(ollama.chat_requests) == 1)
            await wait_until(pilot, lambda: screen.server_check.state.reachable is True)
            assert "unreachable" not in panel.text
            await wait_until(pilot, lambda: not screen.sending)


async def test_a_reply_cut_off_has_the_panel_ask_the_server_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The stream broke mid-reply (the server may have died with it): the server is asked
    again, so the panel says whether it is still there, without alt+g."""
    async with a_reply_to_be_cut_off(tmp_path, server_stops=False) as (pilot, screen, _):
        asked = spy(monkeypatch, screen.services, "server_version")
        screen.query_one(Composer).text = "still there?"
        await pilot.press("enter")
        await wait_until(pilot, lambda: "dropped" in screen.status.text)
        await wait_until(pilot, lambda: len(asked) == 1)
        await pilot.app.workers.wait_for_complete()
        # It still answers: why the reply failed is still said, not that it is back.
        assert "dropped" in screen.status.text


async def test_a_server_that_died_mid_reply_is_said_to_be_back_with_the_retry_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ollama serve` died mid-reply and was started again: the status line said "not
    reachable … ctrl+r retries" while the panel said it answered; it says it answers again,
    and the key that answers the stored message."""
    monkeypatch.setattr(server_pane, "RECHECK_SECONDS", 0.1)
    async with a_reply_to_be_cut_off(tmp_path, server_stops=True) as (pilot, screen, ollama):
        screen.query_one(Composer).text = "why is checkout slow?"
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.server_check.state.reachable is False)
        assert "dropped" in screen.status.text
        with ollama_at(ollama.port):
            await wait_until(pilot, lambda: "answers at" in screen.status.text)
            assert screen.status.text == (
                f"Ollama 0.12.6 answers at {ollama.url}. The model qwen3:8b is ready. "
                "(ctrl+r retries)"
            )
            assert not screen.status.is_error


@contextlib.asynccontextmanager
async def a_reply_to_be_cut_off(
    tmp_path: Path, *, server_stops: bool
) -> AsyncIterator[tuple[Pilot[None], MainScreen, FakeOllama]]:
    """The app, its server answering; the next reply's stream breaks after two pieces, and
    with ``server_stops`` the server stops listening first (it died with the stream)."""
    ollama = FakeOllama()
    ollama.script(Reply("one two three four five six", chunk_size=4, drop_after=2))
    if server_stops:
        ollama.on_first_chunk = ollama.stop
    with ollama:
        settings = Settings(
            db_path=tmp_path / "oncall.db", user="alice", ollama_url=ollama.url, model="qwen3:8b"
        )
        app = build_app(settings)
        async with app.run_test(size=SIZE) as pilot:
            screen = app.screen
            assert isinstance(screen, MainScreen)
            await wait_until(pilot, lambda: screen.server_check.state.reachable is True)
            yield pilot, screen, ollama


async def test_a_send_refused_while_the_server_was_away_is_said_to_be_possible_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing was stored, the text is still in the composer: the line says the server
    answers again (no retry key: Enter sends it)."""
    async with refused_while_away(tmp_path, monkeypatch) as (pilot, port):
        screen = pilot.app.screen
        assert isinstance(screen, MainScreen)
        with ollama_at(port):
            await wait_until(pilot, lambda: "answers at" in screen.status.text)
            assert screen.status.text == (
                f"Ollama 0.12.6 answers at http://127.0.0.1:{port}. The model qwen3:8b is ready."
            )
            assert screen.query_one(Composer).text == "why is checkout slow?"


async def test_what_is_said_after_the_server_went_away_stays_when_it_comes_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with refused_while_away(tmp_path, monkeypatch) as (pilot, port):
        screen = pilot.app.screen
        assert isinstance(screen, MainScreen)
        screen.status.say("Exported to /tmp/x.md")
        with ollama_at(port):
            await wait_until(pilot, lambda: screen.server_check.state.reachable is True)
            assert screen.status.text == "Exported to /tmp/x.md"


@contextlib.asynccontextmanager
async def refused_while_away(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[Pilot[None], int]]:
    """The app, whose send was just refused: nothing answers at ``port``, asked again every
    tenth of a second."""
    monkeypatch.setattr(server_pane, "RECHECK_SECONDS", 0.1)
    port = port_outside_the_ephemeral_range()
    url = f"http://127.0.0.1:{port}"
    settings = Settings(
        db_path=tmp_path / "oncall.db", user="alice", ollama_url=url, model="qwen3:8b"
    )
    app = build_app(settings)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.query_one(Composer).text = "why is checkout slow?"
        await pilot.press("enter")
        await wait_until(pilot, lambda: "not reachable" in screen.status.text)
        yield pilot, port


@pytest.mark.parametrize("opened", ["new", "another"])
async def test_a_session_opened_while_the_database_is_away_shows_none_of_the_one_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, opened: str
) -> None:
    """Found in tmux with PostgreSQL halted: ctrl+n (or another session picked in the list)
    left the session before on screen under the new one's title, and a message sent once the
    database was back was shown under that history. The page is emptied; the status line
    says why; the session opened is read again once the database answers."""
    from oncall_tui.errors import OncallError
    from oncall_tui.services.configuration import ConfigurationService
    from oncall_tui.services.sessions import SessionService

    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await pilot.pause()
        other = seed_session(app, 1, title="the other one")
        first = seed_session(app, 3, title="the one before")
        screen.shown.open(first)
        log = screen.query_one(ChatLog)
        await wait_until(pilot, lambda: len(log.messages) == 6)

        def away(*args: object, **kwargs: object) -> list[str]:
            raise OncallError("DATABASE_UNAVAILABLE", path="t.db", detail="Connection refused")

        gauge = screen.panel.gauge
        await wait_until(pilot, lambda: gauge.window > 0)
        monkeypatch.setattr(SessionService, "input_history", away)
        monkeypatch.setattr(ConfigurationService, "get_configuration", away)
        screen.shown.open(None if opened == "new" else other)
        await wait_until(pilot, lambda: not log.messages)
        await wait_until(pilot, lambda: "Connection refused" in screen.status.text)
        # Nor its figures: the gauge said the session before's under the empty page.
        await wait_until(pilot, lambda: gauge.window == 0)
        if opened == "another":
            monkeypatch.undo()
            screen.shown.load()  # the next listing, once the database answers
            await wait_until(pilot, lambda: len(log.messages) == 2)  # its own, not the six
            assert [m.content for m in log.messages] == ["question 0", "answer 0"]


async def test_an_answer_no_file_could_hold_is_said_to_be_kept_only_while_the_app_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in tmux (the spool's folder not writable, PostgreSQL halted mid-reply): the chat
    log said the answer was kept only while the program ran, the status line that it was kept
    on this computer; ctrl+q then lost it without a word. The status line says what the log
    says, and the app hands the answer back at its end (:func:`.program.run_tui`)."""
    import sqlalchemy.exc

    from oncall_tui.errors import OncallError
    from oncall_tui.services import reply_store
    from oncall_tui.services.sessions import SessionService

    async def away(*args: object, **kwargs: object) -> object:
        refused = sqlite3.OperationalError("unable to open database file")
        raise sqlalchemy.exc.OperationalError("INSERT", {}, refused)

    def still_away(*args: object, **kwargs: object) -> object:
        raise OncallError("DATABASE_UNAVAILABLE", path="t.db", detail="Connection refused")

    app, _ = scripted_app(tmp_path / "t.db", [ANSWER])  # no spool folder: memory only
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        status = screen.query_one("#status", PlainText)
        await app.workers.wait_for_complete()
        monkeypatch.setattr(reply_store, "completed_in_thread", away)  # the reply's unit of work
        monkeypatch.setattr(SessionService, "list_sessions", still_away)  # and every listing
        monkeypatch.setattr(app.services, "save_held_replies", still_away)
        app.query_one(Composer).text = "what now?"
        await pilot.press("enter")
        await wait_until(pilot, lambda: "Cannot use the database" in status.text)
        assert "only while this program runs" in status.text
        assert "kept on this computer" not in status.text
        assert app.services.held_only_in_memory() == [ANSWER]


def test_the_answers_no_file_holds_are_handed_back_when_the_app_ends(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """What :func:`.program.run_tui` prints once the app has left the terminal: the user's
    answers that only memory held (the spool refused them), masked; none that a file holds,
    and none of another user's."""
    from oncall_tui.services.container import Services
    from oncall_tui.services.spool import HeldReply
    from oncall_tui.tui.program import unsaved_answers

    def held(services: Services, owner: str, text: str) -> HeldReply:
        return HeldReply(owner, services.spool.database, 1, 0, "complete", text, "2026-12-08")

    memory_only = Services(Settings(db_path=tmp_path / "t.db", user="alice"))
    with_files = Services(Settings(db_path=tmp_path / "t.db", user="alice", spool_dir=tmp_path))
    try:
        assert not memory_only.spool.hold(held(memory_only, "alice", f"{ANSWER} password=hunter2"))
        assert not memory_only.spool.hold(held(memory_only, "bob", "not hers"))
        assert with_files.spool.hold(held(with_files, "alice", "on disk"))
        unsaved_answers(memory_only, "en").print()
        unsaved_answers(with_files, "en").print()
    finally:
        memory_only.close()
        with_files.close()
    err = capfd.readouterr().err
    assert err.count("an answer could not be saved") == 1
    assert ANSWER in err
    assert "hunter2" not in err
    assert "not hers" not in err
    assert "on disk" not in err
