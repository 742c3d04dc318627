"""The agent host: turns run in a real child process with the real client, over loopback."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncGenerator, Iterator
from pathlib import Path

import pytest

from oncall_tui.core.events import TokenDelta, ToolFinished, ToolStarted
from oncall_tui.core.memory import ContextBudget
from oncall_tui.errors import OncallError
from oncall_tui.llm.host import AgentHost
from oncall_tui.llm.turn import (
    AgentStreamItem,
    ModelUsage,
    Turn,
    error_from_json,
    error_to_json,
    item_from_json,
    item_to_json,
)
from tests.fakes import FakeOllama, Reply

from .helpers import collect, collect_until_error, text_of

SKILL = "---\nname: disk-full\ndescription: Free disk space.\n---\n\n# Steps\n1. df -h\n"
TURN = Turn("SYS", (("user", "db-1 alerts"), ("assistant", "Which?"), ("user", "disk full")))


@pytest.fixture
def host() -> Iterator[AgentHost]:
    agent_host = AgentHost()
    yield agent_host
    agent_host.close()


def run(
    host: AgentHost, server: FakeOllama, turn: Turn = TURN, model: str = "qwen3:8b"
) -> AsyncGenerator[AgentStreamItem, None]:
    return host.stream(turn, url=server.url, model=model, num_ctx=4096, timeout=10.0, deadline=60.0)


async def slow_turn_then(
    host: AgentHost, server: FakeOllama, next_reply: str
) -> AsyncGenerator[AgentStreamItem, None]:
    """A slow turn, started and under way (its first piece is in); then ``next_reply``."""
    server.script(
        Reply(text="slow " * 400, delay_per_chunk=0.05),
        Reply(text=next_reply, prompt_eval_count=10, eval_count=2),
    )
    stream = run(host, server)
    assert isinstance(await anext(stream), TokenDelta)
    return stream


async def test_a_turn_runs_in_the_child_and_ends_with_usage(
    host: AgentHost, server: FakeOllama
) -> None:
    reply = "Check the log volume first, then rotate the old WAL files. " * 30
    server.script(Reply(text=reply, prompt_eval_count=321, eval_count=9))
    items = await collect(run(host, server))
    assert host.pid is not None
    assert host.pid != os.getpid()
    assert text_of(items) == reply
    assert items[-1] == ModelUsage(input_tokens=321, output_tokens=9, first_input_tokens=321)
    assert len(items) < 100  # pieces are joined on the child's side, not one line per token
    (request,) = server.chat_requests
    assert request["options"]["num_ctx"] == 4096
    contents = [message["content"] for message in request["messages"]]
    assert contents == ["SYS", "db-1 alerts", "Which?", "disk full"]


async def test_load_skill_runs_in_the_child_with_this_turns_skills(
    host: AgentHost, server: FakeOllama
) -> None:
    server.script(
        Reply(text="Loading.", tool_calls=(("load_skill", {"skill_name": "disk-full"}),)),
        Reply(text="Run df -h.", prompt_eval_count=480, eval_count=4),
    )
    turn = Turn(TURN.system_prompt, TURN.history, {"disk-full": SKILL})
    items = await collect(run(host, server, turn))
    kinds = [type(item).__name__ for item in items]
    assert kinds == ["TokenDelta", "ToolStarted", "ToolFinished", "TokenDelta", "ModelUsage"]
    started, finished = items[1], items[2]
    assert isinstance(started, ToolStarted)
    assert started.arguments == {"skill_name": "disk-full"}
    assert isinstance(finished, ToolFinished)
    assert finished.ok
    assert "disk-full" in finished.summary
    tool_message = server.chat_requests[1]["messages"][-1]
    assert tool_message["role"] == "tool"
    assert "df -h" in tool_message["content"]


async def test_errors_come_back_catalogued(
    host: AgentHost, server: FakeOllama, closed_url: str
) -> None:
    items, error = await collect_until_error(run(host, server, model="missing:1b"))
    assert (items, error.code) == ([], "MODEL_NOT_FOUND")
    assert "ollama pull missing:1b" in error.message()
    stream = host.stream(
        TURN, url=closed_url, model="qwen3:8b", num_ctx=4096, timeout=5.0, deadline=60.0
    )
    _, down = await collect_until_error(stream)
    assert down.code == "MODEL_UNAVAILABLE"
    assert closed_url in down.message()


async def test_leaving_a_turn_early_cancels_it_and_the_host_serves_the_next(
    host: AgentHost, server: FakeOllama
) -> None:
    first = await slow_turn_then(host, server, "Next answer.")
    pid = host.pid
    await first.aclose()  # what a cancelled send does
    items = await asyncio.wait_for(collect(run(host, server)), timeout=20)
    assert text_of(items) == "Next answer."
    assert host.pid == pid  # the same warm child


async def test_a_child_that_dies_fails_the_turn_and_the_next_turn_starts_another(
    host: AgentHost, server: FakeOllama
) -> None:
    stream = await slow_turn_then(host, server, "Back again.")
    dead = host.pid
    assert dead is not None
    os.kill(dead, signal.SIGKILL)
    _, error = await asyncio.wait_for(collect_until_error(stream), timeout=20)
    assert error.code == "STREAM_FAILED"
    assert "killed by signal 9" in error.message()
    assert "进程已停止" in error.message("zh")
    items = await asyncio.wait_for(collect(run(host, server)), timeout=30)
    assert text_of(items) == "Back again."
    assert host.pid not in (None, dead)


async def test_a_child_that_cannot_start_says_why(server: FakeOllama) -> None:
    broken = AgentHost(
        [sys.executable, "-c", "import sys; sys.stderr.write('no module here\\n'); sys.exit(3)"]
    )
    try:
        _, error = await asyncio.wait_for(collect_until_error(run(broken, server)), timeout=20)
    finally:
        broken.close()
    assert error.code == "STREAM_FAILED"
    assert "exit status 3: no module here" in error.message()


async def test_a_child_that_cannot_be_started_fails_the_turn_clearly(
    server: FakeOllama, tmp_path: Path
) -> None:
    missing = tmp_path / "no-such-python"
    _, error = await collect_until_error(run(AgentHost([str(missing)]), server))
    assert error.code == "STREAM_FAILED"
    assert f"cannot start {missing}" in error.message()


def test_turns_items_and_errors_survive_the_wire() -> None:
    turn = Turn("SYS", (("user", "q"), ("assistant", "a")), {"k8s": SKILL})
    assert Turn.from_json(turn.to_json()) == turn
    budgeted = Turn("SYS", (("user", "q"),), tools=False, budget=ContextBudget(2048, 1.25, 900))
    assert Turn.from_json(json.loads(json.dumps(budgeted.to_json()))) == budgeted
    items: list[AgentStreamItem] = [
        TokenDelta("text"),
        ToolStarted("c1", "load_skill", {"skill_name": "k8s"}),
        ToolFinished(
            "c1", "load_skill", "Skill 'k8s' not loaded", duration_ms=12, status="withheld"
        ),
        ModelUsage(input_tokens=None, output_tokens=7, first_input_tokens=5, truncated=True),
    ]
    for item in items:
        assert item_from_json({**item_to_json(item), "id": 3}) == item
    error = OncallError("STREAM_FAILED", "engine_stopped", status="exit status 1")
    again = error_from_json(error_to_json(error))
    assert (again.code, again.reason, again.message("zh")) == (
        error.code,
        error.reason,
        error.message("zh"),
    )
