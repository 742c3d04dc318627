"""Discovery over an OpenAI-compatible server's HTTP API, and the window rule built on it.

``GET /v1/models`` lists what the server serves (vLLM adds each model's ``max_model_len``);
llama.cpp's ``llama-server`` also answers ``GET /props`` beside ``/v1`` with the context it
runs (``default_generation_settings.n_ctx``, or a top-level ``n_ctx`` in some versions) and
its build. Fields a server leaves out are ``None``, never a guess.

Synchronous on purpose, as :mod:`oncall_tui.llm.ollama_api`: the CLI and worker threads call
it. The key (``OPENAI_API_KEY``) travels as ``Authorization: Bearer`` and nowhere else: no
message, log line or error names it. A server that does not answer, or answers with something
else than the API, is ``MODEL_UNAVAILABLE``; one that refuses the key (401, 403) too, saying so.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

import httpx

from oncall_tui.errors import OncallError
from oncall_tui.llm.ollama_api import DEFAULT_WINDOW_CAP, json_object, named_entries
from oncall_tui.llm.server import OPENAI_COMPATIBLE, Window
from oncall_tui.llm.tls import http_client

UNKNOWN_VERSION = "unknown"


@dataclass(frozen=True, slots=True)
class ServedModel:
    """One entry of ``/v1/models``."""

    name: str
    """Its ``id``: the name requests must give."""
    max_model_len: int | None
    """vLLM's context length for it; ``None`` from servers that do not say."""


@dataclass(frozen=True, slots=True)
class ServerProps:
    """What llama.cpp's ``/props`` says: the context it runs and its build."""

    n_ctx: int | None
    build: str | None


class OpenAIApi:
    """A small synchronous client for an OpenAI-compatible server's metadata endpoints."""

    def __init__(self, base_url: str, api_key: str | None = None, timeout: float = 5.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.server_header: str | None = None
        """The ``Server`` header of the last answer (``llama.cpp``, ``uvicorn``…)."""

    @property
    def root_url(self) -> str:
        """The server's root: the base URL without its trailing ``/v1``, where ``/props`` is."""
        base = self.base_url
        return base[: -len("/v1")] if base.endswith("/v1") else base

    def models(self) -> list[ServedModel]:
        """The served models (``GET /v1/models``), in the server's order; an empty list from a
        server that lists none."""
        response = self._get(f"{self.base_url}/models")
        if response.status_code in (401, 403):
            raise OncallError(
                "MODEL_UNAVAILABLE",
                "openai_refused_key",
                url=self.base_url,
                status=response.status_code,
            )
        return parse_models(self._json_object(response))

    def props(self) -> ServerProps | None:
        """llama.cpp's ``/props``; ``None`` from any other server (or a failure): it is a
        hint, never required."""
        try:
            body = self._json_object(self._get(f"{self.root_url}/props"))
        except OncallError:
            return None
        return parse_props(body)

    def _get(self, url: str) -> httpx.Response:
        try:
            with http_client(timeout=self.timeout, headers=self._headers) as client:
                response = client.get(url)
        except (httpx.HTTPError, OSError) as exc:
            raise OncallError("MODEL_UNAVAILABLE", "openai_unreachable", url=self.base_url) from exc
        self.server_header = response.headers.get("server") or self.server_header
        return response

    def _json_object(self, response: httpx.Response) -> dict[str, Any]:
        endpoint, status = str(response.request.url), response.status_code
        return json_object(
            response, partial(OPENAI_COMPATIBLE.not_its_api, self.base_url, endpoint, status)
        )


def parse_models(body: dict[str, Any]) -> list[ServedModel]:
    """The models of a ``/v1/models`` body; an entry without an ``id``, or one already listed,
    is skipped."""
    return [
        ServedModel(name, _positive_int(entry.get("max_model_len")))
        for name, entry in named_entries(body.get("data"), "id")
    ]


def parse_props(body: dict[str, Any]) -> ServerProps:
    """``n_ctx`` from ``default_generation_settings`` (or the top level, as some versions
    have it) and ``build_info``."""
    settings = body.get("default_generation_settings")
    n_ctx = _positive_int(settings.get("n_ctx")) if isinstance(settings, dict) else None
    if n_ctx is None:
        n_ctx = _positive_int(body.get("n_ctx"))
    build = body.get("build_info")
    return ServerProps(n_ctx, build.strip() or None if isinstance(build, str) else None)


def explain_openai_window(
    configured: int | None,
    props: ServerProps | None,
    models: list[ServedModel] | None,
    model: str,
) -> Window:
    """The window and which rule chose it: the setting (``flag``), else llama.cpp's
    ``/props`` ``n_ctx``, else vLLM's ``max_model_len`` of ``model`` in ``/v1/models``, else
    :data:`DEFAULT_WINDOW_CAP` (``default``). The server's own numbers are not capped: it runs
    with that context, whatever the app would ask."""
    if configured is not None:
        return Window(configured, "flag")
    if props is not None and props.n_ctx is not None:
        return Window(props.n_ctx, "llama.cpp /props")
    for served in models or ():
        if served.name == model and served.max_model_len is not None:
            return Window(served.max_model_len, "vLLM /v1/models")
    return Window(DEFAULT_WINDOW_CAP, "default")


def server_version(props: ServerProps | None, server_header: str | None) -> str:
    """llama.cpp's build, else the ``Server`` header, else ``unknown``."""
    if props is not None and props.build:
        return props.build
    return server_header or UNKNOWN_VERSION


def _positive_int(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = int(value)
    except ValueError:
        return None
    return number if number > 0 else None
