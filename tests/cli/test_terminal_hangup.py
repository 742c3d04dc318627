"""The process ends when its terminal does, and when it is told to: its partial reply kept,
its tool servers stopped. Real processes in a real pseudo-terminal throughout.

Under tmux or sshd the app is not the terminal's session leader: a shell is. When the terminal
goes (``tmux kill-session``, a dropped connection: its master side closes) the kernel hangs it
up, and the app's reads end (EOF or EIO) and its writes fail (EIO); SIGHUP goes to the session
leader, and reaches the app only if the shell passes it on. :data:`SHELL` is such a leader,
one that passes nothing on: the app must see for itself that its terminal has gone.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from oncall_tui.llm.mcp import McpTools
from oncall_tui.settings.mcp import McpServer
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.terminal import Terminal, wait_for

OPS = str(Path(__file__).resolve().parents[1] / "mcp_servers" / "ops.py")
SILENT = "import time; time.sleep(600)  # a tool server that never answers nor reads"
SLOW = Reply("one two three four five six seven eight nine ten", delay_per_chunk=0.4)
EXIT_POLL = 10.0
"""How long a test waits for an exit it asserts (the promise is 2 s; this only ends the wait)."""
F5, ESC, CTRL_Q = "\x1b[15~", "\x1b", "\x11"

SHELL = """
import os, signal, sys
app = os.fork()
if app == 0:  # the app, in the terminal's foreground process group, as a shell's job
    os.setpgid(0, 0)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    os.tcsetpgrp(0, os.getpid())
    signal.signal(signal.SIGTTOU, signal.SIG_DFL)
    os.execv(sys.executable, [sys.executable, "-m", "oncall_tui"])
signal.signal(signal.SIGHUP, signal.SIG_IGN)  # the session leader stays, and passes nothing on
_, status = os.waitpid(app, 0)
sys.exit(os.waitstatus_to_exitcode(status) & 0xFF)
"""


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


def register(config: Path, command: str, *args: str) -> None:
    config.parent.mkdir(parents=True, exist_ok=True)
    quoted = ", ".join(f"'{arg}'" for arg in args)
    config.write_text(
        f"[[mcp_servers]]\nname = \"ops\"\ncommand = '{command}'\nargs = [{quoted}]\n"
        'allow = ["search_logs"]\n',
        encoding="utf-8",
    )


def children(parent: int) -> list[int]:
    """Live children of ``parent``, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                fields = (entry / "stat").read_text().rpartition(")")[2].split()
                if fields[0] != "Z" and int(fields[1]) == parent:
                    found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return False
    return state != "Z"


def the_child(parent: int) -> int:
    wait_for(lambda: len(children(parent)) == 1, what=f"one child of {parent}")
    return children(parent)[0]


@contextlib.contextmanager
def killed_at_the_end(*pids: int) -> Iterator[None]:
    """What a failing test leaves running is killed; a negative number is a process group
    (a tool server's, which leads its own)."""
    try:
        yield
    finally:
        for pid in pids:
            with contextlib.suppress(OSError):
                if pid < 0:
                    os.killpg(-pid, signal.SIGKILL)
                else:
                    os.kill(pid, signal.SIGKILL)


def stored(database: Path) -> list[tuple[str, str, str]]:
    with contextlib.closing(sqlite3.connect(database)) as db:
        return list(db.execute("SELECT role, status, content FROM message ORDER BY id"))


def streaming(terminal: Terminal, ollama: FakeOllama) -> None:
    terminal.write("count slowly\r")
    wait_for(lambda: bool(ollama.chat_requests) and b"two" in terminal.output)


def assert_partial_kept(database: Path) -> None:
    question, reply = stored(database)
    assert question[:2] == ("user", "complete")
    assert reply[:2] == ("assistant", "interrupted")
    assert reply[2].startswith("one ")


@pytest.mark.parametrize("when", ["mid-reply", "idle"])
def test_the_app_ends_when_its_terminal_closes_though_no_sighup_reaches_it(
    tmp_path: Path, ollama: FakeOllama, private_config: Path, when: str
) -> None:
    ollama.script(SLOW)
    database = tmp_path / "oncall.db"
    register(private_config, sys.executable, OPS)
    terminal = Terminal(environment(database, ollama), argv=[sys.executable, "-c", SHELL])
    app = the_child(terminal.pid)
    server = the_child(app)
    with killed_at_the_end(app, -server):
        terminal.wait_to_show("Enter sends")
        terminal.wait_to_show("search_logs")  # the tool server has started
        if when == "mid-reply":
            streaming(terminal, ollama)
        terminal.write("and the pool?")  # not sent: the draft
        terminal.wait_to_show("and the pool?")
        os.close(terminal.fd)  # tmux kill-session: the terminal is hung up
        terminal.wait(timeout=EXIT_POLL)  # the shell stand-in ends once the app has
        assert not alive(app)
        wait_for(lambda: not alive(server), timeout=EXIT_POLL, what="the tool server's end")
    if when == "mid-reply":
        assert_partial_kept(database)
    # Given back at the next start (tests/tui/test_drafts_tui.py).
    (draft,) = (tmp_path / "xdg-data").rglob("draft.txt")
    assert draft.read_text() == "and the pool?"


def test_quitting_after_the_model_picker_ends_the_app_while_a_tool_server_still_starts(
    tmp_path: Path, ollama: FakeOllama, private_config: Path
) -> None:
    register(private_config, sys.executable, "-c", SILENT)
    terminal = Terminal(environment(tmp_path / "oncall.db", ollama))
    server = the_child(terminal.pid)
    with killed_at_the_end(terminal.pid, -server):
        terminal.wait_to_show("Enter sends")
        terminal.write(F5)
        terminal.wait_to_show("Models on")
        terminal.write(ESC)
        wait_for(lambda: not terminal.shows("Models on"))
        terminal.write(CTRL_Q)
        assert os.waitstatus_to_exitcode(terminal.wait(timeout=EXIT_POLL)) == 0
        wait_for(lambda: not alive(server), timeout=EXIT_POLL, what="the tool server's end")
    os.close(terminal.fd)


def test_sigterm_mid_reply_keeps_the_partial_and_stops_the_tool_server(
    tmp_path: Path, ollama: FakeOllama, private_config: Path
) -> None:
    ollama.script(SLOW)
    database = tmp_path / "oncall.db"
    register(private_config, sys.executable, OPS)
    terminal = Terminal(environment(database, ollama))
    server = the_child(terminal.pid)
    with killed_at_the_end(terminal.pid, -server):
        terminal.wait_to_show("search_logs")
        streaming(terminal, ollama)
        os.kill(terminal.pid, signal.SIGTERM)
        terminal.wait(timeout=EXIT_POLL)
        wait_for(lambda: not alive(server), timeout=EXIT_POLL, what="the tool server's end")
    os.close(terminal.fd)
    assert_partial_kept(database)


SPUN = """
import sys
from oncall_tui.cli import main
from oncall_tui.tui.screens.main import MainScreen

def spin() -> None:  # the loop taken and never given back, as a Textual timer once did
    while True:
        pass

mounted = MainScreen.on_mount

def on_mount(self) -> None:
    mounted(self)
    self.set_timer(1.0, spin)

MainScreen.on_mount = on_mount
sys.exit(main([]))
"""


def test_sigterm_ends_the_app_though_its_loop_never_comes_back(
    tmp_path: Path, ollama: FakeOllama
) -> None:
    """Found in tmux: the app's loop spun in a timer of Textual's with a negative delay
    (a toast shown the moment it expired), and SIGTERM, handled on that loop, was never
    acted on: only SIGKILL ended the process. (SIGHUP takes the same handler; a hang-up is
    not made here: this harness's reader holds the terminal open while the app is silent.)"""
    terminal = Terminal(
        environment(tmp_path / "oncall.db", ollama), argv=[sys.executable, "-c", SPUN]
    )
    with killed_at_the_end(terminal.pid):
        terminal.wait_to_show("Message")
        threading.Event().wait(1.5)  # the loop is spinning by now
        os.kill(terminal.pid, signal.SIGTERM)
        terminal.wait(timeout=EXIT_POLL)
    os.close(terminal.fd)


def test_closing_the_tool_servers_wakes_a_start_still_waiting_and_ends_the_server() -> None:
    silent = McpServer(name="ops", command=sys.executable, args=("-c", SILENT), allow=("x",))
    tools = McpTools([silent], timeout=3.0, result_chars=1000)
    before = set(children(os.getpid()))  # a process an earlier test left winding down
    starting = threading.Thread(target=tools.start, daemon=True)
    starting.start()
    wait_for(lambda: bool(set(children(os.getpid())) - before), what="the server's process")
    (server,) = [pid for pid in set(children(os.getpid())) - before if pid == os.getpgid(pid)]
    with killed_at_the_end(-server):
        tools.close()
        starting.join(timeout=EXIT_POLL)
        assert not starting.is_alive()  # start() returned: a thread waiting in it ends
        wait_for(lambda: not alive(server), timeout=EXIT_POLL, what="the server's end")
