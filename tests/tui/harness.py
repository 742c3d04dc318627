"""Building the real app for Pilot tests, and waiting without sleeping."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from textual import events
from textual.app import App
from textual.keys import _character_to_key
from textual.pilot import Pilot
from textual.widgets import TextArea

from oncall_tui.errors import Language
from oncall_tui.services.views import SessionView
from oncall_tui.settings import Settings
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from oncall_tui.tui.app import OncallApp, build_app

if TYPE_CHECKING:
    from tests.fakes.chat_model import ScriptedChatModel, TurnLike


def scripted_app(
    db_path: Path,
    turns: list[TurnLike] | None = None,
    *,
    window: int = 8192,
    lang: Language = "en",
) -> tuple[OncallApp, ScriptedChatModel]:
    # Imported here: the stream bench uses this module too, and its process, like the app's,
    # holds no LangChain (the scripted model and the static gateway need it).
    from tests.fakes.chat_model import ScriptedChatModel
    from tests.fakes.gateway import StaticGateway

    model = ScriptedChatModel(turns or [])
    settings = Settings(db_path=db_path, user="alice", lang=lang)
    return build_app(settings, gateway=StaticGateway(model, window)), model


def spy(
    monkeypatch: pytest.MonkeyPatch,
    owner: object,
    name: str,
    note: Callable[..., object] = lambda *args, **kwargs: args,
) -> list[Any]:
    """Let ``owner.name`` (a method of an object or of a class) run as before, noting each
    call, as ``note(*args, **kwargs)``, in the list returned."""
    noted: list[Any] = []
    original = getattr(owner, name)

    def spied(*args: object, **kwargs: object) -> object:
        noted.append(note(*args, **kwargs))
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, spied)
    return noted


async def wait_until(
    pilot: Pilot[Any], predicate: Callable[[], bool], timeout: float = 10.0
) -> None:
    """Let the app run until ``predicate()`` holds; fail with a clear message otherwise, at
    once if the app has ended.

    The app runs as it does for a user between two looks at it: its own timers refresh the
    screen. ``pilot.pause`` would also have every widget of the screen answer a message at
    each look, which at 50 looks a second cost 15% of a core while a test waited."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if not pilot.app.is_running:
            raise AssertionError("the app ended before the condition was met")
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout}s")
        await asyncio.sleep(0.02)


async def settled(pilot: Pilot[Any]) -> None:
    """Let the app handle what is queued, then draw its screen once more: a resize, a style
    set or a key's effect is laid out at the next refresh, which ``pilot.pause`` alone does
    not wait for (its look for idleness is shorter than a frame in these tests)."""
    await pilot.pause()
    await asyncio.wait_for(pilot.app.screen.wait_for_refresh(), 10)


async def question_read(pilot: Pilot[Any]) -> None:
    """Wait, as a person reads it, until the question in front takes every answer (one that
    cannot be undone counts only after its first moments on screen)."""
    from oncall_tui.tui.widgets.dialogs import Question

    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, Question) and app.screen.read)


async def question_drawn(pilot: Pilot[Any]) -> None:
    """Wait until the question in front has been drawn: its reading time runs from then, as
    it is refreshed in front (a test that moves the dialogs' clock moves it after this)."""
    from oncall_tui.tui.widgets.dialogs import Question

    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, Question))
    await settled(pilot)


def keys_in_one_read(app: App[Any], *keys: str) -> None:
    """Post ``keys`` to the app at once, as the terminal driver posts the keys of one read (a
    fast typist, ``tmux send-keys``, a slow link): all are queued before the first is handled.
    Pilot's ``press`` waits for each key to be handled, which hides what goes out of order.
    Names as ``press`` takes them (``"a"``, ``" "``, ``"space"``, ``"ctrl+a"``, ``"enter"``), so
    ``*"tell me"`` types the text."""
    for key in keys:
        if len(key) == 1:
            app.post_message(events.Key(key if key.isalnum() else _character_to_key(key), key))
        else:
            app.post_message(events.Key(key, " " if key == "space" else None))


async def keys_at_the_text_ends(pilot: Pilot[Any], area: TextArea) -> tuple[str, str, str]:
    """In the focused ``area`` holding three lines, the cursor in the middle one: the text
    after ctrl+end ``Z`` ctrl+home ``A``, then what ctrl+shift+end selects from the second
    character, and what ctrl+shift+home selects from the end."""
    area.text = "first line\nsecond\nthird line"
    area.move_cursor((1, 3))
    await pilot.press("ctrl+end", "Z", "ctrl+home", "A")
    typed = area.text
    await pilot.press("ctrl+shift+end")
    to_the_end = area.selected_text
    await pilot.press("ctrl+end", "ctrl+shift+home")
    return typed, to_the_end, area.selected_text


@contextlib.contextmanager
def sessions_read_late(
    app: OncallApp, monkeypatch: pytest.MonkeyPatch
) -> Iterator[threading.Event]:
    """Within the block, the app's reads of its sessions list wait until the event yielded is
    set (at most 10 s): a test sees what the app does before the sessions are read. It is set
    on the way out, however the block ends."""
    release = threading.Event()
    listing = app.services.sessions.list_sessions

    def late(owner: str) -> list[SessionView]:
        release.wait(10)
        return listing(owner)

    monkeypatch.setattr(app.services.sessions, "list_sessions", late)
    try:
        yield release
    finally:
        release.set()


def seed_session(
    app: OncallApp,
    pairs: int,
    *,
    title: str = "seeded incident",
    compacted: int = 0,
    summary: str | None = None,
) -> int:
    """A session with ``pairs`` exchanges written straight to the store (fast)."""
    services = app.services
    with services.database.session() as session:
        chat = SessionRepository(session).create("alice", title, "every_30_turns")
        messages = MessageRepository(session)
        for i in range(pairs):
            messages.add(chat, "user", f"question {i}")
            messages.add(chat, "assistant", f"answer {i}")
        chat.compacted_message_count = compacted
        chat.memory_summary = summary
        SessionRepository(session).save(chat)
        assert chat.id is not None
        return chat.id


def bulk_seed(app: OncallApp, messages: int, *, compacted: int = 0) -> int:
    """A session of ``messages`` rows inserted in one statement, for long-session tests."""
    import sqlite3
    from datetime import UTC, datetime

    session_id = app.services.sessions.create("alice", f"{messages} messages").id
    now = datetime.now(UTC).isoformat(sep=" ")
    rows = [
        (session_id, i, "user" if i % 2 == 0 else "assistant", f"message {i}", "complete", now)
        for i in range(messages)
    ]
    with sqlite3.connect(app.services.settings.db_path) as connection:
        connection.executemany(
            "INSERT INTO message (session_id, position, role, content, status, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )
        connection.execute(
            "UPDATE chat_session SET compacted_message_count = ?, memory_summary = ? WHERE id = ?",
            (compacted, "Earlier: things happened." if compacted else None, session_id),
        )
    return session_id


def screen_rows(app: App[Any]) -> list[str]:
    """The text of each row of the screen on top, as the terminal would show it. (The one place
    the tests read Textual's compositor.)"""
    return [
        "".join(segment.text for segment in strip)
        for strip in app.screen._compositor.render_strips()
    ]


def notifications(app: App[Any]) -> list[str]:
    """The messages of the notifications on show, oldest first. (The one place the tests read
    Textual's notification list.)"""
    return [str(notification.message) for notification in app._notifications]
