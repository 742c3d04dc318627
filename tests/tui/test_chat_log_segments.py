"""A long streamed reply is split into Markdown segments without losing or mangling text."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.widgets import Markdown

from oncall_tui.tui.widgets.chat_log import ChatLog
from oncall_tui.tui.widgets.markdown import (
    SEGMENT_CHARS,
    RenderedMarkdown,
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
        body = block.query_one(RenderedMarkdown)
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
        body = block.query_one(RenderedMarkdown)
        widgets = set(app.screen.query("*"))
        tails: list[int] = []
        for start in range(0, len(text), 400):
            await block.append(text[start : start + 400])
            await pilot.pause(0.06)
            assert block.shown_text == text[: start + 400]
            tails.append(len(body.tail))
        assert set(app.screen.query("*")) == widgets
        assert max(tails) < SEGMENT_CHARS + 600
        assert len(body.segments) > 20
        assert body.size.height > 200  # the finished segments are laid out, not only the tail


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
        body = block.query_one(RenderedMarkdown)
        assert len(body.segments) > 5
        assert body.text == text
        assert not block.query(Markdown)
        assert body.size.height > 100  # every line is laid out, not just the first segment


async def test_rendered_headings_sit_on_the_left() -> None:
    app = LogApp()
    async with app.run_test(size=(60, 20)) as pilot:
        log = app.query_one(ChatLog)
        await log.mount(MessageBlock("assistant", "# Rollback\n\nrun it"))
        await pilot.pause()
        body = log.query_one(RenderedMarkdown)
        first = body.render_line(0).text
        assert first.startswith("Rollback")


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
    body = block.query_one(RenderedMarkdown)
    return next(
        line for y in range(body.size.height) if text in (line := body.render_line(y)).text
    )


def _styles(line: Strip) -> set[object]:
    return {segment.style for segment in line if segment.text.strip()}
