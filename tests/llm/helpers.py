"""Collecting what ``stream_agent`` yields, including when it fails part-way; the guard's
measures for hand-made requests."""

from __future__ import annotations

from collections.abc import AsyncIterator

from langchain_core.messages import AnyMessage

from oncall_tui.core.events import TokenDelta
from oncall_tui.core.memory import ContextBudget
from oncall_tui.errors import OncallError
from oncall_tui.llm.agent import AgentStreamItem
from oncall_tui.llm.guard import as_pairs
from oncall_tui.llm.tokens import estimate_tokens

SYSTEM = "You help an on-call engineer."


def window_with_limit(tokens: int) -> int:
    """The smallest window whose 95% limit lets exactly ``tokens`` through."""
    window = tokens
    while ContextBudget(window).limit_tokens < tokens:
        window += 1
    assert ContextBudget(window).limit_tokens == tokens
    return window


def request_tokens(messages: list[AnyMessage]) -> int:
    """The raw estimate of a request of :data:`SYSTEM` and ``messages``, without tools."""
    return estimate_tokens(SYSTEM, as_pairs(messages), [])


async def collect(stream: AsyncIterator[AgentStreamItem]) -> list[AgentStreamItem]:
    return [item async for item in stream]


async def collect_until_error(
    stream: AsyncIterator[AgentStreamItem],
) -> tuple[list[AgentStreamItem], OncallError]:
    """Everything yielded before the stream raised, and the (catalogued) error."""
    items: list[AgentStreamItem] = []
    try:
        async for item in stream:
            items.append(item)
    except OncallError as error:
        return items, error
    raise AssertionError(f"the stream ended without an error after {items!r}")


def text_of(items: list[AgentStreamItem]) -> str:
    return "".join(item.text for item in items if isinstance(item, TokenDelta))
