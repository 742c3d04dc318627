"""TUI streaming and opening: figures for the README, asserting nothing.

1. Stream a 20,000-token reply from the loopback server speaking Ollama's wire protocol (one
   token per NDJSON line, as Ollama sends them) into the running app, headless, through the
   real langchain-ollama client (in the app's model process, as in use); report tokens per
   second through the UI and how late a 5 ms ticker on the event loop wakes while it streams:
   the longest stall, the median and 99th percentile, and the ticks more than 50 ms late.
   Once into a new session, once into a session with 1,000 earlier messages (its newest page
   on screen, as when a user has it open).
2. Time to open a 10,000-message session (from the request to its newest page on screen).

The loopback server stands in for Ollama, whose tokens would come from a GPU or from its own
cores; here a Python HTTP server writes 8,000 lines a second on the same two cores as the app.
By default it runs at the niceness the app gives its own model process (10), so the figures are
the app's; ``--server-nice 0`` has it compete with the app's event loop as an equal.

    python bench/tui_stream.py [--tokens 20000] [--history 1000] [--messages 10000]
                               [--server-nice 10]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual.widgets import Footer

from oncall_tui.settings import Settings
from oncall_tui.tui.app import build_app
from oncall_tui.tui.screens.main import PAGE_SIZE, MainScreen
from oncall_tui.tui.widgets.chat_log import ChatLog
from oncall_tui.tui.widgets.composer import Composer
from tests.tui.harness import bulk_seed, wait_until

NICENESS = 10
"""The niceness the loopback server runs at: it stands in for a model on its own hardware."""
TICK = 0.005


def long_reply(tokens: int) -> str:
    """Markdown an answer would contain: prose, lists and fenced code, ``tokens`` words long."""
    words: list[str] = []
    paragraph = 0
    while len(words) < tokens:
        paragraph += 1
        words += f"Step {paragraph}: check the pods in namespace payments and".split()
        words += ["compare", "restarts", "with", "the", "deploy", "time.\n\n"]
        if paragraph % 5 == 0:
            words += ["```bash\nkubectl", "-n", "payments", "get", "pods", "-o", "wide\n```\n\n"]
        if paragraph % 7 == 0:
            words += ["-", "p99", "latency\n-", "error", "rate\n-", "saturation\n\n"]
    return " ".join(words[:tokens])


class StallMeter:
    """How late a 5 ms ticker on the app's event loop wakes, tick by tick."""

    def __init__(self) -> None:
        self.lateness: list[float] = []
        self.running = True

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while self.running:
            start = loop.time()
            await asyncio.sleep(TICK)
            self.lateness.append(loop.time() - start - TICK)

    @property
    def worst(self) -> float:
        return max(self.lateness, default=0.0)

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.lateness)
        return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] if ordered else 0.0

    def over(self, seconds: float) -> int:
        return sum(1 for late in self.lateness if late > seconds)


@dataclass(frozen=True)
class StreamFigures:
    rate: float
    elapsed: float
    meter: StallMeter


def serve(tokens: int, port: multiprocessing.SimpleQueue[int], niceness: int) -> None:
    """The loopback server, in its own process like a real Ollama, at ``niceness``. (Its
    module is imported here: the test doubles' package loads LangChain, which the app's
    process, measured by this bench, never holds.)"""
    from tests.fakes.ollama_server import FakeModel, FakeOllama, Reply

    os.nice(niceness)
    server = FakeOllama(models=[FakeModel("llama3.1:8b", context_length=131072)])
    server.script(Reply(long_reply(tokens), prompt_eval_count=600))
    server.start()
    port.put(server.port)
    time.sleep(3600)


async def stream_figures(
    tokens: int, workdir: Path, history: int = 0, server_nice: int = NICENESS
) -> StreamFigures:
    """Stream into a new session, or into one with ``history`` earlier messages (its newest
    page mounted, as when a user opens it)."""
    ports: multiprocessing.SimpleQueue[int] = multiprocessing.SimpleQueue()
    process = multiprocessing.Process(target=serve, args=(tokens, ports, server_nice), daemon=True)
    process.start()
    try:
        url = f"http://127.0.0.1:{ports.get()}"
        settings = Settings(
            db_path=workdir / f"stream-{history}.db", user="alice", ollama_url=url, num_ctx=131072
        )
        app = build_app(settings)
        async with app.run_test(size=(120, 36), headless=True) as pilot:
            screen = app.screen
            assert isinstance(screen, MainScreen)
            log = screen.query_one(ChatLog)
            await wait_until(pilot, lambda: screen.ollama.reachable is True, timeout=30)
            await app.workers.wait_for_complete()
            if history:
                screen.open_session(bulk_seed(app, history, compacted=history - 10))
                await wait_until(pilot, lambda: len(log.messages) == PAGE_SIZE)
                await app.workers.wait_for_complete()
            mounted = len(log.messages)
            # The user types the question, and the screen settles (the footer shows its keys),
            # before the Enter that starts the stream and the meter.
            screen.query_one(Composer).text = "walk me through the whole runbook"
            await wait_until(pilot, lambda: bool(screen.query_one(Footer).children))
            await pilot.pause(0.2)
            meter = StallMeter()
            ticker = asyncio.create_task(meter.run())
            start = time.perf_counter()
            await pilot.press("enter")

            def finished() -> bool:
                blocks = list(log.messages)
                if len(blocks) != mounted + 2 or blocks[-1].status == "streaming":
                    return False
                return blocks[-1].status != "complete" or screen._runner is None

            while not finished():  # a light poll: Pilot's waits would add work to the loop
                await asyncio.sleep(0.05)
            elapsed = time.perf_counter() - start
            reply = list(log.messages)[-1]
            if reply.status != "complete" or len(reply.content.split()) < tokens * 0.99:
                raise SystemExit(
                    f"the reply did not arrive whole: {reply.status}, "
                    f"{len(reply.content.split())} words"
                )
            meter.running = False
            await ticker
            return StreamFigures(tokens / elapsed, elapsed, meter)
    finally:
        process.terminate()


async def open_figure(messages: int, workdir: Path) -> float:
    settings = Settings(db_path=workdir / "open.db", user="alice", ollama_url="http://127.0.0.1:9")
    app = build_app(settings)
    async with app.run_test(size=(120, 36), headless=True) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        log = screen.query_one(ChatLog)
        await app.workers.wait_for_complete()
        session_id = bulk_seed(app, messages, compacted=messages - 10)
        timings = []
        for _ in range(5):
            screen.open_session(None)
            await wait_until(pilot, lambda: not log.messages)
            start = time.perf_counter()
            screen.open_session(session_id)
            await wait_until(pilot, lambda: len(log.messages) == PAGE_SIZE)
            timings.append(time.perf_counter() - start)
        return sorted(timings)[len(timings) // 2] * 1000


def stream_rows(where: str, tokens: int, streamed: StreamFigures) -> list[str]:
    meter = streamed.meter
    return [
        f"| {tokens:,}-token reply through the UI, {where} | {streamed.rate:,.0f} tokens/s "
        f"({streamed.elapsed:.1f} s) | >= 1,000 tokens/s |",
        f"| longest event-loop stall, {where} | {meter.worst * 1000:.1f} ms | <= 50 ms |",
        f"| event-loop lateness, {where}: median / 99th percentile | "
        f"{meter.percentile(0.5) * 1000:.1f} / {meter.percentile(0.99) * 1000:.1f} ms | |",
        f"| ticks more than 50 ms late, {where} | {meter.over(0.05)} of "
        f"{len(meter.lateness):,} | 0 |",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--messages", type=int, default=10_000)
    parser.add_argument("--history", type=int, default=1_000)
    parser.add_argument("--server-nice", type=int, default=NICENESS)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        nice = args.server_nice
        fresh = asyncio.run(stream_figures(args.tokens, workdir, server_nice=nice))
        long = asyncio.run(stream_figures(args.tokens, workdir, args.history, nice))
        opened = asyncio.run(open_figure(args.messages, workdir))
    print(f"loopback server at niceness {args.server_nice}")
    print("| figure | value | target |\n|---|---|---|")
    for row in stream_rows("new session", args.tokens, fresh):
        print(row)
    for row in stream_rows(f"after {args.history:,} messages", args.tokens, long):
        print(row)
    print(
        f"| open a {args.messages:,}-message session (median of 5) | {opened:.0f} ms | < 300 ms |"
    )


if __name__ == "__main__":
    main()
