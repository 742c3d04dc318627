"""The chat CLI against a loopback server speaking Ollama's wire protocol (real ChatOllama)."""

from __future__ import annotations

import json
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import CliResult, RunCli, skill_text
from tests.fakes.ollama_server import FakeModel, FakeOllama, Reply
from tests.fakes.openai_server import FakeOpenAI

MODEL = "qwen3:8b"

pytestmark = pytest.mark.both_engines


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    with FakeOllama(
        models=[FakeModel(MODEL, context_length=40960), FakeModel("tuned:1b", num_ctx=2048)]
    ) as server:
        yield server


@pytest.fixture
def chat(cli: RunCli, ollama: FakeOllama) -> RunCli:
    def run(*args: str, user: str = "alice") -> CliResult:
        return cli("--ollama-url", ollama.url, "--model", MODEL, *args, user=user)

    return run


def events(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_chat_streams_json_events_and_stores_the_exchange(chat: RunCli, ollama: FakeOllama) -> None:
    ollama.script(Reply("Restart is not needed; check OOMKilled.", prompt_eval_count=321))
    result = chat("chat", "--json", "pod", "keeps", "restarting")
    assert result.code == 0, result.err
    stream = events(result.out)
    kinds = [e["type"] for e in stream]
    assert kinds[0] == "user_message"
    assert kinds[-2:] == ["usage", "done"]
    assert "".join(str(e["text"]) for e in stream if e["type"] == "token") == (
        "Restart is not needed; check OOMKilled."
    )
    usage = stream[-2]
    assert usage["input_tokens"] == 321
    assert int(str(usage["context_tokens"])) >= 321
    session_id = stream[-1]["session_id"]
    shown = chat("sessions", "show", str(session_id), "--json").json()
    assert isinstance(shown, dict)
    assert [m["role"] for m in shown["messages"]] == ["user", "assistant"]
    assert shown["messages"][0]["content"] == "pod keeps restarting"
    assert shown["title"] == "pod keeps restarting"
    assert set(shown["memory"]) >= {"memory_mode", "context_tokens", "context_window_tokens"}


@pytest.mark.parametrize("apart", [False, True], ids=["think tags", "thinking field"])
def test_a_thinking_models_reasoning_is_neither_shown_nor_stored_but_said(
    chat: RunCli, ollama: FakeOllama, apart: bool
) -> None:
    """Said: a "thinking" event before the answer's first token (``--json``), a line on
    stderr (human), so that tens of seconds of reasoning are not taken for a hang."""
    steps = "OOMKilled twice; memory limit."
    reply = "<think>\n" + steps + "\n</think>\n\nRaise the limit."
    script = Reply("Raise the limit.", thinking=steps) if apart else Reply(reply)
    ollama.script(script, script)
    result = chat("chat", "--json", "why", "restarts?")
    assert result.code == 0, result.err
    stream = events(result.out)
    kinds = [e["type"] for e in stream]
    assert kinds.count("thinking") == 1
    assert kinds.index("thinking") < kinds.index("token")
    assert "".join(str(e["text"]) for e in stream if e["type"] == "token") == "Raise the limit."
    shown = chat("sessions", "show", str(stream[-1]["session_id"]), "--json").json()
    assert isinstance(shown, dict)
    assert shown["messages"][1]["content"] == "Raise the limit."
    human = chat("chat", "why", "restarts?")
    assert human.out == "Raise the limit.\n"
    assert human.err.startswith("[thinking: the model reasons before it answers")


def test_num_ctx_sent_equals_the_window_the_gauge_uses(chat: RunCli, ollama: FakeOllama) -> None:
    ollama.script("ok")
    result = chat("chat", "--json", "hi")
    session_id = events(result.out)[-1]["session_id"]
    memory = chat("memory", "show", str(session_id), "--json").json()
    assert isinstance(memory, dict)
    assert ollama.chat_requests[-1]["options"]["num_ctx"] == memory["context_window_tokens"]
    assert memory["context_window_tokens"] == 8192  # min(trained 40960, 8192)


def test_window_from_the_modelfile_and_from_the_option(cli: RunCli, ollama: FakeOllama) -> None:
    ollama.script("ok", "ok")
    tuned = cli("--ollama-url", ollama.url, "--model", "tuned:1b", "chat", "--json", "hi")
    assert tuned.code == 0, tuned.err
    assert ollama.chat_requests[-1]["options"]["num_ctx"] == 2048
    forced = cli(
        "--ollama-url", ollama.url, "--model", MODEL, "--num-ctx", "4096", "chat", "--json", "hi"
    )
    assert forced.code == 0
    assert ollama.chat_requests[-1]["options"]["num_ctx"] == 4096


def test_the_request_carries_the_catalog_and_load_skill_round_trip(
    chat: RunCli, ollama: FakeOllama, tmp_path: object
) -> None:
    from pathlib import Path

    folder = Path(str(tmp_path)) / "triage"
    folder.mkdir()
    (folder / "SKILL.md").write_text(
        skill_text("pod-triage", "Triage pods.", "BODY-LINE-42"), encoding="utf-8"
    )
    chat("skills", "add", str(folder / "SKILL.md"))
    chat("config", "set", "--skills", "1")
    ollama.script(
        Reply.tool_call("load_skill", {"skill_name": "pod-triage"}), Reply("Following pod-triage.")
    )
    result = chat("chat", "--json", "pods down")
    assert result.code == 0, result.err
    stream = events(result.out)
    tool_end = next(e for e in stream if e["type"] == "tool_end")
    assert (tool_end["name"], tool_end["summary"]) == ("load_skill", "Loaded skill: pod-triage")
    assert "BODY-LINE-42" not in result.out
    first, second = ollama.chat_requests
    system = first["messages"][0]
    assert system["role"] == "system"
    assert "- **pod-triage**: Triage pods." in system["content"]
    assert "BODY-LINE-42" not in json.dumps(first)
    assert {t["function"]["name"] for t in first["tools"]} == {"get_current_time", "load_skill"}
    assert "BODY-LINE-42" in second["messages"][-1]["content"]


def test_human_output_streams_text_to_stdout_and_tools_to_stderr(
    chat: RunCli, ollama: FakeOllama
) -> None:
    ollama.script(Reply.tool_call("get_current_time", {}), Reply("It is late."))
    result = chat("chat", "what", "time")
    assert result.code == 0
    assert result.out.strip() == "It is late."
    assert "get_current_time" in result.err
    assert "[session 1]" in result.err


def test_standard_output_holds_the_reply_as_stored_with_a_tool_call_between_its_texts(
    chat: RunCli, ollama: FakeOllama
) -> None:
    """The tool's line ends the answer's line on the terminal; the paragraph the reply goes on
    with after it is not written a newline too many."""
    ollama.script(
        Reply("Let me check the time.", tool_calls=(("get_current_time", {}),)),
        Reply("It is late: roll back."),
    )
    result = chat("chat", "what now")
    assert result.code == 0, result.err
    assert result.out == "Let me check the time.\n\nIt is late: roll back.\n"
    shown = chat("sessions", "show", "1", "--json").json_object()
    assert shown["messages"][1]["content"] == "Let me check the time.\n\nIt is late: roll back."


def test_each_reply_keeps_the_model_that_wrote_it_when_the_model_changes(
    chat: RunCli, cli: RunCli, ollama: FakeOllama
) -> None:
    """An engineer who moved to a bigger model mid-incident exports a postmortem that says
    which model gave each answer (it said only the model in use at the export)."""
    ollama.script("Small model's guess.", "Big model's answer.")
    assert chat("chat", "why 502s?").code == 0
    later = cli("--ollama-url", ollama.url, "--model", "tuned:1b", "chat", "--session", "1", "x")
    assert later.code == 0, later.err
    shown = chat("sessions", "show", "1", "--json").json_object()
    assert [(m["role"], m["model"]) for m in shown["messages"]] == [
        ("user", None),
        ("assistant", MODEL),
        ("user", None),
        ("assistant", "tuned:1b"),
    ]
    printed = chat("sessions", "show", "1").out
    at = [m["created_at"][:16].replace("T", " ") for m in shown["messages"]]  # UTC, ISO
    assert f"\n[user · {at[0]} UTC]\nwhy 502s?\n" in printed
    assert f"\n[assistant · {at[1]} UTC · {MODEL}]\nSmall model's guess.\n" in printed
    assert f"\n[assistant · {at[3]} UTC · tuned:1b]\nBig model's answer.\n" in printed
    exported = chat("sessions", "export", "1").out
    assert "### 2 · assistant · " in exported
    assert [
        line.rsplit(" · ", 1)[-1] for line in exported.splitlines() if "· assistant ·" in line
    ] == [
        f"`{MODEL}`",
        "`tuned:1b`",
    ]


def test_ollama_down_is_exit_4_and_nothing_is_stored(cli: RunCli) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    for _ in range(3):
        result = cli("--ollama-url", url, "chat", "--json", "are you there?")
        assert (result.code, result.out) == (4, "")
        error = result.error()
        assert error["code"] == "MODEL_UNAVAILABLE"
        assert url in error["message"]
    assert cli("sessions", "list", "--json").json() == []


def test_ollama_down_in_an_existing_session_stores_nothing(cli: RunCli, ollama: FakeOllama) -> None:
    ollama.script("first answer")
    first = cli("--ollama-url", ollama.url, "--model", MODEL, "chat", "--json", "hello")
    session_id = str(events(first.out)[-1]["session_id"])
    url = f"http://127.0.0.1:{closed_port()}"
    failed = cli("--ollama-url", url, "chat", "--session", session_id, "still there?")
    assert (failed.code, failed.out) == (4, "")
    assert failed.err.startswith("oncall-tui: Ollama is not reachable at ")
    shown = cli("sessions", "show", session_id, "--json").json()
    assert isinstance(shown, dict)
    assert [m["content"] for m in shown["messages"]] == ["hello", "first answer"]


def test_model_not_pulled_says_the_pull_command(cli: RunCli, ollama: FakeOllama) -> None:
    result = cli("--ollama-url", ollama.url, "--model", "mistral:7b", "chat", "--json", "hi")
    assert (result.code, result.out) == (4, "")
    error = result.error()
    assert error["code"] == "MODEL_NOT_FOUND"
    assert "ollama pull mistral:7b" in error["message"]


def test_connection_dropped_mid_stream_keeps_partial_text_marked(
    chat: RunCli, ollama: FakeOllama
) -> None:
    ollama.script(Reply("first second third fourth fifth", drop_after=3))
    result = chat("chat", "--json", "explain")
    assert result.code == 4
    stream = events(result.out)
    assert stream[-1]["code"] == "STREAM_FAILED"
    partial = "".join(str(e["text"]) for e in stream if e["type"] == "token")
    assert partial
    shown = chat("sessions", "show", str(stream[0]["session_id"]), "--json").json()
    assert isinstance(shown, dict)
    reply = shown["messages"][1]
    assert (reply["status"], reply["content"]) == ("failed", partial)


def test_a_slow_server_times_out_with_a_clear_error(chat: RunCli, ollama: FakeOllama) -> None:
    # long enough that connecting never times out on a busy machine; reading still does
    ollama.script(Reply("slow words here", delay_per_chunk=4.0))
    result = chat("--timeout", "1", "chat", "--json", "hurry")
    assert result.code == 4
    assert events(result.out)[-1]["code"] == "STREAM_FAILED"


def test_context_limit_is_exit_3_with_nothing_stored(chat: RunCli) -> None:
    result = chat("--num-ctx", "512", "chat", "--json", "word " * 2000)
    assert result.code == 3
    stream = events(result.out)
    assert [e["type"] for e in stream] == ["context_limit_reached"]
    assert stream[0]["code"] == "CHAT_CONTEXT_LIMIT_REACHED"
    assert chat("sessions", "list", "--json").json() == []


def test_message_from_stdin(
    chat: RunCli, ollama: FakeOllama, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("piped\nlog lines\n"))
    ollama.script("seen")
    result = chat("chat", "--json", "-")
    assert result.code == 0
    assert ollama.chat_requests[-1]["messages"][-1]["content"] == "piped\nlog lines\n"


def test_sessions_and_memory_commands(chat: RunCli, ollama: FakeOllama) -> None:
    created = chat("sessions", "new", "--title", "db-3 disk", "--json").json()
    assert isinstance(created, dict)
    assert set(created) >= {
        "id",
        "title",
        "memory_mode",
        "message_count",
        "created_at",
        "updated_at",
    }
    sid = str(created["id"])
    ollama.script("first answer", "SUMMARY: disk 91% on db-3")
    assert chat("chat", "--session", sid, "--json", "disk is full").code == 0
    listed = chat("sessions", "list", "--json").json()
    assert isinstance(listed, list)
    assert listed[0]["message_count"] == 2
    memory = chat("memory", "show", sid, "--json").json()
    assert isinstance(memory, dict)
    assert set(memory) >= {
        "session_id",
        "memory_mode",
        "memory_summary",
        "compacted_message_count",
        "context_tokens",
        "context_window_tokens",
        "context_usage_percent",
        "can_compact",
        "last_compacted_at",
    }
    assert memory["can_compact"] is True
    shown = chat("memory", "show", sid).out.splitlines()
    assert shown[0].startswith("Context: "), shown  # no blank line first
    assert shown[1:] == ["No summary yet."]
    compacted = chat("memory", "compact", sid, "--json").json()
    assert isinstance(compacted, dict)
    assert compacted["memory_summary"] == "SUMMARY: disk 91% on db-3"
    assert compacted["compacted_message_count"] == 2
    assert ollama.chat_requests[-1]["stream"] is True  # the timeout applies between chunks
    assert not ollama.chat_requests[-1].get("tools")
    mode = chat("memory", "mode", sid, "context_70_percent", "--json").json()
    assert isinstance(mode, dict)
    assert mode["memory_mode"] == "context_70_percent"
    bad = chat("memory", "mode", sid, "sometimes", "--json")
    assert bad.code == 2
    renamed = chat("sessions", "rename", sid, "db-3 disk (resolved)", "--json").json()
    assert isinstance(renamed, dict)
    assert renamed["title"] == "db-3 disk (resolved)"
    cleared = chat("sessions", "clear", sid, "--json").json()
    assert isinstance(cleared, dict)
    assert (cleared["memory_summary"], cleared["compacted_message_count"]) == (None, 0)
    assert chat("sessions", "list", "--json").json_list()[0]["message_count"] == 0
    assert chat("sessions", "delete", sid).code == 0
    assert chat("sessions", "show", sid, "--json").error()["code"] == "NOT_FOUND"


def test_other_users_session_answers_as_a_missing_one(chat: RunCli) -> None:
    created = chat("sessions", "new", "--json").json()
    assert isinstance(created, dict)
    missing = str(int(created["id"]) + 1)
    for args in (("sessions", "show"), ("memory", "show"), ("chat", "hi", "--session")):
        theirs = chat(*args, str(created["id"]), "--json", user="mallory")
        absent = chat(*args, missing, "--json", user="mallory")
        assert (theirs.code, absent.code) == (2, 2)
        assert theirs.error()["code"] == absent.error()["code"] == "NOT_FOUND"
        assert (
            theirs.error()["message"].replace(str(created["id"]), missing)
            == (absent.error()["message"])
        )


def test_doctor_reports_a_healthy_setup(chat: RunCli) -> None:
    result = chat("doctor", "--json")
    assert result.code == 0, result.out
    report = result.json()
    assert isinstance(report, dict)
    assert report["ollama_reachable"] is True
    assert report["model_pulled"] is True
    assert report["ollama_version"] == "0.12.6"
    assert report["context_window_tokens"] == 8192
    assert (report["context_window_source"], report["model_trained_length"]) == ("trained", 40960)
    lines = chat("doctor").out.splitlines()
    assert lines[2].split(None, 1) == [
        "Context",
        "8,192 tokens (from trained length 40,960, capped; --num-ctx sets more)",
    ]


def test_doctor_says_whether_calls_written_as_text_are_made(
    chat: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert chat("doctor", "--json").json_object()["recover_tool_calls"] is True
    assert "Recovery  on: tool calls a model writes as text are read" in chat("doctor").out
    monkeypatch.setenv("ONCALL_TUI_RECOVER_TOOL_CALLS", "false")
    assert chat("doctor", "--json").json_object()["recover_tool_calls"] is False
    assert "Recovery  off: only native tool calls are made" in chat("doctor").out


def test_doctor_gives_the_pull_command_and_notices_ollama_down(
    cli: RunCli, ollama: FakeOllama
) -> None:
    missing = cli("--ollama-url", ollama.url, "--model", "phi4:14b", "doctor")
    assert missing.code == 4
    assert "ollama pull phi4:14b" in missing.out
    down = cli("--ollama-url", f"http://127.0.0.1:{closed_port()}", "doctor", "--json")
    assert down.code == 4
    report = down.json()
    assert isinstance(report, dict)
    assert report["ollama_reachable"] is False


def test_another_server_where_ollama_should_be_is_said_to_answer_but_not_as_ollama(
    cli: RunCli,
) -> None:
    """llama-server on the port, and --provider forgotten: it answers, but not Ollama's API;
    "run ollama serve" would be the wrong advice."""
    with FakeOpenAI() as other:
        url = other.url.removesuffix("/v1")
        doctor = cli("--ollama-url", url, "--model", "qwen3:8b", "doctor")
        assert doctor.code == 4
        lines = doctor.out.splitlines()
        row = f"{url}  answers, but not as its API (HTTP 404 from {url}/api/version)"
        assert lines[0] == f"Ollama    {row}"
        assert lines[1] == "Model     qwen3:8b  (cannot check until Ollama answers)"
        said = (
            f"Something answers at {url}, but not as Ollama does: {url}/api/version gave HTTP "
            "404. Check --ollama-url / OLLAMA_HOST (Ollama listens on port 11434)."
        )
        assert lines[-1] == said
        assert "ollama serve" not in doctor.out
        report = cli("--ollama-url", url, "doctor", "--json").json_object()
        assert (report["ollama_reachable"], report["ok"]) == (True, False)
        chat = cli("--ollama-url", url, "--model", "qwen3:8b", "chat", "why is checkout slow?")
        assert chat.code == 4
        assert "but not as Ollama does" in chat.err
        assert other.chat_requests == []


OPS = Path(__file__).resolve().parents[1] / "mcp_servers" / "ops.py"


def test_a_confirm_tool_runs_only_when_allowed_for_the_run(
    chat: RunCli, ollama: FakeOllama, private_config: Path
) -> None:
    """A script cannot answer a question: a ``confirm`` tool not allowed with --allow-tool is
    not run, stderr says how to allow it, and the model is told that this run could not ask
    (not that the user said no)."""
    private_config.parent.mkdir(parents=True, exist_ok=True)
    private_config.write_text(
        f"[[mcp_servers]]\nname = \"ops\"\ncommand = '{sys.executable}'\nargs = ['{OPS}']\n"
        'allow = ["restart_service"]\nconfirm = ["restart_service"]\n',
        encoding="utf-8",
    )
    call = Reply.tool_call("ops__restart_service", {"service": "api"})
    ollama.script(call, "I could not restart it.", call, "Restarted.")

    refused = chat("chat", "restart", "api")
    assert refused.code == 0, refused.err
    assert (
        "oncall-tui: ops.restart_service asks before every call and was not run; to allow it "
        "for one run: --allow-tool ops.restart_service"
    ) in refused.err
    told = ollama.chat_requests[1]["messages"][-1]
    assert told["role"] == "tool"
    assert told["content"].startswith("Not run: ops.restart_service asks the user before every")
    assert "declined" not in told["content"]

    sent = len(ollama.chat_requests)
    for slip in ("ops.restart-service", "opps.restart_service", "restart_service"):
        mistyped = chat("chat", "--allow-tool", slip, "restart", "api", "--json")
        assert (mistyped.code, mistyped.error()["reason"]) == (2, "allow_tool_unknown")
        assert slip in mistyped.error()["message"]
    assert len(ollama.chat_requests) == sent  # nothing sent, nothing stored
    assert len(chat("sessions", "list", "--json").json_list()) == 1

    allowed = chat("chat", "--allow-tool", "ops.restart_service", "restart", "api")
    assert allowed.code == 0, allowed.err
    assert "asks before every call" not in allowed.err
    assert ollama.chat_requests[3]["messages"][-1]["content"] == "restarted api"
    ids = [str(session["id"]) for session in chat("sessions", "list", "--json").json_list()]
    lines = [chat("sessions", "show", sid).out.splitlines() for sid in reversed(ids)]
    said = "  tool ops.restart_service [not run]: it asks first, and this run cannot ask"
    assert said in lines[0]
    assert "  tool ops.restart_service: restarted api" in lines[1]
