"""Where in its reply a tool call was made is kept (revision 0009): the characters of the
reply's text written before it, for the reopened reply, the export and ``sessions show`` to put
the call between the words around it."""

from __future__ import annotations

from collections.abc import Callable

from oncall_tui.core.events import ReplyDone, UserMessageStored
from oncall_tui.services.container import Services
from tests.conftest import RunCli, collect
from tests.fakes.chat_model import ScriptedChatModel, Turn

Engine = Callable[..., Services]

BEFORE, AFTER = "Let me check the time.", "It is late: roll back now."


async def test_each_call_keeps_how_much_of_the_reply_came_before_it(engine: Engine) -> None:
    model = ScriptedChatModel(
        [
            Turn(text=BEFORE, tool_calls=(("get_current_time", {}),), chunk_size=5),
            Turn(text="", tool_calls=(("get_current_time", {"zone": "UTC"}),)),
            Turn(text=AFTER, chunk_size=5),
        ]
    )
    services = engine(model)
    events = await collect(services.chat.send("alice", None, "is it late?"))
    assert isinstance(events[-1], ReplyDone)
    stored = events[0]
    assert isinstance(stored, UserMessageStored)
    reply = services.sessions.messages("alice", stored.session_id)[1]
    assert reply.content == f"{BEFORE}\n\n{AFTER}"
    assert [call.text_at for call in reply.tool_calls] == [len(BEFORE), len(BEFORE)]
    assert reply.to_json()["tool_calls"][0]["text_at"] == len(BEFORE)  # type: ignore[index]


async def test_a_call_made_before_any_text_is_at_its_start(engine: Engine) -> None:
    model = ScriptedChatModel(
        [Turn(text="", tool_calls=(("get_current_time", {}),)), Turn(text=AFTER)]
    )
    services = engine(model)
    events = await collect(services.chat.send("alice", None, "is it late?"))
    stored = events[0]
    assert isinstance(stored, UserMessageStored)
    reply = services.sessions.messages("alice", stored.session_id)[1]
    assert (reply.content, reply.tool_calls[0].text_at) == (AFTER, 0)


async def placed_reply(
    engine: Engine, before: str = BEFORE, after: str = AFTER
) -> tuple[Services, int]:
    model = ScriptedChatModel(
        [
            Turn(text=before, tool_calls=(("get_current_time", {}),)),
            Turn(text=after),
        ]
    )
    services = engine(model)
    events = await collect(services.chat.send("alice", None, "is it late?"))
    stored = events[0]
    assert isinstance(stored, UserMessageStored)
    return services, stored.session_id


async def test_sessions_show_and_the_export_put_the_call_between_the_words(
    engine: Engine, cli: RunCli
) -> None:
    services, session_id = await placed_reply(engine)
    shown = cli("sessions", "show", str(session_id))
    assert shown.code == 0, shown.err
    lines = shown.out.splitlines()
    at = lines.index(BEFORE)
    assert lines[at + 1].startswith("  tool get_current_time: ")
    assert lines[at + 2] == AFTER
    document = services.export.render("alice", session_id, "md")
    reply = document[document.index(BEFORE) :]
    paragraphs = reply.split("\n\n")
    assert paragraphs[0] == BEFORE
    assert paragraphs[1].startswith("**Tool call** `get_current_time`")
    assert paragraphs[2].startswith(AFTER)


async def test_a_reply_that_is_not_markdown_piece_by_piece_is_fenced_under_its_calls(
    engine: Engine,
) -> None:
    """A fence the model opened before the call and closed after it: cut there, neither piece
    closes what it opens, so the export keeps the reply whole, as before calls had places."""
    before, after = "Run:\n\n```sh\nkubectl get pods", "\n```\n\n" + AFTER
    services, session_id = await placed_reply(engine, before, after)
    (reply,) = services.sessions.messages("alice", session_id)[1:]
    assert reply.content.count("```") == 2  # closed as a whole
    document = services.export.render("alice", session_id, "md")
    call = document.index("**Tool call** `get_current_time`")
    assert call < document.index("kubectl get pods")
    assert "Run:" in document[call:]
