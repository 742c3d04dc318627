"""No input makes the CLI print a traceback: arguments and environment values that are not
UTF-8, ids SQLite cannot hold, hostile SKILL.md frontmatter, malformed Ollama addresses, a
damaged database or a full disk, a reader that goes away, and Ctrl-C during start-up. Each
ends with exit status 2 and the catalog's message (the JSON error on stderr with ``--json``),
and changes nothing."""

from __future__ import annotations

import errno
import io
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlalchemy.exc

from oncall_tui.cli import main
from oncall_tui.core.skills import (
    MAX_FRONTMATTER_DEPTH,
    MAX_NUMBER_DIGITS,
    validate_skill_upload,
)
from oncall_tui.errors import OncallError
from oncall_tui.services.container import Services
from oncall_tui.settings import Settings, normalize_ollama_url
from oncall_tui.store.sessions import SessionRepository
from oncall_tui.tui.screens.skills import PathInput
from tests.conftest import CliResult, RunCli, make_settings, skill_text
from tests.fakes.ollama_server import FakeOllama, Reply
from tests.tui.conftest import AssetsHostApp
from tests.tui.harness import wait_until

MODEL = "qwen3:8b"
BAD = "\udcff"
"""How Python hands over the byte 0xff of an argument or a variable: a lone surrogate."""
MAX_ID = 2**63 - 1


def refused(result: CliResult, reason: str) -> str:
    """The catalog message of a refusal with ``reason``, exit status 2."""
    assert result.code == 2, (result.out, result.err)
    error = result.error()
    assert (error["code"], error["reason"]) == ("VALIDATION_INVALID_ARGUMENT", reason)
    assert result.out == ""
    return str(error["message"])


# -- arguments and environment values that are not UTF-8 -----------------------------------


@pytest.mark.parametrize(
    ("args", "name"),
    [
        (("sessions", "new", "--title", f"disk {BAD}"), "--title"),
        (("sessions", "rename", "1", f"db{BAD}"), "TITLE"),
        (("chat", "why", f"{BAD}?"), "MESSAGE"),
        (("prompts", "add", "--label", BAD, "--content", "x"), "--label"),
        (("prompts", "add", "--label", "x", "--content", BAD), "--content"),
        (("skills", "add", f"/tmp/{BAD}/SKILL.md"), "PATH"),
        (("skills", "select", f"a{BAD}"), "NAME_OR_ID"),
        (("config", "set", "--skills", BAD), "--skills"),
        (("--model", f"m{BAD}", "sessions", "list"), "--model"),
        (("--ollama-url", BAD, "sessions", "list"), "--ollama-url"),
        (("--user", f"al{BAD}", "sessions", "new"), "--user"),
        (("--timeout", BAD, "sessions", "list"), "--timeout"),
    ],
)
def test_an_argument_that_is_not_utf8_is_refused_by_name(
    cli: RunCli, args: tuple[str, ...], name: str
) -> None:
    message = refused(cli(*args, "--json"), "value_not_utf8")
    assert message == f"Invalid argument: {name} is not valid UTF-8"
    assert cli("sessions", "list", "--json").json() == []
    assert cli("prompts", "list", "--json").code == 0


def test_a_database_path_that_is_not_utf8_is_refused_and_not_created(
    cli: RunCli, tmp_path: Path
) -> None:
    target = tmp_path / f"x{BAD}.db"
    message = refused(cli("--db", str(target), "sessions", "list", "--json"), "value_not_utf8")
    assert "--db is not valid UTF-8" in message
    assert os.listdir(tmp_path) == []


def test_a_misencoded_argument_argparse_refuses_is_named_too(cli: RunCli) -> None:
    result = cli("--lang", BAD, "sessions", "list")
    assert result.code == 2
    assert result.err == "oncall-tui: Invalid argument: --lang is not valid UTF-8\n"


@pytest.mark.parametrize(
    "variable",
    ["ONCALL_TUI_MODEL", "OLLAMA_HOST", "ONCALL_TUI_NUM_CTX", "ONCALL_TUI_TIMEOUT", "LANG"],
)
def test_an_environment_value_that_is_not_utf8_is_refused_by_name(
    cli: RunCli, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, f"x{BAD}")
    message = refused(cli("sessions", "new", "--json"), "value_not_utf8")
    assert message == f"Invalid argument: {variable} is not valid UTF-8"
    monkeypatch.delenv(variable)
    assert cli("sessions", "list", "--json").json() == []


@pytest.mark.parametrize("variable", ["ONCALL_TUI_DB", "ONCALL_TUI_USER", "LOGNAME"])
def test_the_database_and_user_variables_are_checked_too(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    variable: str,
) -> None:
    for name in ("ONCALL_TUI_DB", "ONCALL_TUI_USER", "LOGNAME", "LANG", "LC_ALL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ONCALL_TUI_DB", str(tmp_path / "o.db"))
    monkeypatch.setenv(variable, str(tmp_path / f"{BAD}.db") if variable.endswith("DB") else BAD)
    assert main(["sessions", "new"]) == 2
    err = capsys.readouterr().err
    assert err == f"oncall-tui: Invalid argument: {variable} is not valid UTF-8\n"
    assert os.listdir(tmp_path) == []


# -- ids: a positive whole number below 2**63, in ASCII digits ----------------------------

ID_COMMANDS = [
    ("sessions", "show", "{}"),
    ("sessions", "delete", "{}"),
    ("sessions", "rename", "{}", "title"),
    ("sessions", "clear", "{}"),
    ("memory", "show", "{}"),
    ("memory", "mode", "{}", "manual"),
    ("memory", "compact", "{}"),
    ("prompts", "edit", "{}", "--label", "x"),
    ("prompts", "delete", "{}"),
    ("config", "set", "--prompt", "{}"),
    ("chat", "--session", "{}", "hello"),
]


@pytest.mark.parametrize("command", ID_COMMANDS, ids=lambda c: " ".join(c[:2]))
@pytest.mark.parametrize(
    "value",
    [str(MAX_ID + 1), "²", "0", "-1", "1e3", " 7", "9" * 5000],
    ids=["2**63", "superscript-two", "zero", "negative", "float", "space", "5000-digits"],
)
def test_an_id_that_is_no_id_is_refused(cli: RunCli, command: tuple[str, ...], value: str) -> None:
    args = [value if part == "{}" else part for part in command]
    message = refused(cli(*args, "--json"), "bad_id")
    assert f"must be an id, a whole number from 1 to {MAX_ID}" in message
    assert cli("sessions", "list", "--json").json() == []


@pytest.mark.parametrize(
    "args",
    [
        ("sessions", "show", str(MAX_ID)),
        ("memory", "show", str(MAX_ID)),
        ("prompts", "delete", str(MAX_ID)),
        ("sessions", "rename", str(MAX_ID), "t"),
    ],
)
def test_the_largest_id_is_looked_up(cli: RunCli, args: tuple[str, ...]) -> None:
    result = cli(*args, "--json")
    assert (result.code, result.error()["code"]) == (2, "NOT_FOUND")


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (("skills", "show", "{}"), "NOT_FOUND"),
        (("skills", "delete", "{}"), "NOT_FOUND"),
        (("skills", "select", "{}"), "VALIDATION_INVALID_ARGUMENT"),
        (("config", "set", "--skills", "1,{}"), "VALIDATION_INVALID_ARGUMENT"),
    ],
)
@pytest.mark.parametrize("value", ["²", str(MAX_ID + 1), "٣"])
def test_a_skill_reference_that_is_digits_but_no_id_is_only_a_name(
    cli: RunCli, tmp_path: Path, args: tuple[str, ...], code: str, value: str
) -> None:
    path = tmp_path / "SKILL.md"
    path.write_text(skill_text("kept"), encoding="utf-8")
    assert cli("skills", "add", str(path)).code == 0
    result = cli(*[a.replace("{}", value) for a in args], "--json")
    assert (result.code, result.error()["code"]) == (2, code)
    assert value in result.error()["message"]
    assert [s["name"] for s in cli("skills", "list", "--json").json_list()] == ["kept"]


def test_a_skill_named_with_more_digits_than_an_id_is_found_by_name(
    cli: RunCli, tmp_path: Path
) -> None:
    name = "9" * 20  # a valid name, and a number past any id
    path = tmp_path / "SKILL.md"
    path.write_text(f'---\nname: "{name}"\ndescription: Digits.\n---\n', encoding="utf-8")
    assert cli("skills", "add", str(path)).code == 0
    shown = cli("skills", "show", name, "--json")
    assert shown.code == 0, shown.err
    assert shown.json_object()["name"] == name


@pytest.mark.parametrize("args", [("skills", "show", "{}"), ("skills", "select", "{}")])
def test_the_largest_skill_id_is_looked_up(cli: RunCli, args: tuple[str, ...]) -> None:
    result = cli(*[str(MAX_ID) if a == "{}" else a for a in args], "--json")
    assert result.code == 2
    assert result.error()["code"] in ("NOT_FOUND", "VALIDATION_INVALID_ARGUMENT")
    assert result.error()["reason"] in (None, "unknown_skills")


# -- SKILL.md frontmatter ------------------------------------------------------------------


def skill_with(extra: str) -> bytes:
    return f"---\nname: deep\ndescription: Deep.\n{extra}\n---\n\n# Body\n".encode()


def nested(depth: int) -> str:
    """A field whose value makes the frontmatter ``depth`` collections deep in all (the
    frontmatter's own mapping is the first)."""
    return "x: " + "[" * (depth - 1) + "]" * (depth - 1)


def refusal(data: bytes) -> OncallError:
    with pytest.raises(OncallError) as caught:
        validate_skill_upload("SKILL.md", data)
    assert caught.value.code == "SKILL_INVALID"
    return caught.value


def test_frontmatter_nested_to_the_limit_is_accepted_and_one_deeper_refused() -> None:
    assert validate_skill_upload("SKILL.md", skill_with(nested(MAX_FRONTMATTER_DEPTH))).name
    error = refusal(skill_with(nested(MAX_FRONTMATTER_DEPTH + 1)))
    assert error.reason == "skill_frontmatter_too_deep"
    assert error.message("en") == (
        f"SKILL.md rejected: the frontmatter is nested more than {MAX_FRONTMATTER_DEPTH} "
        "levels deep (line 4)"
    )


@pytest.mark.parametrize("opening", ["[", "{a: ", "- "])
def test_frontmatter_nested_a_thousand_deep_is_refused(opening: str) -> None:
    if opening == "- ":  # block style: as deep as fits in a SKILL.md
        deep = "x:\n" + "".join(" " * i + "-\n" for i in range(1, 300))
    else:
        deep = "x: " + opening * 1000 + ("]" if opening == "[" else "}") * 1000
    assert refusal(skill_with(deep)).reason == "skill_frontmatter_too_deep"


def test_a_number_at_the_digit_limit_is_accepted_and_one_digit_more_refused() -> None:
    assert validate_skill_upload("SKILL.md", skill_with("n: " + "7" * MAX_NUMBER_DIGITS)).name
    for number in ("7" * (MAX_NUMBER_DIGITS + 1), "-" + "1" * 5000, "1_0" * 2200):
        error = refusal(skill_with(f"n: {number}"))
        assert error.reason == "skill_frontmatter_number"
        assert f"more than {MAX_NUMBER_DIGITS:,} digits (line 4)" in error.message("en")


def test_a_value_python_cannot_hold_is_a_catalog_error() -> None:
    error = refusal(skill_with("when: 2024-13-45"))
    assert error.reason == "skill_frontmatter_yaml"


@pytest.mark.parametrize(
    ("extra", "field", "line"),
    [
        ("name: other", "name", 4),
        ("description: again", "description", 4),
        ("meta:\n  a: 1\n  a: 2", "a", 6),
        ('"name": quoted', "name", 4),
    ],
)
def test_a_field_given_twice_is_refused(extra: str, field: str, line: int) -> None:
    error = refusal(skill_with(extra))
    assert error.reason == "skill_frontmatter_duplicate_key"
    assert error.message("en") == (
        f"SKILL.md rejected: the frontmatter has the field '{field}' more than once (line {line})"
    )
    assert error.message("zh") == (
        f"SKILL.md 无效：frontmatter 中字段 '{field}' 出现了不止一次（第 {line} 行）"
    )


def test_merged_mappings_may_still_override_a_key() -> None:
    data = skill_with("base: &base {a: 1, b: 2}\nderived:\n  <<: *base\n  a: 3")
    assert validate_skill_upload("SKILL.md", data).name == "deep"


def test_skills_add_of_a_hostile_frontmatter_is_exit_2(cli: RunCli, tmp_path: Path) -> None:
    path = tmp_path / "SKILL.md"
    for extra in (nested(1000), "n: " + "1" * 5000, "name: twice"):
        path.write_bytes(skill_with(extra))
        result = cli("skills", "add", str(path), "--json")
        assert (result.code, result.error()["code"]) == (2, "SKILL_INVALID")
    assert cli("skills", "list", "--json").json() == []


@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        (nested(1000), "nested more than"),
        ("n: " + "1" * 5000, "more than 4,300 digits"),
        ("name: twice", "has the field 'name' more than once"),
    ],
    ids=["deep", "long-number", "duplicate"],
)
async def test_the_tui_upload_shows_the_catalog_message(
    tmp_path: Path, extra: str, expected: str
) -> None:
    from oncall_tui.tui.screens.skills import SkillLibraryScreen
    from oncall_tui.tui.widgets.dialogs import ErrorText

    path = tmp_path / "upload" / "SKILL.md"
    path.parent.mkdir()
    path.write_bytes(skill_with(extra))
    services = Services(Settings(db_path=tmp_path / "t.db", user="alice"))
    app = AssetsHostApp(services, SkillLibraryScreen)
    try:
        async with app.run_test(size=(100, 32)) as pilot:
            await wait_until(
                pilot,
                lambda: isinstance(app.screen, SkillLibraryScreen) and app.screen.loaded,
            )
            screen = app.screen
            assert isinstance(screen, SkillLibraryScreen)
            await pilot.press("a")
            screen.query_one("#skill-path", PathInput).value = str(path)
            await pilot.press("enter")
            error = screen.query_one("#skill-error", ErrorText)
            await wait_until(pilot, lambda: error.message is not None)
            assert error.message is not None
            assert error.message.startswith("SKILL.md rejected: ")
            assert expected in error.message
            assert services.configuration.list_skills("alice") == []
    finally:
        services.close()


# -- Ollama addresses ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw", ["[::1", "http://[::1", "256.256.256.256", "1.2.3", "exa mple", "http://[zz::1]:1"]
)
def test_a_malformed_ollama_address_is_refused(raw: str) -> None:
    with pytest.raises(OncallError) as caught:
        normalize_ollama_url(raw)
    assert (caught.value.code, caught.value.reason) == (
        "VALIDATION_INVALID_ARGUMENT",
        "bad_ollama_address",
    )


@pytest.mark.parametrize(
    ("raw", "url"),
    [
        ("127.0.0.1:11434 ", "http://127.0.0.1:11434"),
        ("  http://gpu-box:8080/\t", "http://gpu-box:8080"),
        ("255.255.255.255", "http://255.255.255.255:11434"),
        ("[::1]:8080", "http://[::1]:8080"),
    ],
)
def test_a_valid_ollama_address_with_spaces_around_is_trimmed(raw: str, url: str) -> None:
    assert normalize_ollama_url(raw) == url


@pytest.mark.parametrize("raw", ["[::1", "256.256.256.256"])
def test_the_cli_refuses_a_malformed_ollama_address_from_option_or_environment(
    cli: RunCli, monkeypatch: pytest.MonkeyPatch, raw: str
) -> None:
    assert refused(cli("--ollama-url", raw, "doctor", "--json"), "bad_ollama_address")
    monkeypatch.setenv("OLLAMA_HOST", raw)
    result = cli("doctor")
    assert (result.code, result.out) == (2, "")
    assert result.err.startswith(f"oncall-tui: Invalid argument: '{raw}' is not an Ollama")


# -- a damaged database, a full disk -------------------------------------------------------


def filled_database(cli: RunCli) -> None:
    """A real database file of a dozen pages and more: prompts of 12,000 characters."""
    for number in range(6):
        content = f"prompt {number} " + "x" * 11_000
        assert cli("prompts", "add", "--label", f"p{number}", "--content", content).code == 0
    assert cli("sessions", "new", "--title", "incident").code == 0


def test_a_database_with_damaged_pages_is_reported_not_a_traceback(
    cli: RunCli, db_path: Path
) -> None:
    filled_database(cli)
    for suffix in ("-wal", "-shm"):  # everything is in the main file: checkpointed on close
        assert not Path(f"{db_path}{suffix}").exists()
    with sqlite3.connect(db_path) as connection:
        page_size = connection.execute("PRAGMA page_size").fetchone()[0]
    data = bytearray(db_path.read_bytes())
    assert len(data) >= 4 * page_size
    for page in range(1, len(data) // page_size):  # every page but the first (the header)
        data[page * page_size : (page + 1) * page_size] = bytes([0x5A]) * page_size
    db_path.write_bytes(bytes(data))
    for args in (("prompts", "list"), ("sessions", "list"), ("sessions", "new")):
        result = cli(*args, "--json")
        assert result.code == 2, result.err
        error = result.error()
        assert error["code"] == "DATABASE_UNAVAILABLE"
        assert str(db_path) in error["message"]
        human = cli(*args)
        assert (human.code, human.out) == (2, "")
        assert human.err.startswith(f"oncall-tui: Cannot use the database at {db_path}: ")
        assert "Traceback" not in human.err


def full_disk(kind: str) -> BaseException:
    full = sqlite3.OperationalError("database or disk is full")
    if kind == "sqlite":
        return full
    if kind == "sqlalchemy":
        return sqlalchemy.exc.OperationalError("INSERT INTO chat_session", {}, full)
    return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("kind", ["sqlite", "sqlalchemy", "oserror"])
def test_a_full_disk_on_write_is_reported_and_nothing_is_stored(
    cli: RunCli, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    assert cli("sessions", "list").code == 0  # the database exists

    def create(*args: object, **kwargs: object) -> object:
        raise full_disk(kind)

    monkeypatch.setattr(SessionRepository, "create", create)
    result = cli("sessions", "new", "--title", "t", "--json")
    assert result.code == 2
    assert (result.error()["code"], result.error()["reason"]) == (
        "DATABASE_UNAVAILABLE",
        "disk_full",
    )
    assert "the disk is full" in result.error()["message"]
    monkeypatch.undo()
    assert cli("sessions", "list", "--json").json() == []


@pytest.mark.parametrize("kind", ["sqlite", "sqlalchemy", "oserror"])
def test_a_full_disk_on_read_is_reported(
    cli: RunCli, monkeypatch: pytest.MonkeyPatch, kind: str
) -> None:
    assert cli("sessions", "new").code == 0

    def failing(*args: object, **kwargs: object) -> object:
        raise full_disk(kind)

    monkeypatch.setattr(SessionRepository, "list", failing)
    result = cli("sessions", "list")
    assert (result.code, result.out) == (2, "")
    assert "the disk is full" in result.err


# -- a reader that goes away: ``oncall-tui chat ... | head -1`` ----------------------------


def environment(tmp_path: Path, ollama: FakeOllama) -> dict[str, str]:
    return {
        **os.environ,
        "ONCALL_TUI_DB": str(tmp_path / "oncall.db"),
        "ONCALL_TUI_USER": "alice",
        "OLLAMA_HOST": ollama.url,
        "ONCALL_TUI_MODEL": MODEL,
        "LANG": "C",
    }


@pytest.mark.parametrize("as_json", [False, True])
def test_a_closed_stdout_ends_the_chat_quietly_and_the_reply_is_stored(
    tmp_path: Path, ollama: FakeOllama, as_json: bool
) -> None:
    reply = "".join(f"line {n}\n" for n in range(20))
    ollama.script(Reply(reply, delay_per_chunk=0.01))
    command = [sys.executable, "-m", "oncall_tui", "chat", *(["--json"] if as_json else [])]
    process = subprocess.Popen(
        [*command, "count"],
        env=environment(tmp_path, ollama),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.readline()  # ``head -1``: one line, then the reader is gone
    process.stdout.close()
    err = process.stderr.read().decode()
    status = process.wait(timeout=30)
    assert "Traceback" not in err, err
    assert "Exception ignored" not in err, err
    assert status == 141, err
    services = Services(make_settings(tmp_path / "oncall.db"))
    try:
        (session,) = services.sessions.list_sessions("alice")
        messages = services.sessions.messages("alice", session.id)
    finally:
        services.close()
    assert messages[-1].role == "assistant"
    assert messages[-1].content.startswith("line 0\n")
    if not as_json:  # the text output keeps reading the reply: it is stored whole
        assert (messages[-1].status, messages[-1].content) == ("complete", reply)


def test_a_listing_into_a_closed_pipe_is_quiet(tmp_path: Path, ollama: FakeOllama) -> None:
    env = environment(tmp_path, ollama)
    skill = tmp_path / "SKILL.md"
    skill.write_text(skill_text("big", "Big.", "x" * 30_000), "utf-8")
    command = [sys.executable, "-m", "oncall_tui", "skills"]
    subprocess.run([*command, "add", str(skill)], env=env, check=True, capture_output=True)
    show = subprocess.Popen(
        [*command, "show", "big"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert show.stdout is not None
    assert show.stderr is not None
    show.stdout.close()  # ``| true``: the reader is gone before the first write
    err = show.stderr.read().decode()
    assert show.wait(timeout=30) == 141, err
    assert err == ""


# -- output that cannot be written: ``oncall-tui chat ... > answer.md`` on a full disk -----


def test_a_chat_into_a_full_disk_stores_its_reply_and_says_the_output_failed(
    tmp_path: Path, ollama: FakeOllama
) -> None:
    """Not the database's failure (it said "Cannot use the database …: the disk is full",
    and the reply was lost): the chat goes on, stores it, and then says what failed."""
    reply = "".join(f"line {n}\n" for n in range(20))
    ollama.script(Reply(reply, delay_per_chunk=0.005))
    with open("/dev/full", "w") as full:  # every write: ENOSPC
        done = subprocess.run(
            [sys.executable, "-m", "oncall_tui", "chat", "count"],
            env=environment(tmp_path, ollama),
            stdout=full,
            stderr=subprocess.PIPE,
            timeout=60,
        )
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert "Traceback" not in err, err
    assert "Exception ignored" not in err, err
    assert "database" not in err, err
    *_, session_line, said = err.splitlines()
    assert session_line == "[session 1]"
    assert said == (
        "oncall-tui: Standard output could not be written (No space left on device): it is "
        "incomplete. The command itself was carried out."
    )
    services = Services(make_settings(tmp_path / "oncall.db"))
    try:
        messages = services.sessions.messages("alice", 1)
    finally:
        services.close()
    assert [(m.role, m.status, m.content) for m in messages] == [
        ("user", "complete", "count"),
        ("assistant", "complete", reply),
    ]


class FullDisk(io.StringIO):
    """Standard output on a disk that fills after ``room`` characters."""

    def __init__(self, room: int, error: int = errno.ENOSPC) -> None:
        super().__init__()
        self.room = room
        self.error = error

    def write(self, text: str) -> int:
        if self.tell() + len(text) > self.room:
            raise OSError(self.error, os.strerror(self.error))
        return super().write(text)


def test_a_listing_whose_output_fails_part_way_says_so_once(
    cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    for n in range(3):
        assert cli("sessions", "new", "--title", f"incident {n}").code == 0
    captured = sys.stdout
    out = FullDisk(room=80, error=errno.EIO)  # a terminal's I/O error, part way
    monkeypatch.setattr(sys, "stdout", out)
    result = cli("sessions", "list")
    assert out.getvalue().startswith("ID  UPDATED")
    assert "incident 0" not in out.getvalue()
    assert (result.code, result.err) == (
        2,
        "oncall-tui: Standard output could not be written (Input/output error): it is "
        "incomplete. The command itself was carried out.\n",
    )
    monkeypatch.setattr(sys, "stdout", FullDisk(room=0))
    as_json = cli("--lang", "zh", "sessions", "new", "--json")
    assert as_json.code == 2
    assert as_json.error()["code"] == "OUTPUT_FAILED"
    assert "命令本身已执行" in as_json.error()["message"]
    monkeypatch.setattr(sys, "stdout", captured)
    listed = cli("sessions", "list", "--json")
    assert (listed.code, len(listed.json_list())) == (0, 4)


# -- Ctrl-C while the program is still starting --------------------------------------------


def wait_until_loaded(
    process: subprocess.Popen[bytes], library: str, timeout: float = 10.0
) -> None:
    """Wait until ``process`` has mapped ``library`` (or has ended: a process that ended and is
    not reaped yet has empty maps, which a loaded machine may be all the poll ever sees)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if library in Path(f"/proc/{process.pid}/maps").read_text():
                return
        except OSError:  # reaped already
            return
        if process.poll() is not None:
            return
        time.sleep(0.002)
    raise AssertionError(f"{library} not loaded within {timeout}s")


@pytest.mark.parametrize("delay", [0.0, 0.03, 0.08, 0.15, 0.3, 0.6])
def test_ctrl_c_during_start_up_exits_130_without_a_traceback(tmp_path: Path, delay: float) -> None:
    """SIGINT once the CLI's imports are under way (its first extension module, SQLite's, is
    loaded), and then a little later each time, up to after it finished."""
    env = {**os.environ, "ONCALL_TUI_DB": str(tmp_path / "o.db"), "ONCALL_TUI_USER": "alice"}
    process = subprocess.Popen(
        [sys.executable, "-m", "oncall_tui", "sessions", "list"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    wait_until_loaded(process, "_sqlite3")
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=30)
    assert b"Traceback" not in err, err.decode()
    assert err == b"", err.decode()
    # 130: Python caught it; 0: it had finished. -SIGINT: it came while the interpreter was
    # shutting down, where the default action ends the process (a shell reports 130 too).
    assert process.returncode in (130, 0, -signal.SIGINT)


INTERRUPTED_IN_A_FINALISER = """
import sys, time
import oncall_tui.cli
from oncall_tui import entry


class Finalised:
    def __del__(self) -> None:
        raise KeyboardInterrupt  # Ctrl-C as it lands in an import lock's cleanup


def run(argv: object) -> int:
    Finalised()  # collected at once: Python cannot raise from there
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # the rest of the command, which Ctrl-C ends
        time.sleep(0.01)
    return 0


oncall_tui.cli.main = run
sys.exit(entry.main())
"""


def test_ctrl_c_where_python_cannot_raise_it_still_ends_the_program_quietly() -> None:
    """The start-up case above, made certain: Ctrl-C landing in code Python cannot raise from
    (it printed "Exception ignored in ... KeyboardInterrupt" and carried on) ends the program
    with 130 and nothing on stderr, as anywhere else."""
    result = subprocess.run(
        [sys.executable, "-c", INTERRUPTED_IN_A_FINALISER],
        capture_output=True,
        timeout=30,
        check=False,
    )
    assert result.stderr == b"", result.stderr.decode()
    assert result.returncode == 130
