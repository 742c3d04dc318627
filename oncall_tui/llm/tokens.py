"""Token estimates of whole requests: the context gauge, the memory thresholds, the 95% rule.

A request is its system prompt, its messages and, when tools are bound, their schemas. Each
text is counted by :func:`oncall_tui.core.tokens.estimate_text_tokens`; around them the chat
template adds a few tokens per message (role markers) and, with tools, about 120 tokens of
instructions plus the schemas themselves. The same function measures the first request of a
send (in the services) and every later request of its turn (in :mod:`oncall_tui.llm.guard`),
so the two always agree about the same text.

Tools are given as their JSON schemas (:mod:`oncall_tui.llm.tool_specs`), plain data: this
module imports no LangChain, so a gauge can be computed without loading the model stack. The
estimate is a sum over the request's parts, so a request that grows by one message grows by
exactly :func:`message_tokens` of it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from oncall_tui.core.tokens import estimate_text_tokens
from oncall_tui.llm.tool_specs import ToolSchema

MESSAGE_OVERHEAD_TOKENS = 5
"""Role markers around each message (Llama-3 and Qwen templates both spend about five)."""
REQUEST_OVERHEAD_TOKENS = 3
"""The header that opens the model's own answer."""
TOOLS_OVERHEAD_TOKENS = 120
"""What a chat template adds to explain the tools, measured on Llama-3 and Qwen templates."""


def estimate_tokens(
    system_prompt: str,
    messages: Sequence[tuple[str, str]],
    tools: Sequence[ToolSchema] = (),
) -> int:
    """Tokens of a whole request: system prompt, ``(role, content)`` messages, tool schemas."""
    texts = [system_prompt, *(content for _, content in messages)]
    total = REQUEST_OVERHEAD_TOKENS + sum(message_tokens(text) for text in texts)
    if tools:
        total += TOOLS_OVERHEAD_TOKENS + sum(tool_schema_tokens(schema) for schema in tools)
    return total


def message_tokens(content: str) -> int:
    """One message of a request: its text and its role markers."""
    return estimate_text_tokens(content) + MESSAGE_OVERHEAD_TOKENS


def tool_schema_tokens(schema: ToolSchema) -> int:
    """Tokens one tool's schema (name, description, parameters) adds to a request: those of
    its JSON text, which the text estimate caches."""
    return estimate_text_tokens(json.dumps(schema, ensure_ascii=False))
