"""The seam services use to run a turn, get a chat model, and know the window they run with.

Services never build models themselves: they ask a :class:`ModelGateway`. Production uses
:class:`OllamaGateway` (turns in this process, or in an :class:`AgentHost` child process);
tests, benchmarks and screenshots use :class:`StaticGateway`.
"""

from __future__ import annotations

import threading
from collections.abc import AsyncGenerator
from typing import Protocol

from langchain_core.language_models import BaseChatModel

from oncall_tui.errors import OncallError
from oncall_tui.llm.factory import build_chat_model
from oncall_tui.llm.host import AgentHost
from oncall_tui.llm.ollama_api import ModelDetails, OllamaApi, resolve_context_window
from oncall_tui.llm.turn import AgentStreamItem, Turn
from oncall_tui.settings import Settings


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

    def stream_turn(self, turn: Turn) -> AsyncGenerator[AgentStreamItem, None]:
        """Run one turn (see :func:`oncall_tui.llm.agent.stream_agent`)."""
        ...


class OllamaGateway:
    """Models from the configured Ollama server; turns run in ``host`` when one is given.

    The window is discovered once (``/api/show``) and cached. Discovery never raises: when
    Ollama is down or the model is missing the window falls back to the setting or the default
    cap, so the context gauge still works offline; the send itself reports the error. The
    fallback is cached too: it is what every request sends, so gauge and server still agree.
    """

    def __init__(
        self, settings: Settings, api: OllamaApi | None = None, host: AgentHost | None = None
    ) -> None:
        self._settings = settings
        self._api = api if api is not None else OllamaApi(settings.ollama_url)
        self._host = host
        """Where turns run; ``None`` runs them in this process."""
        self._window: int | None = None
        self._lock = threading.Lock()

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
        with self._lock:
            if self._window is None:
                self._window = resolve_context_window(self._settings.num_ctx, self._discover())
            return self._window

    def _discover(self) -> ModelDetails | None:
        if self._settings.num_ctx is not None:
            return None  # the setting wins; no need to ask the server
        try:
            return self._api.show(self._settings.model)
        except OncallError:
            return None

    def server_version(self) -> str:
        return OllamaApi(self._settings.ollama_url, timeout=3.0).version()

    def chat_model(self) -> BaseChatModel:
        """A fresh model per call: its async HTTP pool belongs to the event loop that uses it."""
        return build_chat_model(
            self._settings.ollama_url,
            self._settings.model,
            self.context_window(),
            self.request_timeout,
        )

    def stream_turn(self, turn: Turn) -> AsyncGenerator[AgentStreamItem, None]:
        if self._host is None:
            from oncall_tui.llm.agent import run_turn  # LangChain's agent stack, when used here

            return run_turn(self.chat_model(), turn, url=self.url, model_name=self.model_name)
        return self._host.stream(
            turn,
            url=self.url,
            model=self.model_name,
            num_ctx=self.context_window(),
            timeout=self.request_timeout,
        )


class StaticGateway:
    """A fixed model and window, for tests, benchmarks and screenshots."""

    def __init__(
        self, model: BaseChatModel, window: int, model_name: str = "scripted", url: str = ""
    ) -> None:
        self._model = model
        self._window = window
        self._model_name = model_name
        self._url = url

    @property
    def model_name(self) -> str:
        return self._model_name

    def context_window(self) -> int:
        return self._window

    def chat_model(self) -> BaseChatModel:
        return self._model

    def server_version(self) -> str:
        return f"static ({self._model_name})"

    def stream_turn(self, turn: Turn) -> AsyncGenerator[AgentStreamItem, None]:
        from oncall_tui.llm.agent import run_turn

        return run_turn(self._model, turn, url=self._url, model_name=self._model_name)
