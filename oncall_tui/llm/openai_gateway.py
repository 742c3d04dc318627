"""Models from a server of the OpenAI chat-completions API (``--provider openai``).

The same engine as for Ollama (:func:`oncall_tui.llm.agent.run_turn`): streaming, tool calls,
the usage of the final chunk calibrating the estimate, the 95% rule. What differs is how the
window is known, since the app cannot set it: ``--num-ctx`` if given, else what the server
says it runs (llama.cpp ``/props``, vLLM ``/v1/models``), else 8,192
(:func:`~oncall_tui.llm.openai_api.explain_openai_window`); :meth:`window_source` says which.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING

from oncall_tui.errors import OncallError
from oncall_tui.llm.openai_api import (
    SOURCE_DEFAULT,
    OpenAIApi,
    ServedModel,
    explain_openai_window,
    server_version,
)
from oncall_tui.llm.readiness import READY_SECONDS, ModelReadiness, running_loop
from oncall_tui.llm.turn import AgentStreamItem, Summary, Turn
from oncall_tui.settings import Settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

PROVIDER = "openai"


class OpenAIGateway:
    """Models from the configured OpenAI-compatible server.

    As :class:`~oncall_tui.llm.gateway.OllamaGateway`: discovery never raises (a server that
    does not answer leaves the window at the setting or the default until it does), and once
    known the window is fixed for the gateway's life. Every model the server serves can be
    offered tools (the API has no capability list); one that refuses them says so itself.
    """

    def __init__(
        self,
        settings: Settings,
        api: OpenAIApi | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._settings = settings
        self._api = api or OpenAIApi(settings.base_url, settings.api_key)
        self._clock = clock
        self._window: tuple[int, str] | None = None
        self._window_known = False
        """The window came from the setting or the server, not a fallback."""
        self._ready_at: float | None = None
        self._lock = threading.Lock()
        self._model: tuple[BaseChatModel, asyncio.AbstractEventLoop | None] | None = None

    @property
    def model_name(self) -> str:
        return self._settings.model

    @property
    def url(self) -> str:
        return self._settings.base_url

    @property
    def request_timeout(self) -> float:
        return self._settings.request_timeout

    def context_window(self) -> int:
        return self._resolved()[0]

    def window_source(self) -> str:
        """Which rule gave the window: ``flag``, ``llama.cpp /props``, ``vLLM /v1/models`` or
        ``default``."""
        return self._resolved()[1]

    def _resolved(self) -> tuple[int, str]:
        if self._window is None:
            if self._settings.num_ctx is None:
                with contextlib.suppress(OncallError):  # the default below until it answers
                    self.check_ready()
            with self._lock:
                if self._window is None:
                    self._window = explain_openai_window(
                        self._settings.num_ctx, None, None, self.model_name
                    )
                    self._window_known = self._settings.num_ctx is not None
        return self._window

    def served_models(self) -> list[ServedModel]:
        """``/v1/models``; ``MODEL_UNAVAILABLE`` when the server does not answer."""
        return self._api.models()

    def check_ready(self) -> ModelReadiness:
        with self._lock:
            if self._ready_at is not None and self._clock() - self._ready_at < READY_SECONDS:
                return ModelReadiness(tools=True)
        models = self._api.models()  # outside the lock: it may wait
        names = [model.name for model in models]
        if names and self.model_name not in names:  # an empty list: the server does not say
            raise OncallError(
                "MODEL_NOT_FOUND",
                "openai_model_missing",
                url=self.url,
                model=self.model_name,
                served=", ".join(names),
            )
        props = self._api.props() if not self._window_known else None
        with self._lock:
            self._ready_at = self._clock()
            if not self._window_known:
                self._window = explain_openai_window(
                    self._settings.num_ctx, props, models, self.model_name
                )
                self._window_known = True
        return ModelReadiness(tools=True)

    def tools_supported(self) -> bool:
        return True

    def tools_by_text(self) -> bool:
        return False  # every model is offered tools natively; one that refuses says so

    def teaches_tool_form(self) -> bool:
        """The API says nothing of whether a model calls tools natively: while recovery is on,
        every request says how to write a call as text."""
        return self._settings.recover_tool_calls

    def server_version(self) -> str:
        """llama.cpp's build from ``/props``, else the ``Server`` header, else ``unknown``;
        ``MODEL_UNAVAILABLE`` when ``/v1/models`` does not answer."""
        api = OpenAIApi(self._settings.base_url, self._settings.api_key, timeout=3.0)
        api.models()
        return server_version(api.props(), api.server_header)

    def chat_model(self) -> BaseChatModel:
        """The model for the calling event loop, built once per loop (see
        :meth:`OllamaGateway.chat_model <oncall_tui.llm.gateway.OllamaGateway.chat_model>`)."""
        from oncall_tui.llm.openai_model import build_openai_chat_model  # only now

        loop = running_loop()
        with self._lock:
            cached = self._model
            if cached is not None and cached[1] in (None, loop):
                self._model = (cached[0], cached[1] or loop)
                return cached[0]
        model = build_openai_chat_model(
            self._settings.base_url,
            self.model_name,
            self.request_timeout,
            self._settings.api_key,
        )
        with self._lock:
            self._model = (model, loop)
        return model

    def stream_turn(self, turn: Turn) -> AsyncGenerator[AgentStreamItem, None]:
        from oncall_tui.llm.agent import run_turn

        return run_turn(
            self.chat_model(),
            turn,
            url=self.url,
            model_name=self.model_name,
            deadline=self._settings.deadline,
            provider=PROVIDER,
            recover=self._settings.recover_tool_calls,
        )

    async def summarize(self, instructions: str, request: str) -> Summary:
        from oncall_tui.llm.agent import summarize

        return await summarize(
            self.chat_model(),
            instructions,
            request,
            deadline=self._settings.deadline,
            url=self.url,
            provider=PROVIDER,
        )


__all__ = ["PROVIDER", "SOURCE_DEFAULT", "OpenAIGateway"]
