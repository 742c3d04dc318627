"""The log draws its own lines (not through Textual's per-line styling): they still go through
the app's line filters, on the log's background."""

from __future__ import annotations

import pytest
from textual.geometry import Region

from oncall_tui.tui.widgets.chat_log import ChatLog
from tests.tui.test_chat_log_segments import LogApp, page

REPLY = "# Rollback\n\nrun `kubectl rollout undo` and **watch** p99"


async def drawn_colours(monkeypatch: pytest.MonkeyPatch, *, no_color: bool) -> set[object]:
    if no_color:
        monkeypatch.setenv("NO_COLOR", "1")  # Textual adds a monochrome line filter
    else:
        monkeypatch.delenv("NO_COLOR", raising=False)
    app = LogApp()
    async with app.run_test(size=(80, 12)) as pilot:
        log = app.query_one(ChatLog)
        await log.show_page(
            page(("user", "roll back?"), ("assistant", REPLY)), earlier=0, boundary=0
        )
        await pilot.pause()
        lines = log.render_lines(Region(0, 0, log.size.width, log.size.height))
        assert any("Rollback" in line.text for line in lines)
        assert all(line.cell_length == log.size.width for line in lines)
        return {
            colour
            for line in lines
            for segment in line
            if segment.style
            for colour in (segment.style.color, segment.style.bgcolor)
            if colour is not None
        }


def grey(colour: object) -> bool:
    red, green, blue = colour.get_truecolor()  # type: ignore[attr-defined]
    return bool(red == green == blue)


async def test_the_apps_line_filters_apply_to_the_log(monkeypatch: pytest.MonkeyPatch) -> None:
    coloured = await drawn_colours(monkeypatch, no_color=False)
    assert not all(grey(colour) for colour in coloured)  # headings, code, the user's lines
    monochrome = await drawn_colours(monkeypatch, no_color=True)
    assert monochrome
    assert all(grey(colour) for colour in monochrome)
