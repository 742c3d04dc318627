"""Model discovery over Ollama's HTTP API, and the context-window rule built on it.

``/api/tags`` lists the installed models (:class:`~oncall_tui.llm.server.ListedModel`: size,
family, parameter count, quantization); ``/api/show`` describes one (:class:`ModelDetails`:
trained context length, the Modelfile's ``num_ctx``, capabilities). Fields a server leaves out
are ``None``, never a guess.

Synchronous on purpose: the CLI and the TUI's worker threads call it, never the event loop.
Every failure is an :class:`OncallError`: an unreachable or misbehaving server is
``MODEL_UNAVAILABLE``, a model that is not pulled is ``MODEL_NOT_FOUND``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from functools import partial
from typing import Any, Self

import httpx

from oncall_tui.errors import OncallError
from oncall_tui.llm.server import OLLAMA, ListedModel, Window
from oncall_tui.llm.tls import http_client

DEFAULT_WINDOW_CAP = 8192
"""The window used when nothing says otherwise, and the cap on a model's trained length.

Ollama's own default is small and a model's trained length (often 128k) would not fit in a
laptop's memory, so the app asks for at most this much unless the user or Modelfile says more.
"""

_NUM_CTX_LINE = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class ModelDetails:
    """What ``/api/show`` tells us about one installed model."""

    name: str
    context_length: int | None
    """Trained context length, from ``model_info["<arch>.context_length"]``."""
    modelfile_num_ctx: int | None
    """The Modelfile's ``PARAMETER num_ctx``, if it sets one."""
    capabilities: tuple[str, ...]

    @property
    def tool_support(self) -> bool | None:
        """Whether the capabilities list ``tools``; ``None`` when the server reported none
        (an older Ollama has no ``capabilities``): unknown, not "no"."""
        return "tools" in self.capabilities if self.capabilities else None

    @property
    def supports_tools(self) -> bool:
        """Ollama lists ``tools`` among the capabilities; a server too old to report any is
        taken at its word that the model can."""
        return self.tool_support is not False


class OllamaApi:
    """A small synchronous client for Ollama's metadata endpoints."""

    def __init__(self, base_url: str, timeout: float = 5.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self._client: httpx.Client | None = None

    def __enter__(self) -> Self:
        """Share one client (its connection pool) among the calls made inside the block, from
        any thread: a burst of calls (an ``/api/show`` per installed model) reuses its
        connections. Outside a block each call has a client of its own; every client verifies
        with the one TLS context (:mod:`.tls`)."""
        self._client = http_client(base_url=self.base_url, timeout=self.timeout)
        return self

    def __exit__(self, *exc_info: object) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.close()

    def version(self) -> str:
        """The server version (``GET /api/version``); proves the server is up."""
        body = self._request("GET", "/api/version")
        return str(body.get("version", ""))

    def list_models(self) -> list[str]:
        """Names of the installed models (``GET /api/tags``), in the server's order."""
        return [model.name for model in self.installed()]

    def installed(self) -> list[ListedModel]:
        """The installed models (``GET /api/tags``), in the server's order."""
        return parse_tags(self._request("GET", "/api/tags"))

    def show(self, model: str) -> ModelDetails:
        """Details of one model (``POST /api/show``); ``MODEL_NOT_FOUND`` if it is not pulled."""
        body = self._request("POST", "/api/show", json={"model": model}, model=model)
        return parse_show(model, body)

    def _request(
        self, method: str, path: str, *, json: dict[str, Any] | None = None, model: str = ""
    ) -> dict[str, Any]:
        try:
            if self._client is not None:
                response = self._client.request(method, path, json=json)
            else:
                with http_client(base_url=self.base_url, timeout=self.timeout) as client:
                    response = client.request(method, path, json=json)
        except (httpx.HTTPError, OSError) as exc:
            raise OncallError("MODEL_UNAVAILABLE", url=self.base_url) from exc
        if response.status_code == 404 and model and _ollama_error(response):
            raise OncallError("MODEL_NOT_FOUND", model=model)
        endpoint = f"{self.base_url}{path}"
        return json_object(
            response, partial(OLLAMA.not_its_api, self.base_url, endpoint, response.status_code)
        )


def _ollama_error(response: httpx.Response) -> bool:
    """Whether ``response`` is Ollama's error (``{"error": "…"}``): a 404 from anything else on
    the port is not a model that is missing."""
    try:
        body = response.json()
    except ValueError:
        return False
    return isinstance(body, dict) and isinstance(body.get("error"), str)


def json_object(response: httpx.Response, failure: Callable[[], OncallError]) -> dict[str, Any]:
    """The body of a successful response, a JSON object; else raises ``failure()``: the server
    answered with an error, or something that is not its API answers there."""
    if response.is_error:
        raise failure()
    try:
        body = response.json()
    except ValueError as exc:
        raise failure() from exc
    if not isinstance(body, dict):
        raise failure()
    return body


def parse_tags(body: dict[str, Any]) -> list[ListedModel]:
    """The models of a ``/api/tags`` body; an entry without a name, or with one already listed,
    is skipped, a missing or malformed field is ``None``."""
    models: list[ListedModel] = []
    for name, entry in named_entries(body.get("models"), "name", "model"):
        details = entry.get("details")
        if not isinstance(details, dict):
            details = {}
        models.append(
            ListedModel(
                name=name,
                size_bytes=_positive_int(entry.get("size")),
                family=_text(details.get("family")),
                parameter_size=_text(details.get("parameter_size")),
                quantization_level=_text(details.get("quantization_level")),
                modified_at=_moment(entry.get("modified_at")),
            )
        )
    return models


def parse_show(model: str, body: dict[str, Any]) -> ModelDetails:
    """Pick the fields the app relies on out of an ``/api/show`` body; tolerate missing ones."""
    info = body.get("model_info")
    context_length: int | None = None
    if isinstance(info, dict):
        arch = info.get("general.architecture")
        value = info.get(f"{arch}.context_length") if isinstance(arch, str) else None
        if value is None:
            value = next(
                (v for k, v in info.items() if k.endswith(".context_length")),
                None,
            )
        context_length = _positive_int(value)
    parameters = body.get("parameters")
    modelfile_num_ctx: int | None = None
    if isinstance(parameters, str) and (match := _NUM_CTX_LINE.search(parameters)):
        modelfile_num_ctx = _positive_int(match.group(1))
    capabilities = body.get("capabilities")
    return ModelDetails(
        name=model,
        context_length=context_length,
        modelfile_num_ctx=modelfile_num_ctx,
        capabilities=tuple(str(c) for c in capabilities) if isinstance(capabilities, list) else (),
    )


def named_entries(entries: object, *keys: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """The objects of a listing's ``entries``, each with its name (the first of ``keys`` that
    gives one), in order; an entry that is not an object, has no name, or has one already
    given is skipped. Nothing when ``entries`` is not a list."""
    if not isinstance(entries, list):
        return
    seen: set[str] = set()
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        name = next((entry[key] for key in keys if entry.get(key)), None)
        if not isinstance(name, str) or name in seen:
            continue
        seen.add(name)
        yield name, entry


def _text(value: object) -> str | None:
    return (value.strip() or None) if isinstance(value, str) else None


def _moment(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None


def _positive_int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | str):
        try:
            number = int(value)
        except ValueError:
            return None
        return number if number > 0 else None
    return None


def resolve_context_window(configured: int | None, details: ModelDetails | None) -> int:
    """The ``num_ctx`` to send: the user's setting, else the Modelfile's, else the capped
    trained length, else :data:`DEFAULT_WINDOW_CAP` (docs/ARCHITECTURE.md "Session memory").
    """
    return explain_context_window(configured, details).tokens


def explain_context_window(configured: int | None, details: ModelDetails | None) -> Window:
    """:func:`resolve_context_window` and which rule chose it (for ``doctor``)."""
    if configured is not None:
        return Window(configured, "flag")
    if details is not None:
        if details.modelfile_num_ctx is not None:
            return Window(details.modelfile_num_ctx, "modelfile")
        if details.context_length is not None:
            trained = details.context_length
            return Window(min(trained, DEFAULT_WINDOW_CAP), "trained", trained)
    return Window(DEFAULT_WINDOW_CAP, "default")
