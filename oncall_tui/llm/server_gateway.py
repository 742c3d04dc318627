"""The plumbing both servers' gateways share (:class:`ServerGateway`): the window, found once
and then fixed; readiness, trusted for a few seconds; one chat model per event loop; a turn and
a summary run through the engine with the server's kind reading its failures.

A subclass says only what differs: how its server is asked (:meth:`~ServerGateway._ask_ready`,
:meth:`~ServerGateway.server_version`, the listing, doctor's account), the window it falls back
to, and how its chat model is built. Its own module so that each gateway builds on it without
importing the module that picks among them (:func:`oncall_tui.llm.gateway.gateway_for`).
Importing it loads no LangChain.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from oncall_tui.errors import OncallError
from oncall_tui.llm.readiness import READY_SECONDS, ModelReadiness, running_loop
from oncall_tui.llm.server import ListedModel, ServerKind, ServerReport, Window
from oncall_tui.llm.turn import AgentStreamItem, Summary, Turn
from oncall_tui.settings import Settings

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

_Built = tuple["BaseChatModel", int | None, asyncio.AbstractEventLoop | None]


TOOLS_REFUSED = frozenset({"stream_tools_refused", "server_needs_jinja"})
"""The failures of a request the server refused for its tools: an Ollama that does not say
first that the model cannot call them, llama.cpp's server started without ``--jinja``."""


class ServerGateway(ABC):
    """Models from the configured server.

    Discovery never raises: when the server is down or lacks the model the window falls back
    (to the setting, else the default), so the context gauge still works offline and the send
    itself reports the error. A fallback holds only until the server first answers (no request
    can have been sent with it: the server did not answer); after that the window is fixed for
    the gateway's life.
    """

    server: ClassVar[ServerKind]
    """The kind of server: its wording, and how its failures read."""
    says_native_tools: ClassVar[bool]
    """Does the server say whether a model calls tools natively (Ollama's capabilities)?"""

    def __init__(self, settings: Settings, clock: Callable[[], float] = time.monotonic) -> None:
        self._settings = settings
        self._clock = clock
        self._lock = threading.Lock()
        self._window: Window | None = None
        self._window_known = False
        """The window came from the setting or the server, not a fallback."""
        self._ready: ModelReadiness | None = None
        """What the last successful check said."""
        self._ready_at: float | None = None
        self._model: _Built | None = None
        """The model built last, the window it was built for, and the event loop it belongs to
        (``None``: none yet)."""
        self._recovered = False
        """A reply of this process needed its tool calls read from its text."""
        self._tools_refused = False
        """The server refused a request with tools (:data:`TOOLS_REFUSED`), though its check
        did not say the model cannot call them: they go as text from then on."""

    # -- what differs ---------------------------------------------------------------------------

    @property
    @abstractmethod
    def url(self) -> str:
        """Where the server answers."""

    @abstractmethod
    def server_version(self) -> str:
        """The server's version; raises ``MODEL_UNAVAILABLE`` when it does not answer."""

    @abstractmethod
    def _ask_ready(self, window_wanted: bool) -> tuple[ModelReadiness, Window | None]:
        """Blocking: ask the server whether it has the model, and (when ``window_wanted``) the
        window it gives it; raises ``MODEL_UNAVAILABLE`` or ``MODEL_NOT_FOUND``."""

    @abstractmethod
    def _fallback_window(self) -> Window:
        """The window while the server has not answered."""

    @abstractmethod
    def _model_window(self) -> int | None:
        """The window a chat model is built for (``None``: the server keeps its own)."""

    @abstractmethod
    def _build_model(self, window: int | None) -> BaseChatModel:
        """A new chat model (its client library imported only now)."""

    @abstractmethod
    def list_models(self, *, timeout: float) -> list[ListedModel]:
        """Blocking: what the server lists, in its order; ``MODEL_UNAVAILABLE`` when it does not
        answer within ``timeout`` seconds."""

    def describe_models(
        self, models: Sequence[ListedModel], *, timeout: float, concurrency: int
    ) -> list[ListedModel]:
        """Blocking: ``models`` in order, each with whatever more the server says of it when
        asked (``concurrency`` at a time, each within ``timeout`` seconds); never raises. This
        one: nothing more to ask."""
        return list(models)

    @abstractmethod
    def _probe(self, found: Probe) -> None:
        """Blocking: ask the server what doctor reports, noting each answer in ``found`` as it
        comes (what came before a failure stays in the report); raises the failure."""

    # -- what is shared -------------------------------------------------------------------------

    @property
    def model_name(self) -> str:
        return self._settings.model

    @property
    def request_timeout(self) -> float:
        return self._settings.request_timeout

    def context_window(self) -> int:
        return self._resolved().tokens

    def _resolved(self, ask: bool = True) -> Window:
        """The window; found by a check when it is not known and no setting gives it (unless
        not ``ask``), else the fallback."""
        if self._window is None:
            if ask and self._settings.num_ctx is None:
                with contextlib.suppress(OncallError):  # the fallback below until it answers
                    self.check_ready()
            with self._lock:
                if self._window is None:
                    self._window = self._fallback_window()
                    self._window_known = self._settings.num_ctx is not None
        return self._window

    def check_ready(self) -> ModelReadiness:
        """Blocking: one cheap call proving the server answers and has the model, trusted for
        :data:`READY_SECONDS`; a failed one is not trusted at all."""
        with self._lock:
            ready, at = self._ready, self._ready_at
            if ready is not None and at is not None and self._clock() - at < READY_SECONDS:
                return ready
            window_wanted = not self._window_known
        readiness, window = self._ask_ready(window_wanted)  # outside the lock: it may wait
        with self._lock:
            self._ready, self._ready_at = readiness, self._clock()
            if not self._window_known and window is not None:
                self._window, self._window_known = window, True
        return readiness

    def tools_supported(self) -> bool:
        ready = self._ready
        return not self._tools_refused and (ready is None or ready.tools)

    def tools_by_text(self) -> bool:
        return self._settings.recover_tool_calls and not self.tools_supported()

    def teaches_tool_form(self) -> bool:
        """While recovery is on: a model the server says calls tools natively is told the text
        form only once one of its replies needed recovery; one it says cannot (its tools are
        offered as text), or of a server that does not say, always."""
        if not self._settings.recover_tool_calls:
            return False
        return self._recovered or self.tools_by_text() or not self.says_native_tools

    def _noted_recovery(self) -> None:
        self._recovered = True

    def model_not_found(self) -> OncallError:
        """``MODEL_NOT_FOUND`` for the configured model, as this server says it."""
        return self.server.not_found(self.url, self.model_name)

    def chat_model(self) -> BaseChatModel:
        """The model for the calling event loop, built once: an async client belongs to the
        loop that first uses it, so a model built off any loop (the TUI's warm-up) is taken by
        the first loop that asks, and another loop gets one of its own. A new window builds a
        new one too."""
        loop = running_loop()
        window = self._model_window()
        with self._lock:
            cached = self._model
            if cached is not None and cached[1] == window and cached[2] in (None, loop):
                self._model = (cached[0], window, cached[2] or loop)
                return cached[0]
        model = self._build_model(window)
        with self._lock:
            self._model = (model, window, loop)
        return model

    async def stream_turn(self, turn: Turn) -> AsyncGenerator[AgentStreamItem, None]:
        """The turn's stream. A server that refuses the model's tools (:data:`TOOLS_REFUSED`)
        has them offered as text from the next request on, as for a model that says so."""
        from oncall_tui.llm.agent import run_turn  # LangChain's agent stack, when used here

        stream = run_turn(
            self.chat_model(),
            turn,
            url=self.url,
            model_name=self.model_name,
            deadline=self._settings.deadline,
            server=self.server,
            recover=self._settings.recover_tool_calls,
            on_recovered=self._noted_recovery,
        )
        try:
            async with aclosing(stream):
                async for item in stream:
                    yield item
        except OncallError as error:
            if error.reason in TOOLS_REFUSED:
                self._tools_refused = True
            raise

    async def summarize(self, instructions: str, request: str) -> Summary:
        from oncall_tui.llm.agent import summarize  # LangChain's stack, only now

        return await summarize(
            self.chat_model(),
            instructions,
            request,
            deadline=self._settings.deadline,
            url=self.url,
            server=self.server,
        )

    def report(self) -> ServerReport:
        """Blocking: doctor's account of the server (:meth:`_probe`), with the window as known
        now (a failed check is not asked again); never raises. A server that refuses the key
        answers, so it is reachable."""
        found = Probe()
        problems: list[OncallError] = []
        try:
            self._probe(found)
        except OncallError as error:
            problems.append(error)
            if error.code == "MODEL_NOT_FOUND":
                found.present = False
        return ServerReport(
            kind=self.server,
            url=self.url,
            model=self.model_name,
            reachable=found.version is not None or any(p.server_answered for p in problems),
            version=found.version,
            models=found.models,
            model_present=found.present,
            model_tools=found.tools,
            window=self._resolved(ask=False),
            problems=tuple(problems),
        )


@dataclass(slots=True)
class Probe:
    """What the server said of itself and the model, as far as doctor's questions got."""

    version: str | None = None
    models: tuple[str, ...] = ()
    """What it lists: the models installed, or served."""
    present: bool | None = None
    """The configured model is among them; ``None``: not known."""
    tools: bool | None = None


__all__ = ["Probe", "ServerGateway"]
