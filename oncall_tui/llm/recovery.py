"""Tool calls the model wrote as text, made into the calls they meant.

:class:`CallRecovery` is agent middleware: after a model call whose reply has no native tool
call, it reads the reply (thinking removed) for calls to the tools bound in this turn
(:func:`oncall_tui.llm.text_calls.find_calls`) and, when it finds any, gives the agent the
reply as if the model had made them: the message's ``tool_calls`` filled (ids
``recovered_N``), its text without the calls and without what followed the last one (written
before the model could have seen a result). From there a recovered call is a native one: the
same tool node runs it, behind the same ``confirm`` question and the same 95% guard, and the
same events report it, marked ``recovered``.

Only the model's own reply is read. A call whose text stands in a user message or a tool
result of the request (a pasted log line holding JSON, a skill body loaded by ``load_skill``,
a search result) is the model quoting what it was given, not calling: it is left as text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.messages.tool import ToolCall
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from oncall_tui.core.thinking import strip_thinking
from oncall_tui.llm.text_calls import (
    TAGS,
    BoundTool,
    FoundCall,
    Tools,
    find_calls,
    without_calls,
)

RECOVERED = "oncall_recovered"
"""Set in a recovered reply's ``response_metadata``: the texts of the calls read from it."""
ID_PREFIX = "recovered_"

_ModelHandler = Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]]
_FENCE_LINE = re.compile(r"^[ \t]*```[\w+-]*[ \t]*$", re.MULTILINE)
_SPACE = re.compile(r"\s+")


def bound_tools(tools: Iterable[BaseTool], shown: Mapping[str, str]) -> Tools:
    """The turn's tools as recovery matches them: each one's name, its shown name
    (``logs.search_logs``) and its JSON schema as the server receives it."""
    return Tools(
        [
            BoundTool(
                tool.name,
                convert_to_openai_tool(tool)["function"].get("parameters", {}),
                shown.get(tool.name, ""),
            )
            for tool in tools
        ]
    )


def recovered_texts(message: AIMessage) -> list[str]:
    """The texts of the calls recovery read from ``message`` (``[]`` for any other)."""
    texts = message.response_metadata.get(RECOVERED)
    return [text for text in texts if isinstance(text, str)] if isinstance(texts, list) else []


class CallRecovery(AgentMiddleware[Any, Any, Any]):
    """Reads text-form tool calls from each model call of one turn; see the module."""

    def __init__(self, tools: Tools, on_recovered: Callable[[], None] | None = None) -> None:
        super().__init__()
        self._tools = tools
        self._on_recovered = on_recovered
        self._count = 0

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: _ModelHandler
    ) -> ModelResponse[Any]:
        response = await handler(request)
        messages = list(response.result)
        for index, message in enumerate(messages):
            if isinstance(message, AIMessage) and not message.tool_calls:
                recovered = self.recover(message, request.messages)
                if recovered is not message:
                    messages[index] = recovered
                    response.result = messages
                    if self._on_recovered is not None:
                        self._on_recovered()
        return response

    def recover(self, message: AIMessage, given: Sequence[BaseMessage]) -> AIMessage:
        """``message`` with the calls its text writes made into tool calls; ``message`` itself
        when it writes none (or only quotes them from ``given``)."""
        text = str(message.text)
        quoted = [_flat(str(m.text)) for m in given if isinstance(m, HumanMessage | ToolMessage)]
        calls = [
            call
            for call in find_calls(strip_thinking(text), self._tools)
            if call.text in text and not _is_quoted(call, quoted)
        ]
        if not calls:
            return message
        kept = without_calls(text, [call.text for call in calls])
        tool_calls: list[ToolCall] = []
        for call in calls:
            self._count += 1
            tool_calls.append(
                ToolCall(
                    name=call.name,
                    args=call.arguments,
                    id=f"{ID_PREFIX}{self._count}",
                    type="tool_call",
                )
            )
        metadata = {**message.response_metadata, RECOVERED: [call.text for call in calls]}
        return message.model_copy(
            update={
                "content": strip_thinking(kept).strip(),
                "tool_calls": tool_calls,
                "response_metadata": metadata,
            }
        )


class ToolsAsText(AgentMiddleware[Any, Any, Any]):
    """For a model without native tool calls (its server would refuse a request with tools):
    the request carries no tools (the system prompt lists them), a call made from its text
    goes back to it as the text form it was taught, and a tool's result as a user message
    naming the tool, since its chat template may know no tool messages. The agent's own
    state keeps the native shapes: only what this model is sent changes."""

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: _ModelHandler
    ) -> ModelResponse[Any]:
        messages = [as_text(message) for message in request.messages]
        return await handler(request.override(tools=[], messages=messages))


def as_text(message: AnyMessage) -> AnyMessage:
    """``message`` as a model without tool calls reads it."""
    if isinstance(message, AIMessage) and message.tool_calls:
        calls = [
            "<tool_call>"
            + json.dumps({"name": call["name"], "arguments": call["args"]}, ensure_ascii=False)
            + "</tool_call>"
            for call in message.tool_calls
        ]
        text = "\n".join([str(message.text), *calls]).strip()
        return AIMessage(text, id=message.id)
    if isinstance(message, ToolMessage):
        return HumanMessage(f"Result of {message.name or 'the tool'}:\n{message.text}")
    return message


def _is_quoted(call: FoundCall, given: Sequence[str]) -> bool:
    """Does the call's text (without its tags or fence, spacing aside) stand in ``given``?"""
    core = call.text
    for opener, closer in TAGS:
        core = core.replace(opener, "").replace(closer or opener, "")
    core = _flat(_FENCE_LINE.sub("", core))
    return bool(core) and any(core in text for text in given)


def _flat(text: str) -> str:
    return _SPACE.sub("", text)
