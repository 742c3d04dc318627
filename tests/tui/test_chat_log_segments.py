"""A long streamed reply is split into Markdown segments without losing or mangling text."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.strip import Strip

import oncall_tui.tui
from oncall_tui.services.sessions import ToolCallView
from oncall_tui.tui.widgets.chat_log import ChatLog
from oncall_tui.tui.widgets.markdown import (
    SEGMENT_CHARS,
    _fence_open,
    split_point,
    split_segments,
)
from oncall_tui.tui.widgets.message import MessageBlock
from tests.tui.harness import wait_until


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


class LogApp(App[None]):
    CSS_PATH = str(Path(oncall_tui.tui.__file__).with_name("app.tcss"))

    def compose(self) -> ComposeResult:
        yield ChatLog()


async def test_a_streamed_long_reply_is_kept_whole_and_copied_whole() -> None:
    text = reply(150)
    app = LogApp()
    copied: list[str] = []
    app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        block = await app.query_one(ChatLog).add_message("assistant", "", status="streaming")
        for start in range(0, len(text), 37):  # odd-sized pieces cut words and fences anywhere
            await block.append(text[start : start + 37])
            if start % 3700 == 0:
                await pilot.pause(0.06)  # let the flush timer run now and then
        await block.finish("complete")
        await pilot.pause()
        assert block.content == text
        body = block.body
        assert body.tail == ""  # finished: drawn like a stored message
        assert body.text == block.shown_text == text
        assert len(body.segments) > 5
        for i in range(1, len(body.segments) + 1):
            assert not _fence_open("".join(body.segments[:i]))
        block.focus()
        await pilot.press("c")
        assert copied == [text]


async def test_a_streaming_reply_keeps_a_short_tail_and_mounts_nothing() -> None:
    """What keeps each flush and frame cheap: the text drawn again stays short, and the
    widgets stay the same ones however long the reply grows."""
    text = reply(300)
    app = LogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        block = await app.query_one(ChatLog).add_message("assistant", "", status="streaming")
        body = block.body
        widgets = set(app.screen.query("*"))
        tails: list[int] = []
        for start in range(0, len(text), 400):
            await block.append(text[start : start + 400])
            await pilot.pause(0.06)
            assert block.shown_text == text[: start + 400]
            tails.append(len(body.tail))
            assert split_point(body.tail, min_chars=1) is None  # the paragraph being written
        assert set(app.screen.query("*")) == widgets
        assert max(tails) < 200  # no longer than a paragraph or a fence of the reply
        assert len(body.segments) > 20
        assert block.size.height > 200  # the finished segments are laid out, not only the tail


async def test_an_interrupted_reply_keeps_the_buffered_text_and_is_marked() -> None:
    app = LogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        block = await app.query_one(ChatLog).add_message("assistant", "", status="streaming")
        await block.append("partial answer")  # still buffered: the flush timer has not run
        await block.finish("failed", note="model went away")
        await wait_until(pilot, lambda: "model went away" in block.shown_text)
        assert block.content == "partial answer"  # the note is shown, not stored
        assert block.shown_text.startswith("partial answer")
        assert block.has_class("-failed")


async def test_a_long_stored_message_opens_as_rendered_segments() -> None:
    text = reply(150)
    app = LogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        log = app.query_one(ChatLog)
        await log.mount(MessageBlock("assistant", text))
        await pilot.pause()
        block = log.query_one(MessageBlock)
        assert not block.children  # one widget, however long the text
        assert len(block.body.segments) > 5
        assert block.body.text == text
        assert block.size.height > 100  # every line is laid out, not just the first segment


async def test_rendered_headings_sit_on_the_left() -> None:
    app = LogApp()
    async with app.run_test(size=(60, 20)) as pilot:
        log = app.query_one(ChatLog)
        await log.mount(MessageBlock("assistant", "# Rollback\n\nrun it"))
        await pilot.pause()
        block = log.query_one(MessageBlock)
        assert block.render_line(0).text.startswith("assistant")
        assert block.render_line(1).text.startswith("Rollback")


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
        streaming = await log.add_message("assistant", "", status="streaming")
        await streaming.append("```\nkubectl get pods\nSELECT 1;\n")
        await wait_until(pilot, lambda: "SELECT 1;" in streaming.shown_text)
        await streaming.finish("complete")
        await log.mount(MessageBlock("assistant", "```sql\nSELECT 1;\n```"))
        await pilot.pause()
        plain_block, sql_block = log.query(MessageBlock)
        plain = _line_with(plain_block, "kubectl get pods")
        sql = _line_with(sql_block, "SELECT 1;")
    assert guessed == []
    assert len(_styles(plain)) == 1  # plain text, one style
    assert len(_styles(sql)) > 1  # a stated language is still highlighted


def _line_with(block: MessageBlock, text: str) -> Strip:
    return next(
        line for y in range(block.size.height) if text in (line := block.render_line(y)).text
    )


def _styles(line: Strip) -> set[object]:
    return {segment.style for segment in line if segment.text.strip()}


async def test_tool_calls_are_one_line_each_and_enter_or_a_click_shows_their_arguments() -> None:
    calls = [
        ToolCallView("c1", "load_skill", {"name": "log-analysis"}, "ok", "Loaded skill: x", 3),
        ToolCallView("c2", "get_current_time", {}, "error", "clock unavailable", 1),
    ]
    app = LogApp()
    async with app.run_test(size=(80, 20)) as pilot:
        log = app.query_one(ChatLog)
        await log.mount(MessageBlock("assistant", "Done.", tool_calls=calls))
        await pilot.pause()
        block = log.query_one(MessageBlock)

        def lines() -> list[str]:
            return [block.render_line(y).text.rstrip() for y in range(block.size.height)]

        assert lines()[:4] == [
            "assistant",
            "▶ ⚙ load_skill → Loaded skill: x",
            "▶ ⚙ get_current_time ✗ clock unavailable",
            "Done.",
        ]
        failed = block.render_line(2)
        assert {s.style.color for s in failed if s.text.strip()} != {
            s.style.color for s in block.render_line(1) if s.text.strip()
        }  # the failed call stands out
        block.focus()
        await pilot.press("enter")
        await pilot.pause()
        shown = lines()
        assert shown[1].startswith("▼ ⚙ load_skill")
        assert '"name": "log-analysis"' in "\n".join(shown)
        assert "Done." in shown
        await pilot.click(block, offset=(4, 1))  # the first tool line (after border and padding)
        await pilot.pause()
        assert lines()[1].startswith("▶")
        assert '"name"' not in "\n".join(lines())


async def test_enter_on_a_message_without_tool_calls_is_not_taken() -> None:
    app = LogApp()
    async with app.run_test(size=(80, 20)) as pilot:
        log = app.query_one(ChatLog)
        await log.mount(MessageBlock("user", "hello"))
        await pilot.pause()
        block = log.query_one(MessageBlock)
        assert block.check_action("toggle_tools", ()) is False
        block.focus()
        await pilot.press("enter")
        assert not block.tools_open
