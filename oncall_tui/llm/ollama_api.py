"""Model discovery over Ollama's HTTP API, and the context-window rule built on it.

Synchronous on purpose: the CLI and the TUI's worker threads call it, never the event loop.
Every failure is an :class:`OncallError`: an unreachable or misbehaving server is
``MODEL_UNAVAILABLE``, a model that is not pulled is ``MODEL_NOT_FOUND``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import httpx

from oncall_tui.errors import OncallError

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
    def supports_tools(self) -> bool:
        """Ollama lists ``tools`` among the capabilities; a server too old to report any is
        taken at its word that the model can."""
        return not self.capabilities or "tools" in self.capabilities


class OllamaApi:
    """A small synchronous client for Ollama's metadata endpoints."""

    def __init__(self, base_url: str, timeout: float = 5.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    def version(self) -> str:
        """The server version (``GET /api/version``); proves the server is up."""
        body = self._request("GET", "/api/version")
        return str(body.get("version", ""))

    def list_models(self) -> list[str]:
        """Names of the installed models (``GET /api/tags``), in the server's order."""
        body = self._request("GET", "/api/tags")
        models = body.get("models")
        if not isinstance(models, list):
            return []
        return [
            str(entry.get("name") or entry.get("model"))
            for entry in models
            if isinstance(entry, dict) and (entry.get("name") or entry.get("model"))
        ]

    def show(self, model: str) -> ModelDetails:
        """Details of one model (``POST /api/show``); ``MODEL_NOT_FOUND`` if it is not pulled."""
        body = self._request("POST", "/api/show", json={"model": model}, model=model)
        return parse_show(model, body)

    def _request(
        self, method: str, path: str, *, json: dict[str, Any] | None = None, model: str = ""
    ) -> dict[str, Any]:
        try:
            with httpx.Client(base_url=self.base_url, timeout=self.timeout) as client:
                response = client.request(method, path, json=json)
        except (httpx.HTTPError, OSError) as exc:
            raise OncallError("MODEL_UNAVAILABLE", url=self.base_url) from exc
        if response.status_code == 404 and model:
            raise OncallError("MODEL_NOT_FOUND", model=model)
        if response.is_error:
            raise OncallError("MODEL_UNAVAILABLE", url=self.base_url)
        try:
            body = response.json()
        except ValueError as exc:  # something that is not Ollama answers on that port
            raise OncallError("MODEL_UNAVAILABLE", url=self.base_url) from exc
        if not isinstance(body, dict):
            raise OncallError("MODEL_UNAVAILABLE", url=self.base_url)
        return body


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
    return explain_context_window(configured, details)[0]


def explain_context_window(configured: int | None, details: ModelDetails | None) -> tuple[int, str]:
    """:func:`resolve_context_window` and, in words, which rule chose it (for ``doctor``)."""
    if configured is not None:
        return configured, "--num-ctx / ONCALL_TUI_NUM_CTX"
    if details is not None:
        if details.modelfile_num_ctx is not None:
            return details.modelfile_num_ctx, "the model's Modelfile num_ctx"
        if details.context_length is not None:
            trained = details.context_length
            window = min(trained, DEFAULT_WINDOW_CAP)
            return window, f"trained length {trained:,}, capped at {DEFAULT_WINDOW_CAP:,}"
    return DEFAULT_WINDOW_CAP, "default (model details unavailable)"
