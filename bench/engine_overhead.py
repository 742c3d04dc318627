"""Engine overhead per send: memory rules, prompt assembly and persistence, model time excluded.

For sessions of 100 to 100,000 stored messages with the compaction boundary near the end,
time ``ChatService.send`` with the gateway's turn replaced by an instant one (no agent, no
LangChain), so what is measured is everything the engine itself does around the model. A
second table holds the history fixed and moves the boundary, to show that the cost follows the
messages after the boundary and not the whole history. Prints figures; asserts nothing.

    python bench/engine_overhead.py [--sends 40]
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import tempfile
import time
from collections.abc import AsyncGenerator, Sequence
from datetime import UTC, datetime
from pathlib import Path

from langchain_core.language_models.fake_chat_models import FakeListChatModel

from oncall_tui.core.events import TokenDelta
from oncall_tui.llm.gateway import StaticGateway
from oncall_tui.llm.turn import AgentStreamItem, ModelUsage, Turn
from oncall_tui.services.container import Services
from oncall_tui.settings import Settings

OWNER = "bench"


class InstantGateway(StaticGateway):
    """A gateway whose every turn answers at once: the engine's work is all that is timed."""

    def stream_turn(self, turn: Turn) -> AsyncGenerator[AgentStreamItem, None]:
        return self._instant(turn)

    async def _instant(self, turn: Turn) -> AsyncGenerator[AgentStreamItem, None]:
        assert turn.history[-1][0] == "user"  # the engine did build the turn
        yield TokenDelta("Checked: the pod was OOMKilled; raise the memory limit.")
        yield ModelUsage(input_tokens=None, output_tokens=12)


def seed(services: Services, messages: int, after_boundary: int) -> int:
    """Bulk-insert a session of ``messages`` alternating user/assistant rows."""
    session_id = services.sessions.create(OWNER, f"{messages} messages").id
    now = datetime.now(UTC).isoformat(sep=" ")
    rows = (
        (
            session_id,
            i,
            "user" if i % 2 == 0 else "assistant",
            f"message {i}: kubectl get pods -n payments shows CrashLoopBackOff on api-{i % 7}",
            "complete",
            now,
        )
        for i in range(messages)
    )
    with sqlite3.connect(services.settings.db_path) as connection:
        connection.executemany(
            "INSERT INTO message (session_id, position, role, content, status, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )
        connection.execute(
            "UPDATE chat_session SET memory_mode = 'manual', memory_summary = ?,"
            " compacted_message_count = ? WHERE id = ?",
            (
                "Earlier: payments api crashlooping; OOMKilled suspected.",
                messages - after_boundary,
                session_id,
            ),
        )
    return session_id


async def time_sends(services: Services, session_id: int, sends: int) -> list[float]:
    timings = []
    for i in range(sends):
        start = time.perf_counter()
        async for _event in services.chat.send(OWNER, session_id, f"next step {i}?"):
            pass
        timings.append((time.perf_counter() - start) * 1000)
    return timings


def measure(messages: int, after_boundary: int, sends: int, workdir: Path) -> Sequence[float]:
    settings = Settings(db_path=workdir / f"bench-{messages}-{after_boundary}.db", user=OWNER)
    gateway = InstantGateway(FakeListChatModel(responses=["unused"]), window=131_072)
    services = Services(settings, gateway=gateway)
    try:
        session_id = seed(services, messages, after_boundary)
        asyncio.run(time_sends(services, session_id, 3))  # warm caches and imports
        return asyncio.run(time_sends(services, session_id, sends))
    finally:
        services.close()


def row(label: str, timings: Sequence[float]) -> str:
    ordered = sorted(timings)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return f"| {label} | {statistics.median(ordered):.2f} | {p95:.2f} | {ordered[-1]:.2f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sends", type=int, default=40)
    args = parser.parse_args()
    header = "| {} | median ms | p95 ms | max ms |\n|---|---|---|---|"
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        print("Per-send engine overhead, 10 messages after the boundary")
        print(header.format("stored messages"))
        for messages in (100, 1_000, 10_000, 100_000):
            print(row(f"{messages:,}", measure(messages, 10, args.sends, workdir)), flush=True)
        print("\n10,000 stored messages, varying the messages after the boundary")
        print(header.format("after boundary"))
        for after in (10, 100, 1_000):
            print(row(f"{after:,}", measure(10_000, after, args.sends, workdir)), flush=True)


if __name__ == "__main__":
    main()
