"""A failed send never leaves a duplicate: the readiness check, retry, and what is sent again."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest

from oncall_tui.core.events import (
    CompactionFailed,
    CompactionStarted,
    ReplyDone,
    ReplyFailed,
    TokenDelta,
    ToolsUnavailable,
    UserMessageStored,
)
from oncall_tui.core.memory import MemoryMode
from oncall_tui.errors import OncallError
from oncall_tui.llm.gateway import READY_SECONDS, OllamaGateway
from oncall_tui.llm.ollama_api import OllamaApi
from oncall_tui.services.container import Services
from tests.conftest import FakeServer, both_providers, collect, make_settings, server_name
from tests.fakes.ollama_server import FakeOllama, Reply

OnOllama = Callable[..., Services]

pytestmark = pytest.mark.both_engines


def stored(services: Services, session_id: int) -> list[tuple[str, str, str]]:
    return [(m.role, m.status, m.content) for m in services.sessions.messages("alice", session_id)]


async def test_ollama_down_stores_nothing(on_ollama: OnOllama, closed_url: str) -> None:
    services = on_ollama(None, model="qwen3:8b", ollama_url=closed_url)
    with pytest.raises(OncallError) as down:
        await collect(services.chat.send("alice", None, "hello"))
    assert down.value.code == "MODEL_UNAVAILABLE"
    assert services.sessions.list_sessions("alice") == []


@both_providers
async def test_a_model_not_pulled_stores_nothing_in_an_existing_session(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    session_id = on_ollama(server, model="qwen3:8b").sessions.create("alice").id
    services = on_ollama(server, model="mistral:7b")
    for _ in range(3):
        with pytest.raises(OncallError) as missing:
            await collect(services.chat.send("alice", session_id, "hello"))
        assert missing.value.code == "MODEL_NOT_FOUND"
    assert stored(services, session_id) == []
    assert server.chat_requests == []


def test_a_ready_server_is_asked_again_only_after_a_few_seconds(
    server: FakeOllama, db_path: Path, db_url: str | None
) -> None:
    now = [100.0]
    settings = make_settings(db_path, db_url=db_url, ollama_url=server.url, model="qwen3:8b")
    gateway = OllamaGateway(settings, clock=lambda: now[0])

    def shows() -> int:
        return sum(r.path == "/api/show" for r in server.requests)

    gateway.check_ready()
    now[0] += READY_SECONDS - 0.01
    gateway.check_ready()
    assert shows() == 1
    now[0] += 0.01
    gateway.check_ready()
    assert shows() == 2


def test_a_failed_check_is_not_trusted(closed_url: str, db_path: Path, db_url: str | None) -> None:
    """When Ollama comes back, the next send goes through at once."""
    with FakeOllama() as server:
        settings = make_settings(db_path, db_url=db_url, ollama_url=closed_url, model="tiny:2k")
        api = OllamaApi(closed_url)
        gateway = OllamaGateway(settings, api=api)
        with pytest.raises(OncallError):
            gateway.check_ready()
        assert gateway.context_window() == 8_192  # the fallback, until the server answers
        api.base_url = server.url  # the server comes back where it was looked for
        assert gateway.check_ready().tools is True
        assert gateway.context_window() == 2_048  # and its model's window replaces the fallback


@both_providers
async def test_retry_answers_the_stored_message_again_without_storing_it_twice(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    services = on_ollama(server, model="qwen3:8b")
    server.script(Reply("The pods are", drop_after=2))
    first = await collect(services.chat.send("alice", None, "why do pods restart?"))
    failed = first[-1]
    assert isinstance(failed, ReplyFailed)
    assert failed.session_id is not None
    session_id = failed.session_id
    assert "retry answers it again" in failed.message

    server.script("OOMKilled: raise the limit.")
    again = await collect(services.chat.retry("alice", session_id))
    assert not any(isinstance(e, UserMessageStored) for e in again)
    assert "".join(e.text for e in again if isinstance(e, TokenDelta)) == (
        "OOMKilled: raise the limit."
    )
    assert isinstance(again[-1], ReplyDone)
    assert stored(services, session_id) == [
        ("user", "complete", "why do pods restart?"),
        ("assistant", "failed", "The pods "),
        ("assistant", "complete", "OOMKilled: raise the limit."),
    ]
    retried = server.chat_requests[-1]["messages"]
    assert [m["role"] for m in retried] == ["system", "user"]  # the partial is not sent back


@both_providers
async def test_nothing_to_retry_once_the_message_is_answered(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    services = on_ollama(server, model="qwen3:8b")
    done = (await collect(services.chat.send("alice", None, "hello")))[-1]
    assert isinstance(done, ReplyDone)
    before = stored(services, done.session_id)
    with pytest.raises(OncallError) as refused:
        await collect(services.chat.retry("alice", done.session_id))
    assert refused.value.message("en") == (
        f"Invalid argument: session {done.session_id} has no unanswered message to retry"
    )
    assert stored(services, done.session_id) == before


@both_providers
async def test_an_interrupted_reply_stays_but_is_not_sent_again(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    services = on_ollama(server, model="qwen3:8b")
    server.script(Reply("one two three four five", delay_per_chunk=0.2))
    session_ids: list[int] = []
    first_token = asyncio.Event()

    async def send() -> None:
        async for event in services.chat.send("alice", None, "count"):
            if isinstance(event, UserMessageStored):
                session_ids.append(event.session_id)
            if isinstance(event, TokenDelta):
                first_token.set()

    task = asyncio.create_task(send())
    await first_token.wait()
    task.cancel()  # what Esc in the TUI and Ctrl-C in the CLI do
    with pytest.raises(asyncio.CancelledError):
        await task
    server.script("ok")
    await collect(services.chat.send("alice", session_ids[0], "next"))
    assert [m["role"] for m in server.chat_requests[-1]["messages"]] == ["system", "user", "user"]
    assert [s for _, s, _ in stored(services, session_ids[0])] == [
        "complete",
        "interrupted",
        "complete",
        "complete",
    ]


@pytest.mark.parametrize("elsewhere", ["clear", "delete"])
async def test_a_reply_stopped_after_its_session_went_elsewhere_ends_as_a_stop(
    on_ollama: OnOllama, server: FakeOllama, elsewhere: str
) -> None:
    """Cleared or deleted in another window, then Esc: the stop stays a stop (the TUI marks
    the reply interrupted on it), and nothing is stored into the emptied session."""
    services = on_ollama(server, model="qwen3:8b")
    session = services.sessions.create("alice", "incident")
    server.script(Reply("one two three four five", delay_per_chunk=0.2))
    first_token = asyncio.Event()

    async def send() -> None:
        async for event in services.chat.send("alice", session.id, "count"):
            if isinstance(event, TokenDelta):
                first_token.set()

    task = asyncio.create_task(send())
    await first_token.wait()
    getattr(services.sessions, elsewhere)("alice", session.id)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    if elsewhere == "clear":
        assert stored(services, session.id) == []


async def test_a_model_without_tools_chats_without_them_when_recovery_is_off(
    on_ollama: OnOllama, server: FakeOllama
) -> None:
    """With recovery on, such a model gets its tools as text (services/test_recovered_calls.py)."""
    services = on_ollama(server, model="gemma:2b", recover_tool_calls=False)
    server.script("Check the pod's events.")
    events = await collect(services.chat.send("alice", None, "pod pending"))
    notice = events[0]
    assert isinstance(notice, ToolsUnavailable)
    assert notice.message == (
        "Model 'gemma:2b' does not support tools: skills and the clock tool are unavailable."
    )
    assert isinstance(events[-1], ReplyDone)
    (request,) = server.chat_requests
    assert "tools" not in request or not request["tools"]
    assert "This model cannot call tools here" in request["messages"][0]["content"]


@both_providers
async def test_a_reply_cut_at_the_length_limit_is_marked_truncated(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    services = on_ollama(server, model="qwen3:8b")
    server.script(Reply("First check the", done_reason="length"))
    events = await collect(services.chat.send("alice", None, "explain"))
    done = events[-1]
    assert isinstance(done, ReplyDone)
    assert done.status == "truncated"
    assert stored(services, done.session_id)[-1][:2] == ("assistant", "truncated")


@both_providers
@pytest.mark.parametrize(
    ("said", "done_reason", "why"),
    [
        ("<think>\nThe pods look fine.\n</think>\n\n ", "stop", "without writing an answer"),
        ("<think>\nFirst, the pods", "length", "reached its output limit before writing"),
    ],
    ids=["thinking-then-blank", "thinking-cut"],
)
async def test_a_reply_with_nothing_to_show_fails_and_can_be_asked_again(
    on_ollama: OnOllama, server: FakeServer, said: str, done_reason: str, why: str
) -> None:
    """Found in tmux with a thinking model: its turn spent on reasoning (which is not shown)
    drew an empty reply, stored as complete: nothing said why, and ctrl+r had nothing to
    retry. It fails now, nothing of it is stored, and a retry asks again."""
    services = on_ollama(server, model="qwen3:8b")
    server.script(Reply(said, done_reason=done_reason))
    events = await collect(services.chat.send("alice", None, "why do pods restart?"))
    failed = events[-1]
    assert isinstance(failed, ReplyFailed)
    assert failed.code == "STREAM_FAILED"
    assert why in failed.message
    assert failed.session_id is not None
    assert failed.message_id is None
    assert stored(services, failed.session_id) == [("user", "complete", "why do pods restart?")]
    server.script("OOMKilled: raise the limit.")
    again = await collect(services.chat.retry("alice", failed.session_id))
    assert isinstance(again[-1], ReplyDone)
    assert stored(services, failed.session_id)[-1] == (
        "assistant",
        "complete",
        "OOMKilled: raise the limit.",
    )


async def test_mode_manual_with_ollama_down_changes_nothing_and_says_so(
    on_ollama: OnOllama, server: FakeOllama, closed_url: str
) -> None:
    services = on_ollama(server, model="qwen3:8b")
    done = (await collect(services.chat.send("alice", None, "hello")))[-1]
    assert isinstance(done, ReplyDone)
    down = on_ollama(server, model="qwen3:8b", ollama_url=closed_url)
    with pytest.raises(OncallError) as unchanged:
        await down.memory.set_mode("alice", done.session_id, MemoryMode.MANUAL)
    assert unchanged.value.code == "MEMORY_MODE_UNCHANGED"
    message = unchanged.value.message("en")
    assert message.startswith(
        "The memory mode is still \u201cEvery 30 replies\u201d, because switching to \u201cManual "
        "only\u201d compacts at once: Memory compaction failed: Ollama is not reachable at "
    )
    # In the words the panel uses for the modes, not their ids (found on a Chinese screen).
    assert unchanged.value.message("zh").startswith(
        "记忆模式仍为\u201c每 30 次回复\u201d，因为切换到\u201c仅手动\u201d会立即压缩"
    )
    assert message.endswith("OLLAMA_HOST. The summary and history are unchanged.")
    assert ".." not in message
    state = services.memory.state("alice", done.session_id)
    assert (state.memory_mode, state.compacted_message_count) == (MemoryMode.EVERY_30_TURNS, 0)


@both_providers
async def test_the_summary_streams_so_the_timeout_is_between_chunks(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    """A slow summary finishes as long as every chunk comes within the timeout."""
    services = on_ollama(server, model="qwen3:8b", request_timeout=0.5)
    done = (await collect(services.chat.send("alice", None, "hello")))[-1]
    assert isinstance(done, ReplyDone)
    server.script(Reply("Goal: api-7. Facts: OOM at 02:10.", delay_per_chunk=0.3))
    state = await services.memory.compact("alice", done.session_id)
    assert state.memory_summary == "Goal: api-7. Facts: OOM at 02:10."
    assert server.chat_requests[-1].get("stream", True) is True


@both_providers
async def test_a_summary_chunk_later_than_the_timeout_fails_cleanly(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    services = on_ollama(server, model="qwen3:8b", request_timeout=0.5)
    done = (await collect(services.chat.send("alice", None, "hello")))[-1]
    assert isinstance(done, ReplyDone)
    server.script(Reply("Goal: api-7.", delay_per_chunk=0.8))
    with pytest.raises(OncallError) as failed:
        await services.memory.compact("alice", done.session_id)
    assert failed.value.code == "MEMORY_COMPACTION_FAILED"
    assert f"no data from {server_name(server)} for 0.5 s" in failed.value.message("en")


@both_providers
async def test_a_failed_automatic_compaction_is_reported_and_the_send_goes_on(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    services = on_ollama(server, model="qwen3:8b")
    first = (await collect(services.chat.send("alice", None, "hello")))[-1]
    assert isinstance(first, ReplyDone)
    session_id = first.session_id
    with services.database.session() as session:
        from oncall_tui.store.sessions import MessageRepository, SessionRepository

        chat = SessionRepository(session).require("alice", session_id)
        for i in range(29):
            MessageRepository(session).add(chat, "user", f"q{i}")
            MessageRepository(session).add(chat, "assistant", f"a{i}")
    server.script(Reply.failure(500, "llama runner process has terminated"), "answer")
    events = await collect(services.chat.send("alice", session_id, "31st"))
    assert events[0] == CompactionStarted(session_id, 60)
    failed = events[1]
    assert isinstance(failed, CompactionFailed)
    assert failed.to_json() == {
        "type": "compaction_failed",
        "session_id": session_id,
        "code": "MEMORY_COMPACTION_FAILED",
        "message": (
            "Memory compaction failed: The model stream failed: "
            f"{server_name(server)} reported: llama runner process has terminated. "
            "The summary and history are unchanged. The message is sent without compacting."
        ),
    }
    assert isinstance(events[2], UserMessageStored)
    assert isinstance(events[-1], ReplyDone)


@both_providers
async def test_a_summary_cut_at_the_length_limit_is_kept_and_marked(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    services = on_ollama(server, model="qwen3:8b")
    done = (await collect(services.chat.send("alice", None, "hello")))[-1]
    assert isinstance(done, ReplyDone)
    server.script(Reply("Goal: api-7. Facts: OOM at", done_reason="length"))
    state = await services.memory.compact("alice", done.session_id)
    assert (state.memory_summary, state.memory_summary_status) == (
        "Goal: api-7. Facts: OOM at",
        "truncated",
    )
    server.script("ok", "Goal: api-7, fixed.")
    await collect(services.chat.send("alice", done.session_id, "thanks"))
    again = await services.memory.compact("alice", done.session_id)
    assert again.memory_summary_status == "complete"
