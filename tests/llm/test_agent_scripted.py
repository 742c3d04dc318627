"""stream_agent over the fast scripted model, and the error mapping on its own."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import ollama
import pytest
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGenerationChunk
from langgraph.errors import GraphRecursionError

from oncall_tui.core.events import TokenDelta, ToolFinished, ToolStarted
from oncall_tui.core.thinking import strip_thinking
from oncall_tui.errors import OncallError
from oncall_tui.llm.agent import (
    ModelUsage,
    map_model_error,
    stream_agent,
    summarize,
)
from oncall_tui.llm.tools import build_tools
from tests.fakes import ScriptedChatModel, Turn

from .helpers import collect, collect_until_error, text_of

HISTORY = [("user", "hello"), ("assistant", "Hi."), ("user", "what time is it?")]


async def test_scripted_tool_loop_events_and_usage() -> None:
    model = ScriptedChatModel(
        [
            Turn.call("get_current_time", input_tokens=100, output_tokens=3),
            Turn(text="It is noon.", input_tokens=140, output_tokens=4),
        ]
    )
    items = await collect(stream_agent(model, "SYS", HISTORY, build_tools({})))
    started = next(i for i in items if isinstance(i, ToolStarted))
    finished = next(i for i in items if isinstance(i, ToolFinished))
    assert items.index(started) < items.index(finished)
    assert (started.call_id, started.name, started.arguments) == ("call_1", "get_current_time", {})
    assert finished.call_id == "call_1"
    assert finished.summary.startswith("UTC: ")
    assert text_of(items) == "It is noon."
    assert items[-1] == ModelUsage(input_tokens=140, output_tokens=7, first_input_tokens=100)
    first_call, second_call = model.calls
    assert [(type(m), m.content) for m in first_call] == [
        (SystemMessage, "SYS"),
        (HumanMessage, "hello"),
        (AIMessage, "Hi."),
        (HumanMessage, "what time is it?"),
    ]
    assert isinstance(second_call[-1], ToolMessage)
    assert second_call[-1].content == finished.summary  # one-line result: summary is all of it
    assert model.tool_names == ["get_current_time"]


async def test_tool_arguments_are_complete_when_the_tool_starts() -> None:
    skill = "---\nname: dns-debug\ndescription: d\n---\nbody"
    model = ScriptedChatModel([[("load_skill", {"skill_name": "dns-debug"})], "Done."])
    items = await collect(stream_agent(model, "SYS", HISTORY, build_tools({"dns-debug": skill})))
    started = next(i for i in items if isinstance(i, ToolStarted))
    finished = next(i for i in items if isinstance(i, ToolFinished))
    assert started.arguments == {"skill_name": "dns-debug"}
    assert finished.summary == "Loaded skill: dns-debug"
    assert all("body" not in i.text for i in items if isinstance(i, TokenDelta))


async def test_bad_tool_arguments_finish_not_ok() -> None:
    model = ScriptedChatModel([[("load_skill", {"wrong": 1})], "Sorry."])
    items = await collect(stream_agent(model, "SYS", HISTORY, build_tools({"a": "x"})))
    finished = next(i for i in items if isinstance(i, ToolFinished))
    assert finished.ok is False
    assert finished.name == "load_skill"


async def test_no_usage_reported_gives_none() -> None:
    class Silent(ScriptedChatModel):
        def _chunks(self, turn: Turn, messages: list[BaseMessage]) -> Iterator[ChatGenerationChunk]:
            for chunk in super()._chunks(turn, messages):
                assert isinstance(chunk.message, AIMessageChunk)
                chunk.message.usage_metadata = None
                yield chunk

    model = Silent()
    model.script("ok")
    items = await collect(stream_agent(model, "SYS", HISTORY, []))
    assert items[-1] == ModelUsage(input_tokens=None, output_tokens=None)


async def test_error_mid_stream_keeps_tokens_and_is_stream_failed() -> None:
    model = ScriptedChatModel([Turn.raises(RuntimeError("boom"), after=2, text="a b c d")])
    items, error = await collect_until_error(stream_agent(model, "SYS", HISTORY, []))
    assert text_of(items) == "a b "
    assert error.code == "STREAM_FAILED"
    assert "boom" in error.message("en")
    assert isinstance(error.__cause__, RuntimeError)


async def test_endless_tool_calls_stop_at_the_recursion_limit() -> None:
    model = ScriptedChatModel(responder=lambda _messages: [("get_current_time", {})])
    items, error = await collect_until_error(stream_agent(model, "SYS", HISTORY, build_tools({})))
    assert error.code == "STREAM_FAILED"
    assert error.message("en") == (
        "The model stream failed: the model kept calling tools without answering."
    )
    assert 10 <= len(model.calls) <= 13
    assert sum(isinstance(i, ToolFinished) for i in items) >= 10


async def test_unknown_history_role_is_rejected() -> None:
    stream = stream_agent(ScriptedChatModel(["x"]), "SYS", [("system", "sneaky")], [])
    _, error = await collect_until_error(stream)
    assert error.code == "VALIDATION_INVALID_ARGUMENT"


async def test_summarize_with_scripted_model_binds_no_tools() -> None:
    model = ScriptedChatModel(["<think>hmm</think> Summary: disk full on db-1."])
    summary = await summarize(model, "Summarise.", "transcript")
    assert summary.text == "Summary: disk full on db-1."
    assert model.bound_tools == []
    assert model.calls == [[SystemMessage("Summarise."), HumanMessage("transcript")]]


async def test_summarize_failure_is_catalogued() -> None:
    model = ScriptedChatModel([httpx.ReadTimeout("slow")])
    with pytest.raises(OncallError) as info:
        await summarize(model, "Summarise.", "transcript")
    assert info.value.code == "STREAM_FAILED"


def test_strip_thinking() -> None:
    assert strip_thinking("<think>a\nb</think>\n\nAnswer") == "Answer"
    assert strip_thinking("Answer<thinking>x</thinking> more") == "Answer more"
    assert strip_thinking("Answer <think>never closed") == "Answer"
    assert strip_thinking("  plain  ") == "plain"


# -- map_model_error ---------------------------------------------------------------------------

URL = "http://127.0.0.1:11434"
REQUEST = httpx.Request("POST", f"{URL}/api/chat")


@pytest.mark.parametrize(
    ("exc", "code", "detail"),
    [
        (httpx.ConnectError("refused", request=REQUEST), "MODEL_UNAVAILABLE", None),
        (httpx.ConnectTimeout("slow connect"), "MODEL_UNAVAILABLE", None),
        (ConnectionError("Failed to connect to Ollama."), "MODEL_UNAVAILABLE", None),
        (ConnectionRefusedError(111, "refused"), "MODEL_UNAVAILABLE", None),
        (ollama.ResponseError('{"error":"model not found"}', 404), "MODEL_NOT_FOUND", None),
        (httpx.ReadTimeout("read"), "STREAM_FAILED", "no data from Ollama for 120 s"),
        (
            httpx.RemoteProtocolError("peer closed"),
            "STREAM_FAILED",
            "the connection to Ollama dropped",
        ),
        (httpx.ReadError("reset"), "STREAM_FAILED", "the connection to Ollama dropped"),
        (ConnectionResetError(104, "reset"), "STREAM_FAILED", "the connection to Ollama dropped"),
        (
            ollama.ResponseError("out of memory", 500),
            "STREAM_FAILED",
            "Ollama cannot load qwen3:8b: out of memory. Free memory (ollama ps lists the models "
            "loaded, ollama stop NAME unloads one) or pick a smaller model",
        ),
        (ollama.ResponseError("runner died"), "STREAM_FAILED", "Ollama reported: runner died"),
        (
            json.JSONDecodeError("bad", "x", 0),
            "STREAM_FAILED",
            "Ollama sent a response that could not be read",
        ),
        (
            GraphRecursionError("limit"),
            "STREAM_FAILED",
            "the model kept calling tools without answering",
        ),
    ],
)
def test_map_model_error(exc: BaseException, code: str, detail: str | None) -> None:
    error = map_model_error(exc, url=URL, model="qwen3:8b", timeout=120.0)
    assert error.code == code
    if code == "MODEL_UNAVAILABLE":
        assert error.params == {"url": URL}
    elif code == "MODEL_NOT_FOUND":
        assert error.params == {"model": "qwen3:8b"}
    else:
        assert error.message("en") == f"The model stream failed: {detail}."


def test_map_model_error_passes_catalogued_errors_through_and_reads_causes() -> None:
    original = OncallError("MODEL_NOT_FOUND", model="x")
    assert map_model_error(original, url=URL, model="y") is original
    try:
        try:
            raise httpx.ReadTimeout("read")
        except httpx.ReadTimeout as inner:
            raise RuntimeError("wrapped") from inner
    except RuntimeError as outer:
        error = map_model_error(outer, url=URL, model="m", timeout=None)
    assert error.message("en") == "The model stream failed: no data from Ollama for too long."
    assert error.message("zh") == "模型输出中断：Ollama 太久没有发送数据。"


def test_a_dropped_connection_is_said_in_chinese_too() -> None:
    error = map_model_error(httpx.ReadError("reset"), url=URL, model="m", timeout=5.0)
    assert error.message("zh") == "模型输出中断：与 Ollama 的连接中断。"
    silent = map_model_error(httpx.ReadTimeout("read"), url=URL, model="m", timeout=5.0)
    assert silent.message("zh") == "模型输出中断：Ollama 已 5 秒没有发送数据。"


def test_map_model_error_unknown_is_stream_failed_with_a_short_reason() -> None:
    error = map_model_error(ValueError("x" * 500), url=URL, model="m")
    assert error.code == "STREAM_FAILED"
    detail = str(error.params["detail"])
    assert detail.startswith("ValueError: xxx")
    assert len(detail) <= 160


async def test_a_leading_thinking_block_never_reaches_the_reply() -> None:
    model = ScriptedChatModel(
        [
            Turn(
                text="<think>The user asks the time; call the tool.</think>",
                tool_calls=(("get_current_time", {}),),
                chunk_size=3,
            ),
            Turn(text="<thinking>\nnoon it is\n</thinking>\n\nIt is noon.", chunk_size=4),
        ]
    )
    items = await collect(stream_agent(model, "SYS", HISTORY, build_tools({})))
    assert text_of(items) == "It is noon."
    assert all("think" not in i.text for i in items if isinstance(i, TokenDelta))


@pytest.mark.parametrize(
    ("before", "after", "reply"),
    [
        ("Let me check.", "It is noon.", "Let me check.\n\nIt is noon."),
        ("Let me check.\n", "It is noon.", "Let me check.\n\nIt is noon."),
        ("Let me check.\n\n", "It is noon.", "Let me check.\n\nIt is noon."),
        ("Let me check.", "\nIt is noon.", "Let me check.\n\nIt is noon."),
        ("Let me check.", "\n\n\nIt is noon.", "Let me check.\n\n\nIt is noon."),
        ("", "It is noon.", "It is noon."),
        ("<think>call the tool</think>", "It is noon.", "It is noon."),
    ],
)
async def test_the_text_after_a_tool_call_starts_a_paragraph_of_its_own(
    before: str, after: str, reply: str
) -> None:
    """Each model call of a turn writes its own text; put end to end, "Let me check." and
    "It is noon." read "Let me check.It is noon." in the reply shown, stored and sent back."""
    model = ScriptedChatModel(
        [
            Turn(text=before, tool_calls=(("get_current_time", {}),), chunk_size=4),
            Turn(text=after, chunk_size=4),
        ]
    )
    items = await collect(stream_agent(model, "SYS", HISTORY, build_tools({})))
    assert text_of(items) == reply


async def test_a_reply_in_one_model_call_is_not_broken_into_paragraphs() -> None:
    model = ScriptedChatModel([Turn(text="It is noon. Roll back.", chunk_size=3)])
    items = await collect(stream_agent(model, "SYS", HISTORY, build_tools({})))
    assert text_of(items) == "It is noon. Roll back."
    assert sum(isinstance(i, TokenDelta) for i in items) > 3
