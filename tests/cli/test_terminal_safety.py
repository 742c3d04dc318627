"""Text from the database or a model never reaches the terminal as control sequences: every
human (non-JSON) output of the CLI shows control characters as visible placeholders
(``ESC`` → ``␛``, ``BEL`` → ``␇``, a C1 control → U+FFFD), and JSON output stays exact."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from oncall_tui.core.text import terminal_safe
from tests.conftest import RunCli
from tests.fakes.ollama_server import FakeOllama

MODEL = "qwen3:8b"
OSC52 = "\x1b]52;c;SGVsbG8=\x07"
"""A clipboard write: what a terminal would do with it is the attack."""
RED = "\x1b[31m"
C1 = "\x9b2J"
"""A single-byte CSI (clear the screen), which some terminals honour too."""
HOSTILE = f"{OSC52}{RED}{C1}\r"
SHOWN = "␛]52;c;SGVsbG8=␇␛[31m\ufffd2J␍"
CONTROLS = {chr(c) for c in range(0x20) if chr(c) not in "\n\t"} | {
    chr(c) for c in range(0x7F, 0xA0)
}


def assert_safe(text: str) -> None:
    leaked = sorted({repr(c) for c in text if c in CONTROLS})
    assert leaked == [], f"control characters printed: {leaked}"


@pytest.fixture
def stored(cli: RunCli, db_path: Path, tmp_path: Path) -> RunCli:
    """A database whose every user-visible text holds escape sequences: a skill (name,
    description, body), a prompt (label, content), a session (title, messages, summary)."""
    skill = tmp_path / "SKILL.md"
    skill.write_text(
        '---\nname: hostile\ndescription: "d \\e]52;c;SGVsbG8=\\a\\e[31m\\x9b2J\\r"\n---\n'
        f"# Body {HOSTILE}\n",
        encoding="utf-8",
    )
    assert cli("skills", "add", str(skill)).code == 0
    assert cli("skills", "select", "hostile").code == 0
    assert cli("prompts", "add", "--label", f"l {HOSTILE}", "--content", f"c {HOSTILE}").code == 0
    assert cli("config", "set", "--prompt", "2").code == 0
    assert cli("sessions", "new", "--title", "placeholder").code == 0
    with sqlite3.connect(db_path) as connection:
        connection.execute("UPDATE skill SET name = ?", (f"n{HOSTILE}",))
        connection.execute(
            "UPDATE chat_session SET title = ?, memory_summary = ?, last_compacted_at = "
            "CURRENT_TIMESTAMP",
            (f"t {HOSTILE}", f"s {HOSTILE}"),
        )
        connection.execute(
            "INSERT INTO message (session_id, position, role, content, status, created_at)"
            " VALUES (1, 0, 'user', ?, 'complete', CURRENT_TIMESTAMP)",
            (f"m {HOSTILE}",),
        )
    return cli


@pytest.mark.parametrize(
    "args",
    [
        ("skills", "list"),
        ("skills", "show", "1"),
        ("prompts", "list"),
        ("prompts", "edit", "2", "--label", f"l {HOSTILE}"),
        ("config", "show"),
        ("sessions", "list"),
        ("sessions", "show", "1"),
        ("memory", "show", "1"),
    ],
)
def test_human_output_shows_control_characters_as_placeholders(
    stored: RunCli, args: tuple[str, ...]
) -> None:
    result = stored(*args)
    assert result.code == 0, result.err
    assert_safe(result.out)
    assert_safe(result.err)
    assert "␛" in result.out


def test_the_skill_listing_shows_the_sequence_visibly(stored: RunCli) -> None:
    out = stored("skills", "list").out
    assert "␛]52;c;SGVsbG8=␇␛[31m" in out
    assert f"n{SHOWN}" in out


@pytest.mark.parametrize(
    "args",
    [("skills", "list"), ("prompts", "list"), ("sessions", "show", "1"), ("memory", "show", "1")],
)
def test_json_output_is_exact(stored: RunCli, args: tuple[str, ...]) -> None:
    result = stored(*args, "--json")
    assert result.code == 0
    assert "\x1b" not in result.out  # JSON escapes it: \u001b
    assert any(f"{OSC52}{RED}{C1}" in value for value in strings(result.json()))


def strings(document: object) -> Iterator[str]:
    if isinstance(document, str):
        yield document
    elif isinstance(document, dict):
        for value in document.values():
            yield from strings(value)
    elif isinstance(document, list):
        for value in document:
            yield from strings(value)


def test_a_table_is_aligned_on_what_is_shown(stored: RunCli) -> None:
    lines = stored("skills", "list").out.splitlines()
    header, row = lines[0], lines[1]
    assert header.index("BYTES") == row.index(" ", row.index("n␛")) + 2


def test_a_streamed_reply_is_shown_safely_and_stored_exactly(
    cli: RunCli, ollama: FakeOllama
) -> None:
    ollama.script(f"before {HOSTILE} after")
    result = cli("--ollama-url", ollama.url, "--model", MODEL, "chat", "hello")
    assert result.code == 0, result.err
    assert result.out == f"before {SHOWN} after\n"
    assert_safe(result.err)
    shown = cli("sessions", "show", "1", "--json").json_object()
    assert shown["messages"][-1]["content"] == f"before {HOSTILE} after"
    ollama.script(f"again {HOSTILE}")
    streamed = cli("--ollama-url", ollama.url, "--model", MODEL, "chat", "--json", "more")
    tokens = [json.loads(line) for line in streamed.out.splitlines()]
    assert "".join(t["text"] for t in tokens if t["type"] == "token") == f"again {HOSTILE}"


def test_an_error_message_naming_user_input_is_shown_safely(cli: RunCli, tmp_path: Path) -> None:
    target = tmp_path / f"x{RED}"
    result = cli("skills", "add", str(target))
    assert result.code == 2
    assert_safe(result.err)
    assert terminal_safe(str(target)) in result.err
    usage = cli("sessions", "frobnicate", RED)
    assert usage.code == 2
    assert_safe(usage.err)


def test_doctor_shows_a_model_name_safely(cli: RunCli, closed_url: str) -> None:
    result = cli("--ollama-url", closed_url, "--model", f"m{RED}", "doctor")
    assert result.code == 4
    assert_safe(result.out)
    assert "m␛[31m" in result.out


def test_the_placeholders_are_one_character_each() -> None:
    assert terminal_safe(HOSTILE) == SHOWN
    assert terminal_safe("tab\tand\nnewline stay") == "tab\tand\nnewline stay"
    assert terminal_safe("\x00\x7f\x85\ud800") == "␀␡\ufffd\ufffd"
    assert len(terminal_safe(HOSTILE)) == len(HOSTILE)
