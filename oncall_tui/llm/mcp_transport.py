"""How a tool server's session is opened, and what of the SDK is kept off the terminal.

:func:`open_session` gives :class:`~oncall_tui.llm.mcp.McpTools` a session over the SDK's
transports (``stdio_client``, ``streamable_http_client``) with no read timeout of its own (the
runtime bounds the start and each call) and a handler of what the server sends unasked, which
is where a line that is not an MCP message arrives (:func:`stray_line` reads it back).
:func:`quiet_sdk_logs` sends the SDK's log records to the app's log, never the terminal the
TUI draws on.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from typing import IO, Any, TextIO, cast

import anyio
import httpx
from anyio.streams.memory import MemoryObjectReceiveStream
from mcp import ClientSession, StdioServerParameters
from mcp.client.session import MessageHandlerFnT
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from oncall_tui.core.text import one_line
from oncall_tui.llm.tls import tls_context
from oncall_tui.settings.mcp import McpServer

log = logging.getLogger(__name__)

SELF_COMMAND = "oncall-tui"
"""A stdio server whose command is this runs this very oncall-tui, with its own Python
(``-m oncall_tui``): found wherever it is installed, whatever the PATH holds (a virtual
environment that is not activated, a pipx or uv tool install), and of the same version. The
example server is registered so (``args = ["tools", "example-server"]``)."""
HTTP_TIMEOUT = httpx.Timeout(10.0, read=300.0)
"""A Streamable HTTP server's connection, write and pool timeouts, and its stream's read
timeout (the SDK's own for a stream that waits on a long call): the runtime bounds the start
and each call well within these."""
STRAY_LIMIT = 80
"""Characters of a stray stdout line quoted in the error."""
_RECORD_LIMIT = 200


@contextlib.asynccontextmanager
async def open_session(
    server: McpServer, stderr: IO[str], handler: MessageHandlerFnT, ended: Callable[[], object]
) -> AsyncIterator[ClientSession]:
    """The SDK's transport for ``server`` and a session over it (not yet initialised).

    The session has no read timeout of its own: the start is bounded by the start-up limit
    and each call by the tool timeout (``McpTools.call``); the SDK's would cut a call short
    of the latter. Bytes that are not UTF-8 are replaced, so they make a stray line rather
    than end the transport. ``ended`` is called when a stdio server's output ends by itself
    (it exited: a crash, a kill), which the session would learn only at its next call."""
    async with contextlib.AsyncExitStack() as stack:
        if server.command is not None:
            command, args = stdio_command(server.command, server.args)
            params = StdioServerParameters(
                command=command,
                args=args,
                env=dict(server.env) or None,
                cwd=server.cwd,
                encoding_error_handler="replace",
            )
            output, write = await stack.enter_async_context(
                stdio_client(params, errlog=cast(TextIO, stderr))
            )
            read = await stack.enter_async_context(_watched(output, ended))
        else:
            client = await stack.enter_async_context(
                httpx.AsyncClient(
                    verify=tls_context(), headers=dict(server.headers) or None, timeout=HTTP_TIMEOUT
                )
            )
            read, write, _ = await stack.enter_async_context(
                streamable_http_client(str(server.url), http_client=client)
            )
        session = await stack.enter_async_context(
            ClientSession(read, write, read_timeout_seconds=None, message_handler=handler)
        )
        yield session


@contextlib.asynccontextmanager
async def _watched(
    output: MemoryObjectReceiveStream[Any], ended: Callable[[], object]
) -> AsyncIterator[MemoryObjectReceiveStream[Any]]:
    """``output``'s messages, passed on as they come; ``ended()`` once it ends by itself (not
    when the session is closed first)."""
    send, receive = anyio.create_memory_object_stream[Any](0)

    async def relay() -> None:
        async with send:
            try:
                async for message in output:
                    await send.send(message)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                return  # the session is closing
        ended()

    async with anyio.create_task_group() as group:
        group.start_soon(relay)
        try:
            yield receive
        finally:
            group.cancel_scope.cancel()


def late_answer(exc: Exception) -> bool:
    """Whether ``exc`` is the SDK's word of an answer to a call it no longer waits for (one
    cancelled, or past its timeout): the server is well, only late."""
    return isinstance(exc, RuntimeError) and "unknown request ID" in str(exc)


def stdio_command(command: str, args: Sequence[str]) -> tuple[str, list[str]]:
    """The program to start for a stdio server and its arguments (see :data:`SELF_COMMAND`)."""
    if command == SELF_COMMAND:
        return sys.executable, ["-m", "oncall_tui", *args]
    return command, list(args)


class _IntoAppLog(logging.Handler):
    """The SDK's records in the app's log, as one line each without the traceback."""

    def emit(self, record: logging.LogRecord) -> None:
        line = " ".join(record.getMessage().split())[:_RECORD_LIMIT]
        log.debug("mcp sdk %s: %s", record.levelname.lower(), line)


def quiet_sdk_logs() -> None:
    """Keep the MCP SDK's log records off the terminal (idempotent).

    Its ``mcp`` loggers log a traceback per line a server writes that is not a message, and
    Python would print them on stderr (its last-resort handler) since only the app's own
    logger has a handler; they go to the app's log instead. Some of its records go through
    ``logging.warning`` on the root logger, which would first give an empty root a handler
    on stderr (``basicConfig``) for every later record of every logger: an empty root gets
    a handler that drops them."""
    sdk = logging.getLogger("mcp")
    if not any(isinstance(handler, _IntoAppLog) for handler in sdk.handlers):
        sdk.addHandler(_IntoAppLog())
        sdk.propagate = False
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(logging.NullHandler())


def stray_line(exc: Exception) -> str:
    """The line a server wrote that is not an MCP message, from the SDK's parse error (the
    error's text when it does not carry the line), cut for the error message."""
    line: object = None
    errors = getattr(exc, "errors", None)
    if callable(errors):
        with contextlib.suppress(Exception):
            found = errors()
            if found and isinstance(found[0], dict):
                line = found[0].get("input")
    return one_line(str(line if line is not None else exc), STRAY_LIMIT) or type(exc).__name__


__all__ = [
    "SELF_COMMAND",
    "STRAY_LIMIT",
    "late_answer",
    "open_session",
    "quiet_sdk_logs",
    "stdio_command",
    "stray_line",
]
