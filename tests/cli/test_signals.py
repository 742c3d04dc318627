"""Ctrl-C, SIGTERM, SIGHUP and a closed terminal end a streaming reply the same way: what
arrived is stored, marked interrupted, then the process exits. Real processes throughout."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from oncall_tui.services.container import Services
from oncall_tui.services.views import MessageView
from tests.conftest import make_settings
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.terminal import Terminal, wait_for

SLOW = Reply("one two three four five six seven eight nine ten", delay_per_chunk=0.4)


def environment(database: Path, ollama: FakeOllama) -> dict[str, str]:
    return {
        **os.environ,
        "ONCALL_TUI_DB": str(database),
        "ONCALL_TUI_USER": "alice",
        "OLLAMA_HOST": ollama.url,
        "ONCALL_TUI_MODEL": "qwen3:8b",
        "LANG": "C",
        "TERM": "xterm-256color",
    }


def stored(database: Path) -> list[MessageView]:
    services = Services(make_settings(database))
    try:
        (session,) = services.sessions.list_sessions("alice")
        return services.sessions.messages("alice", session.id)
    finally:
        services.close()


@pytest.mark.parametrize(
    ("number", "status"),
    [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)],
)
def test_a_signal_during_chat_keeps_the_partial_reply(
    tmp_path: Path, ollama: FakeOllama, number: int, status: int
) -> None:
    ollama.script(SLOW)
    database = tmp_path / "oncall.db"
    process = subprocess.Popen(
        [sys.executable, "-m", "oncall_tui", "chat", "count slowly"],
        env=environment(database, ollama),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    first = process.stdout.read(4)  # "one ": the reply is streaming
    process.send_signal(number)
    out, err = process.communicate(timeout=30)
    assert process.returncode == status, err
    assert (first + out).decode().endswith("\n")  # the answer's line is ended
    assert err.decode().splitlines()[-3:] == [
        "[interrupted]",
        "[session 1]",
        "[to answer it again: oncall-tui chat --session 1 --retry]",
    ]
    reply = stored(database)[-1]
    assert (reply.role, reply.status) == ("assistant", "interrupted")
    assert reply.content.startswith("one ")


def test_the_tui_keeps_the_partial_reply_when_its_terminal_closes(
    tmp_path: Path, ollama: FakeOllama
) -> None:
    """The terminal closed under the app (it leads the terminal: the kernel sends SIGHUP). The
    same under SIGTERM is ``test_sigterm_mid_reply_keeps_the_partial_and_stops_the_tool_server``
    (``test_terminal_hangup.py``), and a terminal that closes with no SIGHUP the one before it."""
    ollama.script(SLOW)
    database = tmp_path / "oncall.db"
    terminal = Terminal(environment(database, ollama))
    terminal.wait_to_show("Enter sends")
    terminal.write("count slowly\r")
    terminal.wait_to_show("count slowly")  # the screen is in the failure if it never comes
    wait_for(
        lambda: b"one" in terminal.output and bool(ollama.chat_requests), what=repr(terminal.rows())
    )
    wait_for(lambda: b"two" in terminal.output)  # more of the reply has arrived
    os.close(terminal.fd)  # the kernel hangs the app up: SIGHUP, and writes fail
    terminal.wait()
    question, reply = stored(database)
    assert (question.role, question.content) == ("user", "count slowly")
    assert (reply.role, reply.status) == ("assistant", "interrupted")
    assert reply.content.startswith("one ")
