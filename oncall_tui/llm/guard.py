"""What every model call of a turn is held to: the 95% rule, and a deadline.

The 95% rule inside a turn: every request after the first is measured before it is sent.

The memory rules measure a send's first request before the user's message is stored. Within
the turn the request grows: each tool result is appended and the model is asked again. A
loaded skill of 5 KiB can take a session at 90% well past its window, and Ollama then drops
what does not fit without a word. :class:`ContextGuard` keeps the promise for every request:

- a tool result that fits under 95% is passed on as it is, byte for byte;
- one that would take the next request to 95% or more is cut to what fits (:func:`cut_to_fit`):
  its beginning, and a note of how much was left out and how to ask for less; the call is
  reported ``cut``, and the model can search again, narrower;
- a skill that does not fit whole, or a result of which too little would be left, is not
  passed on at all: the model gets a short note instead (what it needed, what is left, that
  the user can compact or start a new session), the call is reported ``withheld``;
- a request whose estimate is at or over the window is never sent: the turn fails with
  ``CHAT_CONTEXT_LIMIT_REACHED``.

Requests are measured with the turn's :class:`ContextBudget`, by the same estimate as the
first one, so the guard and the memory rules agree about the same text.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, ToolMessage
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from oncall_tui.core.memory import LIMIT_PERCENT, ContextBudget, longest_that_fits
from oncall_tui.core.tokens import estimate_text_tokens
from oncall_tui.errors import OncallError
from oncall_tui.llm.mcp_calls import TRUNCATED
from oncall_tui.llm.tokens import estimate_tokens, message_tokens
from oncall_tui.llm.tool_specs import LOAD_SKILL

WITHHELD = "oncall_withheld"
"""Set in a replaced tool message's ``response_metadata``."""
CUT = "oncall_cut"
"""Set in the ``response_metadata`` of a tool message cut to fit."""

REPLY_ROOM_TOKENS = 500
"""What a cut result leaves under the 95% limit for the model's answer or its next call, as a
compaction leaves ``SUMMARY_ROOM_TOKENS`` for the summary. Cut to just under 95%, a result
would leave the model the last 5% of the window: 102 tokens of 2,048, too few to answer in."""
REPLY_ROOM_SHARE = 10
"""The reply room is at most this share of the window: 204 tokens of a 2,048-token one, where
500 would take a quarter of it."""
MIN_KEPT_TOKENS = 64
"""Less of a result than this (a line or two of logs) is not worth passing on: withheld."""

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
        """Raw tokens of the results already passed on (whole, cut or as a note) for
        ``_step``'s tool calls: calls of one assistant message run side by side, and each
        sees only the state before them."""

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
            fitted = cut_to_fit(request, result, before=before, budget=budget)
            if fitted is None:
                left = max(0, budget.limit_tokens - budget.reading(before).context_tokens)
                fitted = withheld(
                    request, result, needed=budget.tokens(needed), left=left, budget=budget
                )
            result = fitted
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


def reply_room(window: int) -> int:
    """Tokens a cut result leaves under the limit for the model's answer or its next call."""
    return min(REPLY_ROOM_TOKENS, window // REPLY_ROOM_SHARE)


_SERVER_CUT = re.compile(
    re.escape(TRUNCATED)
    .replace(re.escape("{kept}"), r"(?P<kept>[\d,]+)")
    .replace(re.escape("{total}"), r"(?P<total>[\d,]+)")
    + r"\Z"
)
"""The line :mod:`oncall_tui.llm.mcp_calls` ends a result with when the server's was longer
than the size limit."""


def cut_to_fit(
    request: ToolCallRequest, result: ToolMessage, *, before: int, budget: ContextBudget
) -> ToolMessage | None:
    """``result`` cut to what fits after a request of ``before`` raw tokens, or ``None``.

    ``before`` counts the request so far and the results of the same step already passed on.
    The cut keeps the result's beginning and appends a note: how much was left out (lines,
    or characters when the cut is inside a line, of how many; and about how many tokens: the
    whole result's estimate less the kept part's, calibrated) and how to ask for less. The
    whole message, note included, is measured by the estimate every request is
    (:func:`message_tokens`, ``budget.reading``): the next request stays :func:`reply_room`
    tokens under the 95% limit, so the model still has room to answer, or to call again.

    Only the beginning, not the beginning and the end: a tool's order is its ranking (a log
    search returns matches by time, newest first or oldest first, or by relevance), so what
    it puts first is what it chose to show first; its first line usually says what the
    result is (the count of matches, a table's header, a JSON document's opening), and that
    line is also the one-line summary the user sees. One unbroken run of lines is a log the
    model can read as it is, and continue from its last line (a later time range); a tail
    after a gap would read as one log with nothing missing between. The size limit of
    :mod:`oncall_tui.llm.mcp_calls` keeps the beginning too, so both cuts agree, and the note
    says when that limit had cut the server's result already.

    The cut ends at a line (a log line is never broken) unless the last line that fits ends
    before half of what would fit: one long line (a JSON document, a minified page) is cut
    inside, and the note then counts characters.

    ``None`` (the caller withholds the result, as before) when:

    - the call is ``load_skill``: a skill is a runbook, followed in order, and its later
      steps (the checks before a restart, the rollback, the warnings) matter as much as its
      first ones; half a runbook followed as if whole is worse than none, and no narrower
      query exists for a skill: it loads whole or not at all, and the user compacts;
    - fewer than :data:`MIN_KEPT_TOKENS` of the result would be left beside the note.
    """
    call = request.tool_call
    if call["name"] == LOAD_SKILL:
        return None
    cut = _fitting_cut(call["name"], str(result.text), before=before, budget=budget)
    if cut is None:
        return None
    return result.model_copy(
        update={"content": cut, "response_metadata": {**result.response_metadata, CUT: True}}
    )


def _fitting_cut(name: str, content: str, *, before: int, budget: ContextBudget) -> str | None:
    """The cut text, note included, of :func:`cut_to_fit`: at a line when it can be, else
    inside one; ``None`` when too little of the result would be left."""
    cuts = _Cut.of(name, content, budget)
    body = cuts.body
    ceiling = budget.limit_tokens - reply_room(budget.window)

    def fits(candidate: str) -> bool:
        return budget.reading(before + message_tokens(candidate)).context_tokens <= ceiling

    def enough(end: int) -> bool:
        return estimate_text_tokens(body[:end]) >= MIN_KEPT_TOKENS

    most = longest_that_fits(lambda end: fits(cuts.at_character(end)), len(body))
    if not most or not enough(most):
        return None
    cut = cuts.at_character(most)
    line_end = body.rfind("\n", 0, most + 1)
    while line_end > 0 and line_end >= most // 2 and enough(line_end):
        if fits(candidate := cuts.at_line(line_end)):
            cut = candidate
            break
        line_end = body.rfind("\n", 0, line_end)
    return cut


@dataclass(frozen=True)
class _Cut:
    """One result's cuts: its beginning up to a given length, and the note after it."""

    tool: str
    body: str
    """The result, without the size limit's closing line."""
    budget: ContextBudget
    server: re.Match[str] | None
    """The size limit's line, when the tool server's result was cut already."""
    lines: int
    tokens: int
    """The body's lines and its tokens (calibrated)."""

    @classmethod
    def of(cls, tool: str, text: str, budget: ContextBudget) -> _Cut:
        server = _SERVER_CUT.search(text, max(0, len(text) - 100))
        body = text[: server.start()] if server else text
        lines = body.count("\n") + (not body.endswith("\n"))
        return cls(tool, body, budget, server, lines, budget.tokens(estimate_text_tokens(body)))

    def at_line(self, end: int) -> str:
        """Kept: the lines before the newline at ``end``."""
        left = self.lines - self.body.count("\n", 0, end) - 1
        return self._text(end, f"{left:,} of {self.lines:,} lines")

    def at_character(self, end: int) -> str:
        """Kept: the first ``end`` characters."""
        size = len(self.body)
        return self._text(end, f"{size - end:,} of {size:,} characters")

    def _text(self, end: int, left_out: str) -> str:
        kept = self.body[:end]
        left = max(0, self.tokens - self.budget.tokens(estimate_text_tokens(kept)))
        note = (
            f"[… {left_out} (about {left:,} of {self.tokens:,} tokens) left out to fit the "
            f"{LIMIT_PERCENT:g}% limit of the {self.budget.window:,}-token context window."
        )
        if self.server:
            note += (
                f" The tool server's result was {self.server['total']} characters; the size "
                f"limit had kept its first {self.server['kept']}."
            )
        note += (
            " Above is only the beginning of the result, not all of it. To see the rest, search "
            f"again with a narrower pattern or a shorter time range (call {self.tool} again "
            "asking for less).]"
        )
        return f"{kept}\n{note}"


def withheld(
    request: ToolCallRequest, result: ToolMessage, *, needed: int, left: int, budget: ContextBudget
) -> ToolMessage:
    """The note the model gets instead of a result that does not fit, when no cut of it will
    do (:func:`cut_to_fit`)."""
    call = request.tool_call
    if call["name"] == LOAD_SKILL:
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


def is_cut(message: ToolMessage | AIMessage) -> bool:
    """The tool message holds the beginning of its result and a note (:func:`cut_to_fit`)."""
    return bool(message.response_metadata.get(CUT))


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
    return OncallError("STREAM_FAILED", "stream_deadline", seconds=f"{seconds or 0:g}")
