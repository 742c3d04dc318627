"""While a reply streams the garbage collector's full passes wait (a full pass late in a long
reply is a visible stall); young passes go on, and the thresholds come back however the reply
ends."""

from __future__ import annotations

import gc
from collections.abc import AsyncGenerator
from pathlib import Path

import pytest

from oncall_tui.core.events import ChatEvent, ReplyDone, TokenDelta, UserMessageStored
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets.composer import Composer
from tests.tui.harness import scripted_app, seed_session, wait_until


@pytest.mark.parametrize("ending", ["complete", "fault"])
async def test_full_passes_wait_while_a_reply_streams_and_resume_after(
    tmp_path: Path, ending: str
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    opened = seed_session(app, 0)
    before = gc.get_threshold()
    during: list[tuple[int, int, int]] = []

    async def send(
        owner: str, session_id: int | None, text: str, *, confirm: object = None
    ) -> AsyncGenerator[ChatEvent, None]:
        yield UserMessageStored(opened, 0, text)
        during.append(gc.get_threshold())
        yield TokenDelta("Checking the pods.")
        if ending == "fault":
            raise RuntimeError("a bug mid-reply")
        yield ReplyDone(opened, 1, "complete")

    app.services.chat.send = send  # type: ignore[method-assign]  # a scripted reply
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen_stack[0]
        assert isinstance(screen, MainScreen)
        await app.workers.wait_for_complete()
        app.query_one(Composer).text = "why?"
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(during) and not screen.sending)
    assert during[0][:2] == before[:2]  # young passes as before
    assert during[0][2] > 1_000_000  # full passes wait
    assert gc.get_threshold() == before
