"""stream_agent and summarize with the real ChatOllama against the loopback fake server; the
tests marked ``both_providers`` run with the real ChatOpenAI against the OpenAI-compatible
fake too."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel

from oncall_tui.core.events import ThinkingStarted, TokenDelta, ToolFinished, ToolStarted
from oncall_tui.errors import OncallError
from oncall_tui.llm.agent import ModelUsage, Summary, stream_agent, summarize
from oncall_tui.llm.factory import build_chat_model
from oncall_tui.llm.openai_model import build_openai_chat_model
from oncall_tui.llm.server import OLLAMA, OPENAI_COMPATIBLE, ServerKind
from oncall_tui.llm.tools import build_tools
from tests.conftest import FakeServer, both_providers, poll_until, server_name
from tests.fakes import FakeOllama, Reply
from tests.fakes.openai_server import FakeOpenAI

from .helpers import collect, collect_until_error, text_of

SKILL = "---\nname: disk-full\ndescription: Free disk space.\n---\n\n# Steps\n1. df -h\n"
HISTORY = [("user", "db-1 alerts"), ("assistant", "Which alert?"), ("user", "disk full")]


def model_for(
    where: str | FakeServer, model: str = "qwen3:8b", timeout: float = 10.0
) -> BaseChatModel:
    """The provider's model for a server (an Ollama URL when given a string)."""
    if isinstance(where, FakeOpenAI):
        return build_openai_chat_model(where.url, model, timeout)
    url = where if isinstance(where, str) else where.url
    return build_chat_model(url, model, num_ctx=4096, timeout=timeout)


def kind_of(server: FakeServer) -> ServerKind:
    """The kind of server its gateway would say it is: how its failures read."""
    return OPENAI_COMPATIBLE if isinstance(server, FakeOpenAI) else OLLAMA


async def test_tokens_stream_and_usage_comes_last(server: FakeOllama) -> None:
    server.script(Reply(text="Check the log volume first.", prompt_eval_count=321, eval_count=9))
    items = await collect(stream_agent(model_for(server.url), "SYS", HISTORY, build_tools({})))
    deltas = [i for i in items if isinstance(i, TokenDelta)]
    assert [d.text for d in deltas] == ["Check ", "the ", "log ", "volume ", "first."]
    assert items[-1] == ModelUsage(input_tokens=321, output_tokens=9, first_input_tokens=321)
    assert sum(isinstance(i, ModelUsage) for i in items) == 1
    (request,) = server.chat_requests
    assert request["messages"] == [
        {"role": "system", "content": "SYS"},
        {"role": "user", "content": "db-1 alerts"},
        {"role": "assistant", "content": "Which alert?"},
        {"role": "user", "content": "disk full"},
    ]
    assert request["options"]["num_ctx"] == 4096
    assert [t["function"]["name"] for t in request["tools"]] == ["get_current_time"]


@both_providers
async def test_tool_round_trip_yields_start_then_end_and_sends_the_result_back(
    server: FakeServer,
) -> None:
    server.script(
        Reply(
            text="Loading.",
            tool_calls=(("load_skill", {"skill_name": "disk-full"}),),
            prompt_eval_count=200,
            eval_count=6,
        ),
        Reply(text="Run df -h.", prompt_eval_count=480, eval_count=4),
    )
    tools = build_tools({"disk-full": SKILL})
    items = await collect(stream_agent(model_for(server), "SYS", HISTORY, tools))
    kinds = [type(i).__name__ for i in items]
    assert kinds == [
        "TokenDelta",
        "ToolStarted",
        "ToolFinished",
        "TokenDelta",
        "TokenDelta",
        "TokenDelta",
        "ModelUsage",
    ]
    started, finished = items[1], items[2]
    assert isinstance(started, ToolStarted)
    assert isinstance(finished, ToolFinished)
    assert (started.name, started.arguments) == ("load_skill", {"skill_name": "disk-full"})
    assert (finished.call_id, finished.name) == (started.call_id, "load_skill")
    assert finished.summary == "Loaded skill: disk-full"
    assert finished.ok is True
    assert finished.duration_ms >= 0
    assert text_of(items) == "Loading.\n\nRun df -h."
    assert items[-1] == ModelUsage(input_tokens=480, output_tokens=10, first_input_tokens=200)
    first, second = server.chat_requests
    assert {t["function"]["name"] for t in first["tools"]} == {"get_current_time", "load_skill"}
    assistant, tool_result = second["messages"][-2:]
    assert assistant["tool_calls"][0]["function"]["name"] == "load_skill"
    assert (tool_result["role"], tool_result["content"]) == (
        "tool",
        f"Loaded skill: disk-full\n\n{SKILL}",
    )


@both_providers
@pytest.mark.parametrize("apart", [True, False], ids=["apart", "think tags"])
async def test_a_model_that_reasons_is_said_to_think_before_each_call_s_output(
    server: FakeServer, apart: bool
) -> None:
    """qwen3 through Ollama 0.9 and later reasons in the ``thinking`` field (a request that
    sets no ``think`` gets it), llama.cpp's server in ``reasoning_content``: LangChain drops
    both, leaving pieces without text; older servers put it in a <think> block. Either way
    the stream says so once a model call, before its call or its answer, and none of the
    reasoning is in the reply."""
    steps = "The pods restarted at 02:47, right after the deploy of r42."

    def reasoning(**kw: Any) -> Reply:
        if apart:
            return Reply(thinking=steps, chunk_size=8, **kw)
        text = kw.pop("text", "")
        return Reply(text=f"<think>{steps}</think>\n\n{text}", chunk_size=8, **kw)

    server.script(
        reasoning(tool_calls=(("load_skill", {"skill_name": "disk-full"}),)),
        reasoning(text="Roll back to r41."),
    )
    items = await collect(
        stream_agent(model_for(server), "SYS", HISTORY, build_tools({"disk-full": SKILL}))
    )
    kinds = [type(i).__name__ for i in items if not isinstance(i, TokenDelta)]
    assert kinds == [
        "ThinkingStarted",
        "ToolStarted",
        "ToolFinished",
        "ThinkingStarted",
        "ModelUsage",
    ]
    assert isinstance(items[-2], TokenDelta)  # the answer after its reasoning
    assert text_of(items) == "Roll back to r41."


async def test_a_call_to_an_unregistered_tool_finishes_not_ok(server: FakeOllama) -> None:
    server.script(Reply.tool_call("restart_database", {"host": "db-1"}), Reply(text="Sorry."))
    items = await collect(stream_agent(model_for(server.url), "SYS", HISTORY, build_tools({})))
    finished = next(i for i in items if isinstance(i, ToolFinished))
    assert not any(isinstance(i, ThinkingStarted) for i in items)  # a call only: no reasoning
    assert finished.ok is False
    assert finished.name == "restart_database"
    assert "not a valid tool" in finished.summary
    assert text_of(items) == "Sorry."


async def test_server_down_is_model_unavailable(closed_url: str) -> None:
    stream = stream_agent(model_for(closed_url), "SYS", HISTORY, build_tools({}))
    items, error = await collect_until_error(stream)
    assert items == []
    assert error.code == "MODEL_UNAVAILABLE"
    assert error.params["url"] == closed_url


async def test_model_not_pulled_is_model_not_found(server: FakeOllama) -> None:
    model = model_for(server.url, model="nope:7b")
    items, error = await collect_until_error(
        stream_agent(model, "SYS", HISTORY, [], url=server.url, model_name="nope:7b")
    )
    assert items == []
    assert error.code == "MODEL_NOT_FOUND"
    assert "ollama pull nope:7b" in error.message("en")


@both_providers
async def test_dropped_connection_keeps_the_tokens_then_fails(server: FakeServer) -> None:
    server.script(Reply(text="one two three four", drop_after=2))
    stream = stream_agent(
        model_for(server), "SYS", HISTORY, build_tools({}), server=kind_of(server)
    )
    items, error = await collect_until_error(stream)
    assert text_of(items) == "one two "
    assert not any(isinstance(i, ModelUsage) for i in items)
    assert error.code == "STREAM_FAILED"
    assert error.message("en") == (
        f"The model stream failed: the connection to {server_name(server)} dropped."
    )


@both_providers
async def test_silent_server_fails_after_the_timeout(server: FakeServer) -> None:
    server.script(Reply(text="slow reply", delay_per_chunk=4.0))
    model = model_for(server, timeout=1.0)
    stream = stream_agent(model, "SYS", HISTORY, [], server=kind_of(server))
    _, error = await collect_until_error(stream)
    assert error.code == "STREAM_FAILED"
    assert (
        error.message("en")
        == f"The model stream failed: no data from {server_name(server)} for 1 s."
    )


@both_providers
async def test_server_error_is_stream_failed_with_ollamas_reason(server: FakeServer) -> None:
    server.script(Reply.failure(500, "llama runner process has terminated"))
    _, error = await collect_until_error(stream_agent(model_for(server), "SYS", HISTORY, []))
    assert error.code == "STREAM_FAILED"
    assert "llama runner process has terminated" in error.message("en")


async def test_a_model_that_does_not_fit_in_memory_says_what_frees_it(server: FakeOllama) -> None:
    """Another model still loaded, a machine busy with the incident: Ollama's words alone left
    the engineer to guess what to do at 3 a.m."""
    said = "model requires more system memory (10.2 GiB) than is available (6.1 GiB)"
    server.script(Reply.failure(500, said))
    _, error = await collect_until_error(stream_agent(model_for(server.url), "SYS", HISTORY, []))
    assert (error.code, error.reason) == ("STREAM_FAILED", "stream_model_memory")
    assert error.message("en") == (
        f"The model stream failed: Ollama cannot load qwen3:8b: {said}. Free memory (ollama ps "
        "lists the models loaded, ollama stop NAME unloads one) or pick a smaller model."
    )


async def test_closing_the_stream_early_is_clean(server: FakeOllama) -> None:
    server.script(Reply(text="a b c d e f", delay_per_chunk=0.05))
    stream = stream_agent(model_for(server.url), "SYS", HISTORY, [])
    first = await anext(stream)
    assert first == TokenDelta("a ")
    await stream.aclose()  # no OncallError, no RuntimeError
    with pytest.raises(StopAsyncIteration):
        await anext(stream)


async def test_cancelling_the_consumer_propagates(server: FakeOllama) -> None:
    server.script(Reply(text="a b c d e f", delay_per_chunk=0.3))
    got: list[str] = []

    async def consume() -> None:
        async for item in stream_agent(model_for(server.url), "SYS", HISTORY, []):
            if isinstance(item, TokenDelta):
                got.append(item.text)

    task = asyncio.create_task(consume())
    await poll_until(lambda: bool(got))
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert got == ["a "]


# -- summarize ---------------------------------------------------------------------------------


async def test_summarize_is_one_streamed_call_without_tools(server: FakeOllama) -> None:
    server.script(Reply(text="<think>the user wants brevity</think>\nGoal: free disk on db-1."))
    summary = await summarize(model_for(server.url), "Summarise.", "User: disk full")
    assert summary == Summary("Goal: free disk on db-1.", truncated=False)
    (request,) = server.chat_requests
    assert request["stream"] is True
    assert not request.get("tools")
    assert request["options"]["num_ctx"] == 4096
    assert request["messages"] == [
        {"role": "system", "content": "Summarise."},
        {"role": "user", "content": "User: disk full"},
    ]


async def test_summarize_server_down_is_model_unavailable(closed_url: str) -> None:
    with pytest.raises(OncallError) as info:
        await summarize(model_for(closed_url), "Summarise.", "x")
    assert info.value.code == "MODEL_UNAVAILABLE"
    assert info.value.params["url"] == closed_url


@both_providers
async def test_summarize_dropped_response_is_stream_failed(server: FakeServer) -> None:
    server.script(Reply(text="never arrives", drop_after=0))
    with pytest.raises(OncallError) as info:
        await summarize(model_for(server), "Summarise.", "x")
    assert info.value.code == "STREAM_FAILED"


@both_providers
async def test_a_summary_cut_at_the_length_limit_says_so(server: FakeServer) -> None:
    server.script(Reply(text="Goal: free disk on", done_reason="length"))
    summary = await summarize(model_for(server), "Summarise.", "User: disk full")
    assert summary == Summary("Goal: free disk on", truncated=True)
