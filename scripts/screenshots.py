"""Regenerate the SVG screenshots in screenshots/ from a realistic demo session.

Uses the scripted model and a throwaway database: no Ollama is needed.

    python scripts/screenshots.py
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from textual.app import App  # noqa: E402
from textual.pilot import Pilot  # noqa: E402

from oncall_tui.tui.chat_log import ChatLog  # noqa: E402
from oncall_tui.tui.widgets.welcome import Welcome  # noqa: E402
from tests.tui.demo import HELD_STILL, GaugeApp, build_demo, demo_app  # noqa: E402
from tests.tui.harness import wait_until  # noqa: E402

OUT = ROOT / "screenshots"
Steps = Callable[[Pilot[Any]], Awaitable[None]]


async def settle(pilot: Pilot[Any]) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause(0.4)
    await pilot.app.workers.wait_for_complete()


async def main_screen(pilot: Pilot[Any]) -> None:
    await wait_until(pilot, lambda: any(log.messages for log in pilot.app.screen.query(ChatLog)))
    await settle(pilot)


def opens(key: str, screen_name: str) -> Steps:
    async def steps(pilot: Pilot[Any]) -> None:
        await main_screen(pilot)
        await pilot.press(key)
        await wait_until(pilot, lambda: type(pilot.app.screen).__name__ == screen_name)
        await settle(pilot)

    return steps


async def shoot(app: App[Any], name: str, size: tuple[int, int], steps: Steps) -> None:
    async with app.run_test(size=size) as pilot:
        await steps(pilot)
        app.save_screenshot(str(OUT / f"{name}.svg"))
    print(f"screenshots/{name}.svg")


async def first_start(pilot: Pilot[Any]) -> None:
    welcome = pilot.app.screen.query_one(Welcome)
    await wait_until(pilot, lambda: welcome.ollama is not None and bool(welcome.ollama.usable))
    await settle(pilot)


async def search(pilot: Pilot[Any]) -> None:
    await main_screen(pilot)
    await pilot.press("ctrl+f")
    await wait_until(pilot, lambda: type(pilot.app.screen).__name__ == "SearchScreen")
    await pilot.press(*"pool")
    await wait_until(pilot, lambda: len(getattr(pilot.app.screen, "hits", [])) > 1)
    await settle(pilot)


def fresh_app(db: Path) -> App[Any]:
    """A first start: an empty database, Ollama (here the scripted model) answering."""
    app = demo_app(db)
    app.services.gateway.server_version = lambda: "0.12.6"  # type: ignore[method-assign]
    return app


async def run(db: Path) -> None:
    await shoot(fresh_app(db.with_name("first.db")), "first-start", (120, 36), first_start)
    await shoot(demo_app(db), "search", (120, 36), search)
    await shoot(demo_app(db), "main", (120, 36), main_screen)
    await shoot(demo_app(db), "main-80x24", (80, 24), main_screen)
    await shoot(demo_app(db), "prompt-editor", (120, 36), opens("f3", "PromptEditorScreen"))
    await shoot(demo_app(db), "skill-library", (120, 36), opens("f4", "SkillLibraryScreen"))
    await shoot(demo_app(db), "summary", (120, 36), opens("f6", "SummaryScreen"))
    for used, label in ((0, "0"), (6144, "75"), (7865, "96")):
        await shoot(GaugeApp(used), f"gauge-{label}", (44, 4), settle)


def main() -> None:
    # The demo's day, in UTC: the same pictures whenever they are made.
    os.environ["TZ"] = "UTC"
    time.tzset()
    OUT.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as held:
        for name, value in HELD_STILL.items():
            held.enter_context(mock.patch(name, value))
        db = Path(tmp) / "demo.db"
        build_demo(db)
        asyncio.run(run(db))


if __name__ == "__main__":
    main()
