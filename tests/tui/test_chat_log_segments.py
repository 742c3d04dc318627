"""A long streamed reply is split into Markdown segments without losing or mangling text."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from rich.console import Console
from rich.markdown import Markdown as RichMarkdown
from textual.app import App, ComposeResult
from textual.strip import Strip

import oncall_tui.tui
from oncall_tui.services.views import MessageView, ToolCallView
from oncall_tui.tui.chat_log import ChatLog, MessageBlock
from oncall_tui.tui.chat_log import flush as flush_module
from oncall_tui.tui.chat_log.entries import GUTTER
from oncall_tui.tui.chat_log.flush import FLUSH_SECONDS
from oncall_tui.tui.chat_log.markdown import (
    SEGMENT_CHARS,
    MarkdownLines,
    _fence_open,
    split_point,
    split_segments,
)
from oncall_tui.tui.chat_log.message import STALL_SHOWN_FROM, WAIT_SHOWN_FROM
from oncall_tui.tui.chat_log.rich_markdown import _RichMarkdown, rich_markdown
from oncall_tui.tui.chat_log.tool_calls import ToolCallLine, tool_title
from oncall_tui.tui.widgets.key_bar import KeyBar
from tests.tui.harness import screen_rows, settled, wait_until


def reply(paragraphs: int) -> str:
    parts = []
    for i in range(paragraphs):
        parts.append(f"Step {i}: check the pods in namespace payments and compare restarts.\n\n")
        if i % 4 == 0:  # a fence with blank lines inside: never a place to split
            parts.append("```bash\nkubectl -n payments get pods\n\n\nkubectl logs api-7\n```\n\n")
        if i % 9 == 0:
            parts.append("~~~\nraw ``` inside a tilde fence\n\n~~~\n\n")
    return "".join(parts)


def test_split_point_is_after_a_paragraph_break_outside_fences() -> None:
    assert split_point("short\n\ntext") is None
    text = "x" * SEGMENT_CHARS + "\n\n```\na\n\nb\n"
    assert split_point(text) == SEGMENT_CHARS + 2  # the break inside the open fence is skipped
    closed = text + "```\n\nc"
    assert split_point(closed) == len(closed) - 1  # the last break, once the fence is closed


def test_segments_join_back_and_never_cut_a_fence() -> None:
    text = reply(120)
    segments = split_segments(text)
    assert len(segments) > 5
    assert "".join(segments) == text
    head = ""
    for segment in segments[:-1]:
        head += segment
        assert len(segment) >= SEGMENT_CHARS
        assert head.endswith("\n\n")
        assert not _fence_open(head)


NOW = datetime(2026, 11, 30, 14, 3).astimezone()
"""The time the logs here think it is (local, whatever the machine's zone): headers say 14:03."""


class LogApp(App[None]):
    CSS_PATH = str(Path(oncall_tui.tui.__file__).with_name("app.tcss"))

    def compose(self) -> ComposeResult:
        log = ChatLog()
        log.clock = lambda: NOW
        yield log


def page(*messages: tuple[str, str], tools: Sequence[ToolCallView] = ()) -> list[MessageView]:
    """Stored messages, as a session page brings them (tools on the last one), said now."""
    when = NOW.astimezone(UTC)
    return [
        MessageView(
            i + 1,
            i,
            role,
            content,
            "complete",
            when,
            tuple(tools) if i == len(messages) - 1 else (),
        )
        for i, (role, content) in enumerate(messages)
    ]


def lines_of(log: ChatLog, block: MessageBlock) -> list[Strip]:
    """The lines the log draws for ``block``, its margin excluded."""
    index = log.entries.index(block)
    start, height = log._layout.span(index)
    return [line for y in range(start, start + height - 1) if (line := log.line_at(y)) is not None]


def texts(lines: Sequence[Strip]) -> list[str]:
    return [line.text[GUTTER:].rstrip() for line in lines]  # without the selection bar


def markdown(block: MessageBlock) -> MarkdownLines:
    """The text of a reply, as Markdown lines (a user's message is drawn verbatim)."""
    assert isinstance(block.body, MarkdownLines)
    return block.body


async def test_a_streamed_long_reply_is_kept_whole_and_copied_whole() -> None:
    text = reply(150)
    app = LogApp()
    copied: list[str] = []

    def copy_to_clipboard(text: str) -> None:
        copied.append(text)

    app.copy_to_clipboard = copy_to_clipboard  # type: ignore[method-assign]  # no terminal here
    async with app.run_test(size=(100, 30)) as pilot:
        log = app.query_one(ChatLog)
        block = log.add_reply()
        for start in range(0, len(text), 37):  # odd-sized pieces cut words and fences anywhere
            block.append(text[start : start + 37])
            if start % 3700 == 0:
                await pilot.pause(2 * FLUSH_SECONDS)  # the flush timer fires now and then
        block.finish("complete")
        await wait_until(pilot, lambda: block.status == "complete")  # the backlog is drawn first
        assert block.content == text
        body = markdown(block)
        assert body.tail == ""  # finished: drawn like a stored message
        assert body.text == text
        assert len(body.segments) > 1  # finished paragraph by paragraph, as flushes came
        for i in range(1, len(body.segments) + 1):
            assert not _fence_open("".join(body.segments[:i]))
        log.focus()
        await pilot.press("c")
        assert copied == [f"[2026-11-30 14:03] assistant\n{text}"]  # when, who, the text whole


async def test_a_streaming_reply_keeps_a_short_tail_and_mounts_nothing() -> None:
    """What keeps each flush and frame cheap: the text drawn again stays short, and the
    widgets stay the same ones however long the reply grows."""
    text = reply(300)
    app = LogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        log = app.query_one(ChatLog)
        block = log.add_reply()
        body = markdown(block)
        widgets = set(app.screen.query("*"))
        tails: list[int] = []
        for start in range(0, len(text), 400):
            block.append(text[start : start + 400])

            def drawn(end: int = start + 400) -> bool:
                return block.body.text == text[:end]

            await wait_until(pilot, drawn)
            tails.append(len(body.tail))
            assert split_point(body.tail, min_chars=1) is None  # the paragraph being written
            assert log.is_vertical_scroll_end  # the log follows the reply
        assert set(app.screen.query("*")) == widgets
        assert max(tails) < 200  # no longer than a paragraph or a fence of the reply
        assert len(body.segments) > 20
        assert log.virtual_size.height > 200  # the finished segments are laid out, not the tail
        assert any("Step 299" in line.text for line in lines_of(log, block))


async def test_an_interrupted_reply_keeps_the_buffered_text_and_is_marked() -> None:
    app = LogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        log = app.query_one(ChatLog)
        block = log.add_reply()
        block.append("partial answer")  # still buffered: the flush timer has not run
        block.finish("failed", note="model went away")
        await wait_until(pilot, lambda: "model went away" in block.body.text)
        assert block.content == "partial answer"  # the note is shown, not stored
        assert block.body.text.startswith("partial answer")
        drawn = texts(lines_of(log, block))
        assert drawn[0] == "assistant · ✗ failed · 14:03"
        assert "model went away" in "\n".join(drawn)


@pytest.fixture
def quick_ticks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The header looks at the (test's) clock every 20 ms, not every second."""
    monkeypatch.setattr(flush_module, "TICK_SECONDS", 0.02)


def clocked_reply(
    app: LogApp, start: datetime
) -> tuple[MessageBlock, list[datetime], Callable[[], str]]:
    """A streaming reply on a clock the test moves (``now[0]``), and its header as drawn."""
    log = app.query_one(ChatLog)
    now = [start]
    log.clock = lambda: now[0]
    block = log.add_reply()
    return block, now, lambda: texts(lines_of(log, block))[0]


async def test_a_reply_with_nothing_to_show_yet_counts_the_seconds_in_its_header(
    quick_ticks: None,
) -> None:
    """A model being loaded, or thinking (not shown), says nothing for tens of seconds: the
    header counts them, so a reply that waits is not taken for an app that hangs."""
    app = LogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        block, now, header = clocked_reply(app, NOW)

        assert header() == "assistant · … · 14:03"
        now[0] = NOW + timedelta(seconds=WAIT_SHOWN_FROM - 1)
        await pilot.pause(0.1)  # ticks: still under the bound
        assert header() == "assistant · … · 14:03"
        now[0] = NOW + timedelta(seconds=WAIT_SHOWN_FROM)
        await wait_until(pilot, lambda: header() == f"assistant · … {WAIT_SHOWN_FROM} s · 14:03")
        now[0] = NOW + timedelta(seconds=47)
        await wait_until(pilot, lambda: header() == "assistant · … 47 s · 14:03")
        block.append("The pool is exhausted.")  # the first word: no more counting
        await wait_until(pilot, lambda: header() == "assistant · … · 14:03")
        block.finish("complete")
        await wait_until(pilot, lambda: header() == "assistant · 14:03")


async def test_a_model_that_reasons_is_said_to_think_while_the_header_counts(
    quick_ticks: None,
) -> None:
    """qwen3 reasons for tens of seconds before its first word: the count said only "… 34 s",
    as for a model being loaded or a server that hangs. Once the model is seen to reason, the
    count says so; the first word, or a tool call, ends it (a later call counts anew)."""
    app = LogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        block, now, header = clocked_reply(app, NOW)

        block.think()
        await pilot.pause(0.1)  # under the bound: nothing said, as for any wait
        assert header() == "assistant · … · 14:03"
        now[0] = NOW + timedelta(seconds=34)
        await wait_until(pilot, lambda: header() == "assistant · … thinking 34 s · 14:03")
        block.add_tool("c1", "logs.search_logs", {"pattern": "502"})
        now[0] += timedelta(seconds=STALL_SHOWN_FROM)  # the tool runs: counted, not thinking
        await wait_until(pilot, lambda: header() == f"assistant · … {STALL_SHOWN_FROM} s · 14:03")
        block.think()  # the next model call reasons
        await wait_until(
            pilot, lambda: header() == f"assistant · … thinking {STALL_SHOWN_FROM} s · 14:03"
        )
        block.append("Roll back.")
        await wait_until(pilot, lambda: header() == "assistant · … · 14:03")


async def test_a_reply_that_stops_midway_counts_the_seconds_since_its_last_word(
    quick_ticks: None,
) -> None:
    """Found in tmux: the model server stopped answering mid-sentence (SIGSTOP), and the reply
    sat there for the two minutes of --timeout looking like an app that hangs."""
    app = LogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        block, now, header = clocked_reply(app, NOW + timedelta(seconds=30))

        block.append("Check the pool")
        now[0] += timedelta(seconds=STALL_SHOWN_FROM - 1)
        await pilot.pause(0.1)  # ticks: a gap between words, under the bound
        assert header() == "assistant · … · 14:03"
        now[0] += timedelta(seconds=1)
        await wait_until(pilot, lambda: header() == f"assistant · … {STALL_SHOWN_FROM} s · 14:03")
        now[0] += timedelta(seconds=40)
        await wait_until(
            pilot, lambda: header() == f"assistant · … {STALL_SHOWN_FROM + 40} s · 14:03"
        )
        block.add_tool("c1", "logs.search_logs", {"pattern": "502"})  # something came
        await wait_until(pilot, lambda: header() == "assistant · … · 14:03")
        now[0] += timedelta(seconds=STALL_SHOWN_FROM)  # the tool runs: counted too
        await wait_until(pilot, lambda: header() == f"assistant · … {STALL_SHOWN_FROM} s · 14:03")
        block.finish("failed", note="The model stream failed.")
        await wait_until(pilot, lambda: header() == "assistant · ✗ failed · 14:03")


async def test_a_long_stored_message_opens_as_rendered_segments() -> None:
    text = reply(150)
    app = LogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        log = app.query_one(ChatLog)
        log.show_page(page(("assistant", text)), earlier=0, boundary=0)
        await pilot.pause()
        (block,) = log.messages
        assert len(markdown(block).segments) > 5
        assert block.body.text == text
        assert len(lines_of(log, block)) > 100  # every line is laid out, not the first segment
        assert log.is_vertical_scroll_end  # a session opens on its newest lines


async def test_rendered_headings_sit_on_the_left() -> None:
    app = LogApp()
    async with app.run_test(size=(60, 20)) as pilot:
        log = app.query_one(ChatLog)
        log.show_page(page(("assistant", "# Rollback\n\nrun it")), earlier=0, boundary=0)
        await pilot.pause()
        drawn = texts(lines_of(log, log.messages[0]))
        assert drawn[0] == "assistant · 14:03"
        assert drawn[1].startswith("Rollback")


async def test_an_unlabelled_fence_is_not_guessed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Guessing tries every Pygments lexer (tens of milliseconds, far more the first time):
    an unlabelled fence is drawn as plain text, streaming or finished."""
    import pygments.lexers
    import pygments.util

    guessed: list[str] = []

    def guess(code: str, **_: object) -> None:
        guessed.append(code)
        raise pygments.util.ClassNotFound(code)

    monkeypatch.setattr(pygments.lexers, "guess_lexer", guess)
    monkeypatch.setattr(pygments.lexers, "guess_lexer_for_filename", guess)
    app = LogApp()
    async with app.run_test(size=(60, 20)) as pilot:
        log = app.query_one(ChatLog)
        log.show_page(page(("assistant", "```sql\nSELECT 1;\n```")), earlier=0, boundary=0)
        streaming = log.add_reply()
        streaming.append("```\nkubectl get pods\nSELECT 1;\n")
        await wait_until(pilot, lambda: "SELECT 1;" in streaming.body.text)
        streaming.finish("complete")
        await pilot.pause()
        sql_block, plain_block = log.messages
        plain = _line_with(lines_of(log, plain_block), "kubectl get pods")
        sql = _line_with(lines_of(log, sql_block), "SELECT 1;")
    assert guessed == []
    assert len(_styles(plain)) == 1  # plain text, one style
    assert len(_styles(sql)) > 1  # a stated language is still highlighted


def _line_with(lines: Sequence[Strip], text: str) -> Strip:
    return next(line for line in lines if text in line.text)


def _styles(line: Strip) -> set[object]:
    return {segment.style for segment in line.crop(GUTTER) if segment.text.strip()}


class LogWithKeyBar(LogApp):
    def compose(self) -> ComposeResult:
        yield from super().compose()
        yield KeyBar()


async def test_the_key_bar_offers_open_only_on_a_message_with_tool_calls() -> None:
    """↑ from a reply with a tool call to the question left "⏎ Open" on the bar, where Enter
    opened nothing: the bar was drawn again only when the focus moved."""
    calls = [ToolCallView("c1", "load_skill", {"name": "log-analysis"}, "ok", "Loaded", 3)]
    app = LogWithKeyBar()
    async with app.run_test(size=(80, 20)) as pilot:
        log = app.query_one(ChatLog)
        messages = page(("user", "why?"), ("assistant", "Done."), tools=calls)
        log.show_page(messages, earlier=0, boundary=0)

        def bar() -> str:  # as drawn on the screen
            return screen_rows(app)[-1]

        log.focus()
        await pilot.press("down")  # the reply, with its call
        await wait_until(pilot, lambda: "Open" in bar())
        await pilot.press("up")  # the question
        await wait_until(pilot, lambda: "Open" not in bar())
        assert "Copy message" in bar()
        await pilot.press("down")
        await wait_until(pilot, lambda: "Open" in bar())


async def test_tool_calls_are_one_line_each_and_enter_or_a_click_shows_their_arguments() -> None:
    calls = [
        ToolCallView("c1", "load_skill", {"name": "log-analysis"}, "ok", "Loaded skill: x", 3),
        ToolCallView("c2", "get_current_time", {}, "error", "clock unavailable", 1),
    ]
    app = LogApp()
    async with app.run_test(size=(80, 20)) as pilot:
        log = app.query_one(ChatLog)
        log.show_page(page(("assistant", "Done."), tools=calls), earlier=0, boundary=0)
        await pilot.pause()
        (block,) = log.messages

        def shown() -> list[str]:
            return texts(lines_of(log, block))

        assert shown()[:4] == [
            "assistant · 14:03",
            "▶ ⚙ load_skill → Loaded skill: x",
            "▶ ⚙ get_current_time ✗ clock unavailable",
            "Done.",
        ]
        ok, failed = lines_of(log, block)[1:3]
        assert _styles(ok) != _styles(failed)  # the failed call stands out
        log.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert shown()[1].startswith("▼ ⚙ load_skill")
        assert '"name": "log-analysis"' in "\n".join(shown())
        assert "Done." in shown()
        await pilot.click(log, offset=(GUTTER + 2, 1))  # the first tool line
        await pilot.pause()
        assert shown()[1].startswith("▶")
        assert '"name"' not in "\n".join(shown())


PLACED_TEXT = "Let me search the logs.\n\nThe pool is exhausted: raise it to 40."
PLACED = [  # both made after the first sentence (23 characters), in one model call
    ToolCallView("c1", "logs.search_logs", {"pattern": "pool"}, "ok", "12 matches", 5, text_at=23),
    ToolCallView("c2", "get_current_time", {}, "ok", "03:12", 1, text_at=23),
]
PLACED_ROWS = [
    "assistant · 14:03",
    "Let me search the logs.",
    "▶ ⚙ logs.search_logs → 12 matches",
    "▶ ⚙ get_current_time → 03:12",
    "The pool is exhausted: raise it to 40.",
]


async def test_a_tool_call_is_drawn_where_the_reply_made_it_streamed_and_reopened() -> None:
    """A reply's calls stand between the words around them, as the model made them: the
    reason written before, the answer after; reopened, the same. A call stored before calls
    kept their places stays under the header."""
    app = LogApp()
    async with app.run_test(size=(80, 20)) as pilot:
        log = app.query_one(ChatLog)
        log.show_page(page(("user", "pool?")), earlier=0, boundary=0)
        streaming = log.add_reply()
        streaming.append("Let me search the logs.")
        for call in PLACED:
            streaming.add_tool(call.call_id, call.name, call.arguments)
            streaming.finish_tool(call.call_id, call.summary, call.status)
        streaming.append("\n\nThe pool is exhausted: raise it to 40.")
        streaming.finish("complete")
        await wait_until(pilot, lambda: streaming.status == "complete")
        await pilot.pause()
        assert texts(lines_of(log, streaming)) == PLACED_ROWS
        assert streaming.content == PLACED_TEXT
        assert [tool.at for tool in streaming.tools] == [23, 23]

        log.show_page(page(("assistant", PLACED_TEXT), tools=PLACED), earlier=0, boundary=0)
        await pilot.pause()
        (reopened,) = log.messages
        assert texts(lines_of(log, reopened)) == PLACED_ROWS
        assert reopened.copy_text().split("\n")[1:] == [  # as shown, for the timeline
            "Let me search the logs.",
            "⚙ logs.search_logs → 12 matches",
            "⚙ get_current_time → 03:12",
            "The pool is exhausted: raise it to 40.",
        ]
        log.focus()
        await pilot.click(log, offset=(GUTTER + 2, 3))  # the second call, below the text
        await pilot.pause()
        shown = texts(lines_of(log, reopened))
        assert shown[2].startswith("▼ ⚙ logs.search_logs")
        assert shown[3:6] == ["    arguments: {", '      "pattern": "pool"', "    }"]
        assert shown[-1] == PLACED_ROWS[-1]

        older = [replace(call, text_at=None) for call in PLACED]
        log.show_page(page(("assistant", PLACED_TEXT), tools=older), earlier=0, boundary=0)
        await pilot.pause()
        (stored_before,) = log.messages
        assert texts(lines_of(log, stored_before)) == [
            "assistant · 14:03",
            "▶ ⚙ logs.search_logs → 12 matches",
            "▶ ⚙ get_current_time → 03:12",
            "Let me search the logs.",
            "",
            "The pool is exhausted: raise it to 40.",
        ]


async def test_enter_on_a_message_without_tool_calls_is_left_alone() -> None:
    app = LogApp()
    async with app.run_test(size=(80, 20)) as pilot:
        log = app.query_one(ChatLog)
        log.show_page(page(("user", "hello")), earlier=0, boundary=0)
        log.focus()
        await pilot.pause()
        assert log.selected is log.messages[0]
        assert log.check_action("open", ()) is False  # no tool calls: Enter goes on
        assert log.check_action("copy", ()) is True


def selected(log: ChatLog) -> MessageBlock | None:
    """The selected message, read afresh (mypy would carry an earlier narrowing of the
    property across the key presses that change it)."""
    return log.selected


class EarlierApp(LogApp):
    def __init__(self) -> None:
        super().__init__()
        self.requests: list[ChatLog.EarlierRequested] = []

    def on_chat_log_earlier_requested(self, message: ChatLog.EarlierRequested) -> None:
        self.requests.append(message)


async def test_keys_move_between_messages_and_the_earlier_line_loads_more() -> None:
    app = EarlierApp()
    async with app.run_test(size=(80, 12)) as pilot:
        log = app.query_one(ChatLog)
        messages = [("user" if i % 2 == 0 else "assistant", f"message {i}") for i in range(12)]
        log.show_page(page(*messages), earlier=30, boundary=0)
        log.focus()
        await pilot.pause()
        assert log.selected is log.messages[-1]  # the newest message in view
        selected_line = lines_of(log, log.messages[-1])[0]
        assert selected_line.text[:GUTTER].strip() == "▌"  # the selection shows
        await pilot.press("up", "up")
        assert log.selected is log.messages[-3]
        for _ in range(20):
            await pilot.press("up")
        assert selected(log) is None  # past the first message: the earlier line
        assert log.cursor == 0
        assert log.scroll_offset.y == 0  # brought into view
        assert log.check_action("open", ()) is True
        await pilot.press("enter")
        await pilot.pause()
        assert len(app.requests) == 1
        await pilot.click(log, offset=(10, 0))  # a click on the line asks too
        await pilot.pause()
        assert len(app.requests) == 2


@pytest.mark.parametrize(("earlier", "first"), [(30, None), (0, 0)], ids=["earlier", "all"])
async def test_home_and_end_select_the_first_entry_and_the_last_message(
    earlier: int, first: int | None
) -> None:
    app = EarlierApp()
    async with app.run_test(size=(80, 12)) as pilot:
        log = app.query_one(ChatLog)
        log.show_page(
            page(*[("user", f"message {i}") for i in range(12)]), earlier=earlier, boundary=0
        )
        log.focus()
        await pilot.press("up", "home")
        at_home = (log.cursor, selected(log), log.scroll_offset.y)
        await pilot.press("end")
        assert selected(log) is log.messages[-1]
        assert log.scroll_offset.y == log.max_scroll_y  # brought into view
    # with earlier messages, the line offering them (the entry before the first message)
    expected = None if first is None else log.messages[first]
    assert at_home == (0 if earlier else 1, expected, 0)


async def test_a_selection_scrolled_out_of_view_gives_way_to_what_is_in_view() -> None:
    """↑ to a message, then PgUp to read further up, then ``c``: it copied the message chosen
    pages below, out of sight. Scrolled wholly out of view, the selection is let go; the
    last message that starts in view is the selected one again, and ↑ goes on from there."""
    app = LogApp()
    async with app.run_test(size=(80, 12)) as pilot:
        log = app.query_one(ChatLog)
        log.show_page(page(*[("user", f"message {i}") for i in range(30)]), earlier=0, boundary=0)
        log.focus()
        await pilot.press("up", "up")
        chosen = selected(log)
        assert chosen is log.messages[-3]
        log.scroll_to(y=log.scroll_offset.y - 1, animate=False, immediate=True)
        await pilot.pause()
        partly = selected(log)  # still in view, if lower: still the one chosen
        await pilot.press("pageup", "pageup")
        assert (partly, log.cursor) == (chosen, None)
        in_view = selected(log)
        assert in_view is not None
        assert in_view is not chosen
        start, _ = log._layout.span(log.entries.index(in_view))
        assert log.scroll_offset.y <= start < log.scroll_offset.y + log.size.height
        await pilot.press("c")
        assert app.clipboard.endswith(in_view.content)


def test_documents_share_one_parser_and_are_set_up_as_rich_sets_up_its_own() -> None:
    """The shared parser skips rich's own __init__: if rich ever sets up more, this says so."""
    text = (
        "# Rollback\n\n- run `kubectl rollout undo` | a | b |\n\n~~gone~~\n\n| a | b |\n|---|---|\n"
    )
    ours, theirs = rich_markdown(text, dark=True), RichMarkdown(text, code_theme="monokai")
    assert vars(ours).keys() == vars(theirs).keys()
    for name, value in vars(theirs).items():
        if name != "parsed":
            assert getattr(ours, name) == value, name
    assert [(t.type, t.content) for t in ours.parsed] == [
        (t.type, t.content) for t in theirs.parsed
    ]
    assert rich_markdown("x").parsed is not ours.parsed
    assert _RichMarkdown._parser is not None


def test_lines_the_model_writes_one_under_the_other_stay_lines() -> None:
    """Markdown joins lines broken by a single newline into one paragraph: a timeline or log
    lines written that way would read as one run-on line."""
    text = "Timeline:\n03:12 p99 at 2.4 s\n03:15 rollback started\n\nNext paragraph."
    console = Console(width=60)
    rows = [
        "".join(segment.text for segment in line).rstrip()
        for line in console.render_lines(rich_markdown(text), console.options)
    ]
    assert rows == [
        "Timeline:",
        "03:12 p99 at 2.4 s",
        "03:15 rollback started",
        "",
        "Next paragraph.",
    ]


def test_a_table_wider_than_the_chat_shows_every_word_whole() -> None:
    """Rich ends a word longer than its column with "…"; a table of pods at the chat's width
    lost the status and the node."""
    words = {"status": "CrashLoopBackOff", "node": "node-1.prod.example.internal"}
    text = (
        "| pod | status | node | reason |\n|---|---|---|---|\n"
        f"| api-7 | {words['status']} | {words['node']} | OOMKilled after 512Mi exceeded |"
    )
    console = Console(width=50, color_system=None)
    rows = [
        "".join(segment.text for segment in line)
        for line in console.render_lines(rich_markdown(text), console.options)
    ]
    header = next(i for i, row in enumerate(rows) if "status" in row)
    assert not any("…" in row for row in rows), rows
    body = [row for row in rows[header + 2 :] if row.strip()]
    assert len(body) > 1, rows  # the words do not fit on one row: the test measures folding
    for column, word in words.items():
        start = rows[header].index(column)
        end = min(
            (
                rows[header].index(other)
                for other in ("node", "reason")
                if other != column and rows[header].index(other) > start
            ),
            default=None,
        )
        assert "".join(row[start:end].strip() for row in body) == word, rows


async def test_a_reply_streamed_paragraph_by_paragraph_looks_as_it_will_when_reopened() -> None:
    text = "Check it.\n\n- one\n- two\n\n```bash\nkubectl get pods\n```\n\n## Then\n\nDone.\n\n"
    app = LogApp()
    async with app.run_test(size=(80, 40)) as pilot:
        log = app.query_one(ChatLog)
        log.show_page(page(("assistant", text)), earlier=0, boundary=0)
        streamed = log.add_reply()
        for paragraph in text.split("\n\n"):  # a flush at every paragraph: the most segments
            streamed.append(paragraph + "\n\n")
            await wait_until(pilot, lambda: streamed.body.text == streamed.content)
        streamed.finish("complete")
        await wait_until(pilot, lambda: streamed.status == "complete")
        stored = log.messages[0]
        assert len(markdown(streamed).segments) > len(markdown(stored).segments)
        assert texts(lines_of(log, streamed)) == texts(lines_of(log, stored))


async def test_loading_earlier_pages_keeps_the_view_and_the_selection() -> None:
    app = EarlierApp()
    async with app.run_test(size=(80, 12)) as pilot:
        log = app.query_one(ChatLog)
        newest = [("user", f"new {i}") for i in range(6)]
        log.show_page(page(*newest), earlier=6, boundary=0)
        log.focus()
        await pilot.pause()
        await pilot.press("up", "up")
        selected = log.selected
        top = log.scroll_offset.y
        in_view = log.line_at(top)
        log.prepend_page(page(*[("user", f"old {i}") for i in range(3)]), earlier=3, boundary=0)
        await pilot.pause()
        assert log.selected is selected  # the same message, not the same index
        assert log.line_at(log.scroll_offset.y) == in_view  # what was in view still is
        for _ in range(20):
            await pilot.press("up")
        assert log.cursor == 0  # the "earlier messages" line
        log.prepend_page(page(*[("user", f"older {i}") for i in range(3)]), earlier=0, boundary=0)
        await pilot.pause()
        assert log.earlier == 0
        assert log.selected is log.messages[0]  # nothing more to load: the oldest message


async def test_a_theme_change_redraws_kept_lines_in_the_new_colours() -> None:
    app = LogApp()
    async with app.run_test(size=(80, 20)) as pilot:
        log = app.query_one(ChatLog)
        log.show_page(page(("assistant", "# Rollback\n\nrun `kubectl`")), earlier=0, boundary=0)
        await settled(pilot)
        before = [log.render_line(y) for y in range(4)]  # drawn and kept
        app.theme = "textual-light" if app.current_theme.dark else "textual-dark"
        await settled(pilot)
        await settled(pilot)
        after = [log.render_line(y) for y in range(4)]
        assert [line.text for line in after] == [line.text for line in before]
        for row in (0, 1, 3):  # the header, the heading, a line with inline code
            assert _colours(before[row]) != _colours(after[row])


async def test_text_rendered_as_the_theme_changes_takes_the_new_colours() -> None:
    """Text rendered between the theme's new name and its new colours (Textual sets them a
    moment later: a reply streams as the theme is chosen) kept the old colours under the new
    name, for the rest of the run."""
    app = LogApp()
    text = "# Rollback\n\nrun `kubectl`"
    async with app.run_test(size=(80, 20)) as pilot:
        log = app.query_one(ChatLog)
        log.show_page(page(("assistant", text)), earlier=0, boundary=0)
        await settled(pilot)
        before = [log.render_line(y) for y in range(4)]
        app.theme = "textual-light" if app.current_theme.dark else "textual-dark"
        log.show_page(page(("assistant", text)), earlier=0, boundary=0)  # before the colours
        await settled(pilot)
        await settled(pilot)
        after = [log.render_line(y) for y in range(4)]
        for row in (1, 3):  # the heading, a line with inline code
            assert _colours(before[row]) != _colours(after[row])


def _colours(line: Strip) -> set[object]:
    """Text colours, the selection bar left out."""
    return {
        segment.style.color
        for segment in line.crop(GUTTER)
        if segment.text.strip() and segment.style
    }


def test_a_declined_call_has_a_mark_of_its_own_and_its_arguments_a_label_in_its_language() -> None:
    """Found in tmux: a call the user declined wore the arrow of a call that ran, and the
    arguments under a call were labelled in English on a Chinese screen."""
    assert tool_title("ops.scale", "declined by the user", "declined") == (
        "⚙ ops.scale ⊘ declined by the user"
    )
    assert tool_title("ops.scale", "3 pods", "ok") == "⚙ ops.scale → 3 pods"
    call = ToolCallLine("c1", "ops.scale", {"replicas": 3}, "3 pods", "ok")
    assert call.detail("zh") == ["参数: {", '  "replicas": 3', "}"]
    assert call.detail("en")[0] == "arguments: {"
