"""Self-tests for the fakes; also documents real library behaviour they rely on."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import ollama
import pytest
from langchain.agents import create_agent
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessageChunk,
    HumanMessage,
    ToolMessage,
)
from langchain_core.tools import tool
from langchain_ollama import ChatOllama

from .chat_model import ScriptedChatModel, ScriptExhaustedError, Turn
from .ollama_server import FakeModel, FakeOllama, Reply, split_text

TIME = "2025-01-01T12:00:00Z"


@tool
def get_current_time() -> str:
    """Return the current time as an ISO-8601 string."""
    return TIME


def llm(server: FakeOllama, **kw: Any) -> ChatOllama:
    return ChatOllama(base_url=server.url, model=kw.pop("model", "qwen3:8b"), **kw)


async def drain(stream: AsyncIterator[BaseMessageChunk], into: list[str]) -> None:
    """Collect streamed text into `into` (kept even if the stream raises)."""
    async for chunk in stream:
        into.append(str(chunk.content))


# -- FakeOllama: plain HTTP -------------------------------------------------------


def test_split_text() -> None:
    assert split_text("hello big world") == ["hello ", "big ", "world"]
    assert split_text("abcdefg", 3) == ["abc", "def", "g"]
    assert "".join(split_text("  a  b ")) == "  a  b "


def test_metadata_endpoints(server: FakeOllama) -> None:
    server.models["qwen3:8b"] = FakeModel("qwen3:8b", num_ctx=16384, context_length=40960)
    assert httpx.get(f"{server.url}/api/version").json() == {"version": "0.12.6"}
    names = [m["name"] for m in httpx.get(f"{server.url}/api/tags").json()["models"]]
    assert names == ["qwen3:8b", "llama3.2:3b", "tiny:2k", "gemma:2b"]
    missing = httpx.post(f"{server.url}/api/show", json={"model": "nope:1b"})
    assert missing.status_code == 404
    assert missing.json() == {"error": "model 'nope:1b' not found"}
    show = ollama.Client(host=server.url).show("qwen3:8b")  # real client parses it
    assert show.modelinfo is not None
    assert show.modelinfo["qwen3.context_length"] == 40960
    assert "num_ctx                        16384" in (show.parameters or "")
    assert show.capabilities == ["completion", "tools"]
    assert server.requests[-1].path == "/api/show"


def test_non_streamed_chat_and_responder() -> None:
    with FakeOllama(responder=lambda body: f"n={len(body['messages'])}") as server:
        server.script(Reply.tool_call("get_current_time", {}))
        body = {"model": "qwen3", "stream": False, "messages": []}  # no ":latest" model
        assert httpx.post(f"{server.url}/api/chat", json=body).status_code == 404
        body["model"] = "llama3.2:3b"
        first = httpx.post(f"{server.url}/api/chat", json=body).json()
        assert first["done"] is True
        assert first["message"]["tool_calls"][0]["function"]["name"] == "get_current_time"
        second = httpx.post(f"{server.url}/api/chat", json=body).json()
        assert second["message"]["content"] == "n=0"


# -- FakeOllama + real ChatOllama -----------------------------------------------


@pytest.mark.asyncio
async def test_chatollama_streams_tokens_usage_and_num_ctx(server: FakeOllama) -> None:
    server.script(Reply(text="The quick brown fox", prompt_eval_count=123, eval_count=7))
    chunks = [c async for c in llm(server, num_ctx=8192).astream("hello")]
    assert [c.content for c in chunks[:4]] == ["The ", "quick ", "brown ", "fox"]
    # Quirk: ChatOllama puts usage on the done-record chunk, and langchain-core then
    # appends one more empty chunk with chunk_position="last" (and no usage).
    done, last = chunks[-2:]
    assert isinstance(done, AIMessageChunk)
    assert isinstance(last, AIMessageChunk)
    assert done.usage_metadata == {"input_tokens": 123, "output_tokens": 7, "total_tokens": 130}
    assert done.response_metadata["model_name"] == "qwen3:8b"
    assert last.chunk_position == "last"
    assert last.usage_metadata is None
    total = chunks[0]
    for chunk in chunks[1:]:
        total += chunk
    assert isinstance(total, AIMessageChunk)
    assert total.usage_metadata is not None
    assert total.usage_metadata["input_tokens"] == 123
    (request,) = server.chat_requests
    assert request["options"] == {"num_ctx": 8192}
    assert request["stream"] is True
    assert request["messages"] == [{"role": "user", "content": "hello"}]


@pytest.mark.asyncio
async def test_chatollama_invoke_streams_and_stream_false(server: FakeOllama) -> None:
    server.script(Reply(text="abcdef", chunk_size=2), "summary")
    msg = await llm(server).ainvoke("x")  # invoke still streams under the hood
    assert msg.content == "abcdef"
    assert server.chat_requests[0]["stream"] is True
    assert server.chat_requests[0]["options"] == {}  # unset options are omitted
    summary = await llm(server).ainvoke("x", stream=False)
    assert summary.content == "summary"
    assert server.chat_requests[1]["stream"] is False


@pytest.mark.asyncio
async def test_agent_tool_round_trip_over_ollama(server: FakeOllama) -> None:
    server.script(Reply.tool_call("get_current_time", {}), Reply(text="It is noon."))
    agent = create_agent(llm(server), tools=[get_current_time])
    streamed: list[Any] = []
    async for message, _meta in agent.astream(
        {"messages": [HumanMessage("What time is it?")]}, stream_mode="messages"
    ):
        streamed.append(message)
    tool_chunks = [m for m in streamed if isinstance(m, AIMessageChunk) and m.tool_calls]
    assert tool_chunks[0].tool_calls[0]["name"] == "get_current_time"
    assert any(isinstance(m, ToolMessage) and m.content == TIME for m in streamed)
    text = "".join(str(m.content) for m in streamed if isinstance(m, AIMessageChunk))
    assert text == "It is noon."
    first, second = server.chat_requests
    assert [t["function"]["name"] for t in first["tools"]] == ["get_current_time"]
    assistant, tool_msg = second["messages"][-2:]
    assert assistant["tool_calls"][0]["function"] == {"name": "get_current_time", "arguments": {}}
    # Quirk: the ollama client drops ToolMessage.tool_call_id (no such Message field).
    assert tool_msg == {"role": "tool", "content": TIME}


# -- failure modes ------------------------------------------------------------------


@pytest.mark.asyncio
async def test_unknown_model_is_response_error_404(server: FakeOllama) -> None:
    with pytest.raises(ollama.ResponseError) as info:
        await llm(server, model="nope:7b").ainvoke("hi")
    assert info.value.status_code == 404
    assert info.value.error == 'model "nope:7b" not found, try pulling it first'


def test_validate_model_on_init(server: FakeOllama) -> None:
    llm(server, validate_model_on_init=True)  # ok: calls GET /api/tags
    with pytest.raises(ValueError, match="not found in Ollama"):
        llm(server, model="nope:7b", validate_model_on_init=True)
    llm(server, model="nope:7b")  # default: no validation at all


@pytest.mark.asyncio
async def test_dropped_connection_gives_partial_tokens_then_error(server: FakeOllama) -> None:
    server.script(Reply(text="one two three four", drop_after=2))
    got: list[str] = []
    with pytest.raises(httpx.RemoteProtocolError):
        await drain(llm(server).astream("hi"), got)
    assert got == ["one ", "two "]


@pytest.mark.asyncio
async def test_http_500_is_response_error(server: FakeOllama) -> None:
    server.script(Reply.failure(500, "llama runner process has terminated"))
    with pytest.raises(ollama.ResponseError) as info:
        await llm(server).ainvoke("hi")
    assert info.value.status_code == 500
    assert "llama runner" in str(info.value)


@pytest.mark.asyncio
async def test_read_timeout(server: FakeOllama) -> None:
    server.script(Reply(text="slow reply", delay_per_chunk=1.0))
    with pytest.raises(httpx.ReadTimeout):
        await llm(server, client_kwargs={"timeout": 0.2}).ainvoke("hi")


@pytest.mark.asyncio
async def test_server_down() -> None:
    with FakeOllama() as gone:
        url = gone.url
    down = ChatOllama(base_url=url, model="qwen3:8b")
    with pytest.raises(httpx.ConnectError):  # streaming path: raw httpx error
        await down.ainvoke("hi")
    with pytest.raises(ConnectionError):  # non-streamed path: ollama wraps it
        await down.ainvoke("hi", stream=False)
    # Quirk: validate_model catches httpx.ConnectError, but the ollama client has
    # already turned it into the builtin ConnectionError, which escapes unwrapped.
    with pytest.raises(ConnectionError, match="Failed to connect to Ollama"):
        ChatOllama(base_url=url, model="qwen3:8b", validate_model_on_init=True)


# -- ScriptedChatModel --------------------------------------------------------------


@pytest.mark.asyncio
async def test_scripted_model_streams_chunks_with_usage() -> None:
    model = ScriptedChatModel([Turn(text="alpha beta gamma", input_tokens=50)])
    chunks = [c async for c in model.astream([HumanMessage("hi")])]
    assert [c.content for c in chunks] == ["alpha ", "beta ", "gamma", ""]
    assert chunks[-1].usage_metadata == {
        "input_tokens": 50,
        "output_tokens": 3,
        "total_tokens": 53,
    }
    assert model.calls == [[HumanMessage("hi")]]


def test_scripted_model_generate_tool_calls_and_exhaustion() -> None:
    model = ScriptedChatModel([[("lookup", {"q": "x", "n": 2})], "done"])
    first = model.invoke("hi")
    assert isinstance(first, AIMessage)
    assert [(c["name"], c["args"]) for c in first.tool_calls] == [("lookup", {"q": "x", "n": 2})]
    assert first.usage_metadata is not None
    assert model.invoke("again").content == "done"
    with pytest.raises(ScriptExhaustedError):
        model.invoke("more")


@pytest.mark.asyncio
async def test_scripted_model_error_mid_stream() -> None:
    model = ScriptedChatModel([Turn.raises(RuntimeError("boom"), after=2, text="a b c d")])
    got: list[str] = []
    with pytest.raises(RuntimeError, match="boom"):
        await drain(model.astream("hi"), got)
    assert got == ["a ", "b "]


@pytest.mark.asyncio
async def test_scripted_model_with_create_agent() -> None:
    model = ScriptedChatModel([Turn.call("get_current_time"), "It is noon.", "Bye."])
    agent = create_agent(model, tools=[get_current_time])
    streamed = [
        m
        async for m, _ in agent.astream(
            {"messages": [HumanMessage("time?")]}, stream_mode="messages"
        )
    ]
    assert any(isinstance(m, ToolMessage) and m.content == TIME for m in streamed)
    result = await agent.ainvoke({"messages": [HumanMessage("again?")]})
    assert result["messages"][-1].content == "Bye."
    assert len(model.calls) == 3
    second_call = model.calls[1]
    assert isinstance(second_call[-1], ToolMessage)
    assert second_call[-1].content == TIME
    assert model.tool_names == ["get_current_time"]
    assert json.dumps(model.bound_tools[0][0]["function"]["parameters"])
