"""The machine's floor for the stall figure: a control for ``tui_stream.py``, asserting nothing.

The stream bench's longest stall depends on the machine as well as on the app. This runs the
same 5 ms ticker on an event loop that holds no app at all, only fixed pieces of pure-Python
arithmetic as long as a typical frame of the app (``--piece``, in ms of an idle machine), one
every 10 ms: about the app's share of a core while it shows a fast stream. It does so twice:

- idle: nothing else runs;
- under the stream's load: the same loopback server streams the same 20,000-token reply
  through the real model process (``AgentHost``, as the app uses it), whose items are counted
  and dropped, so the other processes do what they do in the stream bench.

If the control's longest stall passes 50 ms, the machine can stall any loop that much, however
small its pieces of work.

    python bench/loop_floor.py [--runs 5] [--piece 3] [--tokens 20000] [--server-nice 10]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tui_stream import StallMeter, serve

from oncall_tui.core.events import TokenDelta
from oncall_tui.llm.host import NICENESS, AgentHost
from oncall_tui.llm.turn import Turn

SPACING = 0.010
SECONDS = 8.0
"""About as long as the app takes to show the bench's reply."""


def calibrate(milliseconds: float) -> int:
    """Loop counts for a piece of ``milliseconds`` on this machine now (the fastest of 20)."""
    best = min(_timed(20_000) for _ in range(20))
    return max(1, int(20_000 * milliseconds / 1000 / best))


def _timed(count: int) -> float:
    start = time.perf_counter()
    _piece(count)
    return time.perf_counter() - start


def _piece(count: int) -> int:
    total = 0
    for number in range(count):
        total += number * number % 7
    return total


async def pieces(count: int, meter: StallMeter) -> None:
    while meter.running:
        _piece(count)
        await asyncio.sleep(SPACING)


async def consume(url: str) -> int:
    host = AgentHost()
    try:
        turn = Turn("", (("user", "walk me through the whole runbook"),))
        tokens = 0
        stream = host.stream(
            turn, url=url, model="llama3.1:8b", num_ctx=131072, timeout=60, deadline=600
        )
        async for item in stream:
            if isinstance(item, TokenDelta):
                tokens += len(item.text.split())
        return tokens
    finally:
        host.close()


async def run(count: int, url: str | None) -> StallMeter:
    meter = StallMeter()
    ticker = asyncio.create_task(meter.run())
    load = asyncio.create_task(pieces(count, meter))
    streamed = asyncio.create_task(consume(url)) if url else None
    await asyncio.sleep(SECONDS)
    meter.running = False
    await asyncio.gather(ticker, load)
    if streamed is not None:
        await streamed
    return meter


def under_load(count: int, tokens: int, server_nice: int) -> StallMeter:
    ports: multiprocessing.SimpleQueue[int] = multiprocessing.SimpleQueue()
    process = multiprocessing.Process(target=serve, args=(tokens, ports, server_nice), daemon=True)
    process.start()
    try:
        return asyncio.run(run(count, f"http://127.0.0.1:{ports.get()}"))
    finally:
        process.terminate()


def row(where: str, meter: StallMeter) -> str:
    return (
        f"| {where} | {meter.worst * 1000:.1f} ms | {meter.percentile(0.5) * 1000:.1f} / "
        f"{meter.percentile(0.99) * 1000:.1f} ms | {meter.over(0.05)} of {len(meter.lateness):,} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--piece", type=float, default=3.0, help="ms of arithmetic per piece")
    parser.add_argument("--tokens", type=int, default=20_000)
    parser.add_argument("--server-nice", type=int, default=NICENESS)
    args = parser.parse_args()
    count = calibrate(args.piece)
    every = f"every {SPACING * 1000:.0f} ms, {SECONDS:g} s a run"
    print(f"{args.piece:g} ms pieces of arithmetic {every}, server at niceness {args.server_nice}")
    print("| run | longest stall | lateness median / p99 | ticks > 50 ms late |\n|---|---|---|---|")
    for number in range(1, args.runs + 1):
        print(row(f"{number}, idle", asyncio.run(run(count, None))), flush=True)
        loaded = under_load(count, args.tokens, args.server_nice)
        print(row(f"{number}, under the stream's load", loaded), flush=True)


if __name__ == "__main__":
    main()
