"""The sessions pane as an engineer uses it mid-incident: name the incident first, find a
session in one Enter, see what another terminal wrote, and delete only what was meant."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, OptionList, Static

from oncall_tui.errors import Language
from oncall_tui.services.sessions import MAX_TITLE_CHARS
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from oncall_tui.tui.app import OncallApp
from oncall_tui.tui.chat_log import ChatLog
from oncall_tui.tui.screens import main as main_screen
from oncall_tui.tui.screens.main import POLL_SECONDS, MainScreen
from oncall_tui.tui.widgets import dialogs
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.dialogs import READ_SECONDS, ConfirmDialog, ErrorText
from oncall_tui.tui.widgets.plain_text import PlainText
from oncall_tui.tui.widgets.session_list import SessionList
from oncall_tui.tui.widgets.text_dialogs import TextDialog
from tests.fakes.chat_model import Turn
from tests.tui.harness import (
    keys_in_one_read,
    question_drawn,
    question_read,
    screen_rows,
    scripted_app,
    seed_session,
    spy,
    wait_until,
)

SIZE = (120, 36)


def main(app: OncallApp) -> MainScreen:
    screen = app.screen_stack[0]
    assert isinstance(screen, MainScreen)
    return screen


async def open_seeded(pilot: Pilot[None], pairs: int, title: str) -> tuple[MainScreen, int]:
    """A seeded session, open and listed."""
    app = pilot.app
    assert isinstance(app, OncallApp)
    screen = main(app)
    session_id = seed_session(app, pairs, title=title)
    screen.shown.load(select=session_id)
    await wait_until(pilot, lambda: screen.session_id == session_id)
    await wait_until(pilot, lambda: bool(app.query_one(SessionList).sessions))
    return screen, session_id


def options(app: OncallApp) -> list[str]:
    listing = app.query_one("#session-options", OptionList)
    return [str(listing.get_option_at_index(i).prompt) for i in range(listing.option_count)]


async def listed(pilot: Pilot[None], *titles: str) -> list[int]:
    """Sessions of these titles (one exchange each, the last the newest), listed, the newest
    open; their ids."""
    app = pilot.app
    assert isinstance(app, OncallApp)
    ids = [seed_session(app, 1, title=title) for title in titles]
    main(app).shown.load(open_newest=True)
    await wait_until(pilot, lambda: len(app.query_one(SessionList).sessions) == len(titles))
    return ids


async def test_a_new_session_can_be_named_before_its_first_message(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db", [Turn(text="Look at the 502s.")])
    async with app.run_test(size=SIZE) as pilot:
        screen = main(app)
        await app.workers.wait_for_complete()
        assert screen.session_id is None
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, TextDialog))
        await pilot.press(*"INC-4411 payments", "enter")
        await wait_until(pilot, lambda: screen.session_id is not None)
        assert app.services.sessions.get("alice", screen.session_id or 0).title == (
            "INC-4411 payments"
        )
        await wait_until(pilot, lambda: any("INC-4411 payments" in o for o in options(app)))
        app.query_one(Composer).text = "502s on checkout"
        await pilot.press("enter")
        await wait_until(pilot, lambda: not screen.sending)
        (session,) = app.services.sessions.list_sessions("alice")
        assert (session.title, session.message_count) == ("INC-4411 payments", 2)


@pytest.mark.parametrize(
    ("keys", "title"),
    [
        ((*"INC-7 db-1", "enter"), "INC-7 db-1"),  # typing names it anew (it was appended)
        (("end", *" - fixed", "enter"), "db-1 disk full - fixed"),  # or it is edited
    ],
)
async def test_rename_shows_the_current_title_which_typing_replaces(
    tmp_path: Path, keys: tuple[str, ...], title: str
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen, session_id = await open_seeded(pilot, 1, "db-1 disk full")
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, TextDialog))
        assert app.screen.query_one(Input).value == "db-1 disk full"
        await pilot.press(*keys)
        await wait_until(pilot, lambda: app.screen is screen)
        await wait_until(
            pilot, lambda: app.services.sessions.get("alice", session_id).title == title
        )


async def test_a_title_typed_while_the_database_is_away_comes_back_in_the_dialog(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found in tmux with PostgreSQL halted: F2, a title and Enter closed the dialog, the
    status line said the database was away, and the title typed was gone. The dialog comes
    back on it, saying why; once the database answers, Enter renames."""
    from oncall_tui.errors import OncallError
    from oncall_tui.services.sessions import SessionService

    def away(*args: object, **kwargs: object) -> object:
        raise OncallError("DATABASE_UNAVAILABLE", path="t.db", detail="Connection refused")

    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen, session_id = await open_seeded(pilot, 1, "db-1 disk full")
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, TextDialog))
        monkeypatch.setattr(SessionService, "rename", away)
        await pilot.press(*"INC-4211 renamed during outage", "enter")
        await wait_until(
            pilot,
            lambda: (
                isinstance(app.screen, TextDialog)
                and "Connection refused" in (app.screen.query_one(ErrorText).message or "")
            ),
        )
        assert app.screen.query_one(Input).value == "INC-4211 renamed during outage"
        assert "Connection refused" in screen.status.text
        monkeypatch.undo()
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is screen)
        await wait_until(
            pilot,
            lambda: (
                app.services.sessions.get("alice", session_id).title
                == "INC-4211 renamed during outage"
            ),
        )


@pytest.mark.parametrize("new_session", [False, True])
async def test_a_title_too_long_comes_back_in_the_dialog_with_the_reason(
    tmp_path: Path, new_session: bool
) -> None:
    """A 199-character title closed the dialog with "a title is at most 120 characters" on
    the status line, and what was typed was gone. It comes back, to be cut and given again."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = main(app)
        if new_session:
            await pilot.press("ctrl+n")
            await wait_until(pilot, lambda: screen.session_id is None)
        else:
            await open_seeded(pilot, 1, "db-1 disk full")
        longest = "x" * MAX_TITLE_CHARS
        typed = longest + "y"
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, TextDialog))
        app.screen.query_one(Input).value = typed
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: (
                isinstance(app.screen, TextDialog)
                and "at most 120 characters (got 121)"
                in (app.screen.query_one(ErrorText).message or "")
            ),
        )
        assert app.screen.query_one(Input).value == typed
        await pilot.press("end", "backspace", "enter")
        await wait_until(pilot, lambda: app.screen is screen)
        await wait_until(
            pilot,
            lambda: longest in [s.title for s in app.services.sessions.list_sessions("alice")],
        )


async def test_one_enter_in_the_filter_opens_the_match_and_esc_clears_it(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = main(app)
        older, _ = await listed(pilot, "redis failover", "kafka lag")
        await pilot.press("alt+l", *"redis")
        await wait_until(pilot, lambda: len(options(app)) == 1)
        await pilot.press("enter")
        await wait_until(pilot, lambda: screen.session_id == older)
        assert app.query_one("#session-filter", Input).value == ""
        assert isinstance(app.focused, Composer)
        await pilot.press("alt+l", *"zzz")
        await wait_until(pilot, lambda: options(app) == ["  no session matches “zzz”"])
        await pilot.press("escape")
        assert app.query_one("#session-filter", Input).value == ""
        assert len(options(app)) == 2


async def test_down_in_the_filter_moves_to_the_first_match_and_enter_opens_it(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = main(app)
        first, *_ = await listed(pilot, "redis failover", "kafka lag", "redis latency", "dns")
        listing = app.query_one("#session-options", OptionList)
        await pilot.press("alt+l", *"redis")
        await wait_until(pilot, lambda: len(options(app)) == 2)
        await pilot.press("down")
        assert app.focused is listing
        assert listing.highlighted == 0  # the newest match, though the open session is "dns"
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: screen.session_id == first)
        await pilot.press("alt+l", *"zzz")  # nothing to move to: the filter keeps the focus
        await wait_until(pilot, lambda: options(app) == ["  no session matches “zzz”"])
        await pilot.press("down")
        assert getattr(app.focused, "id", None) == "session-filter"
        await pilot.press("escape", "down")  # no filter: on the open session, the list's cursor
        assert app.focused is listing
        assert options(app)[listing.highlighted or 0] == "▸ redis failover"


@pytest.mark.parametrize(
    ("typed", "shown"),
    [
        ("failover redis", ["redis failover"]),  # every word, in any order, as the search
        ("REDIS*", ["redis failover"]),  # a star at the end: the shell's "anything"
        ('"failover redis"', []),  # a phrase in quotes: as written
        ("redis lag", []),
    ],
)
async def test_the_filter_reads_what_is_typed_as_the_search_does(
    tmp_path: Path, typed: str, shown: list[str]
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await listed(pilot, "redis failover", "kafka lag")
        app.query_one(SessionList).action_filter()
        app.query_one("#session-filter", Input).value = typed
        expected = [f"  {title}" for title in shown] or [f"  no session matches “{typed}”"]
        await wait_until(pilot, lambda: options(app) == expected)  # the open one is the other


async def test_a_compaction_or_a_mode_set_elsewhere_shows_without_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`oncall-tui memory compact` in another terminal left the TUI with no divider, no
    summary and the gauge as it was before (the listing was followed for messages only)."""
    monkeypatch.setattr(main_screen, "POLL_SECONDS", 0.2)  # the rule, on a faster clock
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen, session_id = await open_seeded(pilot, 2, "shared incident")
        await app.workers.wait_for_complete()
        log = screen.query_one(ChatLog)
        summary = screen.query_one("#summary", PlainText)
        with app.services.database.session() as session:  # as the CLI would, meanwhile
            chat = SessionRepository(session).require("alice", session_id)
            chat.compacted_message_count = 4
            chat.memory_summary = "Disk full on db-3; cleaned /var/log."
            SessionRepository(session).save(chat)
        await wait_until(pilot, lambda: log.boundary == 4)
        await wait_until(pilot, lambda: "Disk full on db-3" in summary.text)
        with app.services.database.session() as session:
            chat = SessionRepository(session).require("alice", session_id)
            chat.memory_mode = "manual"
            SessionRepository(session).save(chat)
        mode = screen.query_one("#mode", PlainText)
        await wait_until(pilot, lambda: "Manual" in mode.text)


async def test_what_another_process_writes_appears_without_a_restart(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen, session_id = await open_seeded(pilot, 1, "shared incident")
        await app.workers.wait_for_complete()
        with app.services.database.session() as session:  # as the CLI would, meanwhile
            chat = SessionRepository(session).require("alice", session_id)
            MessageRepository(session).add(chat, "user", "posted from a script")
            SessionRepository(session).create("alice", "opened elsewhere", "every_30_turns")
        log = screen.query_one(ChatLog)
        limit = POLL_SECONDS * 3
        await wait_until(pilot, lambda: any("opened elsewhere" in o for o in options(app)), limit)
        await wait_until(
            pilot,
            lambda: any(m.content == "posted from a script" for m in log.messages),
            limit,
        )


async def test_a_question_asked_in_another_terminal_during_a_reply_shows_once_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two terminals on one incident, asking at once: each showed its own question and answer,
    never the other's (the listing after a send was taken as what the log shows)."""
    monkeypatch.setattr(main_screen, "POLL_SECONDS", 0.2)  # the rule, on a faster clock
    app, model = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen, session_id = await open_seeded(pilot, 1, "shared incident")
        await app.workers.wait_for_complete()
        opened = spy(monkeypatch, screen.shown, "open")

        def asked_elsewhere_meanwhile(_: object) -> Turn:
            with app.services.database.session() as session:
                chat = SessionRepository(session).require("alice", session_id)
                MessageRepository(session).add(chat, "user", "asked in the other terminal")
            return Turn(text="db-3's disk is 97% full.")

        model.responder = asked_elsewhere_meanwhile
        screen.query_one(Composer).text = "what fills the disk?"
        await pilot.press("enter")
        log = screen.query_one(ChatLog)
        await wait_until(
            pilot, lambda: any(m.content == "asked in the other terminal" for m in log.messages)
        )
        assert [m.content for m in log.messages][-3:] == [
            "what fills the disk?",
            "asked in the other terminal",
            "db-3's disk is 97% full.",
        ]
        assert len(opened) == 1


async def test_a_send_alone_is_not_read_again_after_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(main_screen, "POLL_SECONDS", 0.2)
    app, _ = scripted_app(tmp_path / "t.db", ["db-3's disk is 97% full."])
    async with app.run_test(size=SIZE) as pilot:
        screen, _ = await open_seeded(pilot, 1, "shared incident")
        await app.workers.wait_for_complete()
        opened = spy(monkeypatch, screen.shown, "open")
        listings = spy(monkeypatch, app.services.sessions, "list_sessions")
        screen.query_one(Composer).text = "what fills the disk?"
        await pilot.press("enter")
        await wait_until(pilot, lambda: not screen.sending)
        await wait_until(pilot, lambda: len(listings) >= 3)  # the send's, then two polls
        assert opened == []


async def test_a_y_typed_with_the_delete_key_does_not_delete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """alt+x and y in one burst (a slip while typing "yes…"): the y goes where alt+x led, to
    the question, which nobody has read yet: it deletes nothing. Read, y deletes."""
    now = [100.0]
    monkeypatch.setattr(dialogs, "clock", lambda: now[0])
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen, session_id = await open_seeded(pilot, 1, "redis failover")
        keys_in_one_read(app, "alt+x", *"yes")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await question_drawn(pilot)
        assert isinstance(app.screen, ConfirmDialog)
        assert app.services.sessions.get("alice", session_id).message_count == 2
        now[0] += READ_SECONDS
        await pilot.press("y")
        await wait_until(pilot, lambda: app.screen is screen)
        assert [s.id for s in app.services.sessions.list_sessions("alice")] == []


async def test_words_typed_behind_the_delete_key_close_the_question_and_are_kept(
    tmp_path: Path,
) -> None:
    """alt+x and "what now" in one read: the w is no answer, so the question closes
    unanswered and the words go on in the composer; the session stays."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen, session_id = await open_seeded(pilot, 1, "redis failover")
        keys_in_one_read(app, "alt+x", *"what now")
        composer = screen.query_one(Composer)
        await wait_until(pilot, lambda: app.screen is screen and composer.text == "what now")
        assert app.focused is composer
        assert app.services.sessions.get("alice", session_id).message_count == 2


async def test_the_delete_dialog_says_one_message_for_a_session_of_one(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen = main(app)
        with app.services.database.session() as session:  # a question whose answer never came
            chat = SessionRepository(session).create("alice", "db-3 slow", "every_30_turns")
            MessageRepository(session).add(chat, "user", "why is db-3 slow?")
            session_id = chat.id
        screen.shown.load(select=session_id)
        await wait_until(pilot, lambda: screen.session_id == session_id)
        await pilot.press("f8")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))

        def text() -> str:  # the question is mounted a moment after the dialog is in front
            return " ".join(str(s.render()) for s in app.screen.query(Static))

        await wait_until(pilot, lambda: "Delete “db-3 slow”" in text())
        assert "Delete “db-3 slow” and its one message?" in text()


async def test_the_delete_dialog_names_the_session_and_starts_on_no(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        screen, session_id = await open_seeded(pilot, 3, "redis failover")
        await pilot.press("f8")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog))
        await wait_until(
            pilot,
            lambda: (
                "“redis failover” and its 6 messages"
                in " ".join(str(s.render()) for s in app.screen.query(Static))
            ),
        )
        focused = app.focused
        assert isinstance(focused, Button)
        assert focused.id == "no"
        await question_read(pilot)
        await pilot.press("enter")  # Enter by habit: nothing is deleted
        await wait_until(pilot, lambda: app.screen is screen)
        assert app.services.sessions.get("alice", session_id).message_count == 6


@pytest.mark.parametrize(("lang", "said"), [("en", "del Delete session"), ("zh", "del 删除会话")])
async def test_the_key_bar_offers_delete_while_the_list_has_the_focus(
    tmp_path: Path, lang: Language, said: str
) -> None:
    app, _ = scripted_app(tmp_path / "t.db", lang=lang)
    async with app.run_test(size=(80, 24)) as pilot:
        main(app).shown.load(select=seed_session(app, 1, title="redis failover"))
        await wait_until(pilot, lambda: bool(app.query_one(SessionList).sessions))
        assert said not in screen_rows(app)[-1]  # the key bar, as drawn: the composer's keys
        app.query_one("#session-options", OptionList).focus()
        await wait_until(pilot, lambda: screen_rows(app)[-1].startswith(said))


async def test_a_new_session_clears_the_filter_and_is_listed_first(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE) as pilot:
        await listed(pilot, "redis failover", "kafka lag")
        await pilot.press("alt+l", *"redis")
        await wait_until(pilot, lambda: options(app) == ["  redis failover"])
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: options(app)[0] == "▸ New session")
        assert app.query_one("#session-filter", Input).value == ""
        assert len(options(app)) == 3
        assert isinstance(app.focused, Composer)


def border_row(app: OncallApp) -> str:
    """The composer's top border as the screen shows it."""
    return screen_rows(app)[app.query_one(Composer).region.y]


async def test_the_open_sessions_title_stands_on_the_composers_border(tmp_path: Path) -> None:
    """At 60 columns the sessions pane is folded away, and nothing said which incident the
    engineer was typing into. The title stands on the composer's border, before the gauge's
    figures: renamed, it follows; a new session has none; narrower, the title is cut and the
    figures stay whole; a title's brackets are its own, not markup."""
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(60, 20)) as pilot:
        screen, _ = await open_seeded(pilot, 1, "INC-9 [b]db-1[/b] disk full")
        assert not app.query_one(SessionList).display
        await wait_until(pilot, lambda: "INC-9 [b]db-1[/b] disk full · context" in border_row(app))
        await pilot.press("f2")
        await wait_until(pilot, lambda: isinstance(app.screen, TextDialog))
        await pilot.press(*"INC-10 checkout 502s", "enter")
        await wait_until(pilot, lambda: "INC-10 checkout 502s · context" in border_row(app))
        await pilot.resize_terminal(40, 20)
        await wait_until(pilot, lambda: "… · context" in border_row(app))
        assert "INC-10 c" in border_row(app)
        assert border_row(app).rstrip("▀").endswith("of 8,192")
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: screen.session_id is None)
        await wait_until(pilot, lambda: "INC-10" not in border_row(app))
        assert "context" in border_row(app)
