"""The one place a ``ChatOllama`` is configured.

Two promises: ``num_ctx`` travels with every request (a window the server does not use makes
every memory threshold a lie), and a silent server fails after ``timeout`` seconds instead of
hanging the chat forever.
"""

from __future__ import annotations

import httpx
from langchain_ollama import ChatOllama

from oncall_tui.llm.tls import tls_context

CONNECT_TIMEOUT_CAP = 10.0
"""Opening a connection to a local server is quick or it is not happening."""


_NO_IDLE_CONNECTIONS = httpx.Limits(max_keepalive_connections=0)
"""Close each connection after its response. Models are built per use and their clients are
never closed explicitly; pooled idle sockets would leak until garbage collection. A loopback
connect costs microseconds, so keep-alive buys nothing here."""


def build_chat_model(base_url: str, model: str, num_ctx: int, timeout: float) -> ChatOllama:
    """A chat model that always sends ``options.num_ctx`` and gives up after ``timeout``
    seconds without data (the read timeout; connecting gets at most 10 s).

    Cheap to build: callers may make one per request, and should, when requests run on
    different event loops (an async HTTP client is tied to the loop that first used it).
    """
    client_timeout = httpx.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT_CAP))
    return ChatOllama(
        base_url=base_url,
        model=model,
        num_ctx=num_ctx,
        client_kwargs={
            "timeout": client_timeout,
            "limits": _NO_IDLE_CONNECTIONS,
            "verify": tls_context(),
        },
    )


def read_timeout_of(model: object) -> float | None:
    """The read timeout a factory-built model was given, for error messages; else ``None``."""
    kwargs = getattr(model, "client_kwargs", None)
    value = kwargs.get("timeout") if isinstance(kwargs, dict) else None
    if value is None:  # ChatOpenAI keeps its timeout (an httpx-like Timeout) here
        value = getattr(model, "request_timeout", None)
    read = getattr(value, "read", None)
    if isinstance(read, int | float) and not isinstance(read, bool):
        return float(read)
    if isinstance(value, httpx.Timeout):
        return value.read
    if isinstance(value, int | float):
        return float(value)
    return None
