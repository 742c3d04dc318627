"""Keys written in one write to the app's terminal, as they were found going astray: each goes
where the key before it led, and editing keys apply in order with the characters around them.

The app runs in a pseudo-terminal (``tests/terminal.py``), in the test's own directory (an
export lands there), on the loopback Ollama.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from oncall_tui.services.container import Services
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from oncall_tui.tui.widgets.dialogs import READ_SECONDS
from tests.conftest import make_settings
from tests.fakes.ollama_server import FakeOllama
from tests.terminal import Terminal, wait_for

ROOT = Path(__file__).resolve().parents[2]
"""This checkout: the app in the terminal is its code, whatever directory it runs in."""
ALT_L, ALT_S, ALT_P, CTRL_N, CTRL_S = "\x1bl", "\x1bs", "\x1bp", "\x0e", "\x13"
BACKSPACE = "\x7f"


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        yield fake


@pytest.fixture
def start(
    tmp_path: Path, ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[], Terminal]]:
    monkeypatch.chdir(tmp_path)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "ONCALL_TUI_DB": str(tmp_path / "oncall.db"),
        "ONCALL_TUI_USER": "alice",
        "OLLAMA_HOST": ollama.url,
        "ONCALL_TUI_MODEL": "qwen3:8b",
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
    }
    started: list[Terminal] = []

    def run() -> Terminal:
        terminal = Terminal(env)
        started.append(terminal)
        terminal.wait_to_show("Ollama 0.")
        return terminal

    yield run
    for terminal in started:
        terminal.quit()


def services(tmp_path: Path) -> Services:
    return Services(make_settings(tmp_path / "oncall.db"))


def seed(tmp_path: Path, title: str, question: str) -> None:
    """A session of one question, written before the app starts."""
    store = services(tmp_path)
    try:
        with store.database.session() as session:
            chat = SessionRepository(session).create("alice", title, "every_30_turns")
            MessageRepository(session).add(chat, "user", question)
            SessionRepository(session).save(chat)
    finally:
        store.close()


def user_messages(tmp_path: Path) -> list[str]:
    store = services(tmp_path)
    try:
        return [
            message.content
            for session in store.sessions.list_sessions("alice")
            for message in store.sessions.messages("alice", session.id)
            if message.role == "user"
        ]
    finally:
        store.close()


def test_alt_l_then_a_title_and_enter_open_that_session_and_send_nothing(
    start: Callable[[], Terminal], tmp_path: Path, ollama: FakeOllama
) -> None:
    seed(tmp_path, "long incident", "why so slow")
    seed(tmp_path, "other", "df -h")
    terminal = start()
    terminal.wait_to_show("long incident")  # listed
    terminal.write(f"{ALT_L}long\rnext")  # as found: "long" was sent to the model
    terminal.wait_to_show("why so slow")  # the session found is open
    terminal.wait_to_show("next")
    assert sorted(user_messages(tmp_path)) == ["df -h", "why so slow"]
    assert ollama.chat_requests == []


def test_keys_behind_alt_s_go_to_the_skill_path(start: Callable[[], Terminal]) -> None:
    terminal = start()
    terminal.write(f"{ALT_S}~/skills/disk-full")
    terminal.wait_to_show("Skills · 0 stored")  # the library, over the whole screen
    terminal.wait_to_show("~/skills/disk-full")  # so in its path field


def test_keys_behind_ctrl_n_in_the_prompt_editor_name_the_new_prompt(
    start: Callable[[], Terminal],
) -> None:
    terminal = start()
    terminal.write(ALT_P)
    terminal.wait_to_show("(default)")
    terminal.write(f"{CTRL_N}disk full triage")
    terminal.wait_to_show("label 16/160")  # in the new prompt's label, not its content
    assert terminal.shows("disk full triage")
    assert terminal.shows("New prompt")
    terminal.write("\x1b")  # leaving (as quitting) asks about the prompt not saved
    terminal.wait_to_show("Unsaved changes")

    def discarded() -> bool:
        """As a person does: read, press d; pressed too soon (a bell), press it again."""
        time.sleep(READ_SECONDS)
        if terminal.shows("Unsaved changes"):
            terminal.write("d")
        return terminal.shows("Enter sends")

    wait_for(discarded, what="the new prompt discarded")


def test_backspaces_and_a_new_ending_in_one_write_export_json(
    start: Callable[[], Terminal], tmp_path: Path
) -> None:
    seed(tmp_path, "disk full on db-3", "df -h says 100%")
    terminal = start()
    terminal.wait_to_show("df -h says 100%")
    terminal.write(f"{CTRL_S}{BACKSPACE}{BACKSPACE}json\r")  # as found: `….mdjs`
    wait_for(lambda: any(tmp_path.glob("oncall-session-*")), what="the export written")
    (written,) = tmp_path.glob("oncall-session-*")
    assert written.suffix == ".json"
    terminal.wait_to_show("Exported to")
