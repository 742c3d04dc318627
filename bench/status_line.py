"""What the status line's same-height skip saves on the full main screen: figures, asserting
nothing.

The app runs headless at 120x36 with a session of ``--history`` messages open. The status line
is set ``--updates`` times to texts of one line, alternately through :meth:`PlainText.show`
(a repaint when the height stays, a layout only when it changes) and through ``Static.update``
(what it replaced: a layout of the whole screen every time); after each, the app is let run
until the frame is drawn. Printed: the median and p90 per update of each, in milliseconds.

    python bench/status_line.py [--updates 200] [--history 40]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from oncall_tui.settings import Settings
from oncall_tui.tui.app import build_app
from oncall_tui.tui.chat_log import ChatLog
from oncall_tui.tui.widgets.status_line import StatusLine
from tests.tui.harness import bulk_seed, wait_until


async def measure(updates: int, history: int) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(
            db_path=Path(data) / "status.db", user="alice", ollama_url="http://127.0.0.1:9"
        )
        app = build_app(settings)
        times: dict[str, list[float]] = {"show (same-height skip)": [], "Static.update": []}
        async with app.run_test(size=(120, 36), headless=True) as pilot:
            session = bulk_seed(app, history)
            app.main.shown.open(session)
            log = app.main.query_one(ChatLog)
            await wait_until(pilot, lambda: len(log.messages) > 0, timeout=30)
            status = app.main.query_one(StatusLine)
            for i in range(updates):
                text = f"Sending… ({i})"
                for name in times:
                    start = time.perf_counter()
                    if name.startswith("show"):
                        status.show(text)
                    else:
                        status.update(f"{text} ")
                    await pilot.pause()  # the frame drawn
                    times[name].append((time.perf_counter() - start) * 1000)
        return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=200)
    parser.add_argument("--history", type=int, default=40)
    args = parser.parse_args()
    times = asyncio.run(measure(args.updates, args.history))
    for name, values in times.items():
        ordered = sorted(values)
        p90 = ordered[int(len(ordered) * 0.9)]
        print(f"{name:24} median {statistics.median(values):6.2f} ms   p90 {p90:6.2f} ms")


if __name__ == "__main__":
    main()
