"""What is known of a registered tool server (:class:`ServerState`: starting, ready or failed,
the tools it offers and those bound, its error), and what is said when it fails: the reason
and the problem, read from the exception its start or a call raised and from the last line it
wrote on stderr (kept in a private file, never the terminal the TUI draws on); short and
redacted. :mod:`oncall_tui.llm.mcp` keeps one per server."""

from __future__ import annotations

import contextlib
import logging
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import IO

import anyio
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from mcp import ClientSession
from mcp.client.session import MessageHandlerFnT

from oncall_tui.core.text import one_line
from oncall_tui.errors import OncallError
from oncall_tui.llm.mcp_calls import ServerTool, ToolRunner, model_name, wrap_tool
from oncall_tui.llm.mcp_schemas import for_the_model
from oncall_tui.llm.mcp_transport import late_answer, stray_line
from oncall_tui.redaction import redact
from oncall_tui.settings.mcp import McpServer

log = logging.getLogger(__name__)

RESTARTS = 3
"""How many times one process starts a server again that stopped after it was ready (a crash,
a kill): at the next send, or the next look at the servers."""
START_RETRY_SECONDS = 30.0
"""A server that failed at once as it started (its port-forward or VPN not up yet: connection
refused; a command that exits) is tried again, quietly, at the first send or look at the
servers this long after; one that answers then serves that message. One that failed slowly
(past :data:`.mcp.START_QUICK_SECONDS`: a name its resolver cannot answer, a hang) or wrote what is
not MCP is not tried again: each try would hold up a send."""
DETAIL_LIMIT = 200
"""Characters said of a failure at most."""


@dataclass(frozen=True, slots=True)
class OfferedTool:
    """A tool a server offers, whether or not the settings allow it."""

    name: str
    description: str
    policy: str | None
    """``auto``, ``confirm`` or ``None`` (not in ``allow``: never bound)."""


@dataclass(slots=True)
class ServerState:
    """What is known of one registered server."""

    server: McpServer
    state: str = "starting"
    """``starting``, ``ready`` or ``failed``."""
    error: OncallError | None = None
    offered: list[OfferedTool] = field(default_factory=list)
    tools: list[ServerTool] = field(default_factory=list)
    """The allowed tools, wrapped for the model."""
    missing: tuple[str, ...] = ()
    """Names in ``allow`` the server does not offer."""
    reported: bool = False
    session: ClientSession | None = None
    stray: str | None = None
    """The first line the server wrote on stdout that is not an MCP message, if any."""
    restarts: int = 0
    timed_out: bool = False
    """Stopped for a call past the tool timeout: started again without counting as a stop
    (three slow queries had used up the restarts, and the tools were gone for the run)."""
    pid: int | None = None
    """A stdio server's process, once found (ended at once when a call passes the timeout)."""
    retry_at: float | None = None
    """When a server that failed at once as it started is tried again (``monotonic``)."""

    @property
    def stopped(self) -> bool:
        """Failed after it was ready (a crash, a kill), not in starting."""
        gone = self.error is not None and self.error.reason == "tool_server_stopped"
        return self.state == "failed" and gone

    def will_restart(self, now: float) -> bool:
        """Stopped, and started again at the next send (:data:`RESTARTS` at most); or failed
        as it started, and tried again once :data:`START_RETRY_SECONDS` have passed by ``now``
        (``monotonic``)."""
        if self.retry_at is not None:
            return self.state == "failed" and now >= self.retry_at
        return self.stopped and self.restarts < RESTARTS

    def ready(self, session: ClientSession, adapters: list[BaseTool], runtime: ToolRunner) -> None:
        """The server started and listed ``adapters``: the allowed ones are bound, each with
        the short form of its schema the model is sent (run by ``runtime``)."""
        server = self.server
        offered = {tool.name: tool for tool in adapters}
        self.offered = [
            OfferedTool(tool.name, tool.description, server.policy(tool.name)) for tool in adapters
        ]
        self.tools = []
        for name in server.allow:
            adapter = offered.get(name)
            if adapter is None:
                continue
            if isinstance(adapter.args_schema, Mapping):  # the server's JSON schema, always
                description, parameters = for_the_model(adapter.description, adapter.args_schema)
                adapter = adapter.model_copy(
                    update={"description": description, "args_schema": parameters}
                )
            tool = ServerTool(
                server=server.name,
                tool=name,
                model_name=model_name(server.name, name),
                confirm=name in server.confirm,
                adapter=adapter,
                schema={},
            )
            schema = convert_to_openai_tool(wrap_tool(tool, runtime, None))
            self.tools.append(replace(tool, schema=schema))
        self.missing = tuple(name for name in server.allow if name not in offered)
        self.session = session
        self.state, self.error = "ready", None
        log.info(
            "tool server %s ready: %d tools offered, %d bound",
            server.name,
            len(adapters),
            len(self.tools),
        )

    def fail(self, reason: str, problem: object = "", **params: str) -> str:
        """Mark the server failed; returns what is said of it (short, redacted)."""
        detail = short(str(problem))
        self.state = "failed"
        self.error = OncallError(
            "TOOL_SERVER_FAILED", reason, server=self.server.name, problem=detail, **params
        )
        self.tools = []
        log.warning("tool server %s failed: %s", self.server.name, detail)
        return short(self.error.message("en"))


def stderr_file() -> IO[str]:
    """Where a stdio server's stderr goes: a private temporary file (never our terminal, which
    the TUI draws on), read back for the last line when the server fails to start."""
    return tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")


def start_failure(server: McpServer, exc: BaseException, stderr: IO[str]) -> tuple[str, str]:
    """The reason and the problem said of ``server``, which failed with ``exc`` as it started.
    A stdio server whose connection was lost ended before it answered (a wrong argument, a
    variable it needs): what it said last on stderr says why, or that it said nothing; the
    transport's exception (``BrokenResourceError``) would not. One whose command is not
    there is said so, by its command."""
    leaf = innermost(exc)
    if server.command is not None:
        if connection_lost(exc):
            last = last_line(stderr)
            return ("tool_server_ended", last) if last else ("tool_server_ended_silent", "")
        if isinstance(leaf, FileNotFoundError):
            return "tool_server_no_command", server.command
    return "tool_server_start", failure_text(exc, stderr)


def failure_text(exc: BaseException, stderr: IO[str]) -> str:
    leaf = innermost(exc)
    text = f"{type(leaf).__name__}: {leaf}" if str(leaf) else type(leaf).__name__
    last = last_line(stderr)
    return f"{text}; stderr: {last}" if last else text


def last_line(stderr: IO[str]) -> str:
    """The last line the server wrote on stderr that is not blank, or ``""``."""
    with contextlib.suppress(OSError, ValueError):
        stderr.flush()
        stderr.seek(0)
        lines = [line.strip() for line in stderr.read().splitlines() if line.strip()]
        if lines:
            return lines[-1]
    return ""


def innermost(exc: BaseException) -> BaseException:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def connection_lost(exc: BaseException) -> bool:
    """Whether ``exc`` says the server has gone: its connection closed mid-call (the SDK's
    "Connection closed"), or was found closed by the call (a server that died while idle)."""
    leaf = innermost(exc)
    if isinstance(leaf, ConnectionError | anyio.ClosedResourceError | anyio.BrokenResourceError):
        return True
    return "connection closed" in str(leaf).lower()


def short(text: str) -> str:
    return one_line(redact(text), DETAIL_LIMIT)  # redacted whole, before a cut halves a secret


def stray_watch(state: ServerState) -> MessageHandlerFnT:
    """The session's handler of what the server sends unasked: a line that is not an MCP
    message comes as the parse error; the first is kept, and fails a server that is already
    ready (one that is starting fails once it has listed its tools). A late answer to a call
    given up on (Esc, the timeout) is no fault of the server's: it failed the server, and its
    tools were gone for the rest of the run."""

    async def handle(message: object) -> None:
        if not isinstance(message, Exception) or state.stray is not None:
            return
        if late_answer(message):
            log.info("tool server %s answered a call given up on", state.server.name)
            return
        state.stray = stray_line(message)
        if state.state == "ready":
            state.fail("tool_server_not_mcp", state.stray)

    return handle
