"""A long streamed reply is split into Markdown segments without losing or mangling text."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Markdown

from oncall_tui.tui.widgets.chat_log import ChatLog
from oncall_tui.tui.widgets.message import (
    SEGMENT_CHARS,
    FrozenSegment,
    MessageBlock,
    _fence_open,
    split_point,
    split_segments,
)
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
        frozen = list(block.query(FrozenSegment))
        live = block.query(Markdown).last()
        assert len(frozen) > 5
        assert "".join(s.text for s in frozen) + live.source == text
        for i in range(1, len(frozen) + 1):
            assert not _fence_open("".join(s.text for s in frozen[:i]))
        block.focus()
        await pilot.press("c")
        assert copied == [text]


async def test_an_interrupted_reply_keeps_the_buffered_text_and_is_marked() -> None:
    app = LogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        block = await app.query_one(ChatLog).add_message("assistant", "", status="streaming")
        await block.append("partial answer")  # still buffered: the flush timer has not run
        await block.finish("failed", note="model went away")
        await wait_until(pilot, lambda: "model went away" in block.query(Markdown).last().source)
        assert block.content == "partial answer"  # the note is shown, not stored
        assert block.has_class("-failed")


async def test_a_long_stored_message_opens_as_segments() -> None:
    text = reply(150)
    app = LogApp()
    async with app.run_test(size=(100, 30)) as pilot:
        log = app.query_one(ChatLog)
        await log.mount(MessageBlock("assistant", text))
        await pilot.pause()
        block = log.query_one(MessageBlock)
        frozen = list(block.query(FrozenSegment))
        assert len(frozen) > 5
        assert "".join(s.text for s in frozen) + block.query(Markdown).last().source == text
