"""A gateway with a fixed model and window, for tests, benchmarks and screenshots: the
production gateways (:mod:`oncall_tui.llm.gateway`) ask a server; this one asks nothing."""

from __future__ import annotations

from collections.abc import AsyncGenerator, Sequence
from typing import TYPE_CHECKING

from oncall_tui.errors import OncallError
from oncall_tui.llm.readiness import ModelReadiness
from oncall_tui.llm.server import OLLAMA, ListedModel, ServerKind, ServerReport, Window
from oncall_tui.llm.turn import AgentStreamItem, Summary, Turn

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel


class StaticGateway:
    """A fixed model and window: the one model it lists, always ready. ``server`` is the kind
    of server it stands for (its wording, how its failures read): Ollama unless told."""

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
        server: ServerKind = OLLAMA,
    ) -> None:
        self._model = model
        self._window = window
        self._model_name = model_name
        self._url = url
        self._tools = tools
        self._recover = recover
        self._tool_form = tool_form
        """Fixed, or ``None``: as Ollama does, once a reply needed recovery."""
        self._server = server
        self.recoveries = 0
        """Replies whose tool calls were read from their text."""

    @property
    def server(self) -> ServerKind:
        return self._server

    @property
    def model_name(self) -> str:
        return self._model_name

    @property
    def url(self) -> str:
        return self._url

    def context_window(self) -> int:
        return self._window

    def chat_model(self) -> BaseChatModel:
        return self._model

    def server_version(self) -> str:
        return f"static ({self._model_name})"

    def check_ready(self) -> ModelReadiness:
        return ModelReadiness(tools=self._tools)

    def model_not_found(self) -> OncallError:
        return self._server.not_found(self._url, self._model_name)

    def tools_supported(self) -> bool:
        return self._tools

    def tools_by_text(self) -> bool:
        return self._recover and not self._tools

    def teaches_tool_form(self) -> bool:
        if self._tool_form is not None:
            return self._recover and self._tool_form
        return self._recover and (self.recoveries > 0 or not self._tools)

    def list_models(self, *, timeout: float) -> list[ListedModel]:
        window = self._window
        return [
            ListedModel(
                self._model_name,
                context_length=window,
                window_tokens=window,
                tools=self._tools,
                described=True,
            )
        ]

    def describe_models(
        self, models: Sequence[ListedModel], *, timeout: float, concurrency: int
    ) -> list[ListedModel]:
        return list(models)

    def report(self) -> ServerReport:
        return ServerReport(
            kind=self._server,
            url=self._url,
            model=self._model_name,
            reachable=True,
            version=self.server_version(),
            models=(self._model_name,),
            model_present=True,
            model_tools=self._tools,
            window=Window(self._window, "flag"),  # given, as the setting gives one
        )

    def _noted_recovery(self) -> None:
        self.recoveries += 1

    def stream_turn(self, turn: Turn) -> AsyncGenerator[AgentStreamItem, None]:
        from oncall_tui.llm.agent import run_turn

        return run_turn(
            self._model,
            turn,
            url=self._url,
            model_name=self._model_name,
            server=self._server,
            recover=self._recover,
            on_recovered=self._noted_recovery,
        )

    async def summarize(self, instructions: str, request: str) -> Summary:
        from oncall_tui.llm.agent import summarize

        return await summarize(self._model, instructions, request, server=self._server)
