"""Token estimates of whole requests: the context gauge, the memory thresholds, the 95% rule.

A request is its system prompt, its messages and, when tools are bound, their schemas. Each
text is counted by :func:`oncall_tui.core.tokens.estimate_text_tokens`; around them the chat
template adds a few tokens per message (role markers) and, with tools, about 120 tokens of
instructions plus the schemas themselves. The same function measures the first request of a
send (in the services) and every later request of its turn (in :mod:`oncall_tui.llm.guard`),
so the two always agree about the same text.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from oncall_tui.core.tokens import estimate_text_tokens

MESSAGE_OVERHEAD_TOKENS = 5
"""Role markers around each message (Llama-3 and Qwen templates both spend about five)."""
REQUEST_OVERHEAD_TOKENS = 3
"""The header that opens the model's own answer."""
TOOLS_OVERHEAD_TOKENS = 120
"""What a chat template adds to explain the tools, measured on Llama-3 and Qwen templates."""

_TOOL_CACHE_SIZE = 256
_tool_tokens: dict[tuple[str, str, object], int] = {}


def estimate_tokens(
    system_prompt: str,
    messages: Sequence[tuple[str, str]],
    tools: Sequence[BaseTool] = (),
) -> int:
    """Tokens of a whole request: system prompt, ``(role, content)`` messages, tool schemas."""
    texts = [system_prompt, *(content for _, content in messages)]
    total = REQUEST_OVERHEAD_TOKENS + sum(message_tokens(text) for text in texts)
    if tools:
        total += TOOLS_OVERHEAD_TOKENS + sum(tool_schema_tokens(tool) for tool in tools)
    return total


def message_tokens(content: str) -> int:
    """One message of a request: its text and its role markers."""
    return estimate_text_tokens(content) + MESSAGE_OVERHEAD_TOKENS


def as_pairs(messages: Iterable[BaseMessage]) -> list[tuple[str, str]]:
    """LangChain messages as the ``(role, content)`` pairs :func:`estimate_tokens` measures;
    an assistant message's tool calls count as the JSON the server receives."""
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


def tool_schema_tokens(tool: BaseTool) -> int:
    """Tokens the tool's schema (name, description, parameters) adds to a request.

    Cached by what the schema is made of, so a tool rebuilt for every request (``load_skill``)
    is measured once, not per estimate.
    """
    key = _schema_key(tool)
    tokens = _tool_tokens.get(key)
    if tokens is None:
        schema = convert_to_openai_tool(tool)
        tokens = estimate_text_tokens(json.dumps(schema, ensure_ascii=False))
        if len(_tool_tokens) >= _TOOL_CACHE_SIZE:
            _tool_tokens.clear()
        _tool_tokens[key] = tokens
    return tokens


def _schema_key(tool: BaseTool) -> tuple[str, str, object]:
    schema = tool.args_schema
    if isinstance(schema, dict):
        return tool.name, tool.description, json.dumps(schema, sort_keys=True)
    return tool.name, tool.description, schema
