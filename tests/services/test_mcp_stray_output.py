"""A stdio tool server that writes lines that are not MCP messages on its standard output
(``tests/mcp_servers/noisy.py``) is failed with one catalog message naming it and the first
such line; the SDK's traceback per line never reaches the terminal, and the other registered
servers keep working. In-process through the services, and once as users run the CLI, in a
subprocess, where stderr is real."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from oncall_tui.core.events import ChatEvent, ToolFinished, ToolServerFailed
from oncall_tui.services.container import Services
from oncall_tui.settings.mcp import McpServer
from tests.conftest import collect
from tests.fakes.ollama_server import FakeOllama, Reply

SERVERS = Path(__file__).resolve().parents[1] / "mcp_servers"
OPS = str(SERVERS / "ops.py")
NOISY = str(SERVERS / "noisy.py")
NOT_MCP = "it wrote a line that is not an MCP message to its standard output"

OnOllama = Callable[..., Services]


def noisy(*args: str, name: str = "noisy") -> McpServer:
    return McpServer(
        name=name,
        command=sys.executable,
        args=(NOISY, *args),
        allow=("search_logs", "chatty"),
    )


def ops() -> McpServer:
    return McpServer(name="ops", command=sys.executable, args=(OPS,), allow=("search_logs",))


def bound_names(server: FakeOllama, index: int = 0) -> list[str]:
    tools = server.chat_requests[index].get("tools") or []
    return [tool["function"]["name"] for tool in tools]


def failures(events: list[ChatEvent]) -> list[ToolServerFailed]:
    return [e for e in events if isinstance(e, ToolServerFailed)]


async def test_a_banner_on_stdout_fails_that_server_once_and_the_others_serve(
    on_ollama: OnOllama, server: FakeOllama
) -> None:
    services = on_ollama(server, model="qwen3:8b", mcp_servers=(noisy(), ops()))
    server.script(Reply.tool_call("ops__search_logs", {"pattern": "oom"}), "Found it.", "Again.")
    first = await collect(services.chat.send("alice", None, "any oom?"))
    (failed,) = failures(first)
    assert (failed.server, failed.code) == ("noisy", "TOOL_SERVER_FAILED")
    assert failed.message == (
        f"The tool server 'noisy' is not available: {NOT_MCP} ('starting up: step 0'); a stdio "
        "server may write only MCP messages there, and its logs to stderr. The chat goes on "
        "without its tools."
    )
    assert bound_names(server) == ["get_current_time", "ops__search_logs"]
    assert [e.status for e in first if isinstance(e, ToolFinished)] == ["ok"]
    assert "3 lines match 'oom'" in server.chat_requests[1]["messages"][-1]["content"]
    assert first[-1].type == "done"
    again = await collect(services.chat.send("alice", None, "and now?"))
    assert failures(again) == []  # reported once per process


async def test_a_stray_line_mid_session_fails_the_server_from_the_next_turn(
    on_ollama: OnOllama, server: FakeOllama
) -> None:
    services = on_ollama(server, model="qwen3:8b", mcp_servers=(noisy("--banner", "0"),))
    server.script(Reply.tool_call("noisy__chatty", {}), "It answered.", "Later.")
    first = await collect(services.chat.send("alice", None, "be chatty"))
    assert failures(first) == []  # it started cleanly
    assert [e.status for e in first if isinstance(e, ToolFinished)] == ["ok"]
    session_id = first[-1].session_id  # type: ignore[union-attr]
    again = await collect(services.chat.send("alice", session_id, "again"))
    (failed,) = failures(again)
    assert failed.server == "noisy"
    assert f"{NOT_MCP} ('debug: chatty was called')" in failed.message
    assert bound_names(server, -1) == ["get_current_time"]


async def test_a_server_that_writes_a_banner_and_ends_is_failed_for_the_banner(
    on_ollama: OnOllama, server: FakeOllama
) -> None:
    services = on_ollama(server, model="qwen3:8b", mcp_servers=(noisy("--exit"), ops()))
    (view, good) = services.tools.servers()
    assert (view.name, view.state) == ("noisy", "failed")
    assert view.error is not None
    assert f"{NOT_MCP} ('starting up: step 0')" in view.error.message("en")
    assert good.state == "ready"


async def test_bytes_that_are_not_utf8_on_stdout_are_a_stray_line_too(
    on_ollama: OnOllama, server: FakeOllama
) -> None:
    services = on_ollama(server, model="qwen3:8b", mcp_servers=(noisy("--binary"), ops()))
    (view, good) = services.tools.servers()
    assert view.state == "failed"
    assert view.error is not None
    assert f"{NOT_MCP} ('\ufffd\ufffd banner')" in view.error.message("en")
    assert good.state == "ready"


def test_the_cli_says_once_which_server_misbehaved_and_prints_no_traceback(
    tmp_path: Path, server: FakeOllama, private_config: Path
) -> None:
    private_config.parent.mkdir(parents=True, exist_ok=True)
    private_config.write_text(
        "\n".join(
            f'[[mcp_servers]]\nname = "{name}"\ncommand = {_toml(sys.executable)}\n'
            f'args = [{_toml(script)}]\nallow = ["search_logs"]\n'
            for name, script in (("noisy", NOISY), ("ops", OPS))
        ),
        "utf-8",
    )
    env = {
        **os.environ,
        "ONCALL_TUI_DB": str(tmp_path / "oncall.db"),
        "ONCALL_TUI_USER": "alice",
        "OLLAMA_HOST": server.url,
        "ONCALL_TUI_MODEL": "qwen3:8b",
        "LANG": "C",
    }
    command = [sys.executable, "-m", "oncall_tui"]

    listing = _run([*command, "tools", "list"], env)
    assert listing.returncode == 2, listing.stderr  # a server that did not start: said, and 2
    assert "Traceback" not in listing.stderr
    assert listing.stderr == ""
    named = [line for line in listing.stdout.splitlines() if "'noisy'" in line]
    assert len(named) == 1
    assert NOT_MCP in named[0]
    assert any(
        line.split()[:3] == ["ops", "stdio", "ready"] for line in listing.stdout.splitlines()
    )

    server.script(Reply.tool_call("ops__search_logs", {"pattern": "oom"}), "Found it.")
    chat = _run([*command, "chat", "any oom?"], env)
    assert chat.returncode == 0, chat.stderr
    assert "Traceback" not in chat.stderr
    named = [line for line in chat.stderr.splitlines() if "noisy" in line]
    assert named == [
        f"oncall-tui: The tool server 'noisy' is not available: {NOT_MCP} ('starting up: step "
        "0'); a stdio server may write only MCP messages there, and its logs to stderr. The "
        "chat goes on without its tools."
    ]
    assert "Found it." in chat.stdout
    assert "3 lines match 'oom'" in server.chat_requests[-1]["messages"][-1]["content"]


def _run(command: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)


def _toml(value: Any) -> str:
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'
