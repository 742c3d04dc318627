"""Snapshots of the main screen and the context gauge (fixed sizes, fixed demo data)."""

from __future__ import annotations

import os
import pkgutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from oncall_tui.tui.chat_log import ChatLog
from oncall_tui.tui.widgets.gauge import ContextGauge
from tests.tui.demo import FIXED_NOW, HELD_STILL, GaugeApp, build_demo, demo_app
from tests.tui.harness import screen_rows, wait_until


async def settle(pilot: Pilot[Any]) -> None:
    """Wait for the demo session to be on screen; park the focus so no cursor blinks."""
    app = pilot.app
    await wait_until(pilot, lambda: any(log.messages for log in app.screen.query(ChatLog)))
    # Every load and probe done, and those their results started (the page, the gauge):
    # a worker leaves the list when it ends, after its results' callbacks have run.
    await wait_until(pilot, lambda: not app.workers)
    app.screen.set_focus(None)
    await pilot.pause()


@pytest.fixture
def fixed_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The demo's messages in UTC, on the demo's day: the same headers whenever it runs."""
    zone = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    monkeypatch.setattr("oncall_tui.tui.chat_log.log.local_now", lambda: FIXED_NOW)
    yield
    if zone is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = zone
    time.tzset()


@pytest.mark.usefixtures("fixed_clock")
class TestMainScreen:
    def test_demo_session_at_120x36(self, snap_compare: Any, tmp_path: Path) -> None:
        build_demo(tmp_path / "demo.db")
        assert snap_compare(
            demo_app(tmp_path / "demo.db"), terminal_size=(120, 36), run_before=settle
        )

    def test_demo_session_at_80x24(self, snap_compare: Any, tmp_path: Path) -> None:
        build_demo(tmp_path / "demo.db")
        assert snap_compare(
            demo_app(tmp_path / "demo.db"), terminal_size=(80, 24), run_before=settle
        )


class TestGauge:
    @pytest.mark.parametrize(("used", "label"), [(0, "empty"), (6144, "75"), (7865, "96")])
    def test_gauge(self, snap_compare: Any, used: int, label: str) -> None:
        assert snap_compare(GaugeApp(used, 8192), terminal_size=(44, 4))

    @pytest.mark.parametrize(
        ("used", "warn", "limit"),
        [(5730, False, False), (5731, True, False), (7778, True, False), (7779, True, True)],
    )
    async def test_gauge_style_changes_exactly_at_70_and_95_percent(
        self, used: int, warn: bool, limit: bool
    ) -> None:
        app = GaugeApp(used, 8192)
        async with app.run_test():
            gauge = app.query_one(ContextGauge)
            assert (gauge.has_class("-warn"), gauge.has_class("-limit")) == (warn, limit)


@pytest.mark.parametrize(
    ("width", "shown"),
    [
        (32, "120,000 / 131,072 tokens · 91.6%"),
        (31, "120,000 / 131,072 · 91.6%"),
        (25, "120,000 / 131,072 · 91.6%"),
        (24, "91.6%"),
    ],
)
async def test_a_wide_window_near_its_end_keeps_its_percentage_in_sight(
    width: int, shown: str
) -> None:
    """The panel is about 31 cells wide: the figures of a 128k window at 91.6% wrapped onto
    the gauge's hidden third line, percentage and all; a shorter form is written instead."""

    class Narrow(GaugeApp):
        CSS = f"ContextGauge {{ width: {width}; }}"

    app = Narrow(120_000, 131_072)
    async with app.run_test(size=(40, 4)):
        gauge = app.query_one(ContextGauge)
        assert screen_rows(app)[1].rstrip() == shown
        assert gauge.size.width == width


@pytest.mark.parametrize("name", sorted(HELD_STILL))
def test_what_the_screenshots_hold_still_is_where_they_replace_it(name: str) -> None:
    """``scripts/screenshots.py`` failed once a function it replaced had moved to a pane."""
    assert callable(pkgutil.resolve_name(name))
