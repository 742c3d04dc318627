"""The gauge and the refusal agree: a refused message does not move the gauge to where it
would have taken the context, and percentages over 100 are shown as they are."""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult

from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.context_panel import ContextPanel
from oncall_tui.tui.widgets.gauge import ContextGauge
from oncall_tui.tui.widgets.plain_text import PlainText
from tests.fakes.chat_model import Turn
from tests.tui.harness import scripted_app, wait_until


async def test_a_refused_message_leaves_the_gauge_and_a_shorter_one_is_sent(
    tmp_path: Path,
) -> None:
    app, model = scripted_app(tmp_path / "t.db", [Turn(text="ok")], window=2000)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        await app.workers.wait_for_complete()
        gauge = screen.query_one(ContextPanel).gauge
        await wait_until(pilot, lambda: gauge.percent > 0)
        before = gauge.percent
        assert before < 95
        app.query_one(Composer).text = "word " * 3000
        await pilot.press("enter")
        status = screen.query_one("#status", PlainText)
        await wait_until(pilot, lambda: "would bring the context to" in status.text)
        assert gauge.percent == before  # where the context is, not where it would have gone
        app.query_one(Composer).text = "short question"
        await pilot.press("enter")
        await wait_until(pilot, lambda: not screen.sending and len(model.calls) == 1)


class GaugeApp(App[None]):
    def compose(self) -> ComposeResult:
        yield ContextGauge()


async def test_a_percentage_over_100_is_shown_as_it_is() -> None:
    app = GaugeApp()
    async with app.run_test(size=(40, 4)) as pilot:
        gauge = app.query_one(ContextGauge)
        gauge.update_usage(2732, 2048)
        await pilot.pause()
        assert "2,732 / 2,048 tokens · 133.4%" in str(gauge.render())
        assert gauge.at_limit
