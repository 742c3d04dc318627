"""The seam services use to run a turn, get a chat model, and know the window they run with.

Services never build models themselves: they ask a :class:`ModelGateway`. Production uses
:class:`OllamaGateway`, or :class:`~oncall_tui.llm.openai_gateway.OpenAIGateway` for an
OpenAI-compatible server, as :func:`gateway_for` picks by the provider setting; tests,
benchmarks and screenshots use :class:`StaticGateway`.

Importing this module loads no LangChain: the model client (``langchain-ollama``, through
:mod:`oncall_tui.llm.factory`) and the agent are imported by the methods that use them
(:meth:`~ModelGateway.chat_model`, :meth:`~ModelGateway.stream_turn`,
:meth:`~ModelGateway.summarize`), so commands that only read the window (a context gauge) stay
light.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Protocol

from oncall_tui.errors import OncallError
from oncall_tui.llm.ollama_api import ModelDetails, OllamaApi, resolve_context_window
from oncall_tui.llm.readiness import READY_SECONDS, ModelReadiness, running_loop
from oncall_tui.llm.turn import AgentStreamItem, Summary, Turn
from oncall_tui.settings import Settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel


class ModelGateway(Protocol):
    """Where a service gets its chat model and context window."""

    @property
    def model_name(self) -> str: ...

    def context_window(self) -> int:
        """The ``num_ctx`` sent with every request; stable for the gateway's lifetime."""
        ...

    def chat_model(self) -> BaseChatModel:
        """A chat model configured with ``num_ctx == context_window()``."""
        ...

    def server_version(self) -> str:
        """The model server's version; raises ``MODEL_UNAVAILABLE`` when it does not answer."""
        ...

    def check_ready(self) -> ModelReadiness:
        """Blocking: one cheap call proving the server answers and has the model, trusted for a
        few seconds; raises ``MODEL_UNAVAILABLE`` or ``MODEL_NOT_FOUND``."""
        ...

    def tools_supported(self) -> bool:
        """What the last successful check said, without asking; ``True`` before any check."""
        ...

    def tools_by_text(self) -> bool:
        """Are tools offered to a model that cannot call them natively, described in the
        system prompt and made from the calls it writes as text? (Recovery on, and the
        server says the model has no native tool calls.)"""
        ...

    def teaches_tool_form(self) -> bool:
        """Do requests tell the model how to write a tool call as text
        (:data:`~oncall_tui.core.prompts.TOOL_FORM_INSTRUCTION`)? When recovery is on and the
        server does not say the model calls tools natively, or a reply needed recovery."""
        ...

    def stream_turn(self, turn: Turn) -> AsyncGenerator[AgentStreamItem, None]:
        """Run one turn (see :func:`oncall_tui.llm.agent.stream_agent`)."""
        ...

    async def summarize(self, instructions: str, request: str) -> Summary:
        """One call without tools (see :func:`oncall_tui.llm.agent.summarize`)."""
        ...


class OllamaGateway:
    """Models from the configured Ollama server.

    The window is discovered from the model's details (``/api/show``) and then fixed for the
    gateway's life. Discovery never raises: when Ollama is down or the model is missing the
    window falls back to the setting or the default cap, so the context gauge still works
    offline; the send itself reports the error. A fallback holds only until the details are
    first known (no request can have been sent with it: the server did not answer).
    """

    def __init__(
        self,
        settings: Settings,
        api: OllamaApi | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._settings = settings
        self._api = api if api is not None else OllamaApi(settings.ollama_url)
        self._clock = clock
        self._window: int | None = None
        self._window_known = False
        """The window came from the setting or the model's details, not a fallback."""
        self._details: ModelDetails | None = None
        self._ready_at: float | None = None
        self._lock = threading.Lock()
        self._model: tuple[BaseChatModel, int, asyncio.AbstractEventLoop | None] | None = None
        """The model built last, its window, and the event loop it belongs to (None: none yet)."""
        self._recovered = False
        """A reply of this process needed its tool calls read from its text."""

    @property
    def model_name(self) -> str:
        return self._settings.model

    @property
    def url(self) -> str:
        return self._settings.ollama_url

    @property
    def request_timeout(self) -> float:
        return self._settings.request_timeout

    def context_window(self) -> int:
        if self._window is None:
            if self._settings.num_ctx is None:
                with contextlib.suppress(OncallError):  # the fallback below until it answers
                    self.check_ready()
            with self._lock:
                if self._window is None:
                    self._window = resolve_context_window(self._settings.num_ctx, None)
                    self._window_known = self._settings.num_ctx is not None
        return self._window

    def check_ready(self) -> ModelReadiness:
        with self._lock:
            fresh = self._ready_at is not None and self._clock() - self._ready_at < READY_SECONDS
            if fresh and self._details is not None:
                return ModelReadiness(tools=self._details.supports_tools)
        details = self._api.show(self._settings.model)  # outside the lock: it may wait
        with self._lock:
            self._details, self._ready_at = details, self._clock()
            if not self._window_known:
                self._window = resolve_context_window(self._settings.num_ctx, details)
                self._window_known = True
        return ModelReadiness(tools=details.supports_tools)

    def tools_supported(self) -> bool:
        details = self._details
        return details is None or details.supports_tools

    def server_version(self) -> str:
        return OllamaApi(self._settings.ollama_url, timeout=3.0).version()

    def tools_by_text(self) -> bool:
        return self._settings.recover_tool_calls and not self.tools_supported()

    def teaches_tool_form(self) -> bool:
        """A model whose capabilities list tools is told the text form only once one of its
        replies needed recovery; one without them always (its tools are offered as text)."""
        return self._settings.recover_tool_calls and (self._recovered or self.tools_by_text())

    def _noted_recovery(self) -> None:
        self._recovered = True

    def chat_model(self) -> BaseChatModel:
        """The model for the calling event loop, built once (its HTTP clients cost about 60 ms
        to set up, for their TLS context): an async client belongs to the loop that first uses
        it, so a model built off any loop (the TUI's warm-up) is taken by the first loop that
        asks, and another loop gets one of its own. A new window builds a new one too."""
        from oncall_tui.llm.factory import build_chat_model  # langchain-ollama, only now

        loop = running_loop()
        window = self.context_window()
        with self._lock:
            cached = self._model
            if cached is not None and cached[1] == window and cached[2] in (None, loop):
                self._model = (cached[0], window, cached[2] or loop)
                return cached[0]
        model = build_chat_model(
            self._settings.ollama_url, self._settings.model, window, self.request_timeout
        )
        with self._lock:
            self._model = (model, window, loop)
        return model

    def stream_turn(self, turn: Turn) -> AsyncGenerator[AgentStreamItem, None]:
        from oncall_tui.llm.agent import run_turn  # LangChain's agent stack, when used here

        return run_turn(
            self.chat_model(),
            turn,
            url=self.url,
            model_name=self.model_name,
            deadline=self._settings.deadline,
            recover=self._settings.recover_tool_calls,
            on_recovered=self._noted_recovery,
        )

    async def summarize(self, instructions: str, request: str) -> Summary:
        from oncall_tui.llm.agent import summarize  # LangChain's stack, only now

        model = self.chat_model()
        return await summarize(model, instructions, request, deadline=self._settings.deadline)


class StaticGateway:
    """A fixed model and window, for tests, benchmarks and screenshots."""

    def __init__(
        self,
        model: BaseChatModel,
        window: int,
        model_name: str = "scripted",
        url: str = "",
        *,
        tools: bool = True,
        recover: bool = True,
        tool_form: bool | None = None,
    ) -> None:
        self._model = model
        self._window = window
        self._model_name = model_name
        self._url = url
        self._tools = tools
        self._recover = recover
        self._tool_form = tool_form
        """Fixed, or ``None``: as Ollama does, once a reply needed recovery."""
        self.recoveries = 0
        """Replies whose tool calls were read from their text."""

    @property
    def model_name(self) -> str:
        return self._model_name

    def context_window(self) -> int:
        return self._window

    def chat_model(self) -> BaseChatModel:
        return self._model

    def server_version(self) -> str:
        return f"static ({self._model_name})"

    def check_ready(self) -> ModelReadiness:
        return ModelReadiness(tools=self._tools)

    def tools_supported(self) -> bool:
        return self._tools

    def tools_by_text(self) -> bool:
        return self._recover and not self._tools

    def teaches_tool_form(self) -> bool:
        if self._tool_form is not None:
            return self._recover and self._tool_form
        return self._recover and (self.recoveries > 0 or not self._tools)

    def _noted_recovery(self) -> None:
        self.recoveries += 1

    def stream_turn(self, turn: Turn) -> AsyncGenerator[AgentStreamItem, None]:
        from oncall_tui.llm.agent import run_turn

        return run_turn(
            self._model,
            turn,
            url=self._url,
            model_name=self._model_name,
            recover=self._recover,
            on_recovered=self._noted_recovery,
        )

    async def summarize(self, instructions: str, request: str) -> Summary:
        from oncall_tui.llm.agent import summarize

        return await summarize(self._model, instructions, request)


def gateway_for(settings: Settings) -> ModelGateway:
    """The gateway of the configured provider: the one place it is chosen."""
    if settings.provider == "openai":
        from oncall_tui.llm.openai_gateway import OpenAIGateway

        return OpenAIGateway(settings)
    return OllamaGateway(settings)


__all__ = [
    "READY_SECONDS",
    "ModelGateway",
    "ModelReadiness",
    "OllamaGateway",
    "StaticGateway",
    "gateway_for",
    "running_loop",
]
