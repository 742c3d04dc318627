"""The 95% rule for every request of a turn, and the gauge after it, on the real client.

The loopback server's ``tiny:2k`` model has a 2,048-token window, as in the report that a
loaded skill took a session at 90% to 2,732 / 2,048 tokens inside one turn.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from oncall_tui.core.events import (
    ContextLimitReached,
    ReplyDone,
    ReplyFailed,
    ToolFinished,
    UsageReported,
    UserMessageStored,
)
from oncall_tui.core.memory import ContextUsage, MemoryMode
from oncall_tui.llm.guard import MIN_KEPT_TOKENS, reply_room
from oncall_tui.services.container import Services
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from tests.conftest import EXAMPLES, FakeServer, both_providers, collect
from tests.fakes.ollama_server import FakeOllama, Reply

OnOllama = Callable[..., Services]
LOG_ANALYSIS = (EXAMPLES / "log-analysis" / "SKILL.md").read_bytes()
PARAGRAPH = (
    "The api-7 pods restarted three times in ten minutes; the readiness probe failed "
    "with a 502 from the upstream, and the node's memory pressure rose at the same time. "
)


def select_log_analysis(services: Services) -> None:
    skill = services.configuration.add_skill("alice", "SKILL.md", LOG_ANALYSIS)
    services.configuration.save_configuration("alice", skill_ids=[skill.id])


def fill_to(services: Services, percent: float) -> int:
    """A manual-mode session whose next request is at ``percent`` or a little more."""
    with services.database.session() as session:
        chat = SessionRepository(session).create("alice", "filled", MemoryMode.MANUAL.value)
        assert chat.id is not None
        session_id = chat.id
    while services.memory.state("alice", session_id).usage.percent < percent:
        with services.database.session() as session:
            chat = SessionRepository(session).require("alice", session_id)
            MessageRepository(session).add(chat, "user", PARAGRAPH)
            MessageRepository(session).add(chat, "assistant", "Noted.")
    return session_id


@both_providers
async def test_a_skill_that_would_pass_95_percent_is_not_passed_on(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    services = on_ollama(server)
    select_log_analysis(services)
    session_id = fill_to(services, 85.0)
    server.script(
        Reply.tool_call("load_skill", {"skill_name": "log-analysis"}),
        "The runbook does not fit; compact the session first.",
    )
    events = await collect(services.chat.send("alice", session_id, "use skill log-analysis"))

    (finished,) = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.status == "withheld"
    assert finished.summary.startswith("Skill 'log-analysis' not loaded: it needs about ")
    assert isinstance(events[-1], ReplyDone)
    _, second = server.chat_requests
    tool_message = second["messages"][-1]
    assert tool_message["role"] == "tool"
    assert tool_message["content"].startswith("Skill 'log-analysis' not loaded")
    assert "## Workflow" not in str(second["messages"])  # not a line of the runbook went out
    stored = services.sessions.messages("alice", session_id)[-1]
    assert [(c.name, c.status) for c in stored.tool_calls] == [("load_skill", "withheld")]


@both_providers
async def test_a_skill_is_withheld_whole_where_a_part_of_it_would_fit(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    """A search result is cut to what fits; a runbook is not: half of one, followed as if it
    were all, is worse than none."""
    services = on_ollama(server)
    select_log_analysis(services)
    session_id = fill_to(services, 25.0)
    server.script(
        Reply.tool_call("load_skill", {"skill_name": "log-analysis"}),
        "The runbook does not fit; compact the session first.",
    )
    events = await collect(services.chat.send("alice", session_id, "use skill log-analysis"))
    (finished,) = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.status == "withheld"
    _, second = server.chat_requests
    note = second["messages"][-1]["content"]
    assert note.startswith("Skill 'log-analysis' not loaded")
    assert "## Workflow" not in str(second["messages"])
    left = re.search(r"and ([\d,]+) are left under the 95% limit", note)
    assert left is not None  # room enough for a cut of it, with its note and the reply room
    assert int(left[1].replace(",", "")) > reply_room(2_048) + MIN_KEPT_TOKENS + 150


@both_providers
async def test_a_skill_that_fits_is_loaded_whole(on_ollama: OnOllama, server: FakeServer) -> None:
    services = on_ollama(server, model="qwen3:8b")  # 8,192 tokens: the runbook fits
    select_log_analysis(services)
    server.script(Reply.tool_call("load_skill", {"skill_name": "log-analysis"}), "Grep first.")
    events = await collect(services.chat.send("alice", None, "use skill log-analysis"))
    (finished,) = [e for e in events if isinstance(e, ToolFinished)]
    assert (finished.status, finished.summary) == ("ok", "Loaded skill: log-analysis")
    assert LOG_ANALYSIS.decode() in server.chat_requests[1]["messages"][-1]["content"]


@both_providers
async def test_a_request_over_the_window_is_never_sent(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    """The model's own words before a tool call can fill the window too."""
    services = on_ollama(server)
    rambling = PARAGRAPH * 60  # far more than 2,048 tokens
    server.script(Reply(text=rambling, tool_calls=(("get_current_time", {}),)), "unreachable")
    events = await collect(services.chat.send("alice", None, "what time is it?"))
    assert len(server.chat_requests) == 1
    failed = events[-1]
    assert isinstance(failed, ReplyFailed)
    assert failed.code == "CHAT_CONTEXT_LIMIT_REACHED"
    assert "so it was not sent" in failed.message
    assert "The partial reply was kept, marked failed." in failed.message
    assert failed.session_id is not None
    reply = services.sessions.messages("alice", failed.session_id)[-1]
    assert (reply.role, reply.status, reply.content) == ("assistant", "failed", rambling)


@both_providers
async def test_the_gauge_after_a_tool_turn_is_the_next_requests_cost(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    """Not the last request's: that one held the loaded runbook, which the next will not."""
    services = on_ollama(server, model="qwen3:8b")
    select_log_analysis(services)
    server.script(
        Reply.tool_call("load_skill", {"skill_name": "log-analysis"}, prompt_eval_count=10),
        Reply("Grep the 502s per minute.", prompt_eval_count=2_900),
    )
    events = await collect(services.chat.send("alice", None, "use skill log-analysis"))
    (usage,) = [e for e in events if isinstance(e, UsageReported)]
    assert usage.input_tokens == 2_900  # what the last request held
    stored = events[-1]
    assert isinstance(stored, ReplyDone)
    state = services.memory.state("alice", stored.session_id)
    assert usage.usage == state.usage
    assert state.usage.context_tokens < 2_900
    assembly = services.memory.assemble("alice", None)
    history = [("user", "use skill log-analysis"), ("assistant", "Grep the 502s per minute.")]
    assert state.usage.context_tokens == assembly.estimate(history)


@both_providers
async def test_the_first_requests_count_calibrates_the_estimate(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    """A tool turn calibrates as well as a plain one: its first request is the measured one."""
    services = on_ollama(server, model="qwen3:8b")
    select_log_analysis(services)
    question = "use skill log-analysis"
    assembly = services.memory.assemble("alice", None)
    measured = assembly.estimate([("user", question)])
    server.script(
        Reply.tool_call(
            "load_skill", {"skill_name": "log-analysis"}, prompt_eval_count=2 * measured
        ),
        Reply("Grep first.", prompt_eval_count=9_000),
    )
    events = await collect(services.chat.send("alice", None, question))
    done = events[-1]
    assert isinstance(done, ReplyDone)
    raw = assembly.estimate([("user", question), ("assistant", "Grep first.")])
    state = services.memory.state("alice", done.session_id)
    assert state.usage.context_tokens == math.ceil(raw * 2.0)


@both_providers
async def test_the_refusal_says_what_the_message_would_do(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    services = on_ollama(server)
    events = await collect(services.chat.send("alice", None, PARAGRAPH * 40))
    (refused,) = events
    assert isinstance(refused, ContextLimitReached)
    percent = refused.usage.percent
    assert percent >= 95.0
    assert refused.message.startswith(
        f"Your message would bring the context to {percent}% of 2,048 tokens (limit 95%). "
        "Nothing was sent."
    )
    assert server.chat_requests == []
    assert services.sessions.list_sessions("alice") == []


async def test_a_message_too_long_for_a_new_session_says_about_how_much_of_it_fits(
    on_ollama: OnOllama, server: FakeOllama
) -> None:
    """The paste at 3 a.m.: compacting or a new session would not help, shortening would, and
    by about how much is what the engineer needs to know."""
    services = on_ollama(server)
    log = "".join(
        f"02:{i % 60:02d}:01Z ERROR api upstream timed out req={i:05d}\n" for i in range(99)
    )
    (refused,) = await collect(services.chat.send("alice", None, log))
    assert isinstance(refused, ContextLimitReached)
    found = re.search(
        r"Nothing was sent\. About ([\d,]+) of its ([\d,]+) characters would fit: shorten it\.$",
        refused.message,
    )
    assert found, refused.message
    fit, length = (int(figure.replace(",", "")) for figure in found.groups())
    assert length == len(log)
    assert 0 < fit < length
    (too_long,) = await collect(services.chat.send("alice", None, log[: fit + 1]))
    assert isinstance(too_long, ContextLimitReached)  # one character more does not fit
    events = await collect(services.chat.send("alice", None, log[:fit]))
    assert isinstance(events[-1], ReplyDone)  # what it says fits, does


async def test_a_session_too_full_for_any_message_says_to_compact_or_start_anew(
    on_ollama: OnOllama, server: FakeOllama
) -> None:
    services = on_ollama(server)
    session_id = fill_to(services, 95.0)
    (refused,) = await collect(services.chat.send("alice", session_id, "and now?"))
    assert isinstance(refused, ContextLimitReached)
    assert refused.message.endswith(
        "Nothing was sent, and even a short message would not fit: compact the session memory "
        "or start a new session."
    )
    (longer,) = await collect(services.chat.send("alice", session_id, PARAGRAPH * 3))
    assert isinstance(longer, ContextLimitReached)
    assert "About " not in longer.message


async def test_a_window_the_prompt_alone_fills_says_so_with_the_gauge_s_figure(
    on_ollama: OnOllama, server: FakeOllama
) -> None:
    services = on_ollama(server, num_ctx=512)
    session_id = services.sessions.create("alice").id
    base = services.memory.state("alice", session_id).usage.percent
    assert base >= 95.0
    (refused,) = await collect(services.chat.send("alice", None, "hi"))
    assert isinstance(refused, ContextLimitReached)
    assert refused.message.endswith(
        f"Nothing was sent: the prompt, the skills and the tools alone take {base}% of the "
        "window. Shorten the prompt, select fewer skills, or start with a larger window "
        "(--num-ctx)."
    )


def test_usage_is_never_capped() -> None:
    assert ContextUsage(2_732, 2_048).percent == 133.4
    assert ContextUsage(2_048, 2_048).percent == 100.0


@both_providers
async def test_a_first_message_just_under_the_limit_is_sent(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    services = on_ollama(server)
    assembly = services.memory.assemble("alice", None)
    text = "x"
    while ContextUsage(assembly.estimate([("user", text + " x")]), 2_048).percent < 95.0:
        text += " x"
    assert ContextUsage(assembly.estimate([("user", text)]), 2_048).percent < 95.0
    events = await collect(services.chat.send("alice", None, text))
    assert isinstance(events[0], UserMessageStored)
    over = await collect(services.chat.send("alice", None, text + " x"))
    assert isinstance(over[0], ContextLimitReached)
