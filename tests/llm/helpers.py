"""Collecting what ``stream_agent`` yields, including when it fails part-way."""

from __future__ import annotations

from collections.abc import AsyncIterator

from oncall_tui.core.events import TokenDelta
from oncall_tui.errors import OncallError
from oncall_tui.llm.agent import AgentStreamItem


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
