"""Turn whatever the model stack raised into one catalogued :class:`OncallError`.

The stack is deep (langgraph -> langchain -> langchain-ollama -> ollama -> httpx, or
langchain-openai -> openai -> httpx2, the same API under another name) and each layer leaks
its own exception types; the quirks are pinned by tests/fakes/test_fakes.py.
Clients only ever see three codes from a model call: ``MODEL_UNAVAILABLE`` (nothing
answered), ``MODEL_NOT_FOUND`` (not pulled) and ``STREAM_FAILED`` (it started and broke),
each worded by the kind of server it came from (a gateway's
:attr:`~oncall_tui.llm.gateway.ModelGateway.server`: Ollama, or "the model server").

The ``openai`` SDK and ``httpx2`` are not imported here: they are looked up in
``sys.modules``, since an exception of theirs can only exist once they are loaded, and an
Ollama user never loads them.
"""

from __future__ import annotations

import json
import sys
from types import ModuleType

import httpx
import ollama
from langgraph.errors import GraphRecursionError

from oncall_tui.core.text import one_line
from oncall_tui.errors import OncallError
from oncall_tui.llm.server import OLLAMA, ServerKind
from oncall_tui.redaction import redact

DETAIL_LIMIT = 160
_NO_MEMORY = ("more system memory", "out of memory")
"""Ollama's words for a model that does not fit in what memory is left (another model loaded,
the machine's own work): "model requires more system memory (10.2 GiB) than is available"."""
_NO_GENERATIONS = "No generations found in stream."
"""langchain-core's ValueError for a model stream that ended without a single chunk."""


def map_model_error(
    exc: BaseException,
    *,
    url: str,
    model: str,
    timeout: float | None = None,
    server: ServerKind = OLLAMA,
) -> OncallError:
    """The catalogued error for a failed model call, in ``server``'s words; ``exc`` itself if
    it already is one."""
    chain = _chain(exc)
    for cause in chain:
        mapped = _map_one(cause, url=url, model=model, timeout=timeout, server=server)
        if mapped is not None:
            return mapped
    sdk = sys.modules.get("openai")
    if sdk is not None:  # the SDK's own wrappers, when no cause under them said more
        if any(isinstance(cause, sdk.APITimeoutError) for cause in chain):
            return server.silent(timeout)
        if any(isinstance(cause, sdk.APIConnectionError) for cause in chain):
            return OncallError("MODEL_UNAVAILABLE", "openai_unreachable", url=url)
    return OncallError("STREAM_FAILED", detail=_short(f"{type(exc).__name__}: {exc}"))


def _map_one(
    exc: BaseException, *, url: str, model: str, timeout: float | None, server: ServerKind
) -> OncallError | None:
    if isinstance(exc, OncallError):
        return exc
    if isinstance(exc, ollama.ResponseError):
        if exc.status_code == 404:
            return OncallError("MODEL_NOT_FOUND", model=model)
        if exc.status_code == 400 and "does not support tools" in str(exc.error):
            return OncallError("STREAM_FAILED", "stream_tools_refused", model=model)
        if any(sign in str(exc.error).lower() for sign in _NO_MEMORY):
            return OncallError(
                "STREAM_FAILED", "stream_model_memory", model=model, problem=_short(exc.error)
            )
        return OncallError("STREAM_FAILED", "stream_ollama_reported", problem=_short(exc.error))
    if (status := _openai_status(exc)) is not None:
        return _status_error(exc, status, url=url, model=model)
    for http in _http_libraries():
        if isinstance(exc, http.ConnectError | http.ConnectTimeout | http.UnsupportedProtocol):
            return server.unreachable(url)
        if isinstance(exc, http.TimeoutException):
            return server.silent(timeout)
        if isinstance(exc, http.TransportError):  # RemoteProtocolError, ReadError, WriteError
            return server.dropped()
    if isinstance(exc, ConnectionResetError | ConnectionAbortedError | BrokenPipeError):
        return server.dropped()
    if isinstance(exc, ConnectionError):
        # ollama's wrapper for httpx.ConnectError on non-streamed calls; refused connections.
        return server.unreachable(url)
    if isinstance(exc, json.JSONDecodeError):
        return server.unreadable()
    if isinstance(exc, GraphRecursionError):
        return OncallError("STREAM_FAILED", "stream_too_many_steps")
    if isinstance(exc, ValueError) and str(exc) == _NO_GENERATIONS:
        return server.ended_early()  # the stream ended before its first chunk
    return None


def _http_libraries() -> list[ModuleType]:
    """httpx, and httpx2 when the openai SDK has loaded it."""
    second = sys.modules.get("httpx2")
    return [httpx] if second is None else [httpx, second]


def _openai_status(exc: BaseException) -> int | None:
    """The HTTP status of an error the openai SDK raised for a server's answer, else None."""
    sdk = sys.modules.get("openai")
    if sdk is None or not isinstance(exc, sdk.APIStatusError):
        return None
    status = getattr(exc, "status_code", None)
    return status if isinstance(status, int) else None


def _status_error(exc: BaseException, status: int, *, url: str, model: str) -> OncallError:
    if status in (401, 403):
        return OncallError("MODEL_UNAVAILABLE", "openai_refused_key", url=url, status=status)
    if status == 404:
        return OncallError("MODEL_NOT_FOUND", "openai_model_refused", url=url, model=model)
    said = _short(_server_said(exc))
    if "--jinja" in said:  # llama.cpp's server without its chat templates refuses any tools
        return OncallError("STREAM_FAILED", "server_needs_jinja", problem=said)
    return OncallError("STREAM_FAILED", "server_reported", problem=said)


def _server_said(exc: BaseException) -> str:
    """The server's own words: the error body's ``message`` (as the API puts it, under
    ``error`` or not), else what the SDK made of the answer."""
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        body = body["error"]
    if isinstance(body, dict) and isinstance(body.get("message"), str) and body["message"]:
        return str(body["message"])
    if isinstance(body, str) and body:
        return body
    return str(getattr(exc, "message", None) or exc)


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and its causes, outermost first, without looping on cycles."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not s for s in seen) and len(seen) < 8:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _short(text: str) -> str:
    """One line of at most :data:`DETAIL_LIMIT` characters, redacted first: a server's body may
    quote the request's ``Authorization`` header, and a cut must not leave half a key."""
    return one_line(redact(text), DETAIL_LIMIT)
