"""Turn whatever the model stack raised into one catalogued :class:`OncallError`.

The stack is deep (langgraph -> langchain -> langchain-ollama -> ollama -> httpx) and each
layer leaks its own exception types; the quirks are pinned by tests/fakes/test_fakes.py.
Clients only ever see three codes from a model call: ``MODEL_UNAVAILABLE`` (nothing
answered), ``MODEL_NOT_FOUND`` (not pulled) and ``STREAM_FAILED`` (it started and broke).
"""

from __future__ import annotations

import json

import httpx
import ollama
from langgraph.errors import GraphRecursionError

from oncall_tui.errors import OncallError

DETAIL_LIMIT = 160


def map_model_error(
    exc: BaseException, *, url: str, model: str, timeout: float | None = None
) -> OncallError:
    """The catalogued error for a failed model call; ``exc`` itself if it already is one."""
    for cause in _chain(exc):
        mapped = _map_one(cause, url=url, model=model, timeout=timeout)
        if mapped is not None:
            return mapped
    return OncallError("STREAM_FAILED", detail=_short(f"{type(exc).__name__}: {exc}"))


def _map_one(
    exc: BaseException, *, url: str, model: str, timeout: float | None
) -> OncallError | None:
    if isinstance(exc, OncallError):
        return exc
    if isinstance(exc, ollama.ResponseError):
        if exc.status_code == 404:
            return OncallError("MODEL_NOT_FOUND", model=model)
        return OncallError("STREAM_FAILED", "stream_ollama_reported", problem=_short(exc.error))
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout | httpx.UnsupportedProtocol):
        return OncallError("MODEL_UNAVAILABLE", url=url)
    if isinstance(exc, httpx.TimeoutException):
        if timeout is None:
            return OncallError("STREAM_FAILED", "stream_silent")
        return OncallError("STREAM_FAILED", "stream_silent_for", seconds=f"{timeout:g}")
    if isinstance(exc, httpx.TransportError):  # RemoteProtocolError, ReadError, WriteError
        return OncallError("STREAM_FAILED", "stream_dropped")
    if isinstance(exc, ConnectionResetError | ConnectionAbortedError | BrokenPipeError):
        return OncallError("STREAM_FAILED", "stream_dropped")
    if isinstance(exc, ConnectionError):
        # ollama's wrapper for httpx.ConnectError on non-streamed calls; refused connections.
        return OncallError("MODEL_UNAVAILABLE", url=url)
    if isinstance(exc, json.JSONDecodeError):
        return OncallError("STREAM_FAILED", "stream_unreadable")
    if isinstance(exc, GraphRecursionError):
        return OncallError("STREAM_FAILED", "stream_too_many_steps")
    return None


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and its causes, outermost first, without looping on cycles."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not s for s in seen) and len(seen) < 8:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _short(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= DETAIL_LIMIT else line[: DETAIL_LIMIT - 1] + "…"
