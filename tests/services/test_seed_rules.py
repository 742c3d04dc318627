"""The seed's rules exactly, at their bounds: thresholds on the rounded percent, what counts
as a turn, and what a compaction stores."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from oncall_tui.core.events import ContextLimitReached, MemoryCompacted, ReplyDone
from oncall_tui.core.memory import MemoryMode
from oncall_tui.services.container import Services
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from tests.conftest import collect
from tests.fakes.chat_model import ScriptedChatModel

Engine = Callable[..., Services]
WINDOW = 2_048


def session_with(
    services: Services, pairs: list[tuple[str, str]], mode: MemoryMode, *, reported: int = 0
) -> int:
    """A session holding ``pairs`` of user and assistant texts. ``reported`` stands for the
    model's count of the last prompt: the reading of the next request is never below it, so
    it puts the reading exactly where a test needs it."""
    with services.database.session() as session:
        sessions, messages = SessionRepository(session), MessageRepository(session)
        chat = sessions.create("alice", "seeded", mode.value)
        for question, answer in pairs:
            messages.add(chat, "user", question)
            messages.add(chat, "assistant", answer)
        chat.reported_prompt_tokens = reported or None
        sessions.save(chat)
        assert chat.id is not None
        return chat.id


@pytest.mark.parametrize(("empty_replies", "compacts"), [(0, False), (1, True)])
async def test_every_30_turns_counts_empty_replies_too(
    engine: Engine, empty_replies: int, compacts: bool
) -> None:
    """29 answered turns and one empty reply are 30 assistant messages, as the seed counts."""
    model = ScriptedChatModel(["summary", "reply"])
    services = engine(model)
    pairs = [(f"q{i}", f"a{i}") for i in range(29)] + [("q29", "")] * empty_replies
    session_id = session_with(services, pairs, MemoryMode.EVERY_30_TURNS)
    events = await collect(services.chat.send("alice", session_id, "next"))
    assert any(isinstance(e, MemoryCompacted) for e in events) is compacts


@pytest.mark.parametrize(("reported", "compacts"), [(1_432, False), (1_433, True)])
async def test_seventy_percent_is_the_rounded_percent(
    engine: Engine, reported: int, compacts: bool
) -> None:
    """1,433 / 2,048 is 69.97%, shown and compared as 70.0%."""
    model = ScriptedChatModel(["summary", "reply"])
    services = engine(model, window=WINDOW)
    session_id = session_with(
        services, [("q", "a")], MemoryMode.CONTEXT_70_PERCENT, reported=reported
    )
    assert services.memory.state("alice", session_id).usage.context_tokens == reported
    events = await collect(services.chat.send("alice", session_id, "next"))
    assert any(isinstance(e, MemoryCompacted) for e in events) is compacts


@pytest.mark.parametrize(("reported", "refused"), [(1_944, False), (1_945, True)])
async def test_ninety_five_percent_is_the_rounded_percent(
    engine: Engine, reported: int, refused: bool
) -> None:
    """1,945 / 2,048 is 94.97%, shown and compared as 95.0%."""
    services = engine(ScriptedChatModel(["reply"]), window=WINDOW)
    session_id = session_with(services, [("q", "a")], MemoryMode.MANUAL, reported=reported)
    events = await collect(services.chat.send("alice", session_id, "next"))
    first = events[0]
    assert isinstance(first, ContextLimitReached) is refused
    if isinstance(first, ContextLimitReached):
        assert first.message.startswith(
            "Your message would bring the context to 95.0% of 2,048 tokens (limit 95%)."
        )
    else:
        assert isinstance(events[-1], ReplyDone)


async def test_a_compaction_stores_the_new_context_tokens(engine: Engine) -> None:
    services = engine(ScriptedChatModel(["Goal: api-7. Facts: OOM."]))
    pairs = [(f"question {i} " * 20, f"answer {i} " * 20) for i in range(10)]
    session_id = session_with(services, pairs, MemoryMode.MANUAL)
    before = services.memory.refresh_usage("alice", session_id).usage.context_tokens
    state = await services.memory.compact("alice", session_id)
    with services.database.session() as session:
        stored = SessionRepository(session).require("alice", session_id).context_tokens
    assert stored == state.usage.context_tokens < before
    assert stored == services.memory.state("alice", session_id).usage.context_tokens
