"""Models from a server of the OpenAI chat-completions API (``--provider openai``).

The same engine as for Ollama (:class:`~oncall_tui.llm.server_gateway.ServerGateway`):
streaming, tool calls, the usage of the final chunk calibrating the estimate, the 95% rule.
What differs is how the window is known, since the app cannot set it: ``--num-ctx`` if given,
else what the server says it runs (llama.cpp ``/props``, vLLM ``/v1/models``), else 8,192
(:func:`~oncall_tui.llm.openai_api.explain_openai_window`); doctor's report says which.
The server has only ``/v1/models`` to list: names and, from vLLM, each model's window.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from oncall_tui.errors import OncallError
from oncall_tui.llm.openai_api import (
    OpenAIApi,
    ServedModel,
    explain_openai_window,
    server_version,
)
from oncall_tui.llm.readiness import ModelReadiness
from oncall_tui.llm.server import OPENAI_COMPATIBLE, ListedModel, Window
from oncall_tui.llm.server_gateway import Probe, ServerGateway
from oncall_tui.settings import Settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel


class OpenAIGateway(ServerGateway):
    """Models from the configured OpenAI-compatible server.

    Every model the server serves can be offered tools (the API has no capability list); one
    that refuses them says so itself. Nor does it say whether a model calls them natively, so
    while recovery is on every request says how to write a call as text.
    """

    server = OPENAI_COMPATIBLE
    says_native_tools = False

    def __init__(
        self,
        settings: Settings,
        api: OpenAIApi | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(settings, clock)
        self._api = api or OpenAIApi(settings.base_url, settings.api_key)

    @property
    def url(self) -> str:
        return self._settings.base_url

    def served_models(self) -> list[ServedModel]:
        """``/v1/models``; ``MODEL_UNAVAILABLE`` when the server does not answer."""
        return self._api.models()

    def _ask_ready(self, window_wanted: bool) -> tuple[ModelReadiness, Window | None]:
        models = self._api.models()
        names = [model.name for model in models]
        if names and self.model_name not in names:  # an empty list: the server does not say
            raise OncallError(
                "MODEL_NOT_FOUND",
                "openai_model_missing",
                url=self.url,
                model=self.model_name,
                served=", ".join(names),
            )
        if not window_wanted:
            return ModelReadiness(tools=True), None
        window = explain_openai_window(
            self._settings.num_ctx, self._api.props(), models, self.model_name
        )
        return ModelReadiness(tools=True), window

    def _fallback_window(self) -> Window:
        return explain_openai_window(self._settings.num_ctx, None, None, self.model_name)

    def _model_window(self) -> None:
        return None  # the server runs the window it was started with

    def _build_model(self, window: int | None) -> BaseChatModel:
        from oncall_tui.llm.openai_model import build_openai_chat_model  # only now

        return build_openai_chat_model(
            self.url, self.model_name, self.request_timeout, self._settings.api_key
        )

    def server_version(self) -> str:
        """llama.cpp's build from ``/props``, else the ``Server`` header, else ``unknown``;
        ``MODEL_UNAVAILABLE`` when ``/v1/models`` does not answer."""
        api = OpenAIApi(self._settings.base_url, self._settings.api_key, timeout=3.0)
        api.models()
        return server_version(api.props(), api.server_header)

    def list_models(self, *, timeout: float) -> list[ListedModel]:
        """What it serves, with vLLM's ``max_model_len`` as the window where it gives one: all
        the server can say (no size, family or tool support), so each is described."""
        api = OpenAIApi(self.url, self._settings.api_key, timeout=timeout)
        return [
            ListedModel(
                name=model.name,
                context_length=model.max_model_len,
                window_tokens=model.max_model_len,
                described=True,
            )
            for model in api.models()
        ]

    def _probe(self, found: Probe) -> None:
        """What a send would ask (``/v1/models``, ``/props``), and which rule gave the window."""
        found.models = tuple(model.name for model in self.served_models())
        found.version = self.server_version()
        self.check_ready()
        found.present = True if found.models else None  # an empty list: the server does not say


__all__ = ["OpenAIGateway"]
