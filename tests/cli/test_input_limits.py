"""Every input is read with its limit applied while reading: standard input, SKILL.md and
prompt files are read to at most their limit (and a little more, to tell "too long"), and a
path that is not a regular file (a named pipe, a device, a directory) is refused before it is
opened for a blocking read."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from oncall_tui.core.prompts import MAX_CONTENT_CHARS
from oncall_tui.core.skills import MAX_SKILL_BYTES
from oncall_tui.errors import OncallError
from oncall_tui.services.chat import MAX_MESSAGE_CHARS
from oncall_tui.services.skill_files import read_skill_file
from tests.conftest import CliResult, RunCli, skill_text
from tests.fakes.ollama_server import FakeOllama

MODEL = "qwen3:8b"
PROMPT_FILE_CAP = 4 * MAX_CONTENT_CHARS + 4
"""The bytes a prompt file may hold: the content's limit in UTF-8 and some whitespace."""


@pytest.fixture
def chat(cli: RunCli, ollama: FakeOllama) -> RunCli:
    def run(*args: str) -> CliResult:
        # A window large enough for a message at its limit: the reader, not the budget, decides.
        return cli("--ollama-url", ollama.url, "--model", MODEL, "--num-ctx", "1048576", *args)

    return run


class EndlessInput(io.RawIOBase):
    """Standard input that never ends (``yes``), counting the bytes taken from it."""

    def __init__(self, pattern: bytes = b"y\n") -> None:
        self.pattern = pattern
        self.taken = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]  # io passes one
        size = len(buffer)
        chunk = (self.pattern * (size // len(self.pattern) + 1))[:size]
        buffer[:size] = chunk
        self.taken += size
        return size


def stdin_of(raw: io.RawIOBase) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8")


def stdin_bytes(data: bytes) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")


@pytest.fixture
def fifo(tmp_path: Path) -> Iterator[Path]:
    """A named pipe nobody writes to. Should a reader block on it anyway, a guard opens and
    closes its writing end after a few seconds, so the reader sees end of file and the test
    fails instead of hanging."""
    path = tmp_path / "pipe" / "SKILL.md"
    path.parent.mkdir()
    os.mkfifo(path)
    stop = threading.Event()

    def guard() -> None:
        if stop.wait(5.0):
            return
        while not stop.is_set():
            with contextlib.suppress(OSError):  # ENXIO while no reader waits: nothing blocks
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
            time.sleep(0.05)

    thread = threading.Thread(target=guard, daemon=True)
    thread.start()
    yield path
    stop.set()
    thread.join()


# -- standard input: at most MAX_MESSAGE_CHARS characters -------------------------------------


def test_a_message_on_stdin_at_the_limit_is_sent(
    chat: RunCli, ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", stdin_bytes("é".encode() * MAX_MESSAGE_CHARS))
    ollama.script("ok")
    result = chat("chat", "--json", "-")
    assert result.code == 0, result.err
    assert ollama.chat_requests[-1]["messages"][-1]["content"] == "é" * MAX_MESSAGE_CHARS


def test_a_message_on_stdin_one_past_the_limit_is_refused_and_nothing_is_stored(
    chat: RunCli, ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", stdin_bytes(b"y" * (MAX_MESSAGE_CHARS + 1)))
    result = chat("chat", "--json", "-")
    assert (result.code, result.error()["reason"]) == (2, "stdin_too_long")
    assert f"more than {MAX_MESSAGE_CHARS:,} characters" in result.error()["message"]
    assert "(tail -n 300)" in result.error()["message"]  # what to send instead
    assert ollama.chat_requests == []
    assert chat("sessions", "list", "--json").json() == []


def test_endless_stdin_is_read_only_to_the_limit(
    chat: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    endless = EndlessInput()
    monkeypatch.setattr(sys, "stdin", stdin_of(endless))
    result = chat("chat", "-")
    assert result.code == 2
    assert "standard input holds more than" in result.err
    assert endless.taken <= MAX_MESSAGE_CHARS + 1 + 2 * io.DEFAULT_BUFFER_SIZE


def test_a_text_stream_without_bytes_is_read_to_the_limit_too(
    chat: RunCli, ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("x" * (MAX_MESSAGE_CHARS + 5)))
    result = chat("chat", "--json", "-")
    assert (result.code, result.error()["reason"]) == (2, "stdin_too_long")


def test_invalid_utf8_on_stdin_is_a_catalog_error(
    chat: RunCli, ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", stdin_bytes(b"disk \xff full"))
    result = chat("chat", "--json", "-")
    assert (result.code, result.error()["reason"]) == (2, "stdin_not_utf8")
    assert "byte 5" in result.error()["message"]
    assert ollama.chat_requests == []


def test_yes_piped_into_chat_stops_at_the_limit(tmp_path: Path) -> None:
    """``yes | oncall-tui chat -``: a real process with a real endless pipe."""
    env = {**os.environ, "ONCALL_TUI_DB": str(tmp_path / "o.db"), "ONCALL_TUI_USER": "alice"}
    env["LANG"] = "C"
    yes = subprocess.Popen(["yes"], stdout=subprocess.PIPE)
    try:
        result = subprocess.run(
            [sys.executable, "-m", "oncall_tui", "--ollama-url", "127.0.0.1:9", "chat", "-"],
            stdin=yes.stdout,
            capture_output=True,
            env=env,
            timeout=30,
        )
    finally:
        yes.kill()
        yes.wait()
    assert result.returncode == 2, result.stderr
    assert result.stderr.decode().startswith("oncall-tui: Invalid argument: standard input holds")
    assert b"Traceback" not in result.stderr


# -- SKILL.md: at most MAX_SKILL_BYTES bytes, a regular file ----------------------------------


def skill_of_size(size: int) -> bytes:
    head = skill_text("sized", "Exactly sized.").encode()
    return head + b"x" * (size - len(head))


def test_a_skill_file_at_the_byte_limit_is_added(cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    path.write_bytes(skill_of_size(MAX_SKILL_BYTES))
    result = cli("skills", "add", str(path), "--json")
    assert result.code == 0, result.err
    assert result.json_object()["size_bytes"] == MAX_SKILL_BYTES


def test_a_skill_file_one_byte_past_the_limit_is_refused(cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    path.write_bytes(skill_of_size(MAX_SKILL_BYTES + 1))
    result = cli("skills", "add", str(path), "--json")
    assert (result.code, result.error()["reason"]) == (2, "skill_too_large")
    assert f"the file is {MAX_SKILL_BYTES + 1:,} bytes" in result.error()["message"]


def test_a_huge_skill_file_is_refused_with_its_size_without_being_read(
    cli: RunCli, tmp_path: Path
) -> None:
    path = tmp_path / "SKILL.md"
    with path.open("wb") as handle:
        handle.truncate(400_000_000)  # sparse: no disk used
    tracemalloc.start()
    try:
        result = cli("skills", "add", str(path), "--json")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (result.code, result.error()["reason"]) == (2, "skill_too_large")
    assert "the file is 400,000,000 bytes" in result.error()["message"]
    assert peak < 20_000_000


def test_a_skill_file_linked_to_dev_zero_is_refused(cli: RunCli, tmp_path: Path) -> None:
    folder = tmp_path / "zero"
    folder.mkdir()
    (folder / "SKILL.md").symlink_to("/dev/zero")
    for target in (folder, folder / "SKILL.md"):
        result = cli("skills", "add", str(target), "--json")
        assert (result.code, result.error()["reason"]) == (2, "not_regular_file")
        assert f"'{folder / 'SKILL.md'}' is not a regular file" in result.error()["message"]
    assert cli("skills", "list", "--json").json() == []


def test_a_named_pipe_given_as_skill_md_is_refused_at_once(cli: RunCli, fifo: Path) -> None:
    result = cli("skills", "add", str(fifo), "--json")
    assert (result.code, result.error()["reason"]) == (2, "not_regular_file")
    assert str(fifo) in result.error()["message"]


def test_a_directory_named_skill_md_is_refused(cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").mkdir()
    result = cli("skills", "add", str(tmp_path), "--json")
    assert (result.code, result.error()["reason"]) == (2, "not_regular_file")
    assert str(tmp_path / "SKILL.md") in result.error()["message"]


def test_the_tui_refuses_a_named_pipe_typed_as_the_skill_path(fifo: Path) -> None:
    with pytest.raises(OncallError) as caught:
        read_skill_file(str(fifo))
    assert caught.value.reason == "not_regular_file"
    assert str(fifo) in caught.value.message("en")


def test_the_tui_refuses_a_skill_linked_to_dev_zero(tmp_path: Path) -> None:
    (tmp_path / "SKILL.md").symlink_to("/dev/zero")
    with pytest.raises(OncallError) as caught:
        read_skill_file(str(tmp_path))
    assert caught.value.reason == "not_regular_file"


def test_the_tui_reads_a_skill_at_the_limit_and_refuses_one_past_it(tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    path.write_bytes(skill_of_size(MAX_SKILL_BYTES))
    assert read_skill_file(str(path)) == ("SKILL.md", skill_of_size(MAX_SKILL_BYTES))
    path.write_bytes(skill_of_size(MAX_SKILL_BYTES + 1))
    with pytest.raises(OncallError, match=f"the file is {MAX_SKILL_BYTES + 1:,} bytes"):
        read_skill_file(str(path))


# -- prompt files: the content's limit, with room for whitespace ------------------------------


def test_a_prompt_file_at_the_limit_with_surrounding_whitespace_is_accepted(
    cli: RunCli, tmp_path: Path
) -> None:
    path = tmp_path / "prompt.txt"
    content = "é" * MAX_CONTENT_CHARS
    padding = PROMPT_FILE_CAP - len(content.encode())
    path.write_bytes(b"\n" * (padding // 2) + content.encode() + b" " * (padding - padding // 2))
    assert path.stat().st_size == PROMPT_FILE_CAP
    result = cli("prompts", "add", "--label", "big", "--file", str(path), "--json")
    assert result.code == 0, result.err
    assert result.json_object()["content"] == content


def test_a_prompt_file_one_character_past_the_limit_reports_its_exact_length(
    cli: RunCli, tmp_path: Path
) -> None:
    path = tmp_path / "prompt.txt"
    path.write_text("  " + "x" * (MAX_CONTENT_CHARS + 1) + "\n", encoding="utf-8")
    result = cli("prompts", "add", "--label", "big", "--file", str(path), "--json")
    assert (result.code, result.error()["reason"]) == (2, "prompt_content_length")
    assert f"(got {MAX_CONTENT_CHARS + 1:,})" in result.error()["message"]


def test_a_prompt_file_one_byte_past_the_cap_is_refused_unread(cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "prompt.txt"
    path.write_bytes(b"x" + b" " * PROMPT_FILE_CAP)
    result = cli("prompts", "add", "--label", "big", "--file", str(path), "--json")
    assert (result.code, result.error()["reason"]) == (2, "file_too_large")
    assert f"'{path}' is larger than {PROMPT_FILE_CAP:,} bytes" in result.error()["message"]
    assert len(cli("prompts", "list", "--json").json_list()) == 1


def test_a_prompt_piped_with_file_dash_is_stored_up_to_its_limit(
    cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cat prompt.md | oncall-tui prompts add --file -` said "cannot read '-' (no such
    file)"; standard input is read as a file is, at the content's limit and one past it."""
    content = "é" * MAX_CONTENT_CHARS
    monkeypatch.setattr(sys, "stdin", stdin_bytes(content.encode() + b"\n"))
    result = cli("prompts", "add", "--label", "piped", "--file", "-", "--json")
    assert result.code == 0, result.err
    assert result.json_object()["content"] == content
    monkeypatch.setattr(sys, "stdin", stdin_bytes(b"x" * (MAX_CONTENT_CHARS + 1)))
    longer = cli("prompts", "add", "--label", "piped", "--file", "-", "--json")
    assert (longer.code, longer.error()["reason"]) == (2, "prompt_content_length")
    monkeypatch.setattr(sys, "stdin", stdin_bytes(b"x" + b" " * PROMPT_FILE_CAP))
    endless = cli("prompts", "add", "--label", "piped", "--file", "-", "--json")
    assert (endless.code, endless.error()["reason"]) == (2, "stdin_too_long")
    assert len(cli("prompts", "list", "--json").json_list()) == 2


def test_a_huge_prompt_file_is_not_read_whole(cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "prompt.txt"
    with path.open("wb") as handle:
        handle.truncate(400_000_000)
    tracemalloc.start()
    try:
        result = cli("prompts", "add", "--label", "big", "--file", str(path), "--json")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (result.code, result.error()["reason"]) == (2, "file_too_large")
    assert peak < 20_000_000


@pytest.mark.parametrize("action", ["add", "edit"])
def test_a_named_pipe_given_as_prompt_file_is_refused_at_once(
    cli: RunCli, fifo: Path, action: str
) -> None:
    target = ("add", "--label", "x") if action == "add" else ("edit", "1")
    result = cli("prompts", *target, "--file", str(fifo), "--json")
    assert (result.code, result.error()["reason"]) == (2, "not_regular_file")
    assert str(fifo) in result.error()["message"]


def test_a_directory_given_as_prompt_file_is_refused(cli: RunCli, tmp_path: Path) -> None:
    result = cli("prompts", "add", "--label", "x", "--file", str(tmp_path), "--json")
    assert (result.code, result.error()["reason"]) == (2, "not_regular_file")
    assert str(tmp_path) in result.error()["message"]


def test_a_prompt_file_that_is_not_utf8_is_refused(cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "prompt.txt"
    path.write_bytes(b"be \xff terse")
    result = cli("prompts", "add", "--label", "x", "--file", str(path), "--json")
    assert (result.code, result.error()["reason"]) == (2, "unreadable_file")
    assert "not UTF-8" in result.error()["message"]
