"""Full-text search over 100,000 stored messages: how long a search takes, and what the index
costs a write.

Fills a temporary database through the store (``SessionRepository``; message rows added in
one unit of work per session, so the index triggers run as they do for the app) with ~1,000
sessions of 100 messages, a mix of pasted log lines, English prose and Chinese; a tenth of the
sessions belong to another owner.
Then times ``SearchService.search`` (limit 50) for each kind of query: median, p95 and max of
``--runs`` runs after one warm-up. Last, the cost of the index to a write: 1,000 messages, each
its own unit of work as a send stores it, into a copy of the database with and one without the
index triggers. Prints figures; asserts nothing.

    python bench/search.py [--sessions 1000] [--per-session 100] [--runs 21]
    python bench/search.py --postgres postgresql://USER@HOST:PORT/EMPTY_DATABASE

With ``--postgres`` the same messages go to that (empty) PostgreSQL database and the same
searches are timed there (``pg_trgm``); the write cost is not measured.
"""

from __future__ import annotations

import argparse
import random
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from oncall_tui.services.container import Services
from oncall_tui.settings import Settings
from oncall_tui.store.engine import Database
from oncall_tui.store.ids import stored_id
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from oncall_tui.store.sqlite import SqliteDatabase
from oncall_tui.store.tables import MessageRow

OWNER = "bench"
OTHER = "someone-else"

QUERIES: Sequence[tuple[str, str]] = (
    ("common word", "error"),
    ("two common words", "pod memory"),
    ("rare word", "rebalance"),
    ("CJK, 3+ characters", "数据库连接"),
    ("CJK, 2 characters", "超时"),
    ("ASCII, 2 characters", "db"),
    ("phrase", '"connection refused"'),
    ("no match", "xylophone"),
)
"""What the bench searches for, labelled. Every one but the last matches something."""

_SERVICES = ("api", "payments", "checkout", "auth", "search", "gateway", "billing", "db-proxy")
_LOG_EVENTS = (
    "upstream timed out (110: Connection timed out) while reading response header",
    "connect() failed (111: connection refused) while connecting to upstream",
    "OOMKilled: container exceeded memory limit 512Mi",
    "readiness probe failed: HTTP probe failed with statuscode: 503",
    "slow query: SELECT * FROM orders WHERE status = 'OPEN' took 4.2s",
    "GC pause 812ms, heap 93% used",
    "TLS handshake error from 10.0.3.7:51234: EOF",
)
_PROSE = (
    "The pod restarted after it hit its memory limit, so the first thing to check is the "
    "container's working set over the last hour.",
    "Looking at the error rate, the spike lines up with the deploy at 02:40; roll back first "
    "and investigate afterwards.",
    "Check whether the connection pool is exhausted: the db proxy logs every refused client.",
    "The alert fired because p99 latency stayed above the threshold for ten minutes.",
    "Drain the node, cordon it, and watch whether the pods reschedule cleanly.",
    "I would raise the timeout only after confirming the upstream is healthy.",
)
_CHINESE = (
    "上游服务超时，网关返回 504。",
    "数据库连接池耗尽，新的请求一直在排队。",
    "请先检查告警规则是否在最近一次发布后被修改。",
    "内存使用率过高导致容器被重启。",
    "磁盘空间不足，日志目录占用了大部分空间。",
    "服务响应变慢，需要查看慢查询日志。",
)


def message_text(rng: random.Random) -> str:
    """One message: a pasted log excerpt (40%), English prose (45%) or Chinese (15%); now and
    then the rare word."""
    kind = rng.random()
    if kind < 0.40:
        lines = [
            f"2025-03-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:"
            f"{rng.randint(0, 59):02d}Z {rng.choice(('ERROR', 'WARN', 'INFO'))} "
            f"{rng.choice(_SERVICES)}-{rng.getrandbits(20):05x} "
            f"req={rng.getrandbits(64):016x} {rng.choice(_LOG_EVENTS)}"
            for _ in range(rng.randint(1, 12))
        ]
        text = "\n".join(lines)
    elif kind < 0.85:
        text = " ".join(rng.choice(_PROSE) for _ in range(rng.randint(1, 6)))
    else:
        text = "".join(rng.choice(_CHINESE) for _ in range(rng.randint(1, 8)))
    if rng.random() < 0.0005:
        text += " Kafka consumers keep going through a rebalance."
    return text


def fill(database: Database, sessions: int, per_session: int, seed: int = 7) -> None:
    """``sessions`` sessions of ``per_session`` messages, one unit of work per session (the rows
    added together, as ``MessageRepository.add`` adds one); every tenth session belongs to
    :data:`OTHER`."""
    rng = random.Random(seed)
    for number in range(sessions):
        owner = OTHER if number % 10 == 9 else OWNER
        with database.session() as session:
            chat = SessionRepository(session).create(owner, f"incident {number}", "manual")
            session.add_all(
                MessageRow(
                    session_id=stored_id(chat),
                    position=position,
                    role="user" if position % 2 == 0 else "assistant",
                    content=message_text(rng),
                )
                for position in range(per_session)
            )


def time_query(services: Services, query: str, runs: int) -> tuple[list[float], int]:
    """Milliseconds of each of ``runs`` searches (after one warm-up), and the hits found."""
    hits = len(services.search.search(OWNER, query))
    timings: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        services.search.search(OWNER, query)
        timings.append((time.perf_counter() - start) * 1000)
    return timings, hits


def time_inserts(path: Path, messages: int) -> float:
    """Seconds to store ``messages`` messages in a new session, each in its own unit of work."""
    database = SqliteDatabase(path)
    try:
        with database.session() as session:
            chat_id = SessionRepository(session).create(OWNER, "insert timing", "manual").id
        assert chat_id is not None
        rng = random.Random(11)
        texts = [message_text(rng) for _ in range(messages)]
        start = time.perf_counter()
        for text in texts:
            with database.session() as session:
                chat = SessionRepository(session).require(OWNER, chat_id)
                MessageRepository(session).add(chat, "user", text)
        return time.perf_counter() - start
    finally:
        database.close()


def without_index(source: Path, target: Path) -> None:
    """A copy of ``source`` whose writes no longer touch the search indexes."""
    shutil.copyfile(source, target)
    with sqlite3.connect(target) as connection:
        for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%search%'"
        ).fetchall():
            connection.execute(f"DROP TRIGGER {name}")


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def index_bytes(path: Path) -> int | None:
    """Bytes the search indexes take in the file, when SQLite has the ``dbstat`` table."""
    with sqlite3.connect(path) as connection:
        try:
            row = connection.execute(
                "SELECT SUM(pgsize) FROM dbstat WHERE name LIKE '%_search_%'"
            ).fetchone()
        except sqlite3.OperationalError:
            return None
    return int(row[0] or 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1_000)
    parser.add_argument("--per-session", type=int, default=100)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--inserts", type=int, default=1_000)
    parser.add_argument("--postgres", metavar="URL", help="an empty PostgreSQL database")
    args = parser.parse_args()
    if args.postgres:
        postgres(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        path = workdir / "search.db"
        services = Services(Settings(db_path=path, user=OWNER))
        start = time.perf_counter()
        fill(services.database, args.sessions, args.per_session)
        filled = time.perf_counter() - start
        stored = args.sessions * args.per_session
        size = path.stat().st_size + (path.with_name(path.name + "-wal").stat().st_size)
        print(
            f"{stored:,} messages in {args.sessions:,} sessions stored in {filled:.0f} s; "
            f"file {size / 1e6:.0f} MB",
            end="",
        )
        indexes = index_bytes(path)
        print("" if indexes is None else f", of which the search indexes {indexes / 1e6:.0f} MB")
        try:
            print_query_table(services, args.runs)
        finally:
            services.close()
        bare = workdir / "bare.db"
        without_index(path, bare)
        indexed = time_inserts(path, args.inserts)
        plain = time_inserts(bare, args.inserts)
        print(
            f"\n{args.inserts:,} messages stored one unit of work each: {indexed:.2f} s with the "
            f"index, {plain:.2f} s without ({(indexed - plain) / args.inserts * 1000:+.2f} ms "
            "a message)"
        )


def print_query_table(services: Services, runs: int) -> None:
    print("\n| query | text | hits | median ms | p95 ms | max ms |\n|---|---|---|---|---|---|")
    for label, query in QUERIES:
        timings, hits = time_query(services, query, runs)
        print(
            f"| {label} | `{query}` | {hits} | {statistics.median(timings):.2f} "
            f"| {percentile(timings, 0.95):.2f} | {max(timings):.2f} |",
            flush=True,
        )


def postgres(args: argparse.Namespace) -> None:
    """The same fill and searches on a PostgreSQL database."""
    settings = Settings(db_path=Path("unused.db"), db_url=args.postgres, user=OWNER)
    services = Services(settings)
    try:
        start = time.perf_counter()
        fill(services.database, args.sessions, args.per_session)
        stored = args.sessions * args.per_session
        print(f"{stored:,} messages stored in PostgreSQL in {time.perf_counter() - start:.0f} s")
        with services.database.engine.begin() as connection:
            connection.exec_driver_sql("ANALYZE")  # what autovacuum would have done by now
        print_query_table(services, args.runs)
    finally:
        services.close()


if __name__ == "__main__":
    main()
