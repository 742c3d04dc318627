"""A database the TUI cannot open ends it with the catalog message and exit status 2, as
the CLI does, and the file is left as it was. Run in a real pseudo-terminal."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.terminal import Terminal


@pytest.mark.parametrize("kind", ["not a database", "a directory"])
def test_a_database_that_cannot_be_opened_ends_the_tui_with_status_2(
    tmp_path: Path, kind: str
) -> None:
    target = tmp_path / "oncall.db"
    if kind == "a directory":
        target.mkdir()
    else:
        target.write_bytes(b"these are not the pages of a SQLite database\n" * 100)
    before = target.stat()
    env = {
        **os.environ,
        "ONCALL_TUI_DB": str(target),
        "ONCALL_TUI_USER": "alice",
        "OLLAMA_HOST": "http://127.0.0.1:9",
        "LANG": "C.UTF-8",
        "TERM": "xterm-256color",
    }
    terminal = Terminal(env)
    status = os.waitstatus_to_exitcode(terminal.wait())
    output = terminal.output.decode(errors="replace")
    assert status == 2, output[-2000:]
    assert f"oncall-tui: Cannot use the database at {target}" in output
    assert "Traceback" not in output
    after = target.stat()
    assert (after.st_mode, after.st_size, after.st_mtime_ns) == (
        before.st_mode,
        before.st_size,
        before.st_mtime_ns,
    )
