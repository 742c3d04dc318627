"""``kubectl logs … | oncall-tui chat "why"``: a pipe or a file on standard input is part of
the message, as ``ollama run`` takes it; a terminal or ``/dev/null`` is not read. Real pipes
and files here, since what decides is what the descriptor is."""

from __future__ import annotations

import io
import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TextIO

import pytest

from oncall_tui.cli import chat_input
from oncall_tui.services.chat import MAX_MESSAGE_CHARS
from tests.conftest import CliResult, RunCli
from tests.fakes.ollama_server import FakeOllama

MODEL = "qwen3:8b"
LOG = "02:51 ERROR checkout-api upstream 502\n02:52 ERROR pool=10/10\n"


@pytest.fixture
def chat(cli: RunCli, ollama: FakeOllama) -> RunCli:
    def run(*args: str) -> CliResult:
        ollama.script("ok")
        return cli("--ollama-url", ollama.url, "--model", MODEL, "--num-ctx", "1048576", *args)

    return run


def sent(ollama: FakeOllama) -> str:
    content = ollama.chat_requests[-1]["messages"][-1]["content"]
    assert isinstance(content, str)
    return content


@pytest.fixture
def pipe_in(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Put a real pipe on standard input; a thread writes ``data`` (after ``delay`` seconds)
    and closes it (``hold`` seconds after writing it)."""
    threads: list[threading.Thread] = []
    streams: list[TextIO] = []

    def put(data: bytes, delay: float = 0.0, hold: float = 0.0) -> None:
        read_end, write_end = os.pipe()

        def write() -> None:
            threading.Event().wait(delay)
            with os.fdopen(write_end, "wb") as writer:
                writer.write(data)
                writer.flush()
                threading.Event().wait(hold)

        thread = threading.Thread(target=write, daemon=True)
        thread.start()
        threads.append(thread)
        stream = io.TextIOWrapper(os.fdopen(read_end, "rb"), encoding="utf-8")
        streams.append(stream)
        monkeypatch.setattr(sys, "stdin", stream)

    yield put
    for thread in threads:
        thread.join(5)
    for stream in streams:
        stream.close()


def test_a_piped_log_follows_the_question_a_blank_line_apart(
    chat: RunCli, ollama: FakeOllama, pipe_in: Callable[..., None]
) -> None:
    pipe_in(LOG.encode())
    result = chat("chat", "why", "is", "it", "failing?")
    assert result.code == 0, result.err
    assert sent(ollama) == "why is it failing?\n\n" + LOG.rstrip("\n")
    assert "[standard input sent after your words: 2 lines]" in result.err
    titles = [s["title"] for s in chat("sessions", "list", "--json").json_list()]
    assert titles == ["why is it failing?"]  # the question names the session


def test_a_log_piped_in_colour_is_sent_without_its_colour_codes(
    chat: RunCli, ollama: FakeOllama, pipe_in: Callable[..., None]
) -> None:
    """``kubectl logs`` of an app that forces colour, piped in: the model gets the words."""
    pipe_in(b"\x1b[31m02:51 ERROR\x1b[0m checkout-api upstream 502\n")
    result = chat("chat", "why?", "-")
    assert result.code == 0, result.err
    assert sent(ollama) == "why?\n\n02:51 ERROR checkout-api upstream 502"
    (shown,) = chat("sessions", "show", "1", "--json").json_object()["messages"][:1]
    assert "\x1b" not in shown["content"]


def test_a_file_on_stdin_is_read_and_dev_null_is_not(
    chat: RunCli, ollama: FakeOllama, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "app.log"
    log.write_text(LOG, encoding="utf-8")
    with log.open(encoding="utf-8") as stream:
        monkeypatch.setattr(sys, "stdin", stream)
        assert chat("chat", "why").code == 0
    assert sent(ollama) == "why\n\n" + LOG.rstrip("\n")
    with open(os.devnull, encoding="utf-8") as stream:
        monkeypatch.setattr(sys, "stdin", stream)
        assert chat("chat", "why").code == 0
        assert sent(ollama) == "why"
        result = chat("chat", "--json")
    assert (result.code, result.error()["code"]) == (2, "VALIDATION_INVALID_ARGUMENT")
    assert "the message is empty" in result.error()["message"]


def test_a_file_another_reader_has_begun_is_left_alone(
    chat: RunCli, ollama: FakeOllama, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``while read q; do oncall-tui chat "$q"; done < questions``: the shell's ``read`` leaves
    the file's offset after the line it took. Reading the rest would send every question after
    it with the first, and end the loop."""
    questions = tmp_path / "questions"
    questions.write_text("why 502s?\nwhy slow?\n", encoding="utf-8")
    descriptor = os.open(questions, os.O_RDONLY)
    os.lseek(descriptor, len("why 502s?\n"), os.SEEK_SET)
    with io.TextIOWrapper(os.fdopen(descriptor, "rb"), encoding="utf-8") as stream:
        monkeypatch.setattr(sys, "stdin", stream)
        assert chat("chat", "why 502s?").code == 0
        assert os.lseek(descriptor, 0, os.SEEK_CUR) == len("why 502s?\n")
    assert sent(ollama) == "why 502s?"


def test_a_dash_puts_the_input_where_it_stands(
    chat: RunCli, ollama: FakeOllama, pipe_in: Callable[..., None]
) -> None:
    pipe_in(LOG.encode())
    assert chat("chat", "these", "lines:", "-", "what", "broke?").code == 0
    assert sent(ollama) == "these lines:\n\n" + LOG.rstrip("\n") + "\n\nwhat broke?"
    pipe_in(LOG.encode())
    alone = chat("chat", "-")
    assert alone.code == 0
    assert sent(ollama) == LOG  # alone, exactly as given
    assert "standard input" not in alone.err  # asked for: nothing to point out


def test_two_dashes_are_refused_before_anything_is_read_or_sent(
    chat: RunCli, ollama: FakeOllama, pipe_in: Callable[..., None]
) -> None:
    pipe_in(LOG.encode())
    result = chat("chat", "--json", "-", "and", "-")
    assert (result.code, result.error()["code"]) == (2, "VALIDATION_INVALID_ARGUMENT")
    assert "one - at most" in result.error()["message"]
    assert ollama.chat_requests == []
    assert sys.stdin.read() == LOG  # nothing taken from it


def test_an_empty_pipe_leaves_the_words_and_alone_is_an_empty_message(
    chat: RunCli, ollama: FakeOllama, pipe_in: Callable[..., None]
) -> None:
    pipe_in(b"\n")
    result = chat("chat", "why")
    assert result.code == 0
    assert sent(ollama) == "why"
    assert "standard input" not in result.err
    pipe_in(b"one line, no newline")
    assert "sent after your words: one line]" in chat("chat", "why").err
    pipe_in(b"")
    result = chat("chat", "--json")
    assert (result.code, result.error()["code"]) == (2, "VALIDATION_INVALID_ARGUMENT")


def test_words_and_input_at_the_limit_are_sent_and_one_past_it_refused(
    chat: RunCli, ollama: FakeOllama, pipe_in: Callable[..., None]
) -> None:
    room = MAX_MESSAGE_CHARS - len("why\n\n")
    pipe_in(b"x" * room)
    assert chat("chat", "why").code == 0
    assert len(sent(ollama)) == MAX_MESSAGE_CHARS
    requests = len(ollama.chat_requests)
    pipe_in(b"x" * (room + 1))
    result = chat("chat", "--json", "why")
    assert (result.code, result.error()["code"]) == (2, "VALIDATION_INVALID_ARGUMENT")
    limit, length = f"{MAX_MESSAGE_CHARS:,}", f"{MAX_MESSAGE_CHARS + 1:,}"
    assert f"at most {limit} characters (got {length})" in result.error()["message"]
    assert len(ollama.chat_requests) == requests


def test_a_pipe_that_stays_silent_is_said_to_be_read(
    chat: RunCli, ollama: FakeOllama, pipe_in: Callable[..., None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``ssh host oncall-tui chat …`` without ``-n``: standard input is a pipe that ends only
    with ctrl+d. The chat says what it waits for instead of hanging unexplained."""
    monkeypatch.setattr(chat_input, "STDIN_HINT_SECONDS", 0.05)
    pipe_in(LOG.encode(), delay=0.5)
    result = chat("chat", "why")
    assert result.code == 0, result.err
    assert "Reading the message's text from standard input (a pipe); ctrl+d ends it" in result.err
    assert sent(ollama) == "why\n\n" + LOG.rstrip("\n")
    pipe_in(LOG.encode())
    assert "Reading the message" not in chat("chat", "why").err  # a prompt pipe: not said


def test_a_pipe_that_goes_silent_before_its_end_says_how_many_lines_came(
    chat: RunCli, ollama: FakeOllama, pipe_in: Callable[..., None], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Found with ``(echo ERROR; sleep 30) | oncall-tui chat why``, as ``kubectl logs -f``
    does: the lines came, the pipe did not end, and the terminal stayed blank. It says what it
    waits for, and what gives up."""
    monkeypatch.setattr(chat_input, "STDIN_HINT_SECONDS", 0.05)
    pipe_in(LOG.encode(), hold=0.5)
    result = chat("chat", "why")
    assert result.code == 0, result.err
    lines = len(LOG.splitlines())
    assert f"Standard input has not ended ({lines} lines so far)" in result.err
    assert "ctrl+c gives up and sends nothing" in result.err
    assert "Reading the message" not in result.err
    assert sent(ollama) == "why\n\n" + LOG.rstrip("\n")
    pipe_in(b"one line\n", hold=0.5)
    assert "(one line so far)" in chat("chat", "why").err
    pipe_in(LOG.encode())
    assert "has not ended" not in chat("chat", "why").err  # it ended at once: not said


@pytest.mark.parametrize("as_json", [False, True])
def test_a_message_typed_in_a_terminal_is_asked_for_and_ends_at_the_first_ctrl_d(
    chat: RunCli, ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch, as_json: bool
) -> None:
    """``oncall-tui chat -`` in a terminal sat silent, and the ctrl+d that ends ``cat``'s input
    did not end it: a terminal's ctrl+d is one empty read, which a buffered read took as the
    end of that call only; the next waited for a second ctrl+d. A real terminal (a pty in
    canonical mode) types two lines, ctrl+d, and what follows it (never read)."""
    master, terminal = os.openpty()
    try:
        os.write(master, b"fast line one\nline two\n\x04after\n\x04\x04")
        stream = io.TextIOWrapper(os.fdopen(terminal, "rb"), encoding="utf-8")
        monkeypatch.setattr(sys, "stdin", stream)
        result = chat("chat", "-", *(["--json"] if as_json else []))
        stream.close()
    finally:
        os.close(master)
    assert result.code == 0, result.err
    assert sent(ollama) == "fast line one\nline two\n"
    asked = "Type the message; ctrl+d on a line of its own sends it"
    assert (asked in result.err) is not as_json
