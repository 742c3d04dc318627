"""A tool call the model writes as text goes the way a native one goes, on the real clients.

The loopback servers stream the reply as text (no native ``tool_calls``), as Qwen2.5-Coder
and smaller local models do; the engine reads the call from it (docs/TOOLS.md "Tool calls
written as text"). Each test states what a native call would do and checks the recovered one
does it: the tool runs (behind ``confirm``, the allow-list and the 95% guard), the events and
the audit say so (marked ``recovered``), and the call's text is neither shown nor stored.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from oncall_tui.core.events import (
    ReplyDone,
    ReplyFailed,
    TokenDelta,
    ToolConfirmation,
    ToolFinished,
    ToolStarted,
    ToolsUnavailable,
)
from oncall_tui.core.prompts import TOOL_FORM_INSTRUCTION
from oncall_tui.llm import mcp
from oncall_tui.services.container import Services
from oncall_tui.settings.mcp import McpServer
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from tests.conftest import EXAMPLES, FakeServer, both_providers, collect, skill_text
from tests.fakes.ollama_server import FakeModel, FakeOllama, Reply
from tests.fakes.openai_server import FakeOpenAI

OPS = str(Path(__file__).resolve().parents[1] / "mcp_servers" / "ops.py")
SEARCH = '```json\n{"name": "ops__search_logs", "arguments": {"pattern": "timeout"}}\n```'
LOG_ANALYSIS = (EXAMPLES / "log-analysis" / "SKILL.md").read_bytes()

Build = Callable[..., Services]


def ops_server() -> McpServer:
    return McpServer(
        name="ops",
        command=sys.executable,
        args=(OPS,),
        allow=("search_logs", "restart_service"),
        confirm=("restart_service",),
    )


@pytest.fixture(autouse=True)
def short_tool_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tool call here answers at once or not at all: 3 s, not 30, to say so."""
    monkeypatch.setattr(mcp, "TOOL_TIMEOUT", 3.0)


def with_ops(on_ollama: Callable[..., Services], server: FakeServer) -> Build:
    def build(**overrides: object) -> Services:
        values: dict[str, object] = {"mcp_servers": (ops_server(),)}
        values.update(overrides)
        return on_ollama(server, model="qwen3:8b", **values)

    return build


def shown(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, TokenDelta))


def system_prompt(server: FakeServer, index: int) -> str:
    return str(server.chat_requests[index]["messages"][0]["content"])


def stored(services: Services, events: list[Any]) -> tuple[list[str], list[tuple[str, str, bool]]]:
    """The session's assistant texts and its audit rows (name, status, recovered)."""
    done = events[-1]
    assert isinstance(done, ReplyDone)
    with services.database.read() as session:
        chat = SessionRepository(session).require("alice", done.session_id)
        messages = MessageRepository(session)
        texts = [m.content for m in messages.from_position(chat, 0) if m.role == "assistant"]
        audits = [(a.tool_name, a.status, a.recovered) for a in messages.audits(chat)]
    return texts, audits


@both_providers
async def test_a_call_written_as_text_runs_and_is_audited_as_recovered(
    on_ollama: Callable[..., Services], server: FakeServer
) -> None:
    services = with_ops(on_ollama, server)()
    server.script(
        Reply(text=f"Searching the logs.\n{SEARCH}\nThe logs will show a timeout."),
        "The upstream timed out at 01:02.",
    )
    events = await collect(services.chat.send("alice", None, "any timeouts?"))
    started = [e for e in events if isinstance(e, ToolStarted)]
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [(e.name, e.arguments, e.recovered) for e in started] == [
        ("ops.search_logs", {"pattern": "timeout"}, True)
    ]
    assert [e.status for e in finished] == ["ok"]
    second = server.chat_requests[1]["messages"]
    assert second[-1]["role"] == "tool"
    assert "3 lines match 'timeout'" in second[-1]["content"]
    assert "ops__search_logs" in json.dumps(second[-2])  # the call, as a call, not as text
    text = shown(events)
    assert text == "Searching the logs.\n\nThe upstream timed out at 01:02."
    texts, audits = stored(services, events)
    assert texts == [text]
    assert audits == [("ops.search_logs", "ok", True)]
    assert started[0].to_json()["recovered"] is True


@both_providers
async def test_a_native_call_is_not_marked_recovered(
    on_ollama: Callable[..., Services], server: FakeServer
) -> None:
    services = with_ops(on_ollama, server)()
    server.script(Reply.tool_call("ops__search_logs", {"pattern": "timeout"}), "Found it.")
    events = await collect(services.chat.send("alice", None, "any timeouts?"))
    assert [e.recovered for e in events if isinstance(e, ToolStarted)] == [False]
    assert stored(services, events)[1] == [("ops.search_logs", "ok", False)]


async def test_a_confirm_tool_written_as_text_asks_first(
    on_ollama: Callable[..., Services], server: FakeOllama
) -> None:
    services = with_ops(on_ollama, server)()
    asked: list[ToolConfirmation] = []

    async def decline(request: ToolConfirmation) -> bool:
        asked.append(request)
        return False

    server.script(
        Reply(text='<tool_call>{"name": "ops.restart_service", "arguments": {"service": "api"}}'),
        "Not restarted.",
    )
    events = await collect(services.chat.send("alice", None, "restart api", confirm=decline))
    assert [(a.name, a.arguments) for a in asked] == [("ops.restart_service", {"service": "api"})]
    assert [e.status for e in events if isinstance(e, ToolFinished)] == ["declined"]
    assert stored(services, events)[1] == [("ops.restart_service", "declined", True)]


async def test_a_call_to_a_tool_not_allowed_is_left_as_text(
    on_ollama: Callable[..., Services], server: FakeOllama
) -> None:
    services = with_ops(on_ollama, server)()
    reply = 'I would run:\n```json\n{"name": "ops__delete_all", "arguments": {}}\n```'
    server.script(Reply(text=reply))
    events = await collect(services.chat.send("alice", None, "clean up"))
    assert not [e for e in events if isinstance(e, ToolStarted)]
    assert shown(events) == reply
    assert len(server.chat_requests) == 1


async def test_a_call_the_user_pasted_in_a_log_is_not_made_when_the_model_repeats_it(
    on_ollama: Callable[..., Services], server: FakeOllama
) -> None:
    services = with_ops(on_ollama, server)()
    line = '{"name": "ops__restart_service", "arguments": {"service": "payments"}}'
    pasted = f"what is this in our audit log?\n2026-12-04T01:02:03Z worker: {line}\n"
    echo = f"That line is a queued job:\n{line}\nIt asks to restart payments."
    server.script(Reply(text=echo))
    asked: list[ToolConfirmation] = []

    async def accept(request: ToolConfirmation) -> bool:
        asked.append(request)
        return True

    events = await collect(services.chat.send("alice", None, pasted, confirm=accept))
    assert asked == []
    assert not [e for e in events if isinstance(e, ToolStarted)]
    assert shown(events) == echo


async def test_a_call_inside_a_tool_result_is_not_made_when_the_model_repeats_it(
    on_ollama: Callable[..., Services], server: FakeOllama
) -> None:
    services = on_ollama(server, model="qwen3:8b")
    body = 'Always start with:\n{"name": "get_current_time", "arguments": {}}'
    text = skill_text("quoted-call", "Quotes a call.", body).encode()
    skill = services.configuration.add_skill("alice", "SKILL.md", text)
    services.configuration.save_configuration("alice", skill_ids=[skill.id])
    body_call = '{"name": "get_current_time", "arguments": {}}'
    server.script(
        Reply.tool_call("load_skill", {"skill_name": "quoted-call"}),
        Reply(text=f"The skill says to run:\n{body_call}"),
    )
    events = await collect(services.chat.send("alice", None, "what does the skill say?"))
    assert [e.name for e in events if isinstance(e, ToolStarted)] == ["load_skill"]
    assert len(server.chat_requests) == 2
    assert body_call in shown(events)


async def test_recovery_turned_off_leaves_the_text_as_the_answer(
    on_ollama: Callable[..., Services], server: FakeOllama
) -> None:
    services = with_ops(on_ollama, server)(recover_tool_calls=False)
    server.script(Reply(text=SEARCH))
    events = await collect(services.chat.send("alice", None, "any timeouts?"))
    assert not [e for e in events if isinstance(e, ToolStarted)]
    assert shown(events) == SEARCH
    assert TOOL_FORM_INSTRUCTION not in system_prompt(server, 0)


async def test_ollama_is_told_the_text_form_only_after_a_reply_needed_recovery(
    on_ollama: Callable[..., Services], server: FakeOllama
) -> None:
    services = with_ops(on_ollama, server)()
    server.script("Nothing to search.", Reply(text=SEARCH), "Found it.", "Anything else?")
    first = await collect(services.chat.send("alice", None, "hello"))
    assert TOOL_FORM_INSTRUCTION not in system_prompt(server, 0)  # a native model: no change
    done = first[-1]
    assert isinstance(done, ReplyDone)
    await collect(services.chat.send("alice", done.session_id, "any timeouts?"))
    assert TOOL_FORM_INSTRUCTION not in system_prompt(server, 1)
    await collect(services.chat.send("alice", done.session_id, "thanks"))
    assert TOOL_FORM_INSTRUCTION in system_prompt(server, 3)


async def test_an_openai_compatible_server_is_told_the_text_form_from_the_start(
    on_ollama: Callable[..., Services],
) -> None:
    with FakeOpenAI() as server:
        services = with_ops(on_ollama, server)()
        server.script("Hello.")
        await collect(services.chat.send("alice", None, "hello"))
        prompt = system_prompt(server, 0)
        rules = prompt.split("User-selected system prompt:")[0]
        assert TOOL_FORM_INSTRUCTION in rules  # within the mandatory section


async def test_the_gauge_counts_the_instruction(on_ollama: Callable[..., Services]) -> None:
    history = [("user", "hello")]
    with FakeOpenAI() as server:
        told = with_ops(on_ollama, server)().memory.assemble("alice", None)
        plain = with_ops(on_ollama, server)(recover_tool_calls=False).memory.assemble("alice", None)
        assert TOOL_FORM_INSTRUCTION in told.system_prompt
        assert TOOL_FORM_INSTRUCTION not in plain.system_prompt
        assert told.estimate(history) > plain.estimate(history)


async def test_a_skill_written_as_a_call_is_held_to_the_95_percent_rule(
    on_ollama: Callable[..., Services], server: FakeOllama
) -> None:
    services = on_ollama(server)  # tiny:2k: a 2,048-token window
    skill = services.configuration.add_skill("alice", "SKILL.md", LOG_ANALYSIS * 3)
    services.configuration.save_configuration("alice", skill_ids=[skill.id])
    call = '{"name": "load_skill", "arguments": {"skill_name": "log-analysis"}}'
    server.script(Reply(text=call), "It did not fit.")
    events = await collect(services.chat.send("alice", None, "analyse the logs"))
    assert [(e.name, e.recovered) for e in events if isinstance(e, ToolStarted)] == [
        ("load_skill", True)
    ]
    assert [e.status for e in events if isinstance(e, ToolFinished)] == ["withheld"]


async def test_a_model_the_server_refuses_tools_for_gets_them_as_text_from_then_on(
    on_ollama: Callable[..., Services], server: FakeOllama
) -> None:
    """An Ollama too old to list capabilities, with a model whose template has no tools, refuses
    every request with tools: each send failed with "does not support tools" and a retry the
    same way. The refusal is said once, and the retry offers the tools as text."""
    server.models["old:7b"] = FakeModel("old:7b", capabilities=None, refuses_tools=True)
    services = on_ollama(server, model="old:7b")
    first = await collect(services.chat.send("alice", None, "what time is it in UTC?"))
    failed = first[-1]
    assert isinstance(failed, ReplyFailed)
    assert "Ollama says old:7b cannot call tools" in failed.message
    assert "retry answers it again" in failed.message
    assert failed.session_id is not None
    server.script("It is 03:12 UTC.")
    again = await collect(services.chat.retry("alice", failed.session_id))
    assert isinstance(again[-1], ReplyDone)
    refused, answered = server.chat_requests
    assert refused.get("tools")
    assert not answered.get("tools")
    assert TOOL_FORM_INSTRUCTION in answered["messages"][0]["content"]


async def test_a_model_without_native_tool_calls_gets_its_tools_as_text_and_they_run(
    on_ollama: Callable[..., Services], server: FakeOllama
) -> None:
    """Ollama refuses a request with tools for such a model (gemma:2b here): the tools are
    listed in the system prompt, the calls it writes are made, and it reads the call and the
    result back as text, since its template may know no tool messages."""
    services = on_ollama(server, model="gemma:2b", mcp_servers=(ops_server(),))
    skill = services.configuration.add_skill("alice", "SKILL.md", LOG_ANALYSIS)
    services.configuration.save_configuration("alice", skill_ids=[skill.id])
    server.script(
        Reply(text='<tool_call>{"name": "ops.search_logs", "arguments": {"pattern": "oom"}}'),
        "Three lines match: the upstream timed out.",
    )
    events = await collect(services.chat.send("alice", None, "any OOMs?"))
    assert not [e for e in events if isinstance(e, ToolsUnavailable)]
    assert [(e.name, e.recovered) for e in events if isinstance(e, ToolStarted)] == [
        ("ops.search_logs", True)
    ]
    assert [e.status for e in events if isinstance(e, ToolFinished)] == ["ok"]
    first, second = server.chat_requests
    assert not first.get("tools")
    assert not second.get("tools")
    rules = system_prompt(server, 0).split("User-selected system prompt:")[0]
    assert TOOL_FORM_INSTRUCTION in rules
    assert "  - ops__search_logs(pattern: string, since?: string, limit?: integer): " in rules
    assert "  - load_skill(skill_name: string): " in rules
    assert "  - get_current_time(): " in rules
    roles = [m["role"] for m in second["messages"]]
    assert "tool" not in roles
    assert second["messages"][-2]["content"].endswith(
        '<tool_call>{"name": "ops__search_logs", "arguments": {"pattern": "oom"}}</tool_call>'
    )
    assert second["messages"][-1]["role"] == "user"
    assert second["messages"][-1]["content"].startswith("Result of ops__search_logs:\n3 lines")
    texts, audits = stored(services, events)
    assert texts == ["Three lines match: the upstream timed out."]
    assert audits == [("ops.search_logs", "ok", True)]


async def test_the_gauge_counts_tools_listed_in_the_prompt_as_the_request_has_them(
    on_ollama: Callable[..., Services], server: FakeOllama
) -> None:
    services = on_ollama(server, model="gemma:2b")
    await collect(services.chat.send("alice", None, "hello"))  # the server says: no tools
    assembly = services.memory.assemble("alice", None)
    assert assembly.tools == ()  # the request carries none
    assert [s["function"]["name"] for s in assembly.bound_tools] == ["get_current_time"]
    assert "  - get_current_time(): " in assembly.system_prompt
    plain = on_ollama(server, model="gemma:2b", recover_tool_calls=False)
    await collect(plain.chat.send("alice", None, "hello"))
    without = plain.memory.assemble("alice", None)
    history = [("user", "hello")]
    assert assembly.estimate(history) > without.estimate(history)
    assert "get_current_time()" not in without.system_prompt
