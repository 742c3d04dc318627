"""Ctrl-C, SIGTERM, SIGHUP and a closed terminal end a streaming reply the same way: what
arrived is stored, marked interrupted, then the process exits. Real processes throughout."""

from __future__ import annotations

import fcntl
import os
import pty
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from oncall_tui.services.container import Services
from oncall_tui.services.views import MessageView
from tests.conftest import make_settings
from tests.fakes.ollama_server import FakeOllama, Reply

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


def wait_for(condition: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)


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
    assert err.decode().splitlines()[-2:] == ["[interrupted]", "[session 1]"]
    reply = stored(database)[-1]
    assert (reply.role, reply.status) == ("assistant", "interrupted")
    assert reply.content.startswith("one ")


class Terminal:
    """The app on a pseudo-terminal of 120x40, its output drained as a terminal would."""

    def __init__(self, env: dict[str, str]) -> None:
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the app, with the pty as its controlling terminal
            os.execve(sys.executable, [sys.executable, "-m", "oncall_tui"], env)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        self.screen = bytearray()
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                return
            if not data:
                return
            self.screen.extend(data)

    def type(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def wait(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return status
            time.sleep(0.05)
        os.kill(self.pid, signal.SIGKILL)
        raise AssertionError("the app did not exit")


@pytest.mark.parametrize("ending", ["SIGTERM", "terminal closed"])
def test_the_tui_keeps_the_partial_reply_when_killed_or_its_terminal_closes(
    tmp_path: Path, ollama: FakeOllama, ending: str
) -> None:
    ollama.script(SLOW)
    database = tmp_path / "oncall.db"
    terminal = Terminal(environment(database, ollama))
    wait_for(lambda: b"Enter sends" in terminal.screen)
    terminal.type("count slowly\r")
    wait_for(lambda: b"one" in terminal.screen and bool(ollama.chat_requests))
    wait_for(lambda: b"two" in terminal.screen)  # more of the reply has arrived
    if ending == "SIGTERM":
        os.kill(terminal.pid, signal.SIGTERM)
    else:
        os.close(terminal.fd)  # the kernel hangs the app up: SIGHUP, and writes fail
    terminal.wait()
    question, reply = stored(database)
    assert (question.role, question.content) == ("user", "count slowly")
    assert (reply.role, reply.status) == ("assistant", "interrupted")
    assert reply.content.startswith("one ")
