"""Tool servers (MCP): one long-lived session per registered server, on a loop of its own.

:class:`McpTools` starts every server of ``[[mcp_servers]]`` once per process, through the
official SDK's transports (``stdio_client``, ``streamable_http_client``, ``ClientSession``)
and LangChain's adapters (``load_mcp_tools``), lists what each offers, and keeps only the
tools its ``allow`` names. A stdio server is started once, not per call: its start costs a
Python server a few hundred milliseconds, a call a millisecond or two (docs/PERFORMANCE.md).

The sessions live on a private event loop in a daemon thread. An MCP session is bound to the
loop (and the task) that opened it, while its callers are many: the CLI's ``asyncio.run``, the
TUI's loop, a test's loop. So every call is handed to that loop and awaited from the caller's
(:mod:`oncall_tui.llm.mcp_calls` wraps each tool), each server's session is opened and closed
by one task of its own, and a server that fails to start is recorded with its error, its tools
absent, and the others go on.

A stdio server's standard output is the protocol: a line there that is not an MCP message (a
banner, a log line, a stray ``print``) fails that server, once, with the first such line in its
error (``tool_server_not_mcp``). The SDK's own log records (a traceback per such line) go to the
app's log, never the terminal the TUI draws on.

Two bounds: a server gets :data:`START_SECONDS` to start and list its tools; a call gets the
tool timeout (:data:`TOOL_TIMEOUT`, 30 s), and no shorter limit of the SDK's applies to it.
A result past :data:`TOOL_RESULT_CHARS` is cut, with a note of how much was kept.

Every request carries the bound tools' schemas, so the model is sent a short form of each
(:func:`~oncall_tui.llm.mcp_schemas.for_the_model`); people still see the whole description.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
from collections.abc import Coroutine, Mapping, Sequence
from time import monotonic
from typing import Any, TypeVar

from langchain_core.tools import BaseTool
from langchain_mcp_adapters.tools import load_mcp_tools

from oncall_tui.core.events import ConfirmHook
from oncall_tui.errors import OncallError
from oncall_tui.llm.mcp_calls import ServerStoppedError, ServerTool, wrap_tool
from oncall_tui.llm.mcp_processes import (
    KILL_AFTER,
    end_server_process,
    end_server_processes,
    server_processes,
    started_server,
)
from oncall_tui.llm.mcp_state import (
    START_RETRY_SECONDS,
    ServerState,
    connection_lost,
    failure_text,
    innermost,
    last_line,
    short,
    start_failure,
    stderr_file,
    stray_watch,
)
from oncall_tui.llm.mcp_transport import (
    open_session,
    quiet_sdk_logs,
    stdio_command,
)
from oncall_tui.llm.tool_specs import ToolSchema
from oncall_tui.settings.mcp import McpServer

log = logging.getLogger(__name__)

START_SECONDS = 20.0
"""How long a server may take to start and list its tools before it counts as failed (a call
has the tool timeout instead)."""
TOOL_TIMEOUT = 30.0
"""Seconds one call of a tool server's tool may take: a hung server is a failed call."""
TOOL_RESULT_CHARS = 20_000
"""A tool server's result past this is cut, with a note of how much was kept."""
START_QUICK_SECONDS = 2.0
"""A start that failed within this is "at once", and cheap to try again."""
CLOSE_SECONDS = 0.5
"""How long :meth:`McpTools.close` lets the servers' sessions end before it cuts them short."""
_WIND_DOWN = 0.25
"""Seconds for the cancelled tasks and the loop's thread to finish, each."""
_T = TypeVar("_T")


class McpTools:
    """The registered servers of one process (one :class:`Settings`); start once, then use
    from any event loop. Thread-safe; :meth:`close` stops every server."""

    def __init__(
        self,
        servers: Sequence[McpServer],
        *,
        timeout: float | None = None,
        result_chars: int | None = None,
        start_seconds: float = START_SECONDS,
    ) -> None:
        """``timeout`` and ``result_chars`` default to :data:`TOOL_TIMEOUT` and
        :data:`TOOL_RESULT_CHARS` as they are when the servers are built."""
        self._servers = tuple(servers)
        self._timeout = TOOL_TIMEOUT if timeout is None else timeout
        self._result_chars = TOOL_RESULT_CHARS if result_chars is None else result_chars
        self._start_seconds = start_seconds
        self._states = {server.name: ServerState(server) for server in self._servers}
        self._lock = threading.Lock()
        self._started = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._stop: asyncio.Event | None = None
        self._owners: list[asyncio.Task[None]] = []
        self._owner_of: dict[str, asyncio.Task[None]] = {}
        self._closed = False
        self._foreign: frozenset[int] | None = None
        """Children of this process leading their own session before the servers started
        (not ours to end, see :meth:`end_processes`); ``None`` until they start."""

    @property
    def configured(self) -> bool:
        return bool(self._servers)

    def start(self) -> None:
        """Blocking: start every server and list its tools (once; later calls start again
        only the servers that stopped since, :meth:`ServerState.will_restart`). Never raises
        for a server: its failure is its state."""
        with self._lock:
            if self._started and not self._closed:
                self._restart_stopped()
                return
            if self._started or self._closed or not self._servers:  # none started after close
                self._started = True
                return
            self._foreign = frozenset(server_processes())
            quiet_sdk_logs()
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="mcp-servers", daemon=True)
            thread.start()
            self._loop, self._thread = loop, thread
            starting = asyncio.run_coroutine_threadsafe(self._start_all(), loop)
            with contextlib.suppress(concurrent.futures.CancelledError):  # closed meanwhile
                starting.result()
            self._started = True

    def states(self) -> list[ServerState]:
        """Every registered server in file order (``starting`` before :meth:`start`)."""
        return [self._states[server.name] for server in self._servers]

    def bound(self) -> list[ServerTool]:
        """The allowed tools of the servers that are ready, in file and ``allow`` order."""
        return [tool for state in self.states() if state.state == "ready" for tool in state.tools]

    def schemas(self) -> tuple[ToolSchema, ...]:
        """The request schemas of :meth:`bound` (nothing before :meth:`start`)."""
        return tuple(tool.schema for tool in self.bound())

    def tools(self, confirm: ConfirmHook | None) -> list[BaseTool]:
        """The LangChain tools for one turn; ``confirm`` is asked before each ``confirm``
        tool's call (``None``: such calls are refused, "not allowed in this run")."""
        asking = asyncio.Lock()  # the turn's confirm calls, one at a time (see wrap_tool)
        return [wrap_tool(tool, self, confirm, asking) for tool in self.bound()]

    def display_names(self) -> dict[str, str]:
        """The model's name of each bound tool -> the name people see (``logs.search_logs``)."""
        return {tool.model_name: tool.display_name for tool in self.bound()}

    def unreported_failures(self) -> list[tuple[str, OncallError]]:
        """Failed servers not reported yet; each is returned once per process."""
        failures: list[tuple[str, OncallError]] = []
        with self._lock:
            for state in self.states():
                if state.state == "failed" and not state.reported and state.error is not None:
                    state.reported = True
                    failures.append((state.server.name, state.error))
        return failures

    async def call(self, tool: ServerTool, arguments: Mapping[str, Any]) -> Any:
        """Run the adapter's tool on the servers' loop and wait for it from the caller's, at
        most the tool timeout (``TimeoutError`` past it; :class:`.ServerStoppedError` where the
        server, a stdio one, was stopped for it). A session that has gone (the server crashed)
        marks the server failed."""
        state = self._states[tool.server]
        if state.state != "ready":
            raise ConnectionError(short(state.error.message("en") if state.error else "stopped"))
        future = self._submit(tool.adapter.ainvoke(dict(arguments)))
        try:
            async with asyncio.timeout(self._timeout):
                return await asyncio.wrap_future(future)
        except TimeoutError:
            future.cancel()
            if state.server.command is None:
                raise
            self._stop_server(state, f"{tool.display_name} did not answer in {self._timeout:g} s")
            raise ServerStoppedError from None
        except Exception as exc:
            if not connection_lost(exc):
                raise
            # Said in words for this call too (the model reads it), as for every later one.
            problem = str(innermost(exc)) or "its connection closed"
            raise ConnectionError(state.fail("tool_server_stopped", problem)) from exc

    @property
    def timeout(self) -> float:
        return self._timeout

    @property
    def start_seconds(self) -> float:
        """How long a server may take to start and list its tools."""
        return self._start_seconds

    @property
    def result_chars(self) -> int:
        return self._result_chars

    def close(self) -> None:
        """Stop every server and the loop, in :data:`CLOSE_SECONDS` or little more.

        Each session is closed by the task that opened it (the SDK closes the server's
        standard input and waits for it to end). A task still at it after the bound (a server
        that ignores its input's end, or is still starting) is cancelled, which also wakes a
        :meth:`start` waiting for it; the servers still there are then ended
        (:func:`.mcp_processes.end_server_processes`). No server starts after this."""
        self._closed = True
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        self._loop = self._thread = None

        async def stop() -> None:
            if self._stop is not None:
                self._stop.set()
            owners = [owner for owner in self._owners if not owner.done()]
            if owners:
                _, late = await asyncio.wait(owners, timeout=CLOSE_SECONDS)
                for owner in late:
                    owner.cancel()
            others = asyncio.all_tasks() - {asyncio.current_task()}  # the start, if waiting
            if others:
                _, late = await asyncio.wait(others, timeout=_WIND_DOWN)
                for task in late:  # a session still closing; its server is ended below
                    task.cancel()

        with contextlib.suppress(Exception):
            future = asyncio.run_coroutine_threadsafe(stop(), loop)
            future.result(timeout=CLOSE_SECONDS + 2 * _WIND_DOWN)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=_WIND_DOWN)
        self.end_processes()

    def end_processes(self, *, at_once: bool = False) -> None:
        """End the stdio servers' processes still there (SIGTERM, SIGKILL a moment later;
        ``at_once``: SIGKILL): after :meth:`close`, or instead of it when the process must end
        now. Never raises."""
        if self._foreign is not None:
            end_server_processes(exclude=self._foreign, grace=0.0 if at_once else KILL_AFTER)

    def _stop_server(self, state: ServerState, problem: str) -> None:
        """End ``state``'s server now, its process killed (the SDK's close of the session waits
        for it, and a server busy with the hung call still ran what it had queued, a confirmed
        restart, once that call ended): it is started again at the next send."""
        if state.state == "ready":
            state.fail("tool_server_stopped", problem)
            state.timed_out = True
        if state.pid is not None:
            threading.Thread(target=end_server_process, args=(state.pid,), daemon=True).start()
        owner, loop = self._owner_of.get(state.server.name), self._loop
        if owner is not None and loop is not None:
            loop.call_soon_threadsafe(owner.cancel)

    def _submit(self, coroutine: Coroutine[Any, Any, _T]) -> Any:
        loop = self._loop
        if loop is None:
            coroutine.close()
            raise ConnectionError("the tool servers are closed")
        return asyncio.run_coroutine_threadsafe(coroutine, loop)

    def _restart_stopped(self) -> None:
        """Start again, and wait for, the servers that stopped since they were ready, and
        those that failed as they started, when their time comes
        (:meth:`ServerState.will_restart`)."""
        now = monotonic()
        stopped = [state for state in self.states() if state.will_restart(now)]
        loop = self._loop
        if not stopped or loop is None:
            return
        for state in stopped:
            if state.retry_at is None:
                log.info("tool server %s stopped; starting it again", state.server.name)
                state.restarts += 0 if state.timed_out else 1
                state.reported = False
            else:  # said once already: a failure again is not said again
                log.info("tool server %s did not start; trying it again", state.server.name)
            state.state, state.error, state.stray, state.retry_at = "starting", None, None, None
            state.timed_out, state.pid = False, None
        servers = [state.server for state in stopped]
        starting = asyncio.run_coroutine_threadsafe(self._start_each(servers), loop)
        with contextlib.suppress(concurrent.futures.CancelledError):  # closed meanwhile
            starting.result()

    async def _start_all(self) -> None:
        self._stop = asyncio.Event()
        await self._start_each(self._servers)

    async def _start_each(self, servers: Sequence[McpServer]) -> None:
        readies: list[asyncio.Future[None]] = []
        owners: list[asyncio.Task[None]] = []
        for server in servers:
            gone = self._owner_of.get(server.name)
            if gone is not None and not gone.done():  # holding a dead session: it ends first
                gone.cancel()
                await asyncio.wait([gone], timeout=_WIND_DOWN)
            ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            owner = asyncio.create_task(self._own(server, ready))
            self._owners.append(owner)
            self._owner_of[server.name] = owner
            owners.append(owner)
            readies.append(ready)
        await asyncio.wait(readies, timeout=self._start_seconds)
        for server, ready, owner in zip(servers, readies, owners, strict=True):
            if not ready.done():
                owner.cancel()
                state = self._states[server.name]
                if state.stray is not None:
                    state.fail("tool_server_not_mcp", state.stray)
                else:
                    state.fail("tool_server_no_answer", seconds=f"{self._start_seconds:g}")

    async def _own(self, server: McpServer, ready: asyncio.Future[None]) -> None:
        """Open ``server``'s session, list its tools, hold it open until :meth:`close`."""
        state = self._states[server.name]
        stderr = stderr_file()
        began = monotonic()
        gone = asyncio.Event()
        before = frozenset(server_processes()) if server.command is not None else None
        try:
            async with contextlib.AsyncExitStack() as stack:
                session = await stack.enter_async_context(
                    open_session(server, stderr, stray_watch(state), gone.set)
                )
                await session.initialize()
                if before is not None and server.command is not None:
                    taken = {other.pid for other in self.states() if other.pid is not None}
                    _, args = stdio_command(server.command, server.args)
                    state.pid = started_server(before, args, taken)
                adapters = await load_mcp_tools(
                    session, server_name=server.name, handle_tool_errors=False
                )
                if state.stray is not None:  # it talks, but not only MCP: stop it here
                    state.fail("tool_server_not_mcp", state.stray)
                    ready.set_result(None)
                    return
                state.ready(session, adapters, self)
                ready.set_result(None)
                if self._stop is not None:
                    await _first_of(self._stop.wait(), gone.wait())
                if gone.is_set() and not self._stop_set() and state.state == "ready":
                    # Ended by itself (a crash, a kill): said now, and started again before
                    # the next send, not found by that send's first call to it.
                    last = last_line(stderr)
                    state.fail(
                        "tool_server_stopped", f"it exited; stderr: {last}" if last else "it exited"
                    )
        except asyncio.CancelledError:
            if not ready.done():
                ready.set_result(None)
            raise
        except BaseException as exc:  # an ExceptionGroup from the transport's task group
            if self._owner_of.get(server.name) is not asyncio.current_task():
                return  # a session given up for a new one: its end says nothing of the server
            if not ready.done():
                if state.stray is not None:  # what it wrote explains the failure best
                    state.fail("tool_server_not_mcp", state.stray)
                else:
                    state.fail(*start_failure(server, exc, stderr))
                    if monotonic() - began < START_QUICK_SECONDS:  # cheap to try again
                        state.retry_at = monotonic() + START_RETRY_SECONDS
                ready.set_result(None)
            else:
                state.fail("tool_server_stopped", failure_text(exc, stderr))
        finally:
            stderr.close()

    def _stop_set(self) -> bool:
        return self._stop is not None and self._stop.is_set()


async def _first_of(*waits: Coroutine[Any, Any, Any]) -> None:
    """Wait until the first of ``waits`` is done; the others are cancelled."""
    tasks = [asyncio.ensure_future(wait) for wait in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()


__all__ = [
    "CLOSE_SECONDS",
    "START_SECONDS",
    "McpTools",
]
