"""What a send costs the database, counted on a real SQLite file: how many units of work before
the model is asked and after it answered, which skill bodies are read, how often the request is
estimated, and that all of it runs off the caller's event loop without losing a write to a
cancellation.

Statements and transactions are counted as the engine-overhead bench counts them
(``bench/engine_overhead.py``: SQLAlchemy's engine events, split at the first item the instant
gateway yields), so the bench's figures and these bounds are the same measurement.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncGenerator, Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from oncall_tui.core.events import ReplyDone, TokenDelta, UserMessageStored
from oncall_tui.core.memory import MemoryMode
from oncall_tui.llm.tokens import estimate_tokens
from oncall_tui.llm.turn import AgentStreamItem, Turn
from oncall_tui.services import context
from oncall_tui.services.container import Services
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from tests.conftest import collect, make_settings, skill_text
from tests.fakes.gateway import StaticGateway
from tests.services.test_bench_engine import load_bench

BEFORE_MODEL_TRANSACTIONS = 2
AFTER_MODEL_TRANSACTIONS = 1
SELECTED_BODY = "SELECTED-SKILL-BODY"
OTHER_BODY = "UNSELECTED-SKILL-BODY"

pytestmark = pytest.mark.both_engines


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_bench()


@pytest.fixture
def services(db_path: Path, db_url: str | None, bench: ModuleType) -> Iterator[Services]:
    """Services on a real SQLite file, answered by the bench's instant gateway (whose model
    writes the summary when a compaction asks for one)."""
    model = FakeListChatModel(responses=["Goal: api-7. Facts: OOM."])
    settings = make_settings(db_path, db_url=db_url)
    built = Services(settings, gateway=bench.InstantGateway(model, window=131_072))
    yield built
    built.close()


def with_skills(services: Services) -> int:
    """Two skills of alice's, one of them selected; the selected one's id."""
    configuration = services.configuration
    selected = configuration.add_skill(
        "alice", "SKILL.md", skill_text("pod-triage", body=SELECTED_BODY).encode()
    )
    configuration.add_skill("alice", "SKILL.md", skill_text("disk-full", body=OTHER_BODY).encode())
    configuration.save_configuration("alice", skill_ids=[selected.id])
    return selected.id


async def existing_session(services: Services) -> int:
    """A session holding one answered question."""
    done = (await collect(services.chat.send("alice", None, "api-7 is crashlooping")))[-1]
    assert isinstance(done, ReplyDone)
    return done.session_id


def on_first_item(services: Services, bench: ModuleType, call: Callable[[], None]) -> None:
    """Have the instant gateway call ``call`` as the model's turn yields its first item."""
    gateway = services.gateway
    assert isinstance(gateway, bench.InstantGateway)
    gateway.on_first_item = call


def counted(services: Services, bench: ModuleType) -> Any:
    """The bench's counter on this database, split where the gateway yields its first item."""
    counter = bench.RoundTrips(services.database.engine)
    on_first_item(services, bench, counter.split)
    return counter


def skill_bodies_read(statements: list[Any]) -> list[list[object]]:
    """For each statement that selects skill bodies, the ids it is restricted to."""
    return [
        [value for value in statement.parameters if isinstance(value, int)]
        for statement in statements
        if "skill.content" in statement.sql and statement.sql.lstrip().startswith("SELECT")
    ]


async def test_a_send_into_an_existing_session_takes_two_transactions_then_one(
    services: Services, bench: ModuleType
) -> None:
    selected = with_skills(services)
    session_id = await existing_session(services)
    counter = counted(services, bench)
    events = await collect(services.chat.send("alice", session_id, "what next?"))
    counter.close()
    assert isinstance(events[-1], ReplyDone)
    assert counter.before.transactions <= BEFORE_MODEL_TRANSACTIONS
    assert counter.after.transactions <= AFTER_MODEL_TRANSACTIONS
    statements = [*counter.before.statements, *counter.after.statements]
    assert skill_bodies_read(statements) == [[selected]]  # once, the selected skill's only


async def test_a_first_send_into_a_new_session_takes_no_more(
    services: Services, bench: ModuleType
) -> None:
    with_skills(services)
    counter = counted(services, bench)
    events = await collect(services.chat.send("alice", None, "api-7 is crashlooping"))
    counter.close()
    assert isinstance(events[-1], ReplyDone)
    assert counter.before.transactions <= BEFORE_MODEL_TRANSACTIONS
    assert counter.after.transactions <= AFTER_MODEL_TRANSACTIONS


def test_listing_skills_and_the_configuration_reads_no_skill_body(
    services: Services, bench: ModuleType
) -> None:
    with_skills(services)
    counter = bench.RoundTrips(services.database.engine)
    skills = services.configuration.list_skills("alice")
    view = services.configuration.get_configuration("alice")
    counter.close()
    assert [s.name for s in skills] == ["disk-full", "pod-triage"]
    assert len(view.skills) == 2
    assert counter.before.statements, "the listing was not counted"
    assert skill_bodies_read(counter.before.statements) == []


async def test_the_gauge_reads_only_the_selected_skills_body(
    services: Services, bench: ModuleType
) -> None:
    selected = with_skills(services)
    session_id = await existing_session(services)
    counter = bench.RoundTrips(services.database.engine)
    services.memory.state("alice", session_id)
    counter.close()
    assert counter.before.transactions == 1
    assert skill_bodies_read(counter.before.statements) == [[selected]]


async def test_the_request_is_estimated_once_before_the_model_and_not_after(
    services: Services, bench: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_skills(services)
    session_id = await existing_session(services)
    estimates = {"before": 0, "after": 0}
    phase = ["before"]
    estimate = estimate_tokens

    def counting(*args: Any, **kwargs: Any) -> int:
        estimates[phase[0]] += 1
        return estimate(*args, **kwargs)

    monkeypatch.setattr(context, "estimate_tokens", counting)
    on_first_item(services, bench, lambda: phase.__setitem__(0, "after"))
    events = await collect(services.chat.send("alice", session_id, "what next?"))
    assert isinstance(events[-1], ReplyDone)
    assert estimates == {"before": 1, "after": 0}


@pytest.mark.parametrize("operation", ["send", "retry", "compact", "set_mode"])
async def test_async_service_methods_run_no_statement_on_the_event_loop(
    services: Services, bench: ModuleType, operation: str
) -> None:
    with_skills(services)
    session_id = await existing_session(services)
    if operation == "retry":  # a question left without an answer
        with services.database.session() as session:
            chat = SessionRepository(session).require("alice", session_id)
            MessageRepository(session).add(chat, "user", "and the logs?")
    counter = bench.RoundTrips(services.database.engine)
    if operation == "send":
        await collect(services.chat.send("alice", session_id, "what next?"))
    elif operation == "retry":
        await collect(services.chat.retry("alice", session_id))
    elif operation == "compact":
        await services.memory.compact("alice", session_id)
    else:
        await services.memory.set_mode("alice", session_id, MemoryMode.MANUAL)
    counter.close()
    statements = counter.before.statements
    assert statements, "nothing was counted"
    loop_thread = threading.get_ident()
    assert [s.sql for s in statements if s.thread == loop_thread] == []


class StallingGateway(StaticGateway):
    """Streams a few words, then waits for ever: the reply is cut only by a cancellation."""

    def stream_turn(self, turn: Turn) -> AsyncGenerator[AgentStreamItem, None]:
        return self._stall()

    async def _stall(self) -> AsyncGenerator[AgentStreamItem, None]:
        yield TokenDelta("Check the pod")
        await asyncio.Event().wait()


async def test_a_cancellation_during_the_store_of_an_interrupted_reply_loses_nothing(
    db_path: Path, db_url: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Cancelled twice: once while streaming (the partial reply is stored, in a worker
    thread), and again while that store runs. The store finishes before the task ends."""
    gateway = StallingGateway(FakeListChatModel(responses=["unused"]), window=8192)
    services = Services(make_settings(db_path, db_url=db_url), gateway=gateway)
    started, release = threading.Event(), threading.Event()
    released: list[bool] = []
    add = MessageRepository.add

    def held(self: MessageRepository, chat: Any, role: str, *args: Any, **kwargs: Any) -> Any:
        if role == "assistant":  # the reply's store: hold it until the test lets it go
            started.set()
            released.append(release.wait(timeout=5))
        return add(self, chat, role, *args, **kwargs)

    monkeypatch.setattr(MessageRepository, "add", held)
    streaming = asyncio.Event()
    session_ids: list[int] = []

    async def send() -> None:
        async for event in services.chat.send("alice", None, "why 502s?"):
            if isinstance(event, UserMessageStored):
                session_ids.append(event.session_id)
            if isinstance(event, TokenDelta):
                streaming.set()

    try:
        task = asyncio.create_task(send())
        await streaming.wait()
        task.cancel()
        assert await asyncio.to_thread(started.wait, 10)
        task.cancel()  # a second cancellation, while the partial reply is being stored
        release.set()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert released == [True], "the store ran on the event loop, blocking it"
        messages = services.sessions.messages("alice", session_ids[0])
    finally:
        services.close()
    assert [(m.role, m.status, m.content) for m in messages] == [
        ("user", "complete", "why 502s?"),
        ("assistant", "interrupted", "Check the pod"),
    ]
