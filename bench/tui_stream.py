"""The TUI while replies stream, at the speeds users meet: figures, asserting nothing.

A loopback server speaking Ollama's wire protocol, in its own process, streams into the
running app (headless, 120x36, the full main screen with a session of ``--history`` earlier
messages open) through the real langchain-ollama client:

1. paced at 50 and at 200 tokens a second for ``--seconds`` each (local models write 20 to
   200): how late a 5 ms ticker on the app's event loop wakes while the reply streams (p50,
   p99, max) and, apart, as it ends (the reply stored, the sessions list and the gauge brought
   up to date, the garbage collector's full pass that waited for the end); and how long after
   the server sent its first token the first words were drawn on screen;
2. a firehose (``--tokens`` words as fast as the server writes them): a throughput figure;
3. ``--streams`` short firehose replies in a row: all must finish (none may leave the composer
   refusing to send), every wait bounded;
4. the time to open a session of ``--messages`` messages.

    python bench/tui_stream.py [--seconds 30] [--history 1000] [--tokens 20000]
                               [--streams 200] [--messages 10000]

Targets: at 200 tokens a second p99 lateness <= 16 ms and max <= 50 ms; first words on screen
within 50 ms of the server's first token; the firehose at >= 1,000 tokens a second; every
stream finishes; a 10,000-message session opens in < 300 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import multiprocessing.queues
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from textual.strip import Strip

from oncall_tui.settings import Settings
from oncall_tui.tui.app import OncallApp, build_app
from oncall_tui.tui.chat_log import ChatLog, MessageBlock
from oncall_tui.tui.panes.chat import PAGE_SIZE
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.key_bar import KeyBar
from tests.tui.harness import bulk_seed, wait_until

TICK = 0.005
STREAM_TIMEOUT = 120.0
"""No stream may take longer than this: a bench that waits for ever measures nothing."""
FIRST_WORD = "Runbook"


def reply_text(tokens: int) -> str:
    """Markdown an answer would contain: prose, lists and fenced code, ``tokens`` words long."""
    words: list[str] = [FIRST_WORD]
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
        self.ended_at: int | None = None
        """The tick at which the reply's end reached the chat log."""

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while self.running:
            start = loop.time()
            await asyncio.sleep(TICK)
            self.lateness.append(loop.time() - start - TICK)

    def worst(self, *, streaming: bool) -> float:
        """The latest wake-up while the reply streamed, or as it ended (storing the reply,
        the sessions list and the gauge brought up to date, the garbage collector's full pass
        that waited for the reply's end)."""
        cut = len(self.lateness) if self.ended_at is None else self.ended_at
        part = self.lateness[:cut] if streaming else self.lateness[cut:]
        return max(part, default=0.0)

    def percentile(self, fraction: float) -> float:
        ordered = sorted(self.lateness)
        return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))] if ordered else 0.0


@dataclass(frozen=True)
class Stream:
    tokens: int
    seconds: float
    first_on_screen: float
    """From the server's first token to the first words drawn, in seconds."""
    meter: StallMeter


def serve(
    replies: list[tuple[str, float]], ports: Any, first_chunks: multiprocessing.queues.Queue[float]
) -> None:
    """The loopback server, in its own process like a real Ollama: ``replies`` are (text,
    seconds between words); the time each reply's first word is written goes to
    ``first_chunks``."""
    from tests.fakes.ollama_server import FakeModel, FakeOllama, Reply

    server = FakeOllama(models=[FakeModel("llama3.1:8b", context_length=131072)])
    server.on_first_chunk = lambda: first_chunks.put(time.monotonic())
    server.script(*(Reply(text, delay_per_chunk=pause) for text, pause in replies))
    server.start()
    ports.put(server.port)
    time.sleep(3600)


class Bench:
    """One app against one server process, for a series of streams."""

    def __init__(
        self,
        workdir: Path,
        replies: list[tuple[str, float]],
        history: int,
        streams: int | None = None,
    ) -> None:
        self.workdir, self.replies, self.history = workdir, replies, history
        self.streams = len(replies) if streams is None else streams
        """How many sends: the script may hold more replies than that (summaries take some)."""
        self.first_chunks: multiprocessing.queues.Queue[float] = multiprocessing.Queue()
        self.drawn_first: float | None = None
        self.meter: StallMeter | None = None

    async def run(self, each: Callable[[int, Stream], None]) -> None:
        ports: Any = multiprocessing.SimpleQueue()
        server = multiprocessing.Process(
            target=serve, args=(self.replies, ports, self.first_chunks), daemon=True
        )
        server.start()
        try:
            url = f"http://127.0.0.1:{ports.get()}"
            settings = Settings(
                db_path=self.workdir / f"stream-{time.monotonic_ns()}.db",
                user="alice",
                ollama_url=url,
                num_ctx=131072,
            )
            app = build_app(settings)
            self._watch_first_words(app)
            async with app.run_test(size=(120, 36), headless=True) as pilot:
                screen = app.screen
                assert isinstance(screen, MainScreen)
                await wait_until(
                    pilot, lambda: screen.server_check.state.reachable is True, timeout=30
                )
                await app.workers.wait_for_complete()
                if self.history:
                    log = screen.query_one(ChatLog)
                    screen.shown.open(bulk_seed(app, self.history, compacted=self.history - 10))
                    await wait_until(pilot, lambda: len(log.messages) == PAGE_SIZE, timeout=30)
                    await app.workers.wait_for_complete()
                for index, (text, _) in enumerate(self.replies[: self.streams]):
                    each(index, await self._stream(app, screen, pilot, len(text.split())))
        finally:
            server.terminate()

    def _watch_first_words(self, app: OncallApp) -> None:
        """Note when a line holding the first word of a reply is first drawn (a frame), and
        at which tick of the meter the reply's end reached the chat log."""
        original = ChatLog.render_line

        def render_line(log: ChatLog, y: int) -> Strip:
            line = original(log, y)
            if self.drawn_first is None and FIRST_WORD in line.text:
                self.drawn_first = time.monotonic()
            return line

        ChatLog.render_line = render_line  # type: ignore[method-assign,assignment]  # a probe

        finish = MessageBlock.finish

        def noted(block: MessageBlock, status: str, note: str | None = None) -> None:
            """Note the tick at which the reply's end reached the screen."""
            meter = self.meter
            if meter is not None and meter.ended_at is None:
                meter.ended_at = len(meter.lateness)
            finish(block, status, note)

        MessageBlock.finish = noted  # type: ignore[method-assign,assignment]  # a probe

    async def _stream(self, app: OncallApp, screen: MainScreen, pilot: Any, tokens: int) -> Stream:
        log = screen.query_one(ChatLog)
        before = len(log.messages)
        screen.query_one(Composer).text = "walk me through the whole runbook"
        await wait_until(pilot, lambda: bool(screen.query_one(KeyBar).shown), timeout=30)
        await pilot.pause(0.2)
        self.drawn_first = None
        meter = self.meter = StallMeter()
        ticker = asyncio.create_task(meter.run())
        start = time.perf_counter()
        deadline = time.monotonic() + STREAM_TIMEOUT
        await pilot.press("enter")

        def finished() -> bool:
            blocks = log.messages
            ended = blocks[-1].status != "streaming"
            return len(blocks) >= before + 2 and ended and not screen.sending

        while not finished():  # a light poll: Pilot's waits would add work to the loop
            if time.monotonic() > deadline:
                raise SystemExit(f"a stream did not finish in {STREAM_TIMEOUT:.0f} s")
            await asyncio.sleep(0.05)
        seconds = time.perf_counter() - start
        meter.running = False
        await ticker
        reply = log.messages[-1]
        if reply.status != "complete" or len(reply.content.split()) < tokens:
            words = len(reply.content.split())
            raise SystemExit(f"a reply did not arrive whole: {reply.status}, {words} of {tokens}")
        sent_first = self.first_chunks.get(timeout=5)
        drawn = self.drawn_first if self.drawn_first is not None else float("nan")
        return Stream(tokens, seconds, drawn - sent_first, meter)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def paced_rows(rate: int, stream: Stream) -> list[str]:
    meter = stream.meter
    late = (meter.percentile(0.5), meter.percentile(0.99), meter.worst(streaming=True))
    return [
        f"| {rate} tokens/s for {stream.seconds:.0f} s: loop lateness p50 / p99 / max | "
        f"{ms(late[0])} / {ms(late[1])} / {ms(late[2])} | p99 <= 16 ms, max <= 50 ms |",
        f"| {rate} tokens/s: longest stall as the reply ends | "
        f"{ms(meter.worst(streaming=False))} | |",
        f"| {rate} tokens/s: first words on screen after the server's first token | "
        f"{ms(stream.first_on_screen)} | <= 50 ms |",
    ]


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
            screen.shown.open(None)
            await wait_until(pilot, lambda: not log.messages, timeout=30)
            start = time.perf_counter()
            screen.shown.open(session_id)
            await wait_until(pilot, lambda: len(log.messages) == PAGE_SIZE, timeout=30)
            timings.append(time.perf_counter() - start)
        return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--history", type=int, default=1_000)
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--streams", type=int, default=200)
    parser.add_argument("--messages", type=int, default=10_000)
    args = parser.parse_args()
    rows = ["| figure | value | target |", "|---|---|---|"]
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        paced = [(reply_text(rate * args.seconds), 1 / rate) for rate in (50, 200)]
        firehose = [(reply_text(args.tokens), 0.0)]

        def report_paced(index: int, stream: Stream) -> None:
            rows.extend(paced_rows((50, 200)[index], stream))

        def report_firehose(_: int, stream: Stream) -> None:
            rows.append(
                f"| firehose, {stream.tokens:,} tokens: throughput | "
                f"{stream.tokens / stream.seconds:,.0f} tokens/s | >= 1,000 tokens/s |"
            )

        asyncio.run(Bench(workdir, paced, args.history).run(report_paced))
        asyncio.run(Bench(workdir, firehose, args.history).run(report_firehose))
        finished: list[float] = []
        # Every 30th send in one session first compacts its memory (the default mode), and
        # the summary takes a reply of the server's script too.
        short = [(reply_text(300), 0.0)] * (args.streams + args.streams // 30 + 1)
        bench = Bench(workdir, short, 0, streams=args.streams)
        asyncio.run(bench.run(lambda _, stream: finished.append(stream.seconds)))
        rows.append(
            f"| {args.streams} short streams in a row: finished | {len(finished)} of "
            f"{args.streams} (longest {max(finished, default=0.0):.2f} s) | all |"
        )
        opened = asyncio.run(open_figure(args.messages, workdir))
        rows.append(
            f"| open a {args.messages:,}-message session (median of 5) | {opened * 1000:.0f} ms "
            "| < 300 ms |"
        )
    print("\n".join(rows))


if __name__ == "__main__":
    main()
