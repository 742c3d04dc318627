"""The log's scrollbar is repainted only when the bar it draws changes, and always shows
where the view is."""

from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.scrollbar import ScrollBar

from oncall_tui.tui.widgets.chat_log import ChatLog
from oncall_tui.tui.widgets.scrollbar import bar_cells
from tests.tui.harness import spy, wait_until
from tests.tui.test_chat_log_segments import LogApp

Cell = tuple[str, bool]


def shown(bar: ScrollBar) -> list[Cell]:
    """Each line of the bar as it is drawn: its text, and whether it is thumb."""
    lines = bar.render_lines(Region(0, 0, bar.size.width, bar.size.height))
    return [
        (line.text, any(s.style is not None and "grab" in str(s.style.meta) for s in line))
        for line in lines
    ]


def expected(bar: ScrollBar) -> list[Cell]:
    """What a repaint would draw for where the view is now."""
    cells = bar_cells(bar, bar.window_virtual_size, bar.position)
    return [(c.text, c.style is not None and "grab" in str(c.style.meta)) for c in cells]


async def test_the_bar_follows_a_streaming_reply_and_repaints_only_when_it_changes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app = LogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        log = app.query_one(ChatLog)
        bar = log.vertical_scrollbar
        repaints = spy(monkeypatch, bar, "refresh")
        block = await log.add_message("assistant", "", status="streaming")
        counts = []
        for n in range(40):
            text = f"Step {n}: check the pods in namespace payments and compare restarts.\n\n"
            await block.append(text * 20)
            await wait_until(pilot, lambda: block.shown_text == block.content)
            await pilot.pause()
            assert log.is_vertical_scroll_end
            assert shown(bar) == expected(bar)
            counts.append(len(repaints))
        assert any(thumb for _, thumb in shown(bar))
        assert counts[2] > counts[0]  # the thumb shrinks as a short reply grows
        assert log.virtual_size.height > 1.5 * bar.size.height**2  # now it is one cell
        assert counts[-1] == counts[-12]  # and it is not repainted as the reply grows further

        log.scroll_to(y=0, animate=False, immediate=True)  # moving the view moves the bar
        await pilot.pause()
        assert len(repaints) > counts[-1]
        assert shown(bar) == expected(bar)
        assert shown(bar)[0][1]  # the thumb is at the top
