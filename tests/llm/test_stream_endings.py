"""How a model's stream ends decides what is stored. A stream that just stops (the HTTP
response ends cleanly, but without Ollama's done record or the OpenAI API's ``finish_reason``)
is a failed reply whose partial answer is kept, as a dropped connection is; a stream with its
``finish_reason`` but no ``data: [DONE]`` (some servers never send it) is complete. Through
the real clients (``langchain-ollama``, ``langchain-openai``) and the loopback servers."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from langchain_core.language_models import BaseChatModel

from oncall_tui.core.events import ReplyDone, ReplyFailed, ToolFinished
from oncall_tui.errors import OncallError
from oncall_tui.llm.agent import summarize
from oncall_tui.llm.factory import build_chat_model
from oncall_tui.llm.openai_model import build_openai_chat_model
from oncall_tui.llm.server import OLLAMA, OPENAI_COMPATIBLE
from oncall_tui.services.container import Services
from tests.conftest import FakeServer, both_providers, collect, server_name
from tests.fakes.ollama_server import Reply
from tests.fakes.openai_server import FakeOpenAI

OnOllama = Callable[..., Services]


def stored(services: Services, session_id: int) -> list[tuple[str, str, str]]:
    return [(m.role, m.status, m.content) for m in services.sessions.messages("alice", session_id)]


def ended_early(server: FakeServer) -> str:
    """The catalog's sentence for a stream that just stops, naming the server."""
    name = "Ollama" if not isinstance(server, FakeOpenAI) else "the model server"
    return f"The model stream failed: {name} ended the stream before the reply was finished."


@both_providers
async def test_a_stream_that_just_stops_is_stored_failed_with_its_partial_answer(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    services = on_ollama(server, model="qwen3:8b")
    server.script(Reply("The pods are OOMKilled", end_after=2))
    events = await collect(services.chat.send("alice", None, "why do pods restart?"))
    failed = events[-1]
    assert isinstance(failed, ReplyFailed)
    assert failed.code == "STREAM_FAILED"
    assert failed.message.startswith(ended_early(server))
    assert failed.session_id is not None
    assert stored(services, failed.session_id) == [
        ("user", "complete", "why do pods restart?"),
        ("assistant", "failed", "The pods "),
    ]


@both_providers
async def test_a_stream_that_stops_after_a_tool_round_is_failed_too(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    services = on_ollama(server, model="qwen3:8b")
    server.script(Reply.tool_call("get_current_time", {}), Reply("It is late", end_after=1))
    events = await collect(services.chat.send("alice", None, "what time is it?"))
    assert [e.status for e in events if isinstance(e, ToolFinished)] == ["ok"]
    failed = events[-1]
    assert isinstance(failed, ReplyFailed)
    assert failed.session_id is not None
    assert stored(services, failed.session_id)[-1] == ("assistant", "failed", "It ")


@both_providers
async def test_a_stream_that_stops_before_any_text_stores_no_reply(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    services = on_ollama(server, model="qwen3:8b")
    server.script(Reply("never said", end_after=0))
    events = await collect(services.chat.send("alice", None, "hello"))
    failed = events[-1]
    assert isinstance(failed, ReplyFailed)
    assert failed.message.startswith(ended_early(server))
    assert failed.session_id is not None
    assert [m[0] for m in stored(services, failed.session_id)] == ["user"]


async def test_a_finish_reason_without_the_done_marker_is_a_complete_reply(
    on_ollama: OnOllama,
) -> None:
    with FakeOpenAI(done_marker=False) as server:
        services = on_ollama(server, model="qwen3:8b")
        server.script("Raise the memory limit.")
        events = await collect(services.chat.send("alice", None, "why do pods restart?"))
        server.script("Raise it.")
        raw = httpx.post(
            f"{server.url}/chat/completions",
            json={
                "model": "qwen3:8b",
                "stream": True,
                "messages": [{"role": "user", "content": "x"}],
            },
        ).text
    assert '"finish_reason": "stop"' in raw
    assert "[DONE]" not in raw  # the fake is such a server
    done = events[-1]
    assert isinstance(done, ReplyDone)
    assert stored(services, done.session_id)[-1] == (
        "assistant",
        "complete",
        "Raise the memory limit.",
    )


@both_providers
async def test_a_summary_whose_stream_just_stops_is_no_summary(server: FakeServer) -> None:
    model: BaseChatModel
    if isinstance(server, FakeOpenAI):
        model = build_openai_chat_model(server.url, "qwen3:8b", 10.0)
        kind = OPENAI_COMPATIBLE
    else:
        model = build_chat_model(server.url, "qwen3:8b", num_ctx=4096, timeout=10.0)
        kind = OLLAMA
    server.script(Reply("The user had a full disk on db-1", end_after=3))
    with pytest.raises(OncallError) as failed:
        await summarize(model, "Summarise.", "User: disk full", server=kind)
    assert failed.value.code == "STREAM_FAILED"
    assert failed.value.message("en") == ended_early(server)
    assert server_name(server) in failed.value.message("en")
