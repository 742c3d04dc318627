"""The log draws its own lines (not through Textual's per-line styling): they still go through
the app's line filters, on the log's background."""

from __future__ import annotations

import pytest
from textual.geometry import Region

from oncall_tui.tui.widgets.chat_log import ChatLog
from tests.tui.harness import spy
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
        view = log.scrollable_content_region
        lines = log.render_lines(Region(0, 0, view.width, view.height))
        assert any("Rollback" in line.text for line in lines)
        assert all(line.cell_length == view.width for line in lines)
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


async def lines_drawn_by_frames(monkeypatch: pytest.MonkeyPatch, *, ahead: bool) -> tuple[int, int]:
    """Stream a reply; count the log's lines drawn during frames and during flushes."""
    app = LogApp()
    async with app.run_test(size=(80, 20)) as pilot:
        log = app.query_one(ChatLog)
        if not ahead:
            monkeypatch.setattr(log, "_draw_ahead", lambda: None)
        block = await log.add_message("assistant", "", status="streaming")
        await block.append("Looking at the pods.\n\n")
        await pilot.pause(0.1)  # the log with the reply in it, drawn by a first frame
        in_frame = [False]
        drawn = spy(monkeypatch, log, "line_at", lambda y: in_frame[0])  # in a frame or not
        render_lines = log.render_lines

        def frame(crop: Region) -> object:
            in_frame[0] = True
            try:
                return render_lines(crop)
            finally:
                in_frame[0] = False

        monkeypatch.setattr(log, "render_lines", frame)
        for n in range(12):
            await block.append(f"Step {n}: check the pods and compare restarts.\n\n" * 3)
            await pilot.pause(0.08)  # a flush, then the frame it asks for
        await pilot.pause(0.1)
        assert log.is_vertical_scroll_end
        assert "Step 11" in "".join(line.text for line in frame(Region(0, 0, 78, 20)))
        return drawn.count(True), drawn.count(False)


async def test_a_flush_draws_the_new_lines_so_the_frame_after_it_does_not(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    in_frames, in_flushes = await lines_drawn_by_frames(monkeypatch, ahead=True)
    assert in_flushes > 50
    assert in_frames == 0
    in_frames, _ = await lines_drawn_by_frames(monkeypatch, ahead=False)
    assert in_frames > 50  # the control: without drawing ahead, frames draw them
