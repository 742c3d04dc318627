"""Each branch of docs/ARCHITECTURE.md "Session memory", through the real services and a
scripted model."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from oncall_tui.core.events import (
    CompactionStarted,
    ContextLimitReached,
    MemoryCompacted,
    ReplyDone,
    UserMessageStored,
)
from oncall_tui.core.memory import MemoryMode
from oncall_tui.core.prompts import SUMMARY_HEADING
from oncall_tui.errors import OncallError
from oncall_tui.llm.tokens import estimate_tokens
from oncall_tui.services.container import Services
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from tests.conftest import collect
from tests.fakes.chat_model import ScriptedChatModel, Turn, TurnLike

Engine = Callable[..., Services]

pytestmark = pytest.mark.both_engines


def seed(
    services: Services,
    pairs: int,
    *,
    mode: MemoryMode = MemoryMode.EVERY_30_TURNS,
    text: str = "question {i}",
    reply: str = "answer {i}",
) -> int:
    """A session holding ``pairs`` user/assistant exchanges, written straight to the store."""
    with services.database.session() as session:
        chat = SessionRepository(session).create("alice", "seeded", mode.value)
        messages = MessageRepository(session)
        for i in range(pairs):
            messages.add(chat, "user", text.format(i=i))
            messages.add(chat, "assistant", reply.format(i=i))
        assert chat.id is not None
        return chat.id


def message_count(services: Services, session_id: int) -> int:
    return len(services.sessions.messages("alice", session_id))


class TestEveryThirtyTurns:
    async def test_thirty_replies_compact_before_the_31st_question(self, engine: Engine) -> None:
        model = ScriptedChatModel(["Goal: fix api-7. Found OOM.", "Here is the answer."])
        services = engine(model)
        session_id = seed(services, 30)
        events = await collect(services.chat.send("alice", session_id, "31st question"))
        kinds = [type(e) for e in events][:3]
        assert kinds == [CompactionStarted, MemoryCompacted, UserMessageStored]
        assert events[0] == CompactionStarted(session_id, 60)  # said before the model summarises
        assert isinstance(events[-1], ReplyDone)
        summary_call, reply_call = model.calls
        assert "question 0" in str(summary_call[-1].content)
        # the model now sees the summary in the system prompt plus the new message only
        assert [type(m) for m in reply_call] == [SystemMessage, HumanMessage]
        assert "Goal: fix api-7. Found OOM." in str(reply_call[0].content)
        assert reply_call[1].content == "31st question"
        state = services.memory.refresh_usage("alice", session_id)
        assert state.compacted_message_count == 60
        assert message_count(services, session_id) == 62  # nothing deleted

    async def test_twenty_nine_replies_do_not_compact(self, engine: Engine) -> None:
        model = ScriptedChatModel(["Answer."])
        services = engine(model)
        session_id = seed(services, 29)
        events = await collect(services.chat.send("alice", session_id, "30th question"))
        assert not any(isinstance(e, MemoryCompacted | CompactionStarted) for e in events)
        assert len(model.calls) == 1
        assert len(model.calls[0]) == 1 + 58 + 1

    async def test_only_assistant_messages_after_the_boundary_count(self, engine: Engine) -> None:
        model = ScriptedChatModel(["summary one", "reply"])
        services = engine(model)
        session_id = seed(services, 30)
        await services.memory.compact("alice", session_id)
        with services.database.session() as session:
            chat = SessionRepository(session).require("alice", session_id)
            for i in range(29):
                MessageRepository(session).add(chat, "user", f"q{i}")
                MessageRepository(session).add(chat, "assistant", f"a{i}")
        events = await collect(services.chat.send("alice", session_id, "next"))
        assert not any(isinstance(e, MemoryCompacted) for e in events)


class TestContextSeventyPercent:
    def window_for(self, services: Services, session_id: int, candidate: str, ratio: float) -> int:
        """A window in which the candidate context sits at exactly ``ratio`` (rounded down)."""
        snapshot_history = [
            (m.role, m.content) for m in services.sessions.messages("alice", session_id)
        ]
        assembly = services.memory.assemble("alice", None)
        tokens = estimate_tokens(
            assembly.system_prompt, [*snapshot_history, ("user", candidate)], assembly.tools
        )
        return math.floor(tokens / ratio)

    async def test_the_send_that_crosses_seventy_percent_compacts_first(
        self, engine: Engine
    ) -> None:
        model = ScriptedChatModel(["short summary", "reply"])
        probe = engine(ScriptedChatModel())
        session_id = seed(probe, 5, mode=MemoryMode.CONTEXT_70_PERCENT, reply="x" * 400)
        window = self.window_for(probe, session_id, "candidate " * 50, 0.70)
        services = engine(model, window=window)
        events = await collect(services.chat.send("alice", session_id, "candidate " * 50))
        assert isinstance(events[0], CompactionStarted)
        assert isinstance(events[1], MemoryCompacted)
        assert isinstance(events[-1], ReplyDone)

    async def test_below_seventy_percent_no_compaction(self, engine: Engine) -> None:
        model = ScriptedChatModel(["reply"])
        probe = engine(ScriptedChatModel())
        session_id = seed(probe, 5, mode=MemoryMode.CONTEXT_70_PERCENT, reply="x" * 400)
        window = self.window_for(probe, session_id, "candidate " * 50, 0.69)
        services = engine(model, window=window)
        events = await collect(services.chat.send("alice", session_id, "candidate " * 50))
        assert not any(isinstance(e, MemoryCompacted) for e in events)
        assert len(model.calls) == 1

    async def test_manual_never_compacts_by_itself(self, engine: Engine) -> None:
        model = ScriptedChatModel(["reply"])
        probe = engine(ScriptedChatModel())
        session_id = seed(probe, 40, mode=MemoryMode.MANUAL, reply="x" * 100)
        window = self.window_for(probe, session_id, "candidate", 0.80)
        services = engine(model, window=window)
        events = await collect(services.chat.send("alice", session_id, "candidate"))
        assert not any(isinstance(e, MemoryCompacted) for e in events)
        assert len(model.calls) == 1


class TestModeSwitching:
    async def test_switching_to_manual_compacts_at_once(self, engine: Engine) -> None:
        model = ScriptedChatModel(["the summary"])
        services = engine(model)
        session_id = seed(services, 3)
        state = await services.memory.set_mode("alice", session_id, MemoryMode.MANUAL)
        assert state.memory_mode is MemoryMode.MANUAL
        assert (state.compacted_message_count, state.memory_summary) == (6, "the summary")
        assert state.last_compacted_at is not None
        assert state.can_compact is False

    async def test_switching_to_manual_with_nothing_after_boundary_calls_no_model(
        self, engine: Engine
    ) -> None:
        model = ScriptedChatModel()  # any model call would exhaust the script
        services = engine(model)
        session_id = services.sessions.create("alice").id
        state = await services.memory.set_mode("alice", session_id, MemoryMode.MANUAL)
        assert state.memory_mode is MemoryMode.MANUAL
        assert model.calls == []
        assert state.usage.context_tokens > 0  # usage refreshed: system prompt and tools

    async def test_other_modes_only_refresh_usage(self, engine: Engine) -> None:
        model = ScriptedChatModel()
        services = engine(model)
        session_id = seed(services, 3)
        state = await services.memory.set_mode("alice", session_id, MemoryMode.CONTEXT_70_PERCENT)
        assert state.memory_mode is MemoryMode.CONTEXT_70_PERCENT
        assert (model.calls, state.compacted_message_count) == ([], 0)
        assert services.sessions.get("alice", session_id).memory_mode is (
            MemoryMode.CONTEXT_70_PERCENT
        )


class TestCompaction:
    async def test_boundary_grows_cumulatively_and_the_next_summary_merges_the_old(
        self, engine: Engine
    ) -> None:
        model = ScriptedChatModel(["FIRST-SUMMARY", "SECOND-SUMMARY"])
        services = engine(model)
        session_id = seed(services, 2)
        first = await services.memory.compact("alice", session_id)
        assert first.compacted_message_count == 4
        with services.database.session() as session:
            chat = SessionRepository(session).require("alice", session_id)
            MessageRepository(session).add(chat, "user", "later question")
            MessageRepository(session).add(chat, "assistant", "later answer")
        second = await services.memory.compact("alice", session_id)
        assert second.compacted_message_count == 6
        assert second.memory_summary == "SECOND-SUMMARY"
        merge_request = str(model.calls[1][-1].content)
        assert "FIRST-SUMMARY" in merge_request
        assert "later question" in merge_request
        assert "question 0" not in merge_request  # already summarised

    async def test_summary_call_has_no_tools_and_never_reaches_the_chat_stream(
        self, engine: Engine
    ) -> None:
        model = ScriptedChatModel(["SUMMARY-TEXT", "reply"])
        services = engine(model)
        session_id = seed(services, 30)
        events = await collect(services.chat.send("alice", session_id, "go"))
        tokens = "".join(getattr(e, "text", "") for e in events)
        assert "SUMMARY-TEXT" not in tokens
        assert model.bound_tools == [] or all(
            "SUMMARY" not in str(tools) for tools in model.bound_tools
        )
        assert len(model.bound_tools) == 1  # only the agent's reply call bound tools

    @pytest.mark.parametrize(
        "turn",
        [
            "   ",
            Turn.raises(RuntimeError("boom")),
            # a small model imitating the calls in the transcript (found by hand)
            '{"name": "logs__search_logs", "arguments": {"pattern": "502", "limit": 3}}',
            '<tool_call>{"name": "search_logs", "arguments": {}}</tool_call>',
        ],
    )
    async def test_empty_or_failed_summary_changes_nothing(
        self, engine: Engine, turn: TurnLike
    ) -> None:
        model = ScriptedChatModel(["OLD-SUMMARY", turn])
        services = engine(model)
        session_id = seed(services, 2)
        before = await services.memory.compact("alice", session_id)
        with services.database.session() as session:
            chat = SessionRepository(session).require("alice", session_id)
            MessageRepository(session).add(chat, "user", "more")
        with pytest.raises(OncallError) as caught:
            await services.memory.compact("alice", session_id)
        assert caught.value.code == "MEMORY_COMPACTION_FAILED"
        after = services.memory.refresh_usage("alice", session_id)
        assert (after.memory_summary, after.compacted_message_count) == (
            before.memory_summary,
            before.compacted_message_count,
        )
        assert after.last_compacted_at == before.last_compacted_at

    async def test_summary_is_capped_at_1200_characters(self, engine: Engine) -> None:
        model = ScriptedChatModel(["word " * 600])
        services = engine(model)
        session_id = seed(services, 1)
        state = await services.memory.compact("alice", session_id)
        assert state.memory_summary is not None
        assert 0 < len(state.memory_summary) <= 1200

    async def test_summary_section_is_in_the_system_prompt_as_model_written(
        self, engine: Engine
    ) -> None:
        model = ScriptedChatModel(["NOTES", "reply"])
        services = engine(model)
        session_id = seed(services, 1)
        await services.memory.compact("alice", session_id)
        await collect(services.chat.send("alice", session_id, "next"))
        system = str(model.calls[-1][0].content)
        assert SUMMARY_HEADING in system
        assert "model-written summary" in system
        assert system.rstrip().endswith("NOTES")


class TestHardLimit:
    async def test_at_95_percent_after_compaction_the_send_is_rejected_and_nothing_stored(
        self, engine: Engine
    ) -> None:
        model = ScriptedChatModel(["a summary"])
        probe = engine(ScriptedChatModel())
        session_id = seed(probe, 30)
        assembly = probe.memory.assemble("alice", "a summary")
        candidate = "too long " * 2000  # a window big enough to summarise in
        alone = estimate_tokens(assembly.system_prompt, [("user", candidate)], assembly.tools)
        services = engine(model, window=math.floor(alone / 0.95))
        before = message_count(services, session_id)
        events = await collect(services.chat.send("alice", session_id, candidate))
        assert [type(e) for e in events] == [CompactionStarted, ContextLimitReached]
        limit = events[1]
        assert isinstance(limit, ContextLimitReached)
        assert limit.code == "CHAT_CONTEXT_LIMIT_REACHED"
        assert limit.usage.at_limit
        assert len(model.calls) == 1  # the one automatic compaction, no reply, no second try
        assert message_count(services, session_id) == before

    async def test_just_under_95_percent_is_sent(self, engine: Engine) -> None:
        model = ScriptedChatModel(["ok"])
        probe = engine(ScriptedChatModel())
        session_id = probe.sessions.create("alice").id
        assembly = probe.memory.assemble("alice", None)
        candidate = "fits " * 100
        tokens = estimate_tokens(assembly.system_prompt, [("user", candidate)], assembly.tools)
        services = engine(model, window=math.floor(tokens / 0.94))
        events = await collect(services.chat.send("alice", session_id, candidate))
        assert isinstance(events[-1], ReplyDone)

    async def test_a_rejected_first_message_creates_no_session(self, engine: Engine) -> None:
        services = engine(ScriptedChatModel(), window=600)
        events = await collect(services.chat.send("alice", None, "huge " * 2000))
        assert isinstance(events[0], ContextLimitReached)
        assert services.sessions.list_sessions("alice") == []


class TestUsage:
    async def test_reported_prompt_tokens_calibrate_the_estimate_upward(
        self, engine: Engine
    ) -> None:
        model = ScriptedChatModel([Turn(text="reply", input_tokens=5_000), "second"])
        services = engine(model, window=100_000)
        events = await collect(services.chat.send("alice", None, "hello"))
        done = events[-1]
        assert isinstance(done, ReplyDone)
        session_id = done.session_id
        state = services.memory.refresh_usage("alice", session_id)
        assert state.usage.context_tokens >= 5_000  # never below what the model reported
        with services.database.session() as session:
            calibration = SessionRepository(session).require("alice", session_id).token_calibration
        assert calibration > 1.0

    async def test_a_low_report_never_lowers_the_estimate(self, engine: Engine) -> None:
        model = ScriptedChatModel([Turn(text="reply", input_tokens=1)])
        services = engine(model, window=100_000)
        events = await collect(services.chat.send("alice", None, "hello"))
        done = events[-1]
        assert isinstance(done, ReplyDone)
        session_id = done.session_id
        with services.database.session() as session:
            row = SessionRepository(session).require("alice", session_id)
            assert row.token_calibration == 1.0
        state = services.memory.refresh_usage("alice", session_id)
        assert state.usage.context_tokens > 1

    async def test_usage_percent_has_one_decimal_and_is_never_capped(self, engine: Engine) -> None:
        services = engine(ScriptedChatModel(), window=512)
        session_id = seed(services, 50, reply="y" * 200)
        state = services.memory.refresh_usage("alice", session_id)
        tokens = state.usage.context_tokens
        assert tokens > 512
        assert state.usage.percent == round(tokens / 512 * 100, 1)
        assert state.to_json()["context_usage_percent"] == state.usage.percent
        assert state.can_compact is True

    async def test_clearing_messages_resets_summary_boundary_tokens_and_time(
        self, engine: Engine
    ) -> None:
        model = ScriptedChatModel(["summary"])
        services = engine(model)
        session_id = seed(services, 3)
        await services.memory.compact("alice", session_id)
        services.sessions.clear("alice", session_id)
        state = services.memory.refresh_usage("alice", session_id)
        assert (state.memory_summary, state.compacted_message_count, state.last_compacted_at) == (
            None,
            0,
            None,
        )
        assert message_count(services, session_id) == 0
