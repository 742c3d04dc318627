"""Every model call is bounded: a deadline for the whole call, a size for a reply, and a
compaction request that fits its window however long the transcript is."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from oncall_tui.core.events import ReplyDone, ReplyFailed, TokenDelta
from oncall_tui.core.memory import SUMMARY_INSTRUCTIONS, ContextUsage, MemoryMode
from oncall_tui.errors import OncallError
from oncall_tui.llm.tokens import estimate_tokens
from oncall_tui.services import chat as chat_service
from oncall_tui.services.container import Services
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from tests.conftest import FakeServer, both_providers, collect
from tests.fakes.ollama_server import Reply

OnOllama = Callable[..., Services]
TRICKLE = Reply("one two three four five six seven eight", delay_per_chunk=0.3)


@both_providers
async def test_a_trickling_reply_stops_at_the_deadline(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    """Each chunk comes well within the read timeout; the whole call does not."""
    services = on_ollama(server, model="qwen3:8b", request_timeout=1.0, deadline=1.0)
    server.script(TRICKLE)
    events = await collect(services.chat.send("alice", None, "count"))
    failed = events[-1]
    assert isinstance(failed, ReplyFailed)
    assert failed.message.startswith(
        "The model stream failed: the model took longer than the 1 s deadline."
    )
    received = "".join(e.text for e in events if isinstance(e, TokenDelta))
    assert received
    assert received != TRICKLE.text
    assert failed.session_id is not None
    reply = services.sessions.messages("alice", failed.session_id)[-1]
    assert (reply.status, reply.content) == ("failed", received)


@both_providers
async def test_a_reply_within_the_deadline_completes(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    services = on_ollama(server, model="qwen3:8b", request_timeout=1.0, deadline=10.0)
    server.script(TRICKLE)
    events = await collect(services.chat.send("alice", None, "count"))
    assert isinstance(events[-1], ReplyDone)


@both_providers
async def test_a_summary_is_bounded_by_the_deadline_too(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    services = on_ollama(server, model="qwen3:8b", request_timeout=1.0, deadline=1.0)
    # Seeded, not sent: on a loaded machine a real first reply can itself take over 1 s.
    session_id = seed_long_session(services, ["hello", "hi there"])
    server.script(TRICKLE)
    with pytest.raises(OncallError) as failed:
        await services.memory.compact("alice", session_id)
    assert "the model took longer than the 1 s deadline" in failed.value.message("en")
    assert services.memory.state("alice", session_id).compacted_message_count == 0


@pytest.mark.parametrize(("length", "status"), [(40, "complete"), (41, "truncated")])
@both_providers
async def test_a_reply_stops_at_its_size_limit(
    on_ollama: OnOllama,
    server: FakeServer,
    length: int,
    status: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(chat_service, "MAX_REPLY_CHARS", 40)
    services = on_ollama(server, model="qwen3:8b")
    text = ("x" * 9 + " ") * 5
    server.script(Reply(text[:length], chunk_size=7))
    events = await collect(services.chat.send("alice", None, "talk"))
    done = events[-1]
    assert isinstance(done, ReplyDone)
    assert done.status == status
    stored = services.sessions.messages("alice", done.session_id)[-1]
    assert (stored.status, stored.content) == (status, text[:40])
    assert "".join(e.text for e in events if isinstance(e, TokenDelta)) == text[:40]


def seed_long_session(services: Services, texts: list[str]) -> int:
    with services.database.session() as session:
        chat = SessionRepository(session).create("alice", "long", MemoryMode.MANUAL.value)
        messages = MessageRepository(session)
        for text in texts:
            messages.add(chat, "user", text)
            messages.add(chat, "assistant", "Noted.")
        assert chat.id is not None
        return chat.id


def sent_usage(request: dict[str, object]) -> ContextUsage:
    messages = request["messages"]
    assert isinstance(messages, list)
    system, user = messages[0]["content"], messages[1]["content"]
    return ContextUsage(estimate_tokens(system, [("user", user)]), 2_048)


@both_providers
async def test_a_long_transcript_is_summarised_in_parts_that_fit(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    services = on_ollama(server)  # tiny:2k
    paragraph = "The api-7 pods restarted at 02:10 after the 1.42.0 rollout; 502s from upstream. "
    session_id = seed_long_session(services, [paragraph * 12 for _ in range(8)])
    server.responder = lambda _: Reply("Goal: api-7 restarts. Facts: rollout 1.42.0, 502s.")
    state = await services.memory.compact("alice", session_id)
    requests = server.chat_requests
    assert len(requests) > 1
    for request in requests:
        assert request["messages"][0]["content"] == SUMMARY_INSTRUCTIONS
        assert not sent_usage(request).at_limit
    assert "Goal: api-7 restarts." in requests[-1]["messages"][1]["content"]  # merged forward
    assert (state.compacted_message_count, state.memory_summary) == (
        16,
        "Goal: api-7 restarts. Facts: rollout 1.42.0, 502s.",
    )


@both_providers
async def test_a_message_too_long_for_the_window_is_cut_in_the_transcript(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    services = on_ollama(server)  # tiny:2k
    session_id = seed_long_session(services, ["kubectl logs output line 17: error\n" * 2_000])
    server.responder = lambda _: Reply("Goal: read the logs.")
    await services.memory.compact("alice", session_id)
    first = server.chat_requests[0]
    assert not sent_usage(first).at_limit
    assert "more characters not summarised]" in first["messages"][1]["content"]
    assert services.sessions.messages("alice", session_id)[0].content.count("\n") == 2_000
