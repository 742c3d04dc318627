"""The 95% rule inside a turn, at its bounds: ContextGuard on hand-made requests.

The result here is a skill, which loads whole or is withheld; any other result past the bound
is cut to what fits instead (tests/llm/test_tool_result_fit.py)."""

from __future__ import annotations

from typing import Any

import pytest
from langchain.agents.middleware import ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolCall, ToolMessage
from langgraph.prebuilt.tool_node import ToolCallRequest

from oncall_tui.core.memory import ContextBudget
from oncall_tui.errors import OncallError
from oncall_tui.llm.guard import ContextGuard, is_cut, is_withheld
from oncall_tui.llm.tokens import message_tokens
from tests.fakes.chat_model import ScriptedChatModel
from tests.llm.helpers import SYSTEM, request_tokens, window_with_limit

BODY = "Loaded skill: log-analysis\n\n" + "Grep the error rate per minute, then per pod.\n" * 40
CALL: ToolCall = {
    "name": "load_skill",
    "args": {"skill_name": "log-analysis"},
    "id": "c1",
    "type": "tool_call",
}
MESSAGES: list[AnyMessage] = [
    HumanMessage("api-7 returns 502s, use skill log-analysis"),
    AIMessage("", tool_calls=[CALL]),
]


async def run_tool(
    guard: ContextGuard, call: ToolCall = CALL, messages: list[AnyMessage] = MESSAGES
) -> ToolMessage:
    async def handler(_: ToolCallRequest) -> ToolMessage:
        return ToolMessage(BODY, tool_call_id=call["id"], name=call["name"])

    request = ToolCallRequest(
        tool_call=call,
        tool=None,
        state={"messages": messages},
        runtime=None,  # type: ignore[arg-type]  # outside a graph: the guard never reads it
    )
    result = await guard.awrap_tool_call(request, handler)
    assert isinstance(result, ToolMessage)
    return result


async def test_a_result_that_just_fits_under_95_percent_is_passed_on() -> None:
    total = request_tokens(MESSAGES) + message_tokens(BODY)
    guard = ContextGuard(ContextBudget(window_with_limit(total)), SYSTEM, [])
    result = await run_tool(guard)
    assert result.text == BODY
    assert not is_withheld(result)


async def test_one_token_more_and_a_skill_is_withheld_with_a_note_instead() -> None:
    total = request_tokens(MESSAGES) + message_tokens(BODY)
    window = window_with_limit(total - 1)
    guard = ContextGuard(ContextBudget(window), SYSTEM, [])
    result = await run_tool(guard)
    assert is_withheld(result)
    assert result.status == "error"
    assert "Grep the error rate" not in result.text
    needed = message_tokens(BODY)
    left = ContextBudget(window).limit_tokens - request_tokens(MESSAGES)
    first_line = result.text.splitlines()[0]
    assert first_line == (
        f"Skill 'log-analysis' not loaded: it needs about {needed:,} tokens and {left:,} are "
        f"left under the 95% limit of the {window:,}-token context window."
    )
    assert "compact the session memory or start a new session" in result.text


async def test_one_token_more_and_another_tools_result_is_cut_instead() -> None:
    call: ToolCall = {**CALL, "name": "ops__search_logs", "args": {"pattern": "502"}}
    messages: list[AnyMessage] = [MESSAGES[0], AIMessage("", tool_calls=[call])]
    total = request_tokens(messages) + message_tokens(BODY)
    guard = ContextGuard(ContextBudget(window_with_limit(total - 1)), SYSTEM, [])
    result = await run_tool(guard, call, messages)
    assert is_cut(result)
    assert not is_withheld(result)
    kept, _, note = result.text.partition("\n[… ")
    assert BODY.startswith(kept + "\n")
    lines, kept_lines = BODY.count("\n"), kept.count("\n") + 1  # BODY ends with a newline
    assert note.startswith(f"{lines - kept_lines} of {lines} lines (about ")


async def test_calibration_counts_against_the_limit() -> None:
    total = request_tokens(MESSAGES) + message_tokens(BODY)
    window = window_with_limit(total)
    assert not is_withheld(await run_tool(ContextGuard(ContextBudget(window), SYSTEM, [])))
    calibrated = ContextBudget(window, calibration=1.2)
    assert is_withheld(await run_tool(ContextGuard(calibrated, SYSTEM, [])))


async def test_results_of_one_step_count_together() -> None:
    """Calls of one assistant message run side by side: each result counts the ones before."""
    second: ToolCall = {**CALL, "id": "c2"}
    total = request_tokens(MESSAGES) + message_tokens(BODY)
    guard = ContextGuard(ContextBudget(window_with_limit(total)), SYSTEM, [])
    assert not is_withheld(await run_tool(guard))
    assert is_withheld(await run_tool(guard, call=second))


async def test_the_next_assistant_message_starts_counting_afresh() -> None:
    """Its calls' state holds the earlier results already; they are not counted twice."""
    total = request_tokens(MESSAGES) + message_tokens(BODY)
    guard = ContextGuard(ContextBudget(window_with_limit(total)), SYSTEM, [])
    assert not is_withheld(await run_tool(guard))
    again = [MESSAGES[0], AIMessage("", tool_calls=[CALL])]  # the same size, a new message
    assert not is_withheld(await run_tool(guard, messages=again))


def model_request(messages: list[AnyMessage]) -> ModelRequest[Any]:
    return ModelRequest(model=ScriptedChatModel(), messages=messages, system_prompt=SYSTEM)


async def call_model(guard: ContextGuard, messages: list[AnyMessage]) -> list[ModelRequest[Any]]:
    sent: list[ModelRequest[Any]] = []

    async def handler(request: ModelRequest[Any]) -> ModelResponse[Any]:
        sent.append(request)
        return ModelResponse(result=[AIMessage("ok")])

    await guard.awrap_model_call(model_request(messages), handler)
    return sent


async def test_a_request_one_token_under_the_window_is_sent() -> None:
    tokens = request_tokens(MESSAGES)
    guard = ContextGuard(ContextBudget(tokens + 1), SYSTEM, [])
    assert len(await call_model(guard, MESSAGES)) == 1


async def test_a_request_at_the_window_is_never_sent() -> None:
    tokens = request_tokens(MESSAGES)
    guard = ContextGuard(ContextBudget(tokens), SYSTEM, [])
    with pytest.raises(OncallError) as refused:
        await call_model(guard, MESSAGES)
    assert refused.value.code == "CHAT_CONTEXT_LIMIT_REACHED"
    assert refused.value.message("en") == (
        f"The reply's next request to the model would bring the context to 100.0% of "
        f"{tokens:,} tokens, so it was not sent. Compact the session memory or start a new "
        "session."
    )
