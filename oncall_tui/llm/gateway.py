"""The seam services use to run a turn, get a chat model, know the window they run with, and
ask the model server what it has.

Services never build models or ask a server themselves: they ask a :class:`ModelGateway`.
Production uses :class:`OllamaGateway`, or :class:`~oncall_tui.llm.openai_gateway.OpenAIGateway`
for an OpenAI-compatible server, as :func:`gateway_for` picks by the provider setting (the one
place it is read); both build on :class:`~oncall_tui.llm.server_gateway.ServerGateway`. Tests,
benchmarks and screenshots use ``tests.fakes.StaticGateway``. What the two servers' clients
say differently comes from the gateway's :attr:`~ModelGateway.server`
(:class:`~oncall_tui.llm.server.ServerKind`).

Importing this module loads no LangChain: the model client (``langchain-ollama``, through
:mod:`oncall_tui.llm.factory`) and the agent are imported by the methods that use them
(:meth:`~ModelGateway.chat_model`, :meth:`~ModelGateway.stream_turn`,
:meth:`~ModelGateway.summarize`), so commands that only read the window (a context gauge) stay
light.
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncGenerator, Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from oncall_tui.errors import OncallError
from oncall_tui.llm.ollama_api import (
    ModelDetails,
    OllamaApi,
    explain_context_window,
    resolve_context_window,
)
from oncall_tui.llm.readiness import READY_SECONDS, ModelReadiness, running_loop
from oncall_tui.llm.server import OLLAMA, ListedModel, ServerKind, ServerReport, Window
from oncall_tui.llm.server_gateway import Probe, ServerGateway
from oncall_tui.llm.turn import AgentStreamItem, Summary, Turn
from oncall_tui.settings import Settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

log = logging.getLogger(__name__)


class ModelGateway(Protocol):
    """Where a service gets its chat model and context window, and what the server has."""

    @property
    def server(self) -> ServerKind:
        """The kind of server: how clients speak of it, how its failures read."""
        ...

    @property
    def model_name(self) -> str: ...

    @property
    def url(self) -> str:
        """Where the server answers."""
        ...

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

    def model_not_found(self) -> OncallError:
        """``MODEL_NOT_FOUND`` for the configured model, as this server says it."""
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

    def list_models(self, *, timeout: float) -> list[ListedModel]:
        """Blocking: the models the server lists, in its order (details as far as the listing
        gives them); ``MODEL_UNAVAILABLE`` when it does not answer within ``timeout`` s."""
        ...

    def describe_models(
        self, models: Sequence[ListedModel], *, timeout: float, concurrency: int
    ) -> list[ListedModel]:
        """Blocking: ``models`` in order, each with what the server says of it when asked
        (``concurrency`` requests at a time, each within ``timeout`` s); a model whose details
        do not come keeps its listing. Never raises a catalog error."""
        ...

    def report(self) -> ServerReport:
        """Blocking: doctor's account of the server (version, models, the model, the window
        and which rule gave it); never raises."""
        ...

    def stream_turn(self, turn: Turn) -> AsyncGenerator[AgentStreamItem, None]:
        """Run one turn (see :func:`oncall_tui.llm.agent.stream_agent`)."""
        ...

    async def summarize(self, instructions: str, request: str) -> Summary:
        """One call without tools (see :func:`oncall_tui.llm.agent.summarize`)."""
        ...


class OllamaGateway(ServerGateway):
    """Models from the configured Ollama server.

    The window is discovered from the model's details (``/api/show``): the setting, else the
    Modelfile's ``num_ctx``, else the trained length capped (see
    :func:`~oncall_tui.llm.ollama_api.explain_context_window`). The capabilities say whether
    the model calls tools natively.
    """

    server = OLLAMA
    says_native_tools = True

    def __init__(
        self,
        settings: Settings,
        api: OllamaApi | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(settings, clock)
        self._api = api if api is not None else OllamaApi(settings.ollama_url)

    @property
    def url(self) -> str:
        return self._settings.ollama_url

    def server_version(self) -> str:
        return OllamaApi(self._settings.ollama_url, timeout=3.0).version()

    def _ask_ready(self, window_wanted: bool) -> tuple[ModelReadiness, Window | None]:
        details = self._api.show(self._settings.model)
        window = explain_context_window(self._settings.num_ctx, details)
        return ModelReadiness(tools=details.supports_tools), window

    def _fallback_window(self) -> Window:
        return explain_context_window(self._settings.num_ctx, None)

    def _model_window(self) -> int:
        return self.context_window()

    def _build_model(self, window: int | None) -> BaseChatModel:
        from oncall_tui.llm.factory import build_chat_model  # langchain-ollama, only now

        num_ctx = self.context_window() if window is None else window  # it always has one
        return build_chat_model(self.url, self.model_name, num_ctx, self.request_timeout)

    def list_models(self, *, timeout: float) -> list[ListedModel]:
        """``/api/tags``: one request, however many models; no details yet."""
        return OllamaApi(self.url, timeout=timeout).installed()

    def describe_models(
        self, models: Sequence[ListedModel], *, timeout: float, concurrency: int
    ) -> list[ListedModel]:
        """``/api/show`` per model over one client, ``concurrency`` at a time: Ollama reads each
        model's file header to answer. A timeout, an error or a model removed meanwhile leaves
        that model's details unknown; the others are still described."""
        num_ctx = self._settings.num_ctx

        def describe(api: OllamaApi, model: ListedModel) -> ListedModel:
            try:
                details = api.show(model.name)
            except OncallError as error:
                log.info("model details unavailable for %r: %s", model.name, error.code)
                return model
            return _described(model, details, resolve_context_window(num_ctx, details))

        if not models:
            return []
        with (
            OllamaApi(self.url, timeout=timeout) as api,
            ThreadPoolExecutor(concurrency, thread_name_prefix="api-show") as pool,
        ):
            return list(pool.map(lambda model: describe(api, model), models))

    def _probe(self, found: Probe) -> None:
        """Ollama's version, its installed models, and the model's details."""
        found.version = self._api.version()
        found.models = tuple(self._api.list_models())
        found.tools = self.check_ready().tools
        found.present = True


def _described(model: ListedModel, details: ModelDetails, window: int) -> ListedModel:
    return replace(
        model,
        context_length=details.context_length,
        window_tokens=window,
        tools=details.tool_support,
        described=True,
    )


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
    "gateway_for",
    "running_loop",
]
