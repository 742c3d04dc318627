"""The agent runner: one user turn through LangChain's tool-calling agent, as typed events.

:func:`stream_agent` is the seam between the model and every client: it yields text pieces,
tool starts and ends (summaries only) and exactly one :class:`ModelUsage`, and raises only
:class:`OncallError`. :func:`summarize` is the single call without tools that memory
compaction makes. Cancellation (task cancel, ``aclose``) passes straight through both.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, InputAgentState
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.tools import BaseTool
from langchain_ollama import ChatOllama
from langgraph.types import StreamMode

from oncall_tui.core.events import (
    ThinkingStarted,
    TokenDelta,
    ToolFinished,
    ToolStarted,
    ToolStatus,
)
from oncall_tui.core.thinking import ThinkingFilter, strip_thinking
from oncall_tui.errors import OncallError
from oncall_tui.llm.call_hold import CallHold
from oncall_tui.llm.factory import read_timeout_of
from oncall_tui.llm.failures import map_model_error
from oncall_tui.llm.guard import ContextGuard, Deadline, is_cut, is_withheld, past_deadline
from oncall_tui.llm.mcp_calls import SAID, outcome_of
from oncall_tui.llm.recovery import CallRecovery, ToolsAsText, bound_tools, recovered_texts
from oncall_tui.llm.server import OLLAMA, ServerKind
from oncall_tui.llm.text_calls import Tools
from oncall_tui.llm.tools import build_tools, tool_summary
from oncall_tui.llm.turn import AgentStreamItem, ModelUsage, Summary, Turn

__all__ = [
    "RECURSION_LIMIT",
    "AgentStreamItem",
    "ModelUsage",
    "Summary",
    "cut_at_length",
    "end_marker",
    "map_model_error",
    "run_turn",
    "stream_agent",
    "summarize",
]

RECURSION_LIMIT = 25
"""Graph steps per turn: a model call and a tool round are one step each (~12 tool rounds)."""

_STREAM_MODES: list[StreamMode] = ["messages", "updates"]
"""Text pieces come from "messages"; complete tool calls, results and usage from "updates"."""
_MODEL_NODE = "model"
_TOOLS_NODE = "tools"


async def stream_agent(
    model: BaseChatModel,
    system_prompt: str,
    history: Sequence[tuple[str, str]],
    tools: Sequence[BaseTool],
    *,
    url: str = "",
    model_name: str = "",
    middleware: Sequence[AgentMiddleware[Any, Any, Any]] = (),
    tool_names: Mapping[str, str] | None = None,
    server: ServerKind = OLLAMA,
    recovering: Tools | None = None,
) -> AsyncGenerator[AgentStreamItem, None]:
    """Run one turn and yield what happens, in order.

    ``history`` holds ``("user" | "assistant", content)`` pairs ending with the new user
    message. Yields :class:`TokenDelta` per text piece, :class:`ToolStarted` once a call is
    complete, :class:`ToolFinished` when its result arrives, then one :class:`ModelUsage`.
    Failures raise :class:`OncallError` (see :func:`map_model_error`); ``url`` and
    ``model_name`` fill its message and default to what the model itself knows. A model call
    whose stream ended without its end marker (:func:`end_marker`) is ``STREAM_FAILED``,
    after the text it did send.
    ``tool_names`` renames tools in the events (a server tool's model name -> its shown name).
    ``server`` (the gateway's kind of server) words a failure's message.
    ``recovering``: the tools whose calls :class:`~oncall_tui.llm.recovery.CallRecovery` reads
    from the text (one of ``middleware``); text that may be such a call is held back from the
    stream until the model call ends (:class:`~oncall_tui.llm.call_hold.CallHold`).
    """
    where = url or _model_url(model)
    name = model_name or _model_name(model)
    state: InputAgentState = {"messages": [*to_messages(history)]}
    run = _RunState(tool_names or {}, end_marker(model), server, recovering)
    try:
        agent = create_agent(
            model, tools=list(tools), system_prompt=system_prompt, middleware=list(middleware)
        )
        stream = agent.astream(
            state, {"recursion_limit": RECURSION_LIMIT}, stream_mode=_STREAM_MODES
        )
        try:
            async for mode, data in stream:
                for item in run.handle(mode, data):
                    yield item
                if run.failure is not None:
                    raise run.failure
        finally:
            if isinstance(stream, AsyncGenerator):  # release the HTTP stream on early exit
                await stream.aclose()
    except Exception as exc:
        raise map_model_error(
            exc, url=where, model=name, timeout=read_timeout_of(model), server=server
        ) from exc
    yield run.usage()


def run_turn(
    model: BaseChatModel,
    turn: Turn,
    *,
    url: str = "",
    model_name: str = "",
    deadline: float | None = None,
    server: ServerKind = OLLAMA,
    recover: bool = False,
    on_recovered: Callable[[], None] | None = None,
) -> AsyncGenerator[AgentStreamItem, None]:
    """:func:`stream_agent` for a :class:`Turn`: the tools its skills call for (none for a
    model without tool support), every request held to its budget, every model call to
    ``deadline`` seconds; with ``recover``, calls the model writes as text are read from its
    replies (:mod:`oncall_tui.llm.recovery`), and ``on_recovered`` hears of each reply that
    needed it."""
    tools = [*build_tools(turn.skills), *turn.server_tools] if turn.tools else []
    guard: list[AgentMiddleware[Any, Any, Any]] = []
    by_text = turn.text_tools and bool(tools)
    recovering = bound_tools(tools, turn.tool_names) if (recover or by_text) and tools else None
    if turn.budget is not None:  # tools in the prompt are counted there, not as schemas
        guard.append(ContextGuard(turn.budget, turn.system_prompt, [] if by_text else tools))
    if deadline is not None:
        guard.append(Deadline(deadline))
    if recovering is not None:  # inside the deadline, which covers the model call it reads
        guard.append(CallRecovery(recovering, on_recovered))
    if by_text:  # innermost: what the model itself is sent
        guard.append(ToolsAsText())
    return stream_agent(
        model,
        turn.system_prompt,
        turn.history,
        tools,
        url=url,
        model_name=model_name,
        middleware=guard,
        tool_names=turn.tool_names,
        server=server,
        recovering=recovering,
    )


class _RunState:
    """Turns langgraph's ``(mode, data)`` stream into events and tracks usage."""

    def __init__(
        self,
        tool_names: Mapping[str, str],
        marker: str | None,
        server: ServerKind,
        recovering: Tools | None = None,
    ) -> None:
        self.names = tool_names
        self.marker = marker
        self.server = server
        self.failure: OncallError | None = None
        """Set when a model call's stream ended without its end marker."""
        self.started: dict[str, tuple[str, float]] = {}
        self.calls = 0
        self.first_input: int | None = None
        self.last_input: int | None = None
        self.output_total: int | None = None
        self.truncated = False
        self.thinking = ThinkingFilter()
        """Each model call's leading <think> block is not part of the reply, and says when the
        call reasons (:meth:`ThinkingFilter.thinks`)."""
        self.hold = CallHold(recovering) if recovering is not None else None
        """Text that may be a call written as text waits for the model call's end."""
        self.text_end = ""
        """The reply's last two characters so far."""
        self.call_ended = False
        """A model call ended since the last text: the next text is another call's."""

    def handle(self, mode: str, data: Any) -> list[AgentStreamItem]:
        if mode == "messages":
            message, metadata = data
            if not (
                isinstance(message, AIMessage) and metadata.get("langgraph_node") == _MODEL_NODE
            ):
                return []
            if text := self._shown(self.thinking.feed(str(message.text))):
                return [self._text(text)]
            meta = message.response_metadata  # the end: Ollama's "done", OpenAI's reason
            ended = bool(
                getattr(message, "tool_call_chunks", None)
                or meta.get("done")
                or meta.get("finish_reason")
            )
            return (
                [ThinkingStarted()] if self.thinking.thinks(str(message.text), ended=ended) else []
            )
        if mode != "updates" or not isinstance(data, dict):
            return []
        events: list[AgentStreamItem] = []
        for node, update in data.items():
            messages = update.get("messages", []) if isinstance(update, dict) else []
            for message in messages:
                if node == _MODEL_NODE and isinstance(message, AIMessage):
                    events.extend(self._model_finished(message))
                elif node == _TOOLS_NODE and isinstance(message, ToolMessage):
                    events.append(self._tool_finished(message))
        return events

    def _model_finished(self, message: AIMessage) -> list[AgentStreamItem]:
        self.calls += 1
        usage = message.usage_metadata
        if usage is not None:
            self.last_input = usage.get("input_tokens")
            self.output_total = (self.output_total or 0) + usage.get("output_tokens", 0)
        else:
            self.last_input = None
        if self.calls == 1:
            self.first_input = self.last_input
        self.truncated = cut_at_length(message.response_metadata)
        events: list[AgentStreamItem] = []
        held = self._shown(self.thinking.finish())  # this model call is over
        recovered = recovered_texts(message)
        if self.hold is not None:
            held += self.hold.finish(recovered)
        if held:
            events.append(self._text(held))
        self.call_ended = True
        if self.marker is not None and not message.response_metadata.get(self.marker):
            self.failure = self.server.ended_early()  # after the text it did send
            return events
        now = time.monotonic()
        for call in message.tool_calls:
            call_id = call.get("id") or f"call_{len(self.started) + 1}"
            name = self.names.get(call["name"], call["name"])
            self.started[call_id] = (name, now)
            events.append(ToolStarted(call_id, name, dict(call["args"]), bool(recovered)))
        return events

    def _shown(self, text: str) -> str:
        return text if self.hold is None or not text else self.hold.feed(text)

    def _text(self, text: str) -> TokenDelta:
        """``text`` as the reply goes on with it. A model call's text after an earlier call's
        starts a paragraph of its own: "Let me check the logs." and, after the tool, "The
        disk is full." would otherwise run together, in the reply shown, stored, exported and
        sent back to the model."""
        if self.call_ended and self.text_end:
            apart = _newlines_at_end(self.text_end) + len(text) - len(text.lstrip("\n"))
            text = "\n" * max(0, 2 - apart) + text
        self.call_ended = False
        self.text_end = (self.text_end + text)[-2:]
        return TokenDelta(text)

    def _tool_finished(self, message: ToolMessage) -> ToolFinished:
        name, started = self.started.pop(
            message.tool_call_id, (message.name or "tool", time.monotonic())
        )
        if is_withheld(message):
            status = ToolStatus.WITHHELD
        elif (outcome := outcome_of(message.artifact)) is not None:
            status = outcome
        else:
            status = ToolStatus.ERROR if message.status == "error" else ToolStatus.OK
        if status == ToolStatus.OK and is_cut(message):
            status = ToolStatus.CUT  # it ran; the model got its beginning and a note
        return ToolFinished(
            call_id=message.tool_call_id,
            name=name,
            summary=tool_summary(name, outcome_of(message.artifact, SAID) or str(message.text)),
            duration_ms=round((time.monotonic() - started) * 1000),
            status=status,
        )

    def usage(self) -> ModelUsage:
        return ModelUsage(
            input_tokens=self.last_input,
            output_tokens=self.output_total,
            first_input_tokens=self.first_input,
            truncated=self.truncated,
        )


def _newlines_at_end(text: str) -> int:
    return len(text) - len(text.rstrip("\n"))


async def summarize(
    model: BaseChatModel,
    instructions: str,
    request: str,
    *,
    deadline: float | None = None,
    url: str = "",
    server: ServerKind = OLLAMA,
) -> Summary:
    """One streamed call without tools; the reply text with any thinking removed.

    Streamed so that the read timeout applies between chunks: a CPU model may take longer than
    the timeout to write a whole summary, but not to write its next words. ``deadline`` bounds
    the whole call. Failures raise :class:`OncallError` (see :func:`map_model_error`); a stream
    that ends without its end marker (:func:`end_marker`) is ``STREAM_FAILED``, no summary.
    """
    messages: list[BaseMessage] = [SystemMessage(instructions), HumanMessage(request)]
    parts: list[str] = []
    truncated = False
    marker = end_marker(model)
    ended = marker is None
    try:
        async with asyncio.timeout(deadline):
            async for chunk in model.astream(messages):
                parts.append(str(chunk.text))
                truncated = truncated or cut_at_length(chunk.response_metadata)
                ended = ended or bool(marker and chunk.response_metadata.get(marker))
    except TimeoutError:
        raise past_deadline(deadline) from None
    except Exception as exc:
        raise map_model_error(
            exc,
            url=url or _model_url(model),
            model=_model_name(model),
            timeout=read_timeout_of(model),
            server=server,
        ) from exc
    if not ended:
        raise server.ended_early()
    return Summary(strip_thinking("".join(parts)), truncated)


def cut_at_length(metadata: Mapping[str, Any]) -> bool:
    """The server ended the reply at its length limit: Ollama's ``done_reason`` or the OpenAI
    API's ``finish_reason`` is ``length``."""
    return "length" in (metadata.get("done_reason"), metadata.get("finish_reason"))


def end_marker(model: BaseChatModel) -> str | None:
    """The key of a model call's ``response_metadata`` that only the end of a whole reply sets:
    ``done`` (Ollama's done record) for ``ChatOllama``, ``finish_reason`` (the OpenAI API's
    finishing chunk) for ``ChatOpenAI``. A stream that stops without it (the HTTP response
    ended, cleanly or not) is not a complete reply. ``[DONE]`` is not required: some servers
    never send it after the finishing chunk. ``None`` for other models (the tests' scripted
    one), taken at their word. ``langchain_openai`` is looked up, not imported: an Ollama user
    never loads it."""
    if isinstance(model, ChatOllama):
        return "done"
    openai = sys.modules.get("langchain_openai")
    if openai is not None and isinstance(model, openai.ChatOpenAI):
        return "finish_reason"
    return None


def to_messages(history: Sequence[tuple[str, str]]) -> list[HumanMessage | AIMessage]:
    """``("user" | "assistant", content)`` pairs as LangChain messages."""
    messages: list[HumanMessage | AIMessage] = []
    for role, content in history:
        if role == "user":
            messages.append(HumanMessage(content))
        elif role == "assistant":
            messages.append(AIMessage(content))
        else:
            raise OncallError("VALIDATION_INVALID_ARGUMENT", "message_role", role=repr(role))
    return messages


def _model_url(model: BaseChatModel) -> str:
    value = getattr(model, "base_url", None)
    return value if isinstance(value, str) else ""


def _model_name(model: BaseChatModel) -> str:
    for attribute in ("model", "model_name"):
        value = getattr(model, attribute, None)
        if isinstance(value, str) and value:
            return value
    return ""
