"""An error the app or a command did not expect (a defect of its own) ends it as an error it
expects would: said in one line, masked, with no traceback (Textual's shows every frame's
variables, a message's text among them), exit status 1; in the TUI the reply so far and what
was being typed are kept. The TUI is a real process in a pseudo-terminal, the defect put in by
the test."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from rich.console import Console
from rich.traceback import Traceback

from oncall_tui.services.container import Services
from oncall_tui.services.sessions import SessionService
from oncall_tui.settings import Settings
from oncall_tui.tui.exit_deadline import Defect
from tests.cli.test_signals import SLOW, environment
from tests.conftest import RunCli
from tests.fakes.ollama_server import FakeOllama
from tests.terminal import Terminal, wait_for
from tests.tui.test_drafts_tui import draft_file

DEFECT = """
import sys
from oncall_tui.entry import main
from oncall_tui.tui.chat_log import markdown

drawn = markdown.MarkdownLines._render

def render(self, app, text, *, after):
    if "three" in text:
        raise ValueError("password=hunter2 at " + text.strip())
    return drawn(self, app, text, after=after)

markdown.MarkdownLines._render = render
sys.exit(main())
"""
"""The app, with drawing a reply that has reached "three" raising an error it does not expect."""


def test_a_defect_is_said_in_one_masked_line_and_the_reply_and_the_draft_are_kept(
    tmp_path: Path, ollama: FakeOllama
) -> None:
    ollama.script(SLOW)
    database, log = tmp_path / "oncall.db", tmp_path / "oncall-tui.log"
    env = {
        **environment(database, ollama),
        "ONCALL_TUI_LOG_FILE": str(log),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    terminal = Terminal(env, argv=[sys.executable, "-c", DEFECT])
    terminal.wait_to_show("Enter sends")
    terminal.write("count slowly\r")
    wait_for(lambda: b"one" in terminal.output, what=repr(terminal.rows()))
    terminal.write("half typed")
    status = terminal.wait()
    assert os.waitstatus_to_exitcode(status) == 1
    after = terminal.output.decode(errors="replace").rpartition("\x1b[?1049l")[2]  # the app gone
    assert "a defect: ValueError: password=*** at one two" in after
    assert "hunter2" not in after
    assert "Traceback" not in after
    assert "line_count" not in after  # no frame of it, nor its variables
    logged = log.read_text()
    assert "the app ended on an error it did not expect: ValueError at" in logged
    assert "markdown.py" in logged  # where it happened, for the report
    assert "hunter2" not in logged
    assert draft_file(settings_at(tmp_path, database)).read_text() == "half typed"
    services = Services(settings_at(tmp_path, database))
    try:
        (session,) = services.sessions.list_sessions("alice")
        _, reply = services.sessions.messages("alice", session.id)
        assert reply.status == "interrupted"
        assert reply.content.startswith("one two")
    finally:
        services.close()


def settings_at(tmp_path: Path, database: Path) -> Settings:
    """The settings the app had: its data (the draft) where ``XDG_DATA_HOME`` put it."""
    return Settings(db_path=database, user="alice", spool_dir=tmp_path / "data/oncall-tui/spool")


def test_the_words_of_an_error_wrapped_over_lines_are_said_whole_and_without_colours() -> None:
    """Textual writes the traceback at the terminal's width, in its colours."""
    defect = Defect()
    console = Console(width=60, force_terminal=True, color_system="truecolor")
    defect.capture(console)
    words = "the chat log could not draw line 263 of a reply " * 3
    try:
        raise ValueError(words.strip())
    except ValueError:
        console.print(Traceback(show_locals=True, width=60))
    assert "\x1b[" in console.file.getvalue()  # type: ignore[attr-defined]
    assert defect.error == f"ValueError: {words.strip()}"


def test_an_app_that_ended_well_has_no_defect() -> None:
    assert Defect().error is None


def test_a_command_that_meets_a_defect_says_it_in_one_masked_line_and_exits_1(
    cli: RunCli, monkeypatch: pytest.MonkeyPatch, private_log: Path
) -> None:
    """Python's own traceback said the error's words unmasked (a database URL, a message)."""

    def broken(self: object, owner: str) -> list[object]:
        raise KeyError("postgresql://ops:hunter2@db/oncall")

    monkeypatch.setattr(SessionService, "list_sessions", broken)
    result = cli("sessions", "list")
    assert result.code == 1
    assert result.err.startswith("oncall-tui stopped on an error of its own, a defect: KeyError:")
    assert "ops:***@db" in result.err
    assert "hunter2" not in result.err
    assert "Traceback" not in result.err
    assert len(result.err.splitlines()) == 1
    logged = private_log.read_text()
    assert "the command ended on an error it did not expect: KeyError at" in logged
    assert "in broken" in logged  # where it happened, for the report
    assert "hunter2" not in logged


def test_a_defect_under_json_is_one_json_error_document(
    cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A script reading ``--json``'s error from stderr got a line of text on a defect."""

    def broken(self: object, owner: str) -> list[object]:
        raise KeyError("postgresql://ops:hunter2@db/oncall")

    monkeypatch.setattr(SessionService, "list_sessions", broken)
    result = cli("--json", "sessions", "list")
    assert (result.code, result.out) == (1, "")
    assert len(result.err.splitlines()) == 1
    error = result.error()
    assert error["code"] == "DEFECT"
    assert error["message"].startswith("oncall-tui stopped on an error of its own, a defect:")
    assert "ops:***@db" in error["message"]
    assert "hunter2" not in result.err
    assert error["reason"] is None
