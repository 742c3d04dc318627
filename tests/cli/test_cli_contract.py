"""The CLI contract, completed: skills by directory and name, retry, Ctrl-C, quiet stdout on
failure, read-only show commands."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import Engine, event

from tests.conftest import CliResult, RunCli, skill_text
from tests.fakes.ollama_server import FakeOllama, Reply

MODEL = "qwen3:8b"


@pytest.fixture
def chat(cli: RunCli, ollama: FakeOllama) -> RunCli:
    def run(*args: str, user: str = "alice") -> CliResult:
        return cli("--ollama-url", ollama.url, "--model", MODEL, *args, user=user)

    return run


def skill_folder(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "SKILL.md").write_text(skill_text(name, f"About {name}."), encoding="utf-8")
    return folder


def selected(cli: RunCli, user: str = "alice") -> list[str]:
    config = cli("config", "show", "--json", user=user).json()
    assert isinstance(config, dict)
    names = {skill["id"]: skill["name"] for skill in config["skills"]}
    return [names[i] for i in config["skill_ids"]]


def test_skills_add_takes_a_directory_holding_skill_md(cli: RunCli, tmp_path: Path) -> None:
    added = cli("skills", "add", str(skill_folder(tmp_path, "pod-triage")), "--json")
    assert added.code == 0, added.err
    assert added.json_object()["name"] == "pod-triage"
    empty = tmp_path / "empty"
    empty.mkdir()
    missing = cli("skills", "add", str(empty), "--json")
    assert (missing.code, missing.error()["code"]) == (2, "VALIDATION_INVALID_ARGUMENT")
    assert f"there is no SKILL.md in '{empty}'" in missing.error()["message"]


def test_skills_are_selected_and_unselected_by_name_or_id(cli: RunCli, tmp_path: Path) -> None:
    for name in ("log-analysis", "k8s-pod-triage", "alert-triage"):
        cli("skills", "add", str(skill_folder(tmp_path, name)))
    assert cli("skills", "select", "k8s-pod-triage", "1").code == 0
    assert selected(cli) == ["k8s-pod-triage", "log-analysis"]
    assert cli("skills", "select", "log-analysis", "alert-triage").code == 0
    assert selected(cli) == ["k8s-pod-triage", "log-analysis", "alert-triage"]
    assert cli("skills", "unselect", "k8s-pod-triage").code == 0
    assert selected(cli) == ["log-analysis", "alert-triage"]
    assert cli("config", "set", "--skills", "alert-triage,2").code == 0
    assert selected(cli) == ["alert-triage", "k8s-pod-triage"]


def test_an_unknown_or_foreign_name_changes_nothing(cli: RunCli, tmp_path: Path) -> None:
    cli("skills", "add", str(skill_folder(tmp_path, "log-analysis")))
    cli("skills", "select", "log-analysis")
    bobs = tmp_path / "bob"
    bobs.mkdir()
    cli("skills", "add", str(skill_folder(bobs, "bobs-runbook")), user="bob")
    for args in (
        ("skills", "select", "log-analysis", "nope"),
        ("skills", "unselect", "bobs-runbook"),
        ("config", "set", "--skills", "log-analysis,bobs-runbook"),
        ("config", "set", "--skills", "log-analysis,,"),
    ):
        result = cli(*args, "--json")
        assert (result.code, result.error()["code"]) == (2, "VALIDATION_INVALID_ARGUMENT"), args
        assert selected(cli) == ["log-analysis"]
    assert "no skill 'nope'" in cli("skills", "select", "nope").err


def test_chat_retry_answers_the_failed_message_again(chat: RunCli, ollama: FakeOllama) -> None:
    ollama.script(Reply("Check the", drop_after=1))
    failed = chat("chat", "why", "502s?")
    assert failed.code == 4
    *_, session_line, retry_line = failed.err.splitlines()
    assert session_line == "[session 1]"
    said = retry_line.removeprefix("[to answer it again: oncall-tui ").removesuffix("]")
    assert said.split() == ["chat", "--session", "1", "--retry"]
    ollama.script("Upstream timeouts.")
    retried = chat(*said.split(), "--json")  # the command it said
    assert retried.code == 0, retried.err
    kinds = [json.loads(line)["type"] for line in retried.out.splitlines()]
    assert "user_message" not in kinds
    assert kinds[-1] == "done"
    shown = chat("sessions", "show", "1", "--json").json()
    assert isinstance(shown, dict)
    assert [(m["role"], m["status"]) for m in shown["messages"]] == [
        ("user", "complete"),
        ("assistant", "failed"),
        ("assistant", "complete"),
    ]
    again = chat("chat", "--session", "1", "--retry", "--json")
    assert (again.code, again.error()["code"]) == (2, "VALIDATION_INVALID_ARGUMENT")


@pytest.mark.parametrize("args", [("--retry",), ("--retry", "--session", "1", "hello"), ()])
def test_retry_and_message_arguments_are_checked(chat: RunCli, args: tuple[str, ...]) -> None:
    result = chat("chat", *args, "--json")
    assert (result.code, result.out) == (2, "")
    assert result.error()["code"] == "VALIDATION_INVALID_ARGUMENT"


def test_a_failed_chat_writes_nothing_to_stdout(chat: RunCli, ollama: FakeOllama) -> None:
    ollama.script(Reply("never", drop_after=0))
    dropped = chat("chat", "hello")
    assert (dropped.code, dropped.out) == (4, "")
    assert "The partial reply was kept" not in dropped.err  # there was none
    limited = chat("--num-ctx", "512", "chat", "x " * 2_000)
    assert (limited.code, limited.out) == (3, "")
    assert limited.err.startswith("oncall-tui: Your message would bring the context to ")


def test_a_reply_over_the_window_inside_a_turn_exits_3(cli: RunCli, ollama: FakeOllama) -> None:
    ollama.script(Reply(text="word " * 3_000, tool_calls=(("get_current_time", {}),)))
    result = cli("--ollama-url", ollama.url, "--model", "tiny:2k", "chat", "--json", "time?")
    assert result.code == 3
    error = [json.loads(line) for line in result.out.splitlines()][-1]
    assert (error["type"], error["code"]) == ("error", "CHAT_CONTEXT_LIMIT_REACHED")
    assert len(ollama.chat_requests) == 1


def test_doctor_says_when_the_model_cannot_call_tools(
    cli: RunCli, ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    human = cli("--ollama-url", ollama.url, "--model", "gemma:2b", "doctor")
    assert human.code == 0
    assert "has no native tool calls: its tools are described in the system prompt" in human.out
    report = cli("--ollama-url", ollama.url, "--model", "gemma:2b", "doctor", "--json").json()
    assert isinstance(report, dict)
    assert report["model_supports_tools"] is False
    monkeypatch.setenv("ONCALL_TUI_RECOVER_TOOL_CALLS", "off")
    human = cli("--ollama-url", ollama.url, "--model", "gemma:2b", "doctor")
    assert "skills and the clock tool are unavailable" in human.out


def test_doctor_exits_2_when_a_tool_server_cannot_start(
    cli: RunCli, ollama: FakeOllama, private_config: Path
) -> None:
    """As ``tools list`` does: the model is fine, but the chat would lack the server's tools."""
    args = ("--ollama-url", ollama.url, "--model", "qwen3:8b", "doctor")
    assert cli(*args).code == 0
    private_config.parent.mkdir(parents=True, exist_ok=True)
    private_config.write_text(
        '[[mcp_servers]]\nname = "gone"\ncommand = "/nonexistent/server"\nallow = ["x"]\n',
        encoding="utf-8",
    )
    human = cli(*args)
    assert human.code == 2, human.err
    assert "gone" in human.out
    report = cli(*args, "--json")
    assert report.code == 2
    (server,) = report.json_object()["tool_servers"]
    assert server["error"]["code"] == "TOOL_SERVER_FAILED"


@pytest.fixture
def writes() -> Iterator[list[str]]:
    """Every statement that changes data, on any engine, while the test runs."""
    seen: list[str] = []

    def record(_c: object, _cursor: object, statement: str, *_: object) -> None:
        if statement.lstrip().split(" ", 1)[0].upper() in ("INSERT", "UPDATE", "DELETE"):
            seen.append(statement)

    event.listen(Engine, "before_cursor_execute", record)
    yield seen
    event.remove(Engine, "before_cursor_execute", record)


def test_show_commands_do_not_write(chat: RunCli, ollama: FakeOllama, writes: list[str]) -> None:
    ollama.script("hi")
    assert chat("chat", "hello").code == 0
    writes.clear()
    for args in (("sessions", "show", "1"), ("memory", "show", "1"), ("prompts", "show", "1")):
        for output in ((), ("--json",)):
            assert chat(*args, *output).code == 0
    assert writes == []


def test_the_commands_that_only_read_create_no_database_where_there_is_none(
    cli: RunCli, tmp_path: Path
) -> None:
    """A typo in ``--db`` left an empty database (and its folders) behind each command that
    "only reads the database"; a database that is not there holds no session."""
    missing = tmp_path / "typo" / "oncall.db"
    for args in (
        ("sessions", "show", "1"),
        ("sessions", "export", "1"),
        ("memory", "show", "1"),
    ):
        result = cli("--db", str(missing), *args, "--json")
        assert (result.code, result.error()["code"]) == (2, "NOT_FOUND")
    assert not (tmp_path / "typo").exists()
