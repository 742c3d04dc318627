"""A reply the app cut at its size limit, or one huge line from the server, does not make the
session unusable: later requests carry its beginning and end (a third of the window at most),
the user is told, and the whole reply stays in the history."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from oncall_tui.core.events import ContextLimitReached, ReplyDone, ReplyFailed
from oncall_tui.core.memory import SENT_BACK_SHARE, sent_back
from oncall_tui.core.tokens import estimate_text_tokens
from oncall_tui.services import chat as chat_service
from oncall_tui.services.container import Services
from tests.conftest import collect
from tests.fakes.ollama_server import FakeOllama, Reply

OnOllama = Callable[..., Services]
WINDOW = 8192
LEFT_OUT = "characters of this reply were left out here"

pytestmark = pytest.mark.both_engines


def runaway(chars: int) -> str:
    line = "kubectl -n payments logs deploy/payments-api --since=10m | grep -i timeout\n"
    return (line * (chars // len(line) + 1))[:chars]


async def test_after_a_reply_cut_at_the_limit_the_next_send_fits(
    on_ollama: OnOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chat_service, "MAX_REPLY_CHARS", 50_000)
    with FakeOllama() as server:
        services = on_ollama(server, model="qwen3:8b")
        server.script(Reply(text=runaway(60_000), chunk_size=5_000), "Next answer.")
        first = await collect(services.chat.send("alice", None, "tail the logs"))
        done = first[-1]
        assert isinstance(done, ReplyDone)
        assert done.status == "truncated"
        assert done.note is not None
        assert "later requests carry only its beginning and end" in done.note

        second = await collect(services.chat.send("alice", done.session_id, "and now?"))
        assert not any(isinstance(e, ContextLimitReached | ReplyFailed) for e in second)
        assert isinstance(second[-1], ReplyDone)
        sent = server.chat_requests[-1]["messages"]
        carried = next(m["content"] for m in sent if m["role"] == "assistant")
        assert LEFT_OUT in carried
        assert estimate_text_tokens(carried) <= WINDOW // SENT_BACK_SHARE
        kept = services.sessions.messages("alice", done.session_id)
        assert kept[1].content == runaway(50_000)  # the history keeps all of it
        assert services.memory.state("alice", done.session_id).usage.percent < 95


async def test_one_huge_line_from_the_server_is_sent_back_shortened(
    on_ollama: OnOllama,
) -> None:
    huge = "x" * 120_000  # complete, under the size limit, and alone past the window
    with FakeOllama() as server:
        services = on_ollama(server, model="qwen3:8b")
        server.script(Reply(text=huge, chunk_size=20_000), "ok")
        done = (await collect(services.chat.send("alice", None, "dump it")))[-1]
        assert isinstance(done, ReplyDone)
        assert done.status == "complete"
        assert done.note is not None
        second = await collect(services.chat.send("alice", done.session_id, "shorter?"))
        assert isinstance(second[-1], ReplyDone)


async def test_a_normal_reply_goes_back_whole_and_says_nothing(on_ollama: OnOllama) -> None:
    answer = runaway(2_000)
    with FakeOllama() as server:
        services = on_ollama(server, model="qwen3:8b")
        server.script(Reply(text=answer, chunk_size=500), "ok")
        done = (await collect(services.chat.send("alice", None, "a few lines")))[-1]
        assert isinstance(done, ReplyDone)
        assert done.note is None
        await collect(services.chat.send("alice", done.session_id, "more"))
        sent = server.chat_requests[-1]["messages"]
        assert next(m["content"] for m in sent if m["role"] == "assistant") == answer


def at_bound(window: int) -> str:
    """The longest text of single-token pieces that fits a third of ``window``."""
    room = window // SENT_BACK_SHARE
    text = ""
    while estimate_text_tokens(text + " x") <= room:
        text += " x"
    return text


@pytest.mark.parametrize("window", [2048, 8192])
def test_a_reply_at_the_bound_goes_back_whole_and_one_past_it_is_shortened(
    window: int,
) -> None:
    whole = at_bound(window)
    assert sent_back(whole, window) == whole
    past = whole + " x"
    shortened = sent_back(past, window)
    assert LEFT_OUT in shortened
    assert estimate_text_tokens(shortened) <= window // SENT_BACK_SHARE
    assert shortened.startswith(past[:20])
    assert shortened.endswith(past[-10:])
