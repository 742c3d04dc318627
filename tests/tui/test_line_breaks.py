"""Chinese text breaks between its characters, never before a closing sign; Latin text breaks
where rich breaks it (:mod:`oncall_tui.tui.line_breaks`)."""

from __future__ import annotations

import random

import pytest
from rich._wrap import divide_line  # rich's own, to compare with
from rich.console import Console, RenderableType
from textual.app import App, ComposeResult

from oncall_tui.tui.chat_log.plain import PlainLines
from oncall_tui.tui.chat_log.rich_markdown import rich_markdown
from oncall_tui.tui.line_breaks import CLOSING, OPENING, break_offsets
from oncall_tui.tui.widgets.plain_text import PlainText
from tests.tui.harness import settled
from tests.tui.test_chat_log_user_text import shown

QUESTION = "fast 数据库连接池耗尽导致订单服务超时，请检查 max_connections 设置。"
NOTE = (
    "模型输出中断：与 Ollama 的连接中断。已保留部分回复，标记为失败。你的消息已保存；"
    "重试会重新回答它。（ctrl+r 重试）"
)


def rendered(renderable: RenderableType, width: int) -> list[str]:
    console = Console(width=width, color_system=None)
    lines = console.render_lines(renderable, console.options, pad=False)
    return ["".join(segment.text for segment in line).rstrip() for line in lines]


def test_latin_text_breaks_exactly_where_rich_breaks_it() -> None:
    words = ["a", "pods", "kubectl", "--namespace=prod", "(x)", "50%", "a,b", "", "x" * 40]
    pick = random.Random(7)
    for _ in range(3000):
        text = " " * pick.randint(0, 2) + " ".join(pick.choices(words, k=pick.randint(0, 12)))
        width = pick.randint(1, 50)
        for fold in (True, False):
            assert break_offsets(text, width, fold) == divide_line(text, width, fold), text


def test_a_question_after_a_latin_word_fills_its_first_line() -> None:
    """Rich put ``fast`` alone on the first line: the Chinese after it was one word."""
    assert shown(PlainLines(QUESTION), 24) == [
        "fast 数据库连接池耗尽导",
        "致订单服务超时，请检查",
        "max_connections 设置。",
    ]


@pytest.mark.parametrize("width", range(8, 41))
def test_no_line_starts_with_a_closing_sign_or_ends_with_an_opening_one(width: int) -> None:
    for text in (QUESTION, NOTE, "重试会重新回答它。（ctrl+r 重试）「引用」，好。"):
        lines = shown(PlainLines(text), width)
        assert "".join(lines).replace(" ", "") == text.replace(" ", "")  # nothing lost
        assert not [line for line in lines[1:] if line[0] in CLOSING], lines
        assert not [line for line in lines if line[-1] in OPENING], lines


def test_a_replys_paragraphs_notes_and_table_cells_break_between_characters() -> None:
    reply = f"{QUESTION}\n\n> {NOTE}\n\n| 服务 | 状态 |\n|---|---|\n| api-7 | 连接池耗尽导致超时 |"
    assert rendered(rich_markdown(reply), 24) == [
        "fast 数据库连接池耗尽导",
        "致订单服务超时，请检查",
        "max_connections 设置。",
        "",
        "▌ 模型输出中断：与",
        "▌ Ollama 的连接中断。",
        "▌ 已保留部分回复，标记",
        "▌ 为失败。你的消息已保",
        "▌ 存；重试会重新回答",
        "▌ 它。（ctrl+r 重试）",
        "",
        "",
        " 服务   状态",
        " ──────────────────────",
        " api-7  连接池耗尽导致",
        "        超时",
        "",
    ]


class LineApp(App[None]):
    CSS = "PlainText { width: 30; } #cut { text-wrap: nowrap; }"

    def compose(self) -> ComposeResult:
        yield PlainText()
        yield PlainText(id="cut")


def drawn(widget: PlainText) -> list[str]:
    return [line.text.rstrip() for line in widget.render_lines(widget.region.reset_offset)]


async def test_the_status_line_breaks_chinese_between_characters_at_each_width() -> None:
    """Textual breaks at spaces only (``模型输出中断：与 Ollama`` then the rest on the next
    lines): the text is given broken to fit, again when the width changes; ``text`` is the
    text as said."""
    app = LineApp()
    async with app.run_test(size=(60, 10)) as pilot:
        line = app.query_one(PlainText)
        line.show(NOTE)
        cut = app.query_one("#cut", PlainText)  # one line, cut: given as it is
        cut.show(NOTE)
        await settled(pilot)
        assert line.text == NOTE
        assert str(cut.content) == NOTE  # no line break added
        first_two = ["模型输出中断：与 Ollama 的连接", "中断。已保留部分回复，标记为失"]
        assert drawn(line)[:2] == first_two
        line.styles.width = 24
        await settled(pilot)
        assert drawn(line)[:2] == ["模型输出中断：与 Ollama", "的连接中断。已保留部分回"]
        assert "".join(drawn(line)).replace(" ", "") == NOTE.replace(" ", "")
        english = "Ollama is not reachable at http://127.0.0.1:11434."
        line.show(english)  # given as it is: Textual breaks it
        await settled(pilot)
        assert (str(line.content), drawn(line)[0]) == (english, "Ollama is not reachable")
