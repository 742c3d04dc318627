"""The log file: private, rotated, at the level asked, and never holding what was said."""

from __future__ import annotations

import logging
import logging.handlers
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from oncall_tui.logs import configure_logging
from tests.conftest import RunCli, skill_text
from tests.fakes.ollama_server import FakeOllama, Reply


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_send_is_logged_without_any_of_its_text(
    cli: RunCli, server: FakeOllama, tmp_path: Path, private_log: Path
) -> None:
    folder = tmp_path / "skill"
    folder.mkdir()
    (folder / "SKILL.md").write_text(skill_text("triage", "Triage.", "SKILL-SECRET"), "utf-8")
    model = ("--ollama-url", server.url, "--model", "qwen3:8b")
    assert cli(*model, "skills", "add", str(folder)).code == 0
    assert cli(*model, "skills", "select", "triage").code == 0
    assert cli(*model, "prompts", "add", "--label", "P", "--content", "PROMPT-SECRET").code == 0
    server.script(Reply.tool_call("load_skill", {"skill_name": "triage"}), "REPLY-SECRET")
    assert cli(*model, "chat", "MESSAGE-SECRET").code == 0
    server.script(Reply("cut", drop_after=0))
    assert cli(*model, "chat", "--session", "1", "again").code == 4

    log = private_log.read_text(encoding="utf-8")
    assert "reply stored in session 1: complete, 1 tool calls" in log
    assert "reply stored in session 1: failed" not in log  # nothing arrived: nothing stored
    assert "the reply in session 1 failed: STREAM_FAILED" in log  # the model call, and why
    assert "SECRET" not in log
    assert mode(private_log) == 0o600
    assert mode(private_log.parent) == 0o700


def test_the_level_decides_what_is_recorded(cli: RunCli, private_log: Path) -> None:
    assert cli("--log-level", "warning", "sessions", "new").code == 0
    assert not private_log.exists() or "session 1 created" not in private_log.read_text()
    assert cli("--log-level", "debug", "sessions", "new").code == 0
    assert "session 2 created" in private_log.read_text()


def test_an_unknown_level_is_refused_through_the_catalog(
    cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ONCALL_TUI_LOG_LEVEL", "chatty")
    result = cli("sessions", "list", "--json")
    assert (result.code, result.error()["code"]) == (2, "VALIDATION_INVALID_ARGUMENT")
    assert "log level 'chatty' is not one of debug, info, warning, error" in result.err


def test_the_file_rotates_and_every_file_stays_private(tmp_path: Path) -> None:
    path = tmp_path / "logs" / "oncall-tui.log"
    configure_logging(path, "info")
    handler = logging.getLogger("oncall_tui").handlers[0]
    assert isinstance(handler, logging.handlers.RotatingFileHandler)
    handler.maxBytes = 200
    log = logging.getLogger("oncall_tui.test")
    for i in range(20):
        log.info("record %d of a rotating log", i)
    rotated = sorted(path.parent.iterdir())
    assert [p.name for p in rotated] == [
        "oncall-tui.log",
        "oncall-tui.log.1",
        "oncall-tui.log.2",
        "oncall-tui.log.3",
    ]
    assert {mode(p) for p in rotated} == {0o600}
    configure_logging(None, "info")


def test_an_unwritable_log_never_stops_the_app(tmp_path: Path) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    configure_logging(blocked / "oncall-tui.log", "info")
    logging.getLogger("oncall_tui.test").warning("dropped, quietly")
    assert isinstance(logging.getLogger("oncall_tui").handlers[0], logging.NullHandler)
    configure_logging(None, "info")


def logged_quietly(script: str, path: Path) -> str:
    """Run ``script`` (which logs to ``path``) in a process of its own; what it logged, once
    it has printed nothing on the terminal."""
    result = subprocess.run(
        [sys.executable, "-c", script, str(path)],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert result.stderr == ""
    return path.read_text(encoding="utf-8")


OTHER_LIBRARY_ERROR = """
import logging, sys
from pathlib import Path
from oncall_tui.logs import configure_logging

configure_logging(Path(sys.argv[1]), "info")
try:
    raise KeyboardInterrupt  # Ctrl-C as SQLAlchemy's pool closed a connection
except KeyboardInterrupt:
    pool = logging.getLogger("sqlalchemy.pool.impl.QueuePool")
    pool.error("Exception closing connection %r", "<connection>", exc_info=True)
chatty = logging.getLogger("httpx")
chatty.setLevel(logging.DEBUG)  # a library that sets its own logger lower
chatty.info("HTTP Request: GET http://127.0.0.1:9/api/version")
logging.getLogger("oncall_tui.cli").warning("the app's own record")
"""


def test_other_libraries_errors_go_to_the_log_file_never_to_the_terminal(tmp_path: Path) -> None:
    """With no handler of their own, Python printed them on stderr, traceback and all: on the
    TUI's screen, or after a Ctrl-C, as the start-up test caught once."""
    log = logged_quietly(OTHER_LIBRARY_ERROR, tmp_path / "logs" / "oncall-tui.log")
    assert "ERROR sqlalchemy.pool.impl.QueuePool: Exception closing connection" in log
    assert "KeyboardInterrupt" in log
    assert "HTTP Request" not in log  # another library's info: below what is kept of theirs
    assert log.count("the app's own record") == 1


FULL_DISK_LOG = """
import logging, resource, signal, sys
from pathlib import Path
from oncall_tui.logs import configure_logging

path = Path(sys.argv[1])
path.parent.mkdir(parents=True)
path.write_text("x" * 8192)  # past the limit below: the next line cannot be written
configure_logging(path, "info")
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
limit = resource.getrlimit(resource.RLIMIT_FSIZE)
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, limit[1]))  # EFBIG, as ENOSPC: a full disk
logging.getLogger("oncall_tui.services.chat").info("reply stored in session %s", 3)
logging.getLogger("sqlalchemy.pool").error("a library's error")
resource.setrlimit(resource.RLIMIT_FSIZE, limit)  # space again
logging.getLogger("oncall_tui.services.chat").info("reply stored in session %s", 4)
"""


def test_a_full_disk_under_the_log_prints_nothing_and_the_log_goes_on(tmp_path: Path) -> None:
    """Python's logging printed "--- Logging error ---" and a traceback on stderr for each
    record it could not write (found with a full tmpfs under the log, after a CLI chat)."""
    log = logged_quietly(FULL_DISK_LOG, tmp_path / "logs" / "oncall-tui.log")
    assert "reply stored in session 4" in log  # the log goes on once there is room
