"""A user's message is drawn as typed: line breaks kept, no Markdown, a pasted log as a block."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.app import App
from textual.strip import Strip

from oncall_tui.tui.chat_log import ChatLog, MessageBlock
from oncall_tui.tui.chat_log.entries import GUTTER, text_width
from oncall_tui.tui.chat_log.plain import CUT, PROSE_LINES, PlainLines
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.widgets.composer import Composer
from tests.fakes.chat_model import Turn
from tests.tui.harness import scripted_app, spy, wait_until
from tests.tui.test_chat_log_segments import LogApp, lines_of, page, texts


def host_app() -> App[object]:
    """An app not running: what a body needs to render (a console, a theme)."""
    return App[object]()


def shown(body: PlainLines, width: int, host: App[object] | None = None) -> list[str]:
    """The lines of ``body`` at ``width``, as text, each exactly ``width`` cells."""
    host = host or host_app()
    lines = [body.line(host, width, row) for row in range(body.line_count(host, width))]
    texts = [line.text for line in lines if line is not None]
    assert all(cell_len(text) == width for text in texts)  # padded, never wider
    return [text.rstrip() for text in texts]


# -- the body, alone ------------------------------------------------------------------------------


def test_three_lines_wrap_at_words_and_a_fourth_makes_a_block() -> None:
    question = ["why does api-7 restart every few minutes since the deploy", "pods:", "api-7"]
    assert len(question) == PROSE_LINES
    prose = PlainLines("\n".join(question))
    assert not prose.block
    assert shown(prose, 24) == [
        "why does api-7 restart",  # wrapped at a word boundary, as prose
        "every few minutes since",
        "the deploy",
        "pods:",  # the line breaks typed are kept
        "api-7",
    ]
    block = PlainLines("\n".join([*question, "api-9"]))
    assert block.block
    assert shown(block, 24) == [  # a line a row: the first is cut, not wrapped
        "why does api-7 restart " + CUT,
        "pods:",
        "api-7",
        "api-9",
    ]


@pytest.mark.parametrize(
    ("row", "drawn"),
    [
        ("a" * 30, "a" * 30),  # exactly the width: whole, unmarked
        ("a" * 31, "a" * 29 + CUT),  # one cell wider: cut, the cut marked at the edge
        ("中" * 15, "中" * 15),  # 30 cells of wide characters
        ("中" * 16, "中" * 14 + " " + CUT),  # a wide character is not cut in half
    ],
)
def test_a_block_line_as_wide_as_the_log_is_whole_and_one_cell_wider_is_cut(
    row: str, drawn: str
) -> None:
    body = PlainLines("\n".join(["one", "two", "three", row]))
    host = host_app()
    assert shown(body, 30, host)[-1] == drawn
    last = body.line(host, 30, 3)
    assert last is not None
    marks = [segment for segment in last if segment.text == CUT]
    assert len(marks) == (row != drawn)  # the mark is a segment of its own (its own style)


def test_markdown_is_shown_as_typed_and_tabs_expand_to_stops_of_eight() -> None:
    typed = "# not a heading\n* not a list\n**not bold** `not code` [b]no markup[/b] :fire:"
    body = PlainLines(typed)
    assert shown(body, 60) == typed.splitlines()
    host = host_app()
    styles = {segment.style for row in range(3) for segment in body.line(host, 60, row) or []}
    assert not any(style and (style.bold or style.italic) for style in styles)
    log = PlainLines("ts\tlevel\tmessage\n1\t2\t3\n\tindented\n中\ty")  # stops in cells
    assert shown(log, 40) == [
        "ts      level   message",
        "1       2       3",
        "        indented",
        "中      y",
    ]


def test_line_breaks_stay_and_the_text_is_made_terminal_safe() -> None:
    body = PlainLines("line one\r\nline two\x1b[31m red\x07\n\n")
    assert body.text == "line one\nline two␛[31m red␇"  # CRLF is a line break; trailing ones go
    assert shown(body, 40) == ["line one", "line two␛[31m red␇"]
    assert shown(PlainLines("a\n\n\nb"), 10) == ["a", "", "", "b"]  # blank lines typed stay
    assert PlainLines("").line_count(host_app(), 40) == 0
    assert PlainLines("\n\n").line_count(host_app(), 40) == 0


def test_lines_are_rendered_once_per_width_and_strips_made_when_drawn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    renders = spy(monkeypatch, PlainLines, "_render", lambda body, host, width, look: width)
    host = host_app()
    for text in ("a short question", "\n".join(f"log line {i}" for i in range(40))):
        renders.clear()
        body = PlainLines(text)
        for _ in range(3):  # what frames and layouts ask, again and again
            body.line_count(host, 30)
            first = body.line(host, 30, 0)
        assert renders == [30]
        assert body.line(host, 31, 0) is not None
        assert body.line(host, 31, 0) is not body.line(host, 31, 0)  # a strip is not kept
        assert renders == [30, 31]
        assert isinstance(first, Strip)
        assert body.line(host, 30, body.line_count(host, 30)) is None  # past the last line


# -- in the log ----------------------------------------------------------------------------------


async def test_a_short_message_keeps_its_line_breaks_in_the_log() -> None:
    app = LogApp()
    async with app.run_test(size=(60, 20)) as pilot:
        log = app.query_one(ChatLog)
        log.show_page(
            page(("user", "line one\nline two"), ("user", "# disk full?\n* db-3 **now**")),
            earlier=0,
            boundary=0,
        )
        await pilot.pause()
        first, second = log.messages
        assert texts(lines_of(log, first)) == ["you · 14:03", "line one", "line two"]
        assert texts(lines_of(log, second)) == ["you · 14:03", "# disk full?", "* db-3 **now**"]


def block_background(line: Strip) -> object:
    """The background of a message's text, past the selection bar."""
    segment = next(iter(line.crop(GUTTER)))
    return segment.style.bgcolor if segment.style else None


async def test_a_block_is_set_apart_from_prose_and_follows_the_theme() -> None:
    app = LogApp()
    async with app.run_test(size=(60, 20)) as pilot:
        log = app.query_one(ChatLog)
        pasted = "\n".join(["E1 pool exhausted", "E2 pool exhausted", "E3", "E4 " + "x" * 80])
        log.show_page(page(("user", "prose"), ("user", pasted)), earlier=0, boundary=0)
        await pilot.pause()
        prose, block = (lines_of(log, message)[1] for message in log.messages)
        assert block_background(block) != block_background(prose)
        cut = lines_of(log, log.messages[1])[4]
        mark = next(segment for segment in cut if segment.text == CUT)
        assert mark.style != next(iter(cut.crop(GUTTER))).style  # the cut stands out
        before = block_background(block)
        app.theme = "textual-light" if app.current_theme.dark else "textual-dark"
        await pilot.pause()
        await pilot.pause()
        assert block_background(lines_of(log, log.messages[1])[1]) != before


def pasted_log(width: int) -> str:
    """33 lines of a log, as pasted: Markdown-looking lines, tabs, and lines of ``width``
    cells and one more."""
    lines = [f"2026-11-30T02:51:{i:02d}Z\tWARN\tpool exhausted: waited 2000ms" for i in range(29)]
    lines[3] = "# kubectl -n payments logs deploy/payments-api"
    lines[4] = "* retry 1/3 **failed**"
    exact = "E" + "x" * (width - 1)
    return "\n".join([*lines, exact, exact + "y", "", "last line"])


def expected(text: str, width: int) -> list[str]:
    rows = [row.expandtabs(8) for row in text.split("\n")]
    return [row if len(row) <= width else row[: width - 1] + CUT for row in rows]


def user_lines(log: ChatLog) -> tuple[MessageBlock, list[str]]:
    """The user's message of the page and its text as drawn, the header left out."""
    block = next(message for message in log.messages if message.role == "user")
    width = text_width(log.scrollable_content_region.width)
    drawn = [line.text[GUTTER : GUTTER + width] for line in lines_of(log, block)[1:]]
    return block, [text.rstrip() for text in drawn]


async def test_a_pasted_log_is_drawn_line_for_line_when_sent_and_when_reopened(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db", [Turn(text="Pool starvation: roll back.")])
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        log = app.screen.query_one(ChatLog)
        width = text_width(log.scrollable_content_region.width)
        text = pasted_log(width)
        app.query_one(Composer).text = text
        await pilot.press("enter")
        await wait_until(pilot, lambda: [m.status for m in log.messages] == ["complete"] * 2)
        sent, drawn = user_lines(log)
        assert sent.content == text
        assert len(drawn) == 33
        assert drawn == expected(text, width)
        assert drawn[29] == "E" + "x" * (width - 1)  # exactly the width: whole
        assert drawn[30] == "E" + "x" * (width - 2) + CUT  # a cell more: cut and marked
        screen = app.screen
        assert isinstance(screen, MainScreen)
        assert screen.session_id is not None
        screen.shown.open(screen.session_id)
        await wait_until(pilot, lambda: bool(log.messages) and log.messages[0] is not sent)
        stored, reopened = user_lines(log)
        assert stored.content == text
        assert reopened == drawn
