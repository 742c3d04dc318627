"""A send end to end with the scripted model: events, the request, persistence, failures."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from langchain_core.messages import SystemMessage

from oncall_tui.core.events import (
    ReplyDone,
    ReplyFailed,
    TokenDelta,
    ToolFinished,
    ToolStarted,
    UsageReported,
    UserMessageStored,
)
from oncall_tui.core.prompts import MANDATORY_INSTRUCTIONS, SKILLS_HEADING
from oncall_tui.errors import OncallError
from oncall_tui.services.chat import MAX_MESSAGE_CHARS
from oncall_tui.services.container import Services
from oncall_tui.services.sessions import title_from_message
from tests.conftest import collect, skill_text
from tests.fakes.chat_model import ScriptedChatModel, Turn

Engine = Callable[..., Services]

pytestmark = pytest.mark.both_engines


def select_skill(services: Services, name: str, body: str = "Step 1: kubectl get pods") -> int:
    skill = services.configuration.add_skill(
        "alice", "SKILL.md", skill_text(name, f"How to do {name}.", body).encode()
    )
    current = services.configuration.get_configuration("alice").skill_ids
    services.configuration.save_configuration("alice", skill_ids=[*current, skill.id])
    return skill.id


async def test_events_come_in_order_and_both_messages_are_stored(engine: Engine) -> None:
    services = engine(ScriptedChatModel([Turn(text="Check the pod logs first.", chunk_size=5)]))
    events = await collect(services.chat.send("alice", None, "api-7 is crashlooping"))
    kinds = [e.type for e in events]
    assert kinds[0] == "user_message"
    assert kinds[-2:] == ["usage", "done"]
    assert set(kinds[1:-2]) == {"token"}
    assert len(kinds) > 4
    text = "".join(e.text for e in events if isinstance(e, TokenDelta))
    assert text == "Check the pod logs first."
    done = events[-1]
    assert isinstance(done, ReplyDone)
    messages = services.sessions.messages("alice", done.session_id)
    assert [(m.role, m.content, m.status) for m in messages] == [
        ("user", "api-7 is crashlooping", "complete"),
        ("assistant", "Check the pod logs first.", "complete"),
    ]
    assert messages[1].id == done.message_id
    usage = events[-2]
    assert isinstance(usage, UsageReported)
    assert usage.usage.context_tokens > 0


async def test_a_new_session_is_titled_from_its_first_message(engine: Engine) -> None:
    services = engine(ScriptedChatModel(["ok", "ok"]))
    events = await collect(services.chat.send("alice", None, "\n  Disk full on db-3  \nmore"))
    stored = events[0]
    assert isinstance(stored, UserMessageStored)
    session_id = stored.session_id
    assert services.sessions.get("alice", session_id).title == "Disk full on db-3"
    empty = services.sessions.create("alice")
    assert not empty.title  # untitled: each output names it in its own language
    await collect(services.chat.send("alice", empty.id, "Second session topic"))
    assert services.sessions.get("alice", empty.id).title == "Second session topic"


LOG = "\n".join(
    f"2026-12-07T03:00:{i:02d}Z ERROR api-7 upstream timed out after 30s" for i in range(30)
)


@pytest.mark.parametrize(
    ("message", "title"),
    [
        (f"{LOG}\n\nwhy does api-7 time out?", "why does api-7 time out?"),  # pasted, then asked
        (f"why does api-7 time out?\n{LOG}", "why does api-7 time out?"),
        ("03:00:28.415 db-3 disk 98%\nis it the WAL?", "is it the WAL?"),
        ('{"level":"error","msg":"OOMKilled"}\nwhat killed it?', "what killed it?"),
        ("502s on api-7 since 03:00\nwhere do I start?", "502s on api-7 since 03:00"),
        (LOG, "2026-12-07T03:00:00Z ERROR api-7 upstream timed out after 3…"),  # all log
        (
            "curl -H 'Authorization: Bearer sk-9d8c7b6a' fails",
            "curl -H 'Authorization: Bearer ***' fails",
        ),
    ],
    ids=[
        "log-then-question",
        "question-then-log",
        "times",
        "json",
        "a-time-in-prose",
        "all-log",
        "a-secret",
    ],
)
def test_a_title_passes_over_the_lines_of_a_pasted_log(message: str, title: str) -> None:
    """Every incident pasted first was titled with its log's first timestamp."""
    assert title_from_message(message) == title


async def test_the_request_has_house_rules_first_then_prompt_then_catalog(engine: Engine) -> None:
    model = ScriptedChatModel(["ok"])
    services = engine(model)
    prompt = services.configuration.create_prompt("alice", "Terse", "USER-PROMPT-TEXT")
    services.configuration.save_configuration("alice", system_prompt_id=prompt.id)
    select_skill(services, "pod-triage", body="SECRET-SKILL-BODY")
    await collect(services.chat.send("alice", None, "hi"))
    system = model.calls[0][0]
    assert isinstance(system, SystemMessage)
    text = str(system.content)
    assert text.startswith(MANDATORY_INSTRUCTIONS)
    assert text.index("USER-PROMPT-TEXT") < text.index(SKILLS_HEADING)
    assert "- **pod-triage**: How to do pod-triage." in text
    assert "SECRET-SKILL-BODY" not in text
    assert model.tool_names == ["get_current_time", "load_skill"]


async def test_load_skill_is_offered_only_when_skills_are_selected(engine: Engine) -> None:
    model = ScriptedChatModel(["ok"])
    services = engine(model)
    await collect(services.chat.send("alice", None, "hi"))
    assert model.tool_names == ["get_current_time"]
    assert SKILLS_HEADING not in str(model.calls[0][0].content)


async def test_load_skill_round_trip_is_audited_with_a_one_line_summary(engine: Engine) -> None:
    model = ScriptedChatModel(
        [
            Turn.call("load_skill", {"skill_name": "pod-triage"}),
            "Following pod-triage: run kubectl describe.",
        ]
    )
    services = engine(model)
    select_skill(services, "pod-triage", body="SECRET-SKILL-BODY")
    events = await collect(services.chat.send("alice", None, "pods failing"))
    started = [e for e in events if isinstance(e, ToolStarted)]
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [(e.name, e.arguments) for e in started] == [
        ("load_skill", {"skill_name": "pod-triage"})
    ]
    assert [e.summary for e in finished] == ["Loaded skill: pod-triage"]
    assert all("SECRET-SKILL-BODY" not in str(e.to_json()) for e in events)
    # the model itself did receive the body through the tool
    assert "SECRET-SKILL-BODY" in str(model.calls[1][-1].content)
    done = events[-1]
    assert isinstance(done, ReplyDone)
    reply = services.sessions.messages("alice", done.session_id)[-1]
    assert [(c.name, c.status, c.summary) for c in reply.tool_calls] == [
        ("load_skill", "ok", "Loaded skill: pod-triage")
    ]


@pytest.mark.parametrize("case", ["unselected", "deleted", "other-owner"])
async def test_load_skill_outside_this_selection_is_not_available(
    engine: Engine, case: str
) -> None:
    model = ScriptedChatModel([Turn.call("load_skill", {"skill_name": "wanted"}), "ok"])
    services = engine(model)
    select_skill(services, "selected-one")
    if case == "unselected":
        services.configuration.add_skill("alice", "SKILL.md", skill_text("wanted").encode())
    elif case == "deleted":
        select_skill(services, "wanted")
        services.configuration.delete_skill("alice", "wanted")
    else:
        services.configuration.add_skill("bob", "SKILL.md", skill_text("wanted").encode())
    events = await collect(services.chat.send("alice", None, "use wanted"))
    finished = next(e for e in events if isinstance(e, ToolFinished))
    assert "not available" in finished.summary
    tool_result = str(model.calls[1][-1].content)
    assert "not available" in tool_result
    assert "selected-one" in tool_result


async def test_a_failure_mid_stream_keeps_the_user_message_and_marks_the_partial(
    engine: Engine,
) -> None:
    model = ScriptedChatModel(
        [Turn.raises(ConnectionResetError("peer reset"), after=2, text="Partial answer that")]
    )
    services = engine(model)
    events = await collect(services.chat.send("alice", None, "why is p99 up?"))
    failed = events[-1]
    assert isinstance(failed, ReplyFailed)
    assert failed.code == "STREAM_FAILED"
    messages = services.sessions.messages("alice", failed.session_id or 0)
    assert messages[0].content == "why is p99 up?"
    assert messages[1].status == "failed"
    assert messages[1].content == "".join(e.text for e in events if isinstance(e, TokenDelta))
    assert messages[1].content  # some text had arrived and was kept
    assert failed.message_id == messages[1].id


async def test_a_failure_before_any_text_stores_only_the_user_message(engine: Engine) -> None:
    services = engine(ScriptedChatModel([Turn.raises(ConnectionRefusedError("refused"))]))
    events = await collect(services.chat.send("alice", None, "hello?"))
    failed = events[-1]
    assert isinstance(failed, ReplyFailed)
    assert failed.message_id is None
    messages = services.sessions.messages("alice", failed.session_id or 0)
    assert [(m.role, m.content) for m in messages] == [("user", "hello?")]


async def test_cancelling_keeps_the_partial_reply_marked_interrupted(engine: Engine) -> None:
    model = ScriptedChatModel(
        [Turn(text="one two three four five six", chunk_size=4, delay_per_chunk=0.01)]
    )
    services = engine(model)
    stream = services.chat.send("alice", None, "long answer please")
    received: list[str] = []
    session_id = 0
    async for event in stream:
        if isinstance(event, UserMessageStored):
            session_id = event.session_id
        if isinstance(event, TokenDelta):
            received.append(event.text)
            if len(received) == 2:
                break
    await stream.aclose()
    messages = services.sessions.messages("alice", session_id)
    assert [m.role for m in messages] == ["user", "assistant"]
    assert messages[1].status == "interrupted"
    assert messages[1].content == "".join(received)


async def test_another_owners_session_looks_missing_and_nothing_is_stored(engine: Engine) -> None:
    """The same answer as for an id that does not exist: nothing tells which ids do."""
    services = engine(ScriptedChatModel())
    bobs = services.sessions.create("bob", "bob's incident")
    with pytest.raises(OncallError) as caught:
        await collect(services.chat.send("alice", bobs.id, "let me in"))
    with pytest.raises(OncallError) as absent:
        await collect(services.chat.send("alice", 99_999, "let me in"))
    assert caught.value.code == absent.value.code == "NOT_FOUND"
    assert caught.value.message("en") == f"No session '{bobs.id}' found."
    assert services.sessions.messages("bob", bobs.id) == []
    for action in (
        lambda: services.sessions.messages("alice", bobs.id),
        lambda: services.sessions.delete("alice", bobs.id),
        lambda: services.sessions.rename("alice", bobs.id, "mine"),
        lambda: services.sessions.clear("alice", bobs.id),
        lambda: services.memory.refresh_usage("alice", bobs.id),
    ):
        with pytest.raises(OncallError, match=f"No session '{bobs.id}' found"):
            action()
    assert services.sessions.get("bob", bobs.id).title == "bob's incident"
    with pytest.raises(OncallError) as missing:
        services.sessions.get("alice", 99_999)
    assert missing.value.code == "NOT_FOUND"


async def test_message_length_bounds(engine: Engine) -> None:
    services = engine(ScriptedChatModel(["ok"]), window=1_000_000)
    events = await collect(services.chat.send("alice", None, "x" * MAX_MESSAGE_CHARS))
    assert isinstance(events[-1], ReplyDone)
    said = []
    for bad in ("x" * (MAX_MESSAGE_CHARS + 1), "   \n "):
        with pytest.raises(OncallError) as caught:
            await collect(services.chat.send("alice", None, bad))
        assert caught.value.code == "VALIDATION_INVALID_ARGUMENT"
        said.append(caught.value.message("zh"))
    assert said == [
        "参数无效：一条消息最多 100,000 个字符（实际 100,001）：请只发送相关的部分",
        "参数无效：消息为空",
    ]
    assert len(services.sessions.list_sessions("alice")) == 1


COLOURED = "\x1b[31mERROR\x1b[0m 02:14 db-3 timeout\n\x1b[1;33mWARN\x1b[0m pool 10/10"
"""Two lines of a log an app wrote in colour (SGR sequences around its levels)."""


async def test_a_coloured_log_is_stored_and_sent_without_its_escape_sequences(
    engine: Engine,
) -> None:
    """The colour codes of a piped or pasted log are the terminal's, not the log's words: the
    model would read ``[31m`` and ``[0m`` as text, at a few tokens each. A lone ESC that
    starts no sequence is left as written."""
    model = ScriptedChatModel(["ok", "ok"])
    services = engine(model)
    events = await collect(services.chat.send("alice", None, COLOURED + "\nwhy? \x1b end"))
    stored = events[0]
    assert isinstance(stored, UserMessageStored)
    clean = "ERROR 02:14 db-3 timeout\nWARN pool 10/10\nwhy? \x1b end"
    assert stored.content == clean
    assert model.calls[0][-1].content == clean
    message = services.sessions.messages("alice", stored.session_id)[0]
    assert message.content == clean
    # a title, a cursor move, a hyperlink (OSC 8) and a window title (OSC 0) go too
    marked = "\x1b]0;prod\x07\x1b]8;;https://grafana\x1b\\dash\x1b]8;;\x1b\\ \x1b[2K\x1bMup"
    events = await collect(services.chat.send("alice", stored.session_id, marked))
    assert isinstance(events[0], UserMessageStored)
    assert events[0].content == "dash up"


async def test_the_message_limits_count_what_is_left_once_the_colours_go(engine: Engine) -> None:
    services = engine(ScriptedChatModel(["ok"]), window=1_000_000)
    red, reset = "\x1b[31m", "\x1b[0m"
    events = await collect(services.chat.send("alice", None, red + "x" * MAX_MESSAGE_CHARS + reset))
    assert isinstance(events[-1], ReplyDone)  # at the limit once the codes go
    for bad, reason in [
        (red + "x" * (MAX_MESSAGE_CHARS + 1) + reset, "message_too_long"),
        (f"{red} \n{reset}", "message_empty"),  # nothing but colours and whitespace
    ]:
        with pytest.raises(OncallError) as caught:
            await collect(services.chat.send("alice", None, bad))
        assert caught.value.reason == reason
    assert len(services.sessions.list_sessions("alice")) == 1


async def test_a_session_deleted_while_its_answer_comes_is_said_so(engine: Engine) -> None:
    """Deleted in another window (or with the CLI) while the answer streamed: the error said
    "No session '1' found", a session the user had not asked for."""
    services = engine(ScriptedChatModel([Turn(text="one two three four", chunk_size=4)]))
    session = services.sessions.create("alice", "incident")

    async def send_and_delete_at_the_first_words() -> None:
        async for event in services.chat.send("alice", session.id, "why?"):
            if isinstance(event, TokenDelta) and services.sessions.list_sessions("alice"):
                services.sessions.delete("alice", session.id)

    with pytest.raises(OncallError) as gone:
        await send_and_delete_at_the_first_words()
    assert gone.value.code == "NOT_FOUND"
    assert gone.value.message("en") == (
        f"Session {session.id} was deleted while its answer came (in another window, or with "
        "the CLI): the answer was not saved."
    )
    assert services.sessions.list_sessions("alice") == []


async def test_a_session_cleared_while_its_answer_comes_does_not_take_it(engine: Engine) -> None:
    """Cleared in another window (or with the CLI) while the answer streamed: the answer was
    stored alone at the start of the emptied session, with no question, and sent back first
    in every later request."""
    services = engine(ScriptedChatModel([Turn(text="one two three four", chunk_size=4), "ok"]))
    session = services.sessions.create("alice", "incident")
    cleared = False

    async def send_and_clear_at_the_first_words() -> None:
        nonlocal cleared
        async for event in services.chat.send("alice", session.id, "why?"):
            if isinstance(event, TokenDelta) and not cleared:
                services.sessions.clear("alice", session.id)
                cleared = True

    with pytest.raises(OncallError) as gone:
        await send_and_clear_at_the_first_words()
    assert (gone.value.code, gone.value.reason) == ("NOT_FOUND", "session_cleared")
    assert gone.value.message("en") == (
        f"Session {session.id} was cleared while its answer came (in another window, or with "
        "the CLI): the answer was not saved."
    )
    assert services.sessions.messages("alice", session.id) == []
    await collect(services.chat.send("alice", session.id, "new incident"))
    stored = services.sessions.messages("alice", session.id)
    assert [(m.role, m.content) for m in stored] == [("user", "new incident"), ("assistant", "ok")]


async def test_sessions_list_rename_delete(engine: Engine) -> None:
    services = engine(ScriptedChatModel(["ok"]))
    first = services.sessions.create("alice", "first")
    second = services.sessions.create("alice", "second")
    await collect(services.chat.send("alice", first.id, "touch first"))
    listed = services.sessions.list_sessions("alice")
    assert [(s.id, s.message_count) for s in listed] == [(first.id, 2), (second.id, 0)]
    assert services.sessions.rename("alice", second.id, "  renamed  ").title == "renamed"
    with pytest.raises(OncallError):
        services.sessions.rename("alice", second.id, "t" * 121)
    assert services.sessions.rename("alice", second.id, "t" * 120).title == "t" * 120
    services.sessions.delete("alice", first.id)
    assert [s.id for s in services.sessions.list_sessions("alice")] == [second.id]
