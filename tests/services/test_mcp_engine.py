"""Tool servers in a chat turn: real FastMCP servers (stdio, and one over Streamable HTTP on
127.0.0.1) through the real adapters, the real langchain-ollama client and the loopback
Ollama answering with tool calls."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from oncall_tui.core.events import (
    ReplyDone,
    ToolConfirmation,
    ToolFinished,
    ToolServerFailed,
    ToolStarted,
)
from oncall_tui.llm import mcp as mcp_runtime
from oncall_tui.llm import mcp_processes, mcp_state
from oncall_tui.services.container import Services
from oncall_tui.settings.mcp import McpServer
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from tests.conftest import FakeServer, both_providers, collect, skill_text
from tests.fakes.ollama_server import FakeOllama, Reply

OPS = str(Path(__file__).resolve().parents[1] / "mcp_servers" / "ops.py")
ALLOW = ("search_logs", "restart_service", "hang", "flood", "crash", "broken")


def ops(name: str = "ops", **fields: Any) -> McpServer:
    values: dict[str, Any] = {
        "command": sys.executable,
        "args": (OPS,),
        "allow": ALLOW,
        "confirm": ("restart_service",),
    }
    values.update(fields)
    return McpServer(name=name, **values)


Build = Callable[..., Services]


@pytest.fixture
def with_tools(
    on_ollama: Callable[..., Services], server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> Build:
    def build(*servers: McpServer, tool_timeout: float = 3.0, **overrides: object) -> Services:
        monkeypatch.setattr(mcp_runtime, "TOOL_TIMEOUT", tool_timeout)  # a call's bound
        values: dict[str, object] = {"mcp_servers": servers or (ops(),)}
        values.update(overrides)
        return on_ollama(server, model="qwen3:8b", **values)

    return build


def bound_names(server: FakeServer, index: int = 0) -> list[str]:
    tools = server.chat_requests[index].get("tools") or []
    return [tool["function"]["name"] for tool in tools]


def tool_message(server: FakeServer, index: int = 1) -> str:
    messages = server.chat_requests[index]["messages"]
    assert messages[-1]["role"] == "tool"
    return str(messages[-1]["content"])


@both_providers
async def test_only_allowed_tools_are_bound_beside_the_built_in_ones(
    server: FakeServer, with_tools: Build
) -> None:
    services = with_tools()
    server.script("Nothing to look up.")
    await collect(services.chat.send("alice", None, "hello"))
    names = bound_names(server)
    assert names[0] == "get_current_time"
    assert "ops__search_logs" in names
    assert "ops__delete_all" not in names  # offered by the server, not in allow
    assert len(names) == 1 + len(ALLOW)


@both_providers
async def test_an_auto_tool_runs_and_its_call_is_audited_under_its_shown_name(
    server: FakeServer, with_tools: Build
) -> None:
    services = with_tools()
    server.script(Reply.tool_call("ops__search_logs", {"pattern": "timeout"}), "Found it.")
    events = await collect(services.chat.send("alice", None, "any timeouts?"))
    started = [e for e in events if isinstance(e, ToolStarted)]
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [e.name for e in started] == ["ops.search_logs"]
    assert finished[0].status == "ok"
    assert "3 lines match 'timeout'" in tool_message(server)
    done = events[-1]
    assert isinstance(done, ReplyDone)
    session_id = done.session_id
    with services.database.read() as session:
        chat = SessionRepository(session).require("alice", session_id)
        audits = MessageRepository(session).audits(chat)
        assert [(a.tool_name, a.status) for a in audits] == [("ops.search_logs", "ok")]
        assert '"pattern": "timeout"' in audits[0].arguments


@pytest.mark.parametrize(("answer", "status"), [(True, "ok"), (False, "declined")])
async def test_a_confirm_tool_asks_first_and_runs_only_when_accepted(
    server: FakeOllama, with_tools: Build, answer: bool, status: str
) -> None:
    services = with_tools()
    asked: list[ToolConfirmation] = []

    async def confirm(request: ToolConfirmation) -> bool:
        asked.append(request)
        return answer

    server.script(Reply.tool_call("ops__restart_service", {"service": "api"}), "Done.")
    events = await collect(services.chat.send("alice", None, "restart api", confirm=confirm))
    assert asked == [ToolConfirmation("ops", "restart_service", {"service": "api"})]
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert finished[0].status == status
    result = tool_message(server)
    assert ("restarted api" in result) is answer
    assert ("the user declined" in result) is not answer


async def test_without_a_hook_a_confirm_tool_is_refused_as_not_allowed_in_this_run(
    server: FakeOllama, with_tools: Build
) -> None:
    services = with_tools()
    server.script(Reply.tool_call("ops__restart_service", {"service": "api"}), "Ok.")
    events = await collect(services.chat.send("alice", None, "restart api"))
    assert [e.status for e in events if isinstance(e, ToolFinished)] == ["declined"]
    assert "not allowed in this run" in tool_message(server)


@both_providers
async def test_a_tool_that_hangs_is_a_failed_call_and_the_turn_goes_on(
    server: FakeServer, with_tools: Build
) -> None:
    services = with_tools(tool_timeout=0.5)
    server.script(Reply.tool_call("ops__hang", {}), "It timed out.")
    events = await collect(services.chat.send("alice", None, "wait"))
    assert [e.status for e in events if isinstance(e, ToolFinished)] == ["error"]
    assert "did not answer within 0.5 s" in tool_message(server)
    assert events[-1].type == "done"


@both_providers
async def test_a_result_of_one_megabyte_is_cut_at_the_limit_with_a_note(
    server: FakeServer, with_tools: Build
) -> None:
    services = with_tools(num_ctx=65536)
    server.script(Reply.tool_call("ops__flood", {"size": 1_000_000}), "Big.")
    events = await collect(services.chat.send("alice", None, "flood"))
    assert [e.status for e in events if isinstance(e, ToolFinished)] == ["ok"]
    result = tool_message(server)
    assert result.endswith("[truncated: 20,000 of 1,000,000 characters]")
    assert len(result) == 20_000 + len("\n[truncated: 20,000 of 1,000,000 characters]")


async def test_a_send_that_waits_for_the_tool_servers_to_start_says_so_then_uses_them(
    server: FakeOllama, with_tools: Build
) -> None:
    """Found in tmux: a tool server slow to start held the first message on "Sending…" for
    20 s with nothing said of why. A moment into the wait the send says it waits for them."""
    slow = f"import runpy, sys, time; time.sleep(1.5); sys.argv = [{OPS!r}]; "
    slow += f"runpy.run_path({OPS!r}, run_name='__main__')"
    services = with_tools(ops(args=("-c", slow)))
    server.script(Reply.tool_call("ops__search_logs", {"pattern": "timeout"}), "Found them.")
    events = await collect(services.chat.send("alice", None, "any timeouts?"))
    assert [e.to_json() for e in events[:1]] == [
        {"type": "tool_servers_starting", "seconds": mcp_runtime.START_SECONDS}
    ]
    assert [e.status for e in events if isinstance(e, ToolFinished)] == ["ok"]
    server.script("Quick.")
    again = await collect(services.chat.send("alice", None, "and now?"))  # started: not said
    assert not [e for e in again if e.type == "tool_servers_starting"]


def test_a_server_that_does_not_answer_as_it_starts_is_said_so_in_the_users_language() -> None:
    """Found on a Chinese screen: "启动失败（no answer in 20 s）", the bound in English."""
    silent = ops(args=("-c", "import time; time.sleep(30)"))
    runtime = mcp_runtime.McpTools([silent], start_seconds=0.3)
    try:
        runtime.start()
        (state,) = runtime.states()
    finally:
        runtime.close()
    assert state.error is not None
    assert state.error.message("zh").startswith("工具服务器 'ops' 不可用：启动后 0.3 秒内没有应答")
    assert "it did not answer within 0.3 s of its start" in state.error.message("en")


async def test_a_call_may_take_the_tool_timeout_whatever_the_start_up_limit(
    server: FakeOllama, with_tools: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The start-up limit (20 s) and the call's (``TOOL_TIMEOUT``, 30 s) are two bounds: a
    call past the first and within the second answers. Both are made small here."""
    monkeypatch.setattr(mcp_runtime, "START_SECONDS", 0.2)
    services = with_tools(tool_timeout=5.0)
    server.script(Reply.tool_call("ops__hang", {"seconds": 0.6}), "Slow but fine.")
    events = await collect(services.chat.send("alice", None, "wait a bit"))
    assert [e.status for e in events if isinstance(e, ToolFinished)] == ["ok"]
    assert tool_message(server) == "woke up"


def test_the_call_timeout_is_the_one_the_tools_reference_promises() -> None:
    assert mcp_runtime.TOOL_TIMEOUT == 30.0
    assert mcp_runtime.START_SECONDS == 20.0
    tools = (Path(__file__).resolve().parents[2] / "docs" / "TOOLS.md").read_text("utf-8")
    assert "a call may take 30 s" in tools
    assert "20 s to start" in tools


async def test_a_result_of_ten_megabytes_is_cut_at_the_limit_with_a_note(
    server: FakeOllama, with_tools: Build
) -> None:
    services = with_tools(num_ctx=65536, tool_timeout=60.0)  # the cut is tested, not the bound
    server.script(Reply.tool_call("ops__flood", {"size": 10_000_000}), "Huge.")
    events = await collect(services.chat.send("alice", None, "flood"))
    assert [e.status for e in events if isinstance(e, ToolFinished)] == ["ok"]
    result = tool_message(server)
    note = "\n[truncated: 20,000 of 10,000,000 characters]"
    assert result == "x" * 20_000 + note
    assert events[-1].type == "done"


@both_providers
async def test_a_truncated_result_that_still_does_not_fit_is_cut_to_what_fits(
    server: FakeServer, with_tools: Build
) -> None:
    """The size limit kept 20,000 characters, still too many for a 2,048-token window: the
    guard cuts them further, keeping their beginning, and says how large the server's was."""
    services = with_tools(num_ctx=2048)
    server.script(Reply.tool_call("ops__flood", {"size": 1_000_000}), "Too big.")
    events = await collect(services.chat.send("alice", None, "flood"))
    result = tool_message(server)
    kept, _, note = result.partition("\n[… ")
    assert kept == "x" * len(kept)
    assert 64 <= len(kept) < 20_000
    assert note.startswith(f"{20_000 - len(kept):,} of 20,000 characters (about ")
    assert "left out to fit the 95% limit of the 2,048-token context window." in note
    assert (
        "The tool server's result was 1,000,000 characters; the size limit had kept its first "
        "20,000." in note
    )
    assert note.endswith("(call ops__flood again asking for less).]")
    assert "[truncated:" not in result
    (finished,) = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.summary == "x" * 119 + "…"  # the first line, as the user sees it
    assert finished.status == "cut"
    done = events[-1]
    assert isinstance(done, ReplyDone)
    stored = services.sessions.messages("alice", done.session_id)[-1]
    assert [(c.name, c.status) for c in stored.tool_calls] == [("ops.flood", "cut")]


async def test_a_server_error_is_a_failed_call_the_model_reads(
    server: FakeOllama, with_tools: Build
) -> None:
    services = with_tools()
    server.script(Reply.tool_call("ops__broken", {}), "The index is down.")
    events = await collect(services.chat.send("alice", None, "look"))
    assert [e.status for e in events if isinstance(e, ToolFinished)] == ["error"]
    assert "the index is unavailable" in tool_message(server)
    (finished,) = [e for e in events if isinstance(e, ToolFinished)]
    # What people read of it: the server's words, not the tool's name again before them
    # (the app's "Failed: ops.broken:", FastMCP's "Error executing tool broken:").
    assert finished.summary == "the index is unavailable"
    assert events[-1].type == "done"


async def test_a_server_that_crashes_mid_call_fails_that_call_and_starts_again_for_the_next(
    server: FakeOllama, with_tools: Build
) -> None:
    services = with_tools()
    server.script(Reply.tool_call("ops__crash", {}), "It crashed.")
    events = await collect(services.chat.send("alice", None, "crash"))
    assert [e.status for e in events if isinstance(e, ToolFinished)] == ["error"]
    assert "The tool server 'ops' is not available: it stopped" in tool_message(server)
    assert events[-1].type == "done"
    server.script(Reply.tool_call("ops__search_logs", {"pattern": "timeout"}), "Back.")
    session_id = events[-1].session_id  # type: ignore[union-attr]
    again = await collect(services.chat.send("alice", session_id, "still there?"))
    assert not [e for e in again if isinstance(e, ToolServerFailed)]
    assert "ops__search_logs" in bound_names(server, -2)
    assert [e.status for e in again if isinstance(e, ToolFinished)] == ["ok"]
    assert again[-1].type == "done"


async def test_a_server_that_keeps_stopping_is_started_again_three_times_then_reported(
    server: FakeOllama, with_tools: Build
) -> None:
    services = with_tools()
    session_id = None
    for _ in range(mcp_state.RESTARTS + 1):
        server.script(Reply.tool_call("ops__crash", {}), "It crashed.")
        events = await collect(services.chat.send("alice", session_id, "crash"))
        assert not [e for e in events if isinstance(e, ToolServerFailed)]
        assert [e.status for e in events if isinstance(e, ToolFinished)] == ["error"]
        session_id = events[-1].session_id  # type: ignore[union-attr]
    server.script("Without it.")
    last = await collect(services.chat.send("alice", session_id, "and now?"))
    failed = [e for e in last if isinstance(e, ToolServerFailed)]
    assert [e.server for e in failed] == ["ops"]
    assert "it stopped" in failed[0].message
    assert "ops__search_logs" not in bound_names(server, -1)
    (view,) = services.tools.servers()
    assert view.state == "stopped"  # not "failed": it started, RESTARTS + 1 times
    assert view.error is not None
    assert view.error.reason == "tool_server_stopped"


async def test_a_server_that_died_while_idle_is_started_again_before_the_next_send(
    server: FakeOllama, with_tools: Build
) -> None:
    """Found in tmux: a stdio server killed while idle made every later call fail with
    "ClosedResourceError", for the app's life; then the next send's call found it gone and
    failed, where TOOLS.md promises a server started again before the next message. Its end
    is noticed as it happens, and the next send's call is served."""
    services = with_tools()
    server.script("Ready.")
    first = await collect(services.chat.send("alice", None, "hello"))
    session_id = first[-1].session_id  # type: ignore[union-attr]
    runtime = services.server_tools
    assert runtime is not None
    (state,) = runtime.states()
    (pid,) = mcp_processes.server_processes()
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while state.state == "ready":
        assert time.monotonic() < deadline
        await asyncio.sleep(0.01)
    assert state.stopped
    server.script(Reply.tool_call("ops__search_logs", {"pattern": "timeout"}), "Back.")
    again = await collect(services.chat.send("alice", session_id, "any timeouts?"))
    assert not [e for e in again if isinstance(e, ToolServerFailed)]
    assert [e.status for e in again if isinstance(e, ToolFinished)] == ["ok"]
    assert mcp_processes.server_processes() not in ([], [pid])


async def test_a_late_answer_to_a_call_given_up_on_leaves_the_server_ready(
    server: FakeOllama, with_tools: Build
) -> None:
    """Found in tmux: Esc on a slow query, and the query's answer, come after, failed the
    server as one that writes what is not MCP: its tools were gone for the rest of the run."""
    services = with_tools()
    runtime = services.server_tools
    assert runtime is not None
    runtime.start()
    tools = {tool.tool: tool for tool in runtime.bound()}
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(runtime.call(tools["hang"], {"seconds": 0.3}), 0.05)
    await asyncio.sleep(0.6)  # the server answers the call given up on
    (state,) = runtime.states()
    assert (state.state, state.stray) == ("ready", None)
    result = await runtime.call(tools["search_logs"], {"pattern": "timeout"})
    assert "timeout" in str(result)


async def test_a_call_past_the_timeout_stops_its_stdio_server_which_serves_the_next_send(
    server: FakeOllama, with_tools: Build
) -> None:
    """Found in tmux: a confirmed restart queued behind a hung call on a server that runs one
    call at a time was said to have failed, and ran 90 s later. The server is stopped when a
    call passes the timeout, so nothing it had queued runs after the model was told."""
    services = with_tools(tool_timeout=0.5)
    server.script(Reply.tool_call("ops__hang", {}), "It timed out.")
    events = await collect(services.chat.send("alice", None, "wait"))
    assert [e.status for e in events if isinstance(e, ToolFinished)] == ["error"]
    told = tool_message(server)
    assert "did not answer within 0.5 s. Its server was stopped" in told
    (finished,) = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.summary.startswith("did not answer within 0.5 s.")  # not the name again
    deadline = time.monotonic() + 10
    while mcp_processes.server_processes():
        assert time.monotonic() < deadline
        await asyncio.sleep(0.01)
    server.script(Reply.tool_call("ops__search_logs", {"pattern": "timeout"}), "Back.")
    session_id = events[-1].session_id  # type: ignore[union-attr]
    again = await collect(services.chat.send("alice", session_id, "and now?"))
    assert [e.status for e in again if isinstance(e, ToolFinished)] == ["ok"]


async def test_a_server_stopped_for_a_call_past_the_timeout_is_ended_though_it_is_busy(
    server: FakeOllama, with_tools: Build
) -> None:
    """Found in tmux: the server "stopped" for a hung call was still there 35 s on, busy in
    that call, and then ran the confirmed restart it had queued: closing the session waits for
    a server to end. Its process is killed; and a stop for a timeout does not use up the
    restarts kept for crashes (three slow queries had left the tools gone for the run)."""
    services = with_tools(ops(env={"OPS_OUTLIVES_STDIN": "1"}), tool_timeout=0.3)
    session_id = None
    for _ in range(mcp_state.RESTARTS + 1):
        server.script(Reply.tool_call("ops__hang", {}), "It timed out.")
        events = await collect(services.chat.send("alice", session_id, "wait"))
        assert [e.status for e in events if isinstance(e, ToolFinished)] == ["error"]
        assert "Its server was stopped" in tool_message(server, -1)
        session_id = events[-1].session_id  # type: ignore[union-attr]
        deadline = time.monotonic() + 3
        while mcp_processes.server_processes():  # the hang has 600 s to go
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
    server.script(Reply.tool_call("ops__search_logs", {"pattern": "timeout"}), "Found.")
    last = await collect(services.chat.send("alice", session_id, "and now?"))
    assert not [e for e in last if isinstance(e, ToolServerFailed)]
    assert [e.status for e in last if isinstance(e, ToolFinished)] == ["ok"]


async def test_a_turns_confirm_calls_are_asked_one_at_a_time_in_the_models_order(
    server: FakeOllama, with_tools: Build
) -> None:
    """Found in tmux: two restarts in one reply were asked in stacked dialogs, the later on
    top, and ran in the reverse of the model's order."""
    services = with_tools()
    asked: list[str] = []
    open_questions = [0, 0]  # now, at most

    async def confirm(request: ToolConfirmation) -> bool:
        asked.append(str(request.arguments["service"]))
        open_questions[0] += 1
        open_questions[1] = max(open_questions)
        await asyncio.sleep(0.1)
        open_questions[0] -= 1
        return True

    calls = (
        ("ops__restart_service", {"service": "api-7"}),
        ("ops__restart_service", {"service": "api-8"}),
    )
    server.script(Reply(tool_calls=calls), "Both restarted.")
    events = await collect(services.chat.send("alice", None, "restart both", confirm=confirm))
    assert asked == ["api-7", "api-8"]
    assert open_questions[1] == 1
    assert [e.status for e in events if isinstance(e, ToolFinished)] == ["ok", "ok"]


async def test_a_server_that_fails_to_start_is_reported_once_and_the_chat_works(
    server: FakeOllama, with_tools: Build
) -> None:
    services = with_tools(ops("gone", command="/nonexistent/mcp-server", args=()), ops())
    server.script("First.", "Second.")
    first = await collect(services.chat.send("alice", None, "one"))
    failed = [e for e in first if isinstance(e, ToolServerFailed)]
    assert [(e.server, e.code) for e in failed] == [("gone", "TOOL_SERVER_FAILED")]
    assert "gone" in failed[0].message
    assert first[-1].type == "done"
    assert "ops__search_logs" in bound_names(server)
    second = await collect(services.chat.send("alice", None, "two"))
    assert not [e for e in second if isinstance(e, ToolServerFailed)]


@pytest.mark.parametrize(
    ("command", "args", "said"),
    [
        (
            sys.executable,
            ("-c", "raise SystemExit(3)"),
            "it ended as it started, before it answered, and wrote nothing on stderr: run its "
            "command by hand to see why.",
        ),
        (
            sys.executable,
            ("-c", "import sys; print('starting', file=sys.stderr); sys.exit('LOG_ROOT unset')"),
            "it ended as it started, before it answered; the last it wrote on stderr: "
            "LOG_ROOT unset.",
        ),
        (
            "/nonexistent/mcp-server",
            (),
            "its command '/nonexistent/mcp-server' was not found (no such file, or not on the "
            "PATH).",
        ),
    ],
    ids=["silent", "stderr", "no-command"],
)
async def test_a_stdio_server_that_cannot_start_is_said_in_words_not_the_transport_s(
    server: FakeOllama, with_tools: Build, command: str, args: tuple[str, ...], said: str
) -> None:
    """As found: ``command = "/bin/false"`` was said as "it did not start
    (BrokenResourceError)", which tells an engineer nothing of what to mend."""
    services = with_tools(ops("gone", command=command, args=args))
    server.script("Still here.")
    events = await collect(services.chat.send("alice", None, "one"))
    (failed,) = [e for e in events if isinstance(e, ToolServerFailed)]
    assert failed.message == (
        f"The tool server 'gone' is not available: {said} The chat goes on without its tools."
    )
    assert "Error" not in failed.message


async def test_a_server_that_failed_at_once_as_it_started_is_tried_again_quietly_later(
    server: FakeOllama, with_tools: Build, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its port-forward was not up yet when the app started: it is said once, tried again no
    sooner than the wait, quietly, and once it answers the next message has its tools."""
    up, attempts = tmp_path / "up", tmp_path / "attempts"
    starter = (
        f"import os, runpy, sys\nopen({str(attempts)!r}, 'a').write('.')\n"
        f"if not os.path.exists({str(up)!r}): sys.exit('connection refused')\n"
        f"runpy.run_path({OPS!r}, run_name='__main__')\n"
    )
    now = [0.0]
    monkeypatch.setattr(mcp_runtime, "monotonic", lambda: now[0])
    services = with_tools(ops(args=("-c", starter)))

    async def send(text: str) -> list[str]:
        server.script("Noted.")
        events = await collect(services.chat.send("alice", None, text))
        assert events[-1].type == "done"
        return [e.message for e in events if isinstance(e, ToolServerFailed)]

    (said,) = await send("one")
    assert "it ended as it started, before it answered" in said
    assert said.endswith("stderr: connection refused. The chat goes on without its tools.")
    assert "ops__search_logs" not in bound_names(server, -1)
    now[0] = mcp_state.START_RETRY_SECONDS + 1  # still down: tried, and not said again
    assert await send("two") == []
    assert (attempts.read_text(), "ops__search_logs" in bound_names(server, -1)) == ("..", False)
    up.touch()
    now[0] += mcp_state.START_RETRY_SECONDS - 2  # up, but not tried before the wait
    assert await send("three") == []
    assert (attempts.read_text(), "ops__search_logs" in bound_names(server, -1)) == ("..", False)
    now[0] += 2
    assert await send("four") == []
    assert (attempts.read_text(), "ops__search_logs" in bound_names(server, -1)) == ("...", True)
    (view,) = services.tools.servers()
    assert view.state == "ready"


async def test_a_server_that_failed_slowly_as_it_started_is_not_tried_again(
    server: FakeOllama, with_tools: Build, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure that took its time (a resolver that does not answer) would hold up every
    send it is tried at."""
    attempts = tmp_path / "attempts"
    starter = f"import sys\nopen({str(attempts)!r}, 'a').write('.')\nsys.exit(1)\n"
    now = [0.0]
    monkeypatch.setattr(mcp_runtime, "monotonic", lambda: now[0])
    monkeypatch.setattr(mcp_runtime, "START_QUICK_SECONDS", -1.0)  # every failure is slow
    services = with_tools(ops(args=("-c", starter)))
    server.script("One.", "Two.")
    first = await collect(services.chat.send("alice", None, "one"))
    assert [e.server for e in first if isinstance(e, ToolServerFailed)] == ["ops"]
    now[0] = 10 * mcp_state.START_RETRY_SECONDS
    second = await collect(services.chat.send("alice", None, "two"))
    assert (second[-1].type, attempts.read_text()) == ("done", ".")


async def test_a_skill_asking_for_an_unregistered_tool_gets_nothing(
    server: FakeOllama, with_tools: Build
) -> None:
    services = with_tools()
    services.configuration.add_skill(
        "alice",
        "SKILL.md",
        skill_text("wipe", "Wipes logs.", "Call ops__delete_all and logs.rm_rf now.").encode(),
    )
    services.configuration.select_skills("alice", ["wipe"])
    server.script(Reply.tool_call("ops__delete_all", {}), "Could not.")
    events = await collect(services.chat.send("alice", None, "follow the wipe skill"))
    assert "ops__delete_all" not in bound_names(server)
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [e.status for e in finished] == ["error"]
    assert "deleted everything" not in tool_message(server)
    assert events[-1].type == "done"


async def test_two_users_with_different_settings_get_different_tools(
    server: FakeOllama, on_ollama: Callable[..., Services], tmp_path: Path
) -> None:
    alice = on_ollama(server, model="qwen3:8b", mcp_servers=(ops(allow=("search_logs",)),))
    bob = on_ollama(
        server,
        model="qwen3:8b",
        user="bob",
        mcp_servers=(ops("metrics", allow=("flood",)),),
    )
    server.script("a", "b")
    await collect(alice.chat.send("alice", None, "hi"))
    await collect(bob.chat.send("bob", None, "hi"))
    assert bound_names(server, 0) == ["get_current_time", "ops__search_logs"]
    assert bound_names(server, 1) == ["get_current_time", "metrics__flood"]


@both_providers
async def test_server_tool_schemas_count_in_the_context_estimate(
    server: FakeServer, with_tools: Build, on_ollama: Callable[..., Services], tmp_path: Path
) -> None:
    plain = on_ollama(server, model="qwen3:8b")
    tooled = with_tools()
    tooled.tools.servers()  # started: the schemas are known
    assert tooled.memory.assemble("alice", None).estimate([("user", "hi")]) > plain.memory.assemble(
        "alice", None
    ).estimate([("user", "hi")])


@pytest.fixture(scope="module")
def http_server() -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, OPS, "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        for _ in range(200):
            try:
                httpx.get(f"http://127.0.0.1:{port}/", timeout=0.5)
                break
            except httpx.TransportError:
                time.sleep(0.05)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


async def test_a_streamable_http_server_serves_its_allowed_tools(
    server: FakeOllama, with_tools: Build, http_server: str
) -> None:
    services = with_tools(
        McpServer(name="remote", url=http_server, allow=("search_logs",), headers={"X-T": "1"})
    )
    server.script(Reply.tool_call("remote__search_logs", {"pattern": "5xx"}), "Seen.")
    events = await collect(services.chat.send("alice", None, "any 5xx?"))
    assert [e.status for e in events if isinstance(e, ToolFinished)] == ["ok"]
    assert "3 lines match '5xx'" in tool_message(server)
    assert bound_names(server) == ["get_current_time", "remote__search_logs"]
