"""What a change of focus costs on the main screen, with the app's key bar and with Textual's
``Footer`` in its place, and what opening the summary dialog (f6) costs: figures, asserting
nothing.

The app runs headless at 120x40 with a session of ``--history`` messages open; Tab is pressed
``--presses`` times, going round the panes, and after each the app is let run until the frame
is drawn. Textual's footer builds a widget per key anew at each change of focus; the key bar
draws one line. Printed: the median and p90 CPU time per Tab of each, in milliseconds (CPU, not
wall time: the machine's other work does not count). Then the summary dialog is opened
``--opens`` times over a plain screen, with a summary of 60 points, until it is drawn.

    python bench/focus.py [--presses 60] [--history 40] [--opens 10]
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

from textual.widgets import Footer

from oncall_tui.settings import Settings
from oncall_tui.tui.app import build_app
from oncall_tui.tui.widgets.key_bar import KeyBar
from tests.tui.harness import bulk_seed, wait_until


async def measure(bar: str, presses: int, history: int) -> list[float]:
    with tempfile.TemporaryDirectory() as data:
        settings = Settings(
            db_path=Path(data) / "focus.db", user="alice", ollama_url="http://127.0.0.1:9"
        )
        app = build_app(settings)
        times: list[float] = []
        async with app.run_test(size=(120, 40), headless=True) as pilot:
            bulk_seed(app, history)
            await app.workers.wait_for_complete()
            if bar == "Textual's Footer":
                await app.screen.query_one(KeyBar).remove()
                await app.screen.mount(Footer(compact=True))
                await pilot.press("tab")  # its keys come with the first change of bindings
                await wait_until(pilot, lambda: bool(app.screen.query_one(Footer).children))
            await pilot.pause(0.5)
            for _ in range(presses):
                start = time.process_time()
                await pilot.press("tab")
                await pilot.pause()
                times.append(1000 * (time.process_time() - start))
        return times


async def open_summary(opens: int) -> list[float]:
    from oncall_tui.tui.screens.summary import SummaryScreen
    from tests.tui.test_dialogs_summary import SummaryHost, memory_state

    times: list[float] = []
    app = SummaryHost(None)
    async with app.run_test(size=(120, 40), headless=True) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen))
        app.pop_screen()
        for _ in range(opens):
            await pilot.pause()
            start = time.process_time()
            app.push_screen(SummaryScreen(memory_state()))
            await pilot.pause()
            times.append(1000 * (time.process_time() - start))
            app.pop_screen()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=60)
    parser.add_argument("--history", type=int, default=40)
    parser.add_argument("--opens", type=int, default=10)
    args = parser.parse_args()
    print("| bar | CPU per Tab, median | p90 |")
    print("|---|---|---|")
    for bar in ("key bar", "Textual's Footer"):
        times = sorted(asyncio.run(measure(bar, args.presses, args.history)))
        p90 = times[int(0.9 * (len(times) - 1))]
        print(f"| {bar} | {statistics.median(times):.1f} ms | {p90:.1f} ms |")
    opened = statistics.median(asyncio.run(open_summary(args.opens)))
    print(f"\nopening the summary dialog (60 points): {opened:.0f} ms CPU, median")


if __name__ == "__main__":
    main()
