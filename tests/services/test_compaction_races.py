"""A compaction commits only if the session is still as it read it: clears, deletes, other
compactions and new messages while the summary is being written discard it, and say so."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from oncall_tui.core.events import ReplyDone
from oncall_tui.core.memory import MemoryState
from oncall_tui.errors import OncallError
from oncall_tui.services.container import Services
from tests.conftest import FakeServer, both_providers, collect, poll_until
from tests.fakes.ollama_server import FakeOllama, Reply

OnOllama = Callable[..., Services]
SLOW_SUMMARY = Reply("Goal: api-7. Facts: OOM.", delay_per_chunk=0.2)

pytestmark = pytest.mark.both_engines


async def session_with_history(services: Services) -> int:
    done = (await collect(services.chat.send("alice", None, "why 502s?")))[-1]
    assert isinstance(done, ReplyDone)
    return done.session_id


async def while_summarising(
    services: Services, server: FakeServer, session_id: int, meanwhile: Callable[[], object]
) -> asyncio.Task[MemoryState]:
    """Start a compaction, do ``meanwhile`` once the model is writing its summary."""
    asked = len(server.chat_requests)
    server.script(SLOW_SUMMARY)
    task = asyncio.create_task(services.memory.compact("alice", session_id))
    await poll_until(lambda: len(server.chat_requests) > asked)
    meanwhile()
    return task


async def discarded(task: asyncio.Task[MemoryState]) -> str:
    with pytest.raises(OncallError) as failed:
        await task
    assert failed.value.code == "MEMORY_COMPACTION_FAILED"
    return failed.value.message("en")


@both_providers
async def test_a_clear_during_a_compaction_discards_its_summary(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    services = on_ollama(server, model="qwen3:8b")
    session_id = await session_with_history(services)
    task = await while_summarising(
        services, server, session_id, lambda: services.sessions.clear("alice", session_id)
    )
    assert await discarded(task) == (
        "Memory compaction failed: the session changed while the summary was written (its "
        "messages were cleared), so it was discarded. The summary and history are unchanged."
    )
    state = services.memory.state("alice", session_id)
    assert (state.memory_summary, state.compacted_message_count) == (None, 0)
    server.script("fresh start")
    await collect(services.chat.send("alice", session_id, "new incident"))
    system = server.chat_requests[-1]["messages"][0]["content"]
    assert "Goal: api-7" not in system  # the cleared conversation's summary never reaches it


async def test_a_delete_during_a_compaction_discards_its_summary(
    on_ollama: OnOllama, server: FakeOllama
) -> None:
    services = on_ollama(server, model="qwen3:8b")
    session_id = await session_with_history(services)
    task = await while_summarising(
        services, server, session_id, lambda: services.sessions.delete("alice", session_id)
    )
    assert "(it was deleted), so it was discarded" in await discarded(task)
    assert services.sessions.list_sessions("alice") == []


async def test_of_two_compactions_at_once_one_commits(
    on_ollama: OnOllama, server: FakeOllama
) -> None:
    services = on_ollama(server, model="qwen3:8b")
    session_id = await session_with_history(services)
    quick: list[asyncio.Task[MemoryState]] = []

    def compact_again() -> None:
        server.script(Reply("Goal: api-7 (quick).", delay_per_chunk=0.05))
        quick.append(asyncio.create_task(services.memory.compact("alice", session_id)))

    slow = await while_summarising(services, server, session_id, compact_again)
    state = await quick[0]
    assert "(it was compacted meanwhile)" in await discarded(slow)
    assert state.memory_summary == "Goal: api-7 (quick)."
    assert services.memory.state("alice", session_id).compacted_message_count == 2


async def test_messages_added_during_a_compaction_discard_its_summary(
    on_ollama: OnOllama, server: FakeOllama
) -> None:
    services = on_ollama(server, model="qwen3:8b")
    session_id = await session_with_history(services)

    def another_writer() -> None:
        from oncall_tui.store.sessions import MessageRepository, SessionRepository

        with services.database.session() as session:
            chat = SessionRepository(session).require("alice", session_id)
            MessageRepository(session).add(chat, "user", "a script chatting meanwhile")

    task = await while_summarising(services, server, session_id, another_writer)
    assert "(messages were added)" in await discarded(task)
    assert services.memory.state("alice", session_id).compacted_message_count == 0


@both_providers
async def test_an_undisturbed_compaction_commits(on_ollama: OnOllama, server: FakeServer) -> None:
    services = on_ollama(server, model="qwen3:8b")
    session_id = await session_with_history(services)
    task = await while_summarising(services, server, session_id, lambda: None)
    state = await task
    assert (state.memory_summary, state.compacted_message_count) == (
        "Goal: api-7. Facts: OOM.",
        2,
    )
