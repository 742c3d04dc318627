"""A scripted fake LangChain chat model for fast, offline unit tests.

`ScriptedChatModel` replays a FIFO script of `Turn`s. Each model call (streamed
or not) consumes one turn and emits real `AIMessageChunk`s: text in several
pieces, tool calls as `tool_call_chunks` (arguments split across two chunks), and
a final empty chunk carrying `usage_metadata` and `chunk_position="last"`. It
implements `bind_tools`, so `langchain.agents.create_agent` accepts it.

    model = ScriptedChatModel([[("get_current_time", {})], "It is noon."])
    agent = create_agent(model, tools=[get_current_time])
    await agent.ainvoke({"messages": [HumanMessage("time?")]})
    assert isinstance(model.calls[1][-1], ToolMessage)

Shorthands accepted wherever a turn is expected: `str` -> text turn, a sequence of
`(name, args)` pairs -> tool-call turn, an exception instance -> error turn that
raises before the first chunk.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.language_models.chat_models import generate_from_stream
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr

from .ollama_server import rough_token_count, split_text

__all__ = ["ScriptExhaustedError", "ScriptedChatModel", "Turn", "TurnLike", "as_turn"]


@dataclass(frozen=True)
class Turn:
    """One scripted model response.

    text: assistant content, streamed via `split_text(text, chunk_size)`.
    tool_calls: `(name, args)` pairs emitted (after the text) as tool call chunks.
    input_tokens / output_tokens: usage on the final chunk (default: a rough
        estimate from the input messages / the number of content chunks).
    error / error_after: raise `error` after emitting `error_after` chunks.
    delay_per_chunk: seconds to sleep before each chunk (async path only).
    """

    text: str = ""
    tool_calls: tuple[tuple[str, Mapping[str, Any]], ...] = ()
    chunk_size: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    error: BaseException | None = None
    error_after: int = 0
    delay_per_chunk: float = 0.0

    @classmethod
    def call(cls, name: str, args: Mapping[str, Any] | None = None, **kw: Any) -> Turn:
        """A turn with a single tool call."""
        return cls(tool_calls=((name, args or {}),), **kw)

    @classmethod
    def raises(cls, error: BaseException, after: int = 0, text: str = "") -> Turn:
        """A turn that streams `after` chunks of `text` and then raises `error`."""
        return cls(text=text or "this answer is cut off mid stream", error=error, error_after=after)


TurnLike = Turn | str | Sequence[tuple[str, Mapping[str, Any]]] | BaseException


def as_turn(item: TurnLike) -> Turn:
    """Normalise a shorthand into a `Turn`."""
    if isinstance(item, Turn):
        return item
    if isinstance(item, str):
        return Turn(text=item)
    if isinstance(item, BaseException):
        return Turn(error=item)
    return Turn(tool_calls=tuple((name, dict(args)) for name, args in item))


class ScriptExhaustedError(AssertionError):
    """The model was called more often than the test scripted."""


class ScriptedChatModel(BaseChatModel):
    """Fake chat model replaying scripted turns; see the module docstring."""

    model_name: str = "scripted-fake"
    responder: Callable[[list[BaseMessage]], TurnLike] | None = None
    """Asked for a turn when the script is empty (else `ScriptExhaustedError`)."""

    _script: deque[Turn] = PrivateAttr(default_factory=deque)
    _calls: list[list[BaseMessage]] = PrivateAttr(default_factory=list)
    _bound_tools: list[list[dict[str, Any]]] = PrivateAttr(default_factory=list)
    _tool_seq: int = PrivateAttr(default=0)

    def __init__(self, turns: Iterable[TurnLike] = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._script.extend(as_turn(t) for t in turns)

    # -- inspection ---------------------------------------------------------------
    @property
    def calls(self) -> list[list[BaseMessage]]:
        """Every list of input messages the model received, in call order."""
        return self._calls

    @property
    def bound_tools(self) -> list[list[dict[str, Any]]]:
        """OpenAI-format tool schemas of every `bind_tools` call, in order."""
        return self._bound_tools

    @property
    def tool_names(self) -> list[str]:
        """Names of the most recently bound tools."""
        last = self._bound_tools[-1] if self._bound_tools else []
        return [t["function"]["name"] for t in last]

    @property
    def pending(self) -> int:
        return len(self._script)

    def script(self, *turns: TurnLike) -> None:
        """Append turns to the script."""
        self._script.extend(as_turn(t) for t in turns)

    # -- BaseChatModel API ----------------------------------------------------------
    @property
    def _llm_type(self) -> str:
        return "scripted-fake-chat-model"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model_name": self.model_name}

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        formatted = [convert_to_openai_tool(t) for t in tools]
        self._bound_tools.append(formatted)
        if tool_choice is not None:
            kwargs["tool_choice"] = tool_choice
        return self.bind(tools=formatted, **kwargs)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return generate_from_stream(self._stream(messages, stop, None, **kwargs))

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        turn = self._next_turn(messages)
        for chunk in self._chunks(turn, messages):
            if run_manager is not None:
                run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        turn = self._next_turn(messages)
        for chunk in self._chunks(turn, messages):
            await asyncio.sleep(turn.delay_per_chunk)
            if run_manager is not None:
                await run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk

    # -- internals ------------------------------------------------------------------
    def _next_turn(self, messages: list[BaseMessage]) -> Turn:
        self._calls.append(list(messages))
        if self._script:
            return self._script.popleft()
        if self.responder is not None:
            return as_turn(self.responder(list(messages)))
        msg = f"ScriptedChatModel: no scripted turn left for call #{len(self._calls)}"
        raise ScriptExhaustedError(msg)

    def _chunks(self, turn: Turn, messages: list[BaseMessage]) -> Iterator[ChatGenerationChunk]:
        """All chunks of a turn; raises `turn.error` after `turn.error_after` chunks."""
        pieces = [AIMessageChunk(content=p) for p in split_text(turn.text, turn.chunk_size)]
        for index, (name, args) in enumerate(turn.tool_calls):
            self._tool_seq += 1
            raw = json.dumps(dict(args))
            half = len(raw) // 2
            call_id = f"call_{self._tool_seq}"
            first = tool_call_chunk(name=name, args=raw[:half], id=call_id, index=index)
            rest = tool_call_chunk(args=raw[half:], index=index)
            pieces.append(AIMessageChunk(content="", tool_call_chunks=[first]))
            pieces.append(AIMessageChunk(content="", tool_call_chunks=[rest]))
        if turn.error is not None:
            for piece in pieces[: turn.error_after]:
                yield ChatGenerationChunk(message=piece)
            raise turn.error
        yield from (ChatGenerationChunk(message=p) for p in pieces)
        input_tokens = turn.input_tokens
        if input_tokens is None:
            input_tokens = rough_token_count([m.content for m in messages])
        output_tokens = turn.output_tokens if turn.output_tokens is not None else len(pieces)
        final = AIMessageChunk(
            content="",
            chunk_position="last",
            usage_metadata={
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "total_tokens": input_tokens + output_tokens,
            },
            response_metadata={
                "model_name": self.model_name,
                "finish_reason": "tool_calls" if turn.tool_calls else "stop",
            },
        )
        yield ChatGenerationChunk(message=final)
