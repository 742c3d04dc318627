"""Engine overhead per send: memory rules, prompt assembly and persistence, model time excluded.

For sessions of 100 to 100,000 stored messages with the compaction boundary near the end,
time ``ChatService.send`` with the gateway's turn replaced by an instant one (no agent, no
LangChain), so what is measured is everything the engine itself does around the model. A
second table holds the history fixed and moves the boundary, to show that the cost follows the
messages after the boundary and not the whole history. Beside the timings, the round trips of
one send: the SQL statements and the transactions (units of work) run before the model is asked
and after it answered, counted with SQLAlchemy's engine events (:class:`RoundTrips`). Prints
figures; asserts nothing.

    python bench/engine_overhead.py [--sends 40]
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import AsyncGenerator, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from sqlalchemy import Engine, event

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the static gateway lives in tests/

from oncall_tui.core.events import TokenDelta  # noqa: E402
from oncall_tui.llm.turn import AgentStreamItem, ModelUsage, Turn  # noqa: E402
from oncall_tui.services.container import Services  # noqa: E402
from oncall_tui.settings import Settings  # noqa: E402
from tests.fakes.gateway import StaticGateway  # noqa: E402

OWNER = "bench"


class InstantGateway(StaticGateway):
    """A gateway whose every turn answers at once: the engine's work is all that is timed.

    ``on_first_item``, when set, is called as the turn yields its first item: everything the
    engine did before it ran before the model call, everything after it, after."""

    on_first_item: Callable[[], None] | None = None

    def stream_turn(self, turn: Turn) -> AsyncGenerator[AgentStreamItem, None]:
        return self._instant(turn)

    async def _instant(self, turn: Turn) -> AsyncGenerator[AgentStreamItem, None]:
        assert turn.history[-1][0] == "user"  # the engine did build the turn
        if self.on_first_item is not None:
            self.on_first_item()
        yield TokenDelta("Checked: the pod was OOMKilled; raise the memory limit.")
        yield ModelUsage(input_tokens=None, output_tokens=12)


class Statement(NamedTuple):
    """One SQL statement as the driver ran it, and the thread that ran it."""

    sql: str
    parameters: tuple[object, ...]
    thread: int


class Phase:
    """What one side of the model call ran: its statements, and how many transactions.

    A plain class, not a dataclass: the bench is also loaded from its file by a test, without
    a module entry that dataclasses would look its annotations up in."""

    def __init__(self) -> None:
        self.statements: list[Statement] = []
        self.transactions = 0


class RoundTrips:
    """Counts the SQL statements and transactions run on ``engine``, split at :meth:`split`.

    A transaction is one unit of work (``Database.session()`` or ``Database.read()``): it is
    counted when it begins, and the ``BEGIN`` it issues is not counted as a statement. Reads
    run on an engine derived from ``engine``, whose events these listeners receive too."""

    def __init__(self, engine: Engine) -> None:
        self.before = Phase()
        self.after = Phase()
        self._current = self.before
        self._lock = threading.Lock()  # the engine's steps may run in worker threads
        self._engine = engine
        event.listen(engine, "begin", self._begin)
        event.listen(engine, "before_cursor_execute", self._statement)

    def split(self) -> None:
        """From now on, count into :attr:`after`."""
        self._current = self.after

    def close(self) -> None:
        event.remove(self._engine, "begin", self._begin)
        event.remove(self._engine, "before_cursor_execute", self._statement)

    def _begin(self, _connection: object) -> None:
        with self._lock:
            self._current.transactions += 1

    def _statement(
        self, _connection: object, _cursor: object, sql: str, parameters: Any, *_: object
    ) -> None:
        if sql.startswith("BEGIN"):
            return
        values = parameters.values() if isinstance(parameters, dict) else parameters or ()
        ran = Statement(sql, tuple(values), threading.get_ident())  # (psycopg's are named)
        with self._lock:
            self._current.statements.append(ran)


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


def count_send(services: Services, gateway: InstantGateway, session_id: int) -> RoundTrips:
    """The statements and transactions of one send into ``session_id``."""
    counter = RoundTrips(services.database.engine)
    gateway.on_first_item = counter.split
    try:
        asyncio.run(time_sends(services, session_id, 1))
    finally:
        gateway.on_first_item = None
        counter.close()
    return counter


class Measured(NamedTuple):
    timings: Sequence[float]
    round_trips: RoundTrips


def measure(messages: int, after_boundary: int, sends: int, workdir: Path) -> Measured:
    settings = Settings(db_path=workdir / f"bench-{messages}-{after_boundary}.db", user=OWNER)
    gateway = InstantGateway(FakeListChatModel(responses=["unused"]), window=131_072)
    services = Services(settings, gateway=gateway)
    try:
        session_id = seed(services, messages, after_boundary)
        asyncio.run(time_sends(services, session_id, 3))  # warm caches and imports
        round_trips = count_send(services, gateway, session_id)
        return Measured(asyncio.run(time_sends(services, session_id, sends)), round_trips)
    finally:
        services.close()


def row(label: str, measured: Measured) -> str:
    ordered = sorted(measured.timings)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    before, after = measured.round_trips.before, measured.round_trips.after
    return (
        f"| {label} | {statistics.median(ordered):.2f} | {p95:.2f} | {ordered[-1]:.2f} "
        f"| {len(before.statements)} / {before.transactions} "
        f"| {len(after.statements)} / {after.transactions} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sends", type=int, default=40)
    args = parser.parse_args()
    header = (
        "| {} | median ms | p95 ms | max ms | SQL / transactions before the model "
        "| SQL / transactions after |\n|---|---|---|---|---|---|"
    )
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
