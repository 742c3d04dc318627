"""What every model call of a turn is held to: the 95% rule, and a deadline.

The 95% rule inside a turn: every request after the first is measured before it is sent.

The memory rules measure a send's first request before the user's message is stored. Within
the turn the request grows: each tool result is appended and the model is asked again. A
loaded skill of 5 KiB can take a session at 90% well past its window, and Ollama then drops
what does not fit without a word. :class:`ContextGuard` keeps the promise for every request:

- a tool result that would take the next request to 95% or more is not passed on; the model
  gets a short note instead (what it needed, what is left, that the user can compact or start
  a new session), the call is reported ``withheld``, and the turn goes on;
- a request whose estimate is at or over the window is never sent: the turn fails with
  ``CHAT_CONTEXT_LIMIT_REACHED``.

Requests are measured with the turn's :class:`ContextBudget`, by the same estimate as the
first one, so the guard and the memory rules agree about the same text.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from oncall_tui.core.memory import LIMIT_PERCENT, ContextBudget
from oncall_tui.errors import OncallError
from oncall_tui.llm.tokens import estimate_tokens, message_tokens

WITHHELD = "oncall_withheld"
"""Set in a replaced tool message's ``response_metadata``."""

_ModelHandler = Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]]
_ToolHandler = Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]]


class ContextGuard(AgentMiddleware[Any, Any, Any]):
    """Measures each model request of one turn; one guard per turn."""

    def __init__(self, budget: ContextBudget, system_prompt: str, tools: Sequence[BaseTool]):
        super().__init__()
        self._budget = budget
        schemas = [convert_to_openai_tool(tool) for tool in tools]  # what the server receives
        self._fixed = estimate_tokens(system_prompt, [], schemas)
        """System prompt, tool schemas and the request's own overhead: the same every request."""
        self._step: AnyMessage | None = None
        self._passed_on = 0
        """Raw tokens of the results already passed on for ``_step``'s tool calls: calls of
        one assistant message run side by side, and each sees only the state before them."""

    def _raw(self, messages: Sequence[AnyMessage]) -> int:
        return self._fixed + sum(message_tokens(text) for _, text in as_pairs(messages))

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: _ModelHandler
    ) -> ModelResponse[Any]:
        usage = self._budget.reading(self._raw(request.messages))
        if usage.context_tokens >= usage.context_window_tokens:
            raise OncallError(
                "CHAT_CONTEXT_LIMIT_REACHED",
                "limit_in_turn",
                percent=usage.percent,
                window=f"{usage.context_window_tokens:,}",
            )
        return await handler(request)

    async def awrap_tool_call(
        self, request: ToolCallRequest, handler: _ToolHandler
    ) -> ToolMessage | Command[Any]:
        result = await handler(request)
        if not isinstance(result, ToolMessage):
            return result
        messages: list[AnyMessage] = request.state["messages"]
        step = messages[-1] if messages else None
        if step is not self._step:
            self._step, self._passed_on = step, 0
        before = self._raw(messages) + self._passed_on
        needed = message_tokens(str(result.text))
        budget = self._budget
        if budget.reading(before + needed).at_limit:
            left = max(0, budget.limit_tokens - budget.reading(before).context_tokens)
            result = withheld(
                request, result, needed=budget.tokens(needed), left=left, budget=budget
            )
            needed = message_tokens(str(result.text))
        self._passed_on += needed
        return result


def as_pairs(messages: Iterable[BaseMessage]) -> list[tuple[str, str]]:
    """LangChain messages as the ``(role, content)`` pairs the estimate measures; an assistant
    message's tool calls count as the JSON the server receives."""
    pairs: list[tuple[str, str]] = []
    for message in messages:
        text = str(message.text)
        if isinstance(message, AIMessage) and message.tool_calls:
            calls = [
                {"name": call["name"], "arguments": call["args"]} for call in message.tool_calls
            ]
            text += json.dumps(calls, ensure_ascii=False)
        role = "tool" if isinstance(message, ToolMessage) else message.type
        pairs.append((role, text))
    return pairs


def withheld(
    request: ToolCallRequest, result: ToolMessage, *, needed: int, left: int, budget: ContextBudget
) -> ToolMessage:
    """The note the model gets instead of a result that does not fit."""
    call = request.tool_call
    if call["name"] == "load_skill":
        what = f"Skill '{call['args'].get('skill_name', '')}' not loaded"
    else:
        what = f"Result of {call['name']} withheld"
    limit = f"{LIMIT_PERCENT:g}%"
    note = (
        f"{what}: it needs about {needed:,} tokens and {left:,} are left under the {limit} limit "
        f"of the {budget.window:,}-token context window.\n"
        "Tell the user it did not fit. They can compact the session memory or start a new "
        "session, then ask again."
    )
    return ToolMessage(
        note,
        tool_call_id=result.tool_call_id,
        name=result.name,
        status="error",
        response_metadata={WITHHELD: True},
    )


def is_withheld(message: ToolMessage | AIMessage) -> bool:
    return bool(message.response_metadata.get(WITHHELD))


class Deadline(AgentMiddleware[Any, Any, Any]):
    """Each model call of a turn ends within ``seconds``, however steadily its data trickles:
    the read timeout alone lets a server that sends a chunk every few seconds run on for ever.
    What arrived before the deadline stays in the reply."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self._seconds = seconds

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: _ModelHandler
    ) -> ModelResponse[Any]:
        try:
            async with asyncio.timeout(self._seconds):
                return await handler(request)
        except TimeoutError:
            raise past_deadline(self._seconds) from None


def past_deadline(seconds: float | None) -> OncallError:
    return OncallError(
        "STREAM_FAILED", detail=f"the model took longer than the {seconds or 0:g} s deadline"
    )
