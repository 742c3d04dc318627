"""What the user types while a send is on its way is theirs: storing the sent message takes
only that message out of the composer."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from textual import events
from textual.pilot import Pilot

from oncall_tui.core.events import ChatEvent, ReplyDone, TokenDelta, UserMessageStored
from oncall_tui.tui.app import OncallApp
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.plain_text import PlainText
from tests.tui.harness import scripted_app, seed_session, wait_until

SIZE = (120, 36)


def type_keys(app: OncallApp, keys: str) -> None:
    """Keys as one burst from the terminal (tmux send-keys, a fast typist): ``\\r`` is Enter."""
    for character in keys:
        if character == "\r":
            app.post_message(events.Key("enter", "\r"))
        else:
            app.post_message(events.Key(character, character))


def status_text(screen: MainScreen) -> str:
    return str(screen.query_one("#status", PlainText).render())


@dataclass
class Held:
    """The app on a send that stores the message only on ``release`` (a slow readiness
    check), then answers at once; ``sent`` holds the texts it was asked to send."""

    app: OncallApp
    pilot: Pilot[None]
    screen: MainScreen
    composer: Composer
    release: asyncio.Event = field(default_factory=asyncio.Event)
    sent: list[str] = field(default_factory=list)

    async def stored(self) -> None:
        """Let the held send store its message, and wait for its reply to end."""
        self.release.set()
        await wait_until(self.pilot, lambda: not self.screen.sending)


@asynccontextmanager
async def held_app(tmp_path: Path) -> AsyncIterator[Held]:
    app, _ = scripted_app(tmp_path / "t.db")
    opened = seed_session(app, 0)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen_stack[0]
        assert isinstance(screen, MainScreen)
        await app.workers.wait_for_complete()
        held = Held(app, pilot, screen, app.query_one(Composer))

        async def send(
            owner: str, session_id: int | None, text: str, *, confirm: object = None
        ) -> AsyncGenerator[ChatEvent, None]:
            held.sent.append(text)
            await held.release.wait()
            yield UserMessageStored(opened, 0, text)
            yield TokenDelta("Look at the events.")
            yield ReplyDone(opened, 1, "complete")

        app.services.chat.send = send  # type: ignore[method-assign]  # a send held back
        yield held


async def test_text_typed_while_the_send_is_on_its_way_stays_in_the_composer(
    tmp_path: Path,
) -> None:
    async with held_app(tmp_path) as held:
        type_keys(held.app, "why is it crashlooping\rand what next\r")
        await wait_until(held.pilot, lambda: "and what next" in held.composer.text)
        await held.pilot.pause()
        assert held.sent == ["why is it crashlooping"]  # the second Enter: refused, streaming
        assert "still streaming" in status_text(held.screen)  # why the second Enter did nothing
        await held.stored()
        assert held.composer.text == "and what next"
        assert held.composer.cursor_location == (0, len("and what next"))
        # Found in tmux: the refusal stayed after the reply had ended, saying it still streamed.
        await wait_until(held.pilot, lambda: not held.screen.sending)
        assert status_text(held.screen) == "The reply has ended: Enter sends your message."


async def test_the_sent_text_leaves_the_composer_once_stored(tmp_path: Path) -> None:
    async with held_app(tmp_path) as held:
        held.composer.text = "line one\nline two"
        await held.pilot.press("enter")
        await held.pilot.pause()
        assert held.sent == ["line one\nline two"]
        assert held.composer.text == "line one\nline two"  # not stored yet: still the user's
        await held.stored()
        assert held.composer.text == ""


async def test_text_changed_before_it_was_stored_is_left_alone(tmp_path: Path) -> None:
    async with held_app(tmp_path) as held:
        held.composer.text = "restart the pod"
        await held.pilot.press("enter")
        held.composer.text = "drain the node instead"
        await held.stored()
        assert held.sent == ["restart the pod"]
        assert held.composer.text == "drain the node instead"


async def test_a_log_pasted_while_the_send_is_on_its_way_goes_on_a_line_of_its_own(
    tmp_path: Path,
) -> None:
    """Found in tmux: a question sent, and a 30-line log pasted before it was stored (the
    first send of a run loads the model stack, a second or two): the paste was glued to the
    end of the sent question, the composer's text was then the user's and stayed whole, and
    the next Enter sent the first question again with the log."""
    async with held_app(tmp_path) as held:
        type_keys(held.app, "why is api-7 down\r")
        await wait_until(held.pilot, lambda: held.sent == ["why is api-7 down"])
        log = "02:51 ERROR upstream timeout\n02:52 ERROR upstream timeout"
        held.app.post_message(events.Paste(log))
        await wait_until(held.pilot, lambda: "02:52" in held.composer.text)
        await held.stored()
        assert held.composer.text == log


async def test_esc_before_the_message_is_stored_says_no_reply_was_kept(tmp_path: Path) -> None:
    """Esc while the first send of a run was being stored (the model stack loads, a second or
    two) said "Reply cancelled; the partial answer is kept", of an answer that never began.
    The text is still in the composer, to send again."""
    async with held_app(tmp_path) as held:
        type_keys(held.app, "why is api-7 down\r")
        await wait_until(held.pilot, lambda: held.sent == ["why is api-7 down"])
        await held.pilot.press("escape")
        await wait_until(held.pilot, lambda: not held.screen.sending)
        assert status_text(held.screen) == "Cancelled before an answer began: no reply is kept."
        assert held.composer.text == "why is api-7 down"
