"""Tool servers in the TUI: a ``confirm`` tool asks first (once answers count, y runs it; n,
Esc and a habitual Enter decline; keys typed as it opens: test_confirm_keys.py), the panel
lists the tools in play, and a server that does not start is said once while the chat goes
on. Real FastMCP servers, the real adapters, the loopback Ollama."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from oncall_tui.errors import OncallError
from oncall_tui.services.tools import ToolServerView
from oncall_tui.settings import Settings
from oncall_tui.settings.mcp import McpServer
from oncall_tui.tui.app import OncallApp, build_app
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.context_panel import ContextPanel
from oncall_tui.tui.widgets.dialogs import ConfirmDialog
from oncall_tui.tui.widgets.plain_text import PlainText
from oncall_tui.tui.widgets.tool_dialog import ToolConfirmDialog
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.tui.harness import notifications, wait_until

OPS = str(Path(__file__).resolve().parents[1] / "mcp_servers" / "ops.py")
SIZE = (120, 40)


def ops_server(**fields: object) -> McpServer:
    values: dict[str, object] = {
        "command": sys.executable,
        "args": (OPS,),
        "allow": ("search_logs", "restart_service"),
        "confirm": ("restart_service",),
    }
    values.update(fields)
    return McpServer(name="ops", **values)  # type: ignore[arg-type]


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        yield fake


def tools_app(tmp_path: Path, ollama: FakeOllama, *servers: McpServer) -> OncallApp:
    settings = Settings(
        db_path=tmp_path / "t.db",
        user="alice",
        ollama_url=ollama.url,
        model="qwen3:8b",
        mcp_servers=servers or (ops_server(),),
    )
    return build_app(settings)


def tool_result(ollama: FakeOllama) -> str:
    messages = ollama.chat_requests[1]["messages"]
    assert messages[-1]["role"] == "tool"
    return str(messages[-1]["content"])


@pytest.mark.parametrize(
    ("answer", "ran"), [("y", True), ("n", False), ("escape", False), ("enter", False)]
)
async def test_a_confirm_tool_asks_with_its_server_name_and_arguments(
    tmp_path: Path, ollama: FakeOllama, answer: str, ran: bool
) -> None:
    ollama.script(Reply.tool_call("ops__restart_service", {"service": "api"}), "Done.")
    app = tools_app(tmp_path, ollama)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await wait_until(pilot, lambda: screen.server_check.state.reachable is True, timeout=20)
        screen.query_one(Composer).text = "restart the api"
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmDialog), timeout=30)

        def dialog_text() -> str:  # the dialog is the screen a moment before its texts are mounted
            return " ".join(str(w.render()) for w in app.screen.query("Static"))

        await wait_until(pilot, lambda: "Server: ops" in dialog_text(), timeout=10)
        assert "ops.restart_service" in dialog_text()
        assert "Tool: restart_service" in dialog_text()
        assert '"service": "api"' in dialog_text()
        dialog = app.screen
        assert isinstance(dialog, ToolConfirmDialog)
        # At the real grace period and quiet gap: the key line says when answers count.
        await wait_until(pilot, lambda: "y run · n/esc don't run" in dialog_text(), timeout=10)
        assert dialog.answers_count
        await pilot.press(answer)
        await wait_until(pilot, lambda: len(ollama.chat_requests) == 2, timeout=30)
        await app.workers.wait_for_complete()
        result = tool_result(ollama)
        if ran:
            assert result == "restarted api"
        else:
            assert result.startswith("Not run: the user declined this call of ops.restart_service")


async def test_the_panel_lists_the_allowed_tools_and_marks_the_ones_that_ask(
    tmp_path: Path, ollama: FakeOllama
) -> None:
    app = tools_app(tmp_path, ollama)
    async with app.run_test(size=SIZE) as pilot:
        tools = app.screen.query_one(ContextPanel).query_one("#tools", PlainText)
        await wait_until(pilot, lambda: "ops.search_logs" in tools.text, timeout=30)
        assert tools.text.splitlines() == ["ops.search_logs", "ops.restart_service ⚠"]


async def test_the_panel_tells_a_server_that_kept_stopping_from_one_that_did_not_start(
    tmp_path: Path, ollama: FakeOllama
) -> None:
    app = tools_app(tmp_path, ollama)
    async with app.run_test(size=SIZE) as pilot:
        panel = app.screen.query_one(ContextPanel)
        tools = panel.query_one("#tools", PlainText)
        await wait_until(pilot, lambda: "ops.search_logs" in tools.text, timeout=30)
        stopped = OncallError("TOOL_SERVER_FAILED", "tool_server_stopped", server="ops")
        unstarted = OncallError("TOOL_SERVER_FAILED", "tool_server_start", server="gone")
        panel.show_tools(
            [
                ToolServerView("ops", "stdio", "stopped", stopped),
                ToolServerView("gone", "stdio", "failed", unstarted),
            ]
        )
        await pilot.pause()
        assert tools.text.splitlines() == [
            "ops: kept stopping; not started again until oncall-tui restarts",
            "gone: did not start (oncall-tui doctor says why)",
        ]


async def test_a_server_that_does_not_start_is_said_and_the_chat_goes_on(
    tmp_path: Path, ollama: FakeOllama
) -> None:
    broken = McpServer(
        name="gone", command=sys.executable, args=("-c", "raise SystemExit(3)"), allow=("x",)
    )
    ollama.script("Still here.")
    app = tools_app(tmp_path, ollama, broken)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        tools = screen.query_one(ContextPanel).query_one("#tools", PlainText)
        await wait_until(pilot, lambda: "gone: did not start" in tools.text, timeout=30)
        await wait_until(pilot, lambda: screen.server_check.state.reachable is True, timeout=20)
        screen.query_one(Composer).text = "anything?"
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(ollama.chat_requests) == 1, timeout=30)
        await app.workers.wait_for_complete()
        screen.query_one(Composer).text = "and now?"
        ollama.script("Still here.")
        await pilot.press("enter")
        await wait_until(pilot, lambda: len(ollama.chat_requests) == 2, timeout=30)
        await app.workers.wait_for_complete()
        warnings = [n for n in notifications(app) if "gone" in n]
        assert len(warnings) == 1  # said once, not at every send
        assert "tools" not in ollama.chat_requests[1] or all(
            "gone" not in tool["function"]["name"] for tool in ollama.chat_requests[1]["tools"]
        )


async def test_a_message_sent_while_the_tool_servers_start_says_it_waits_for_them(
    tmp_path: Path, ollama: FakeOllama
) -> None:
    """Found in tmux: the first message sat on "Sending…" for 20 s, a tool server slow to
    start, with nothing said of why."""
    slow = f"import runpy, sys, time; time.sleep(3); sys.argv = [{OPS!r}]; "
    slow += f"runpy.run_path({OPS!r}, run_name='__main__')"
    ollama.script("Found nothing.")
    app = tools_app(tmp_path, ollama, ops_server(args=("-c", slow)))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.query_one(Composer).text = "any timeouts?"
        await pilot.press("enter")
        said = "Starting the tool servers: this message waits for them, 20 s at most"
        await wait_until(pilot, lambda: said in screen.status.text, timeout=10)
        await wait_until(pilot, lambda: len(ollama.chat_requests) == 1, timeout=30)
        await wait_until(pilot, lambda: not screen.sending, timeout=10)
        assert said not in screen.status.text
