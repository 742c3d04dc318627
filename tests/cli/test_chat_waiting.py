"""A chat's wait, counted on a terminal's standard error and erased before anything follows.

The real entry point in-process, against the loopback Ollama (real ChatOllama) and the tests'
stdio tool server; standard error is made to say it is a terminal."""

from __future__ import annotations

import asyncio
import io
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from oncall_tui.cli import waiting
from oncall_tui.cli.chat_output import allow_listed
from oncall_tui.core.events import ToolConfirmation
from tests.conftest import CliResult, RunCli, poll_until
from tests.fakes.ollama_server import FakeOllama, Reply

MODEL = "qwen3:8b"
OPS = Path(__file__).resolve().parents[1] / "mcp_servers" / "ops.py"
ERASED = re.escape(waiting.ERASE)


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as server:
        yield server


@pytest.fixture
def chat(cli: RunCli, ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch) -> RunCli:
    """``chat`` on the loopback server; the wait is said from 0.2 s, looked at every 20 ms."""
    monkeypatch.setattr(waiting, "SHOWN_FROM", 0.2)
    monkeypatch.setattr(waiting, "TICK", 0.02)

    def run(*args: str, user: str = "alice") -> CliResult:
        return cli("--ollama-url", ollama.url, "--model", MODEL, *args, user=user)

    return run


def erased_each(count: str) -> str:
    """Counts (``count``, the text), each written over the last from the line's start, and
    the line erased before anything else is written."""
    return rf"(?:{ERASED}(?:{count})?)*{ERASED}"


def on_a_terminal(monkeypatch: pytest.MonkeyPatch, term: str = "xterm-256color") -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    monkeypatch.setenv("TERM", term)


@pytest.mark.parametrize("where", ["terminal", "dumb terminal", "pipe", "json"])
def test_a_slow_first_word_is_counted_on_a_terminal_and_erased_before_what_follows(
    chat: RunCli, ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """Not in a pipe, nor on a terminal that says it cannot redraw a line (``TERM=dumb``:
    Emacs' shell would show the erase sequence as text)."""
    if where != "pipe":
        on_a_terminal(monkeypatch, "dumb" if where == "dumb terminal" else "xterm-256color")
    ollama.script(Reply("Roll back the deploy.", chunk_size=100, delay_per_chunk=0.6))
    result = chat("chat", *(["--json"] if where == "json" else []), "why", "now?")
    assert result.code == 0, result.err
    if where == "json":  # one event a line, and nothing else anywhere
        assert (result.err, "waiting" in result.out) == ("", False)
        return
    assert result.out == "Roll back the deploy.\n"
    closing = r"\[context [^\n]+\]\n\[session 1\]\n"
    if where in ("pipe", "dumb terminal"):  # a script's log gets no carriage returns
        assert re.fullmatch(closing, result.err), result.err
        return
    counted = r"\[waiting for the model: \d+ s · ctrl\+c stops\]"
    assert re.search(counted, result.err), result.err
    assert re.fullmatch(erased_each(counted) + closing, result.err), result.err


def test_a_slow_tool_is_counted_as_the_tools_wait_in_chinese(
    chat: RunCli, ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch, private_config: Path
) -> None:
    private_config.parent.mkdir(parents=True, exist_ok=True)
    private_config.write_text(
        f"[[mcp_servers]]\nname = \"ops\"\ncommand = '{sys.executable}'\nargs = ['{OPS}']\n"
        'allow = ["hang"]\n',
        encoding="utf-8",
    )
    on_a_terminal(monkeypatch)
    ollama.script(Reply.tool_call("ops__hang", {"seconds": 0.6}), "醒了。")
    result = chat("--lang", "zh", "chat", "等一下")
    assert result.code == 0, result.err
    assert result.out == "醒了。\n"
    counted = r"\[等待 ops\.hang：\d+ 秒 · ctrl\+c 停止\]"
    tool = rf"· ops\.hang\(seconds=0\.6\)\n(?={ERASED}{counted}){erased_each(counted)}  → woke up\n"
    assert re.search(tool, result.err), result.err


async def test_a_tool_refused_for_the_run_is_said_once_the_count_is_erased(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The refusal is written from the tool's step, not from an event: it erases the count
    itself, or it would follow it on the same line."""
    monkeypatch.setattr(waiting, "SHOWN_FROM", 0.0)
    monkeypatch.setattr(waiting, "TICK", 0.005)
    stderr = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stderr)
    line = waiting.WaitingLine(stderr, "en")
    counting = asyncio.create_task(line.run())
    await poll_until(lambda: "[waiting" in stderr.getvalue())
    confirm = allow_listed(frozenset({"ops.search_logs"}), "en", line.erase)
    assert await confirm(ToolConfirmation("ops", "search_logs", {})) is True
    assert await confirm(ToolConfirmation("ops", "restart_service", {})) is None
    counting.cancel()
    assert stderr.getvalue() == (
        f"{waiting.ERASE}[waiting for the model: 0 s · ctrl+c stops]{waiting.ERASE}oncall-tui: "
        "ops.restart_service asks before every call and was not run; to allow it for one run: "
        "--allow-tool ops.restart_service\n"
    )
