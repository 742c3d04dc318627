"""Start-up to interactive, against a bare Textual app: figures, asserting nothing.

Each run is a fresh ``python`` process that imports an app, runs it headless at 120x36 and
notes the moment its first frame has been drawn with the text area focused (interactive: keys
go to the composer), then exits. The bare app is Textual's own header, text area and footer.
Runs alternate between the two, so that both meet the same load on a shared machine; the
figures are medians of ``--runs`` each, from the moment the process was started, and each
process's peak resident memory. ``--instructions`` counts instead the instructions one start of
each runs (valgrind's callgrind, about 20 s a start): a figure that does not move with the
machine's load, where the times move by a tenth from run to run.

    python bench/startup.py [--runs 10] [--instructions]

Target: oncall-tui within 1.5 times the bare app.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def bare_app() -> Any:
    from textual.app import App, ComposeResult
    from textual.widgets import Footer, Header, TextArea

    class Bare(App[None]):
        def compose(self) -> ComposeResult:
            yield Header()
            yield TextArea(id="composer")
            yield Footer()

        def on_mount(self) -> None:
            self.query_one(TextArea).focus()

    return Bare()


def oncall_app(workdir: str) -> Any:
    from oncall_tui.settings import Settings
    from oncall_tui.tui.app import build_app

    settings = Settings(
        db_path=Path(workdir) / "oncall.db", user="bench", ollama_url="http://127.0.0.1:9"
    )
    return build_app(settings)


def child(kind: str, workdir: str) -> None:
    """Run one app until its first frame is drawn with the composer focused; print when."""
    app = bare_app() if kind == "bare" else oncall_app(workdir)
    drawn: list[float] = []

    def first_frame() -> None:
        focused = app.focused
        if focused is not None and focused.id == "composer":
            drawn.append(time.monotonic())
            app.exit()
        else:
            app.call_after_refresh(first_frame)

    async def when_mounted() -> None:
        app.call_after_refresh(first_frame)

    app.call_later(when_mounted)
    app.run(headless=True, size=(120, 36))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"interactive": drawn[0], "peak_mib": peak}))


CALLGRIND = ("valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null")


def start(
    kind: str, workdir: str, *, under: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """One start of ``kind`` in a fresh process (``under`` another program, such as valgrind),
    to its first frame and exit."""
    return subprocess.run(
        [*under, sys.executable, __file__, "--child", kind, workdir],
        capture_output=True,
        text=True,
        check=True,
        timeout=600 if under else 60,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def instructions(kind: str, workdir: str) -> int:
    """The instructions one start of ``kind`` runs, counted by valgrind's callgrind: the same
    from run to run whatever else the machine does."""
    stderr = start(kind, workdir, under=CALLGRIND).stderr
    counted = re.search(r"Collected : (\d+)", stderr)
    assert counted is not None, stderr[-500:]
    return int(counted.group(1))


def run(kind: str, workdir: str) -> tuple[float, float]:
    started = time.monotonic()
    done = start(kind, workdir)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["interactive"] - started, result["peak_mib"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--child", nargs=2, metavar=("KIND", "WORKDIR"))
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions (valgrind) instead"
    )
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    # After the first use the package's modules are compiled, as Textual's are: pip compiles
    # them on install, an editable install on first import. Where PYTHONDONTWRITEBYTECODE is
    # set that never happens, and each start would compile ~60 modules the bare app never has.
    compileall.compile_dir(REPO / "oncall_tui", quiet=1)
    with tempfile.TemporaryDirectory() as workdir:
        run("oncall", workdir)  # the database and its schema exist, as after the first use
        if args.instructions:
            report_instructions(instructions("bare", workdir), instructions("oncall", workdir))
            return
        times: dict[str, list[float]] = {"bare": [], "oncall": []}
        memory: dict[str, list[float]] = {"bare": [], "oncall": []}
        for _ in range(args.runs):
            for kind in ("bare", "oncall"):
                seconds, peak = run(kind, workdir)
                times[kind].append(seconds)
                memory[kind].append(peak)
    bare, ours = statistics.median(times["bare"]), statistics.median(times["oncall"])
    print("| figure | bare Textual app | oncall-tui | target |\n|---|---|---|---|")
    print(
        f"| start to interactive (median of {args.runs}) | {bare * 1000:.0f} ms | "
        f"{ours * 1000:.0f} ms ({ours / bare:.2f}x) | <= 1.5x |"
    )
    print(
        f"| peak memory (median) | {statistics.median(memory['bare']):.0f} MiB | "
        f"{statistics.median(memory['oncall']):.0f} MiB | one process |"
    )


def report_instructions(bare: int, ours: int) -> None:
    print("| figure | bare Textual app | oncall-tui | target |\n|---|---|---|---|")
    print(
        f"| instructions to interactive | {bare / 1e6:,.0f} M | {ours / 1e6:,.0f} M "
        f"({ours / bare:.2f}x) | <= 1.5x |"
    )


if __name__ == "__main__":
    main()
