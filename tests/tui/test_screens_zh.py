"""With ``lang="zh"`` the screens and widgets speak Chinese: the context panel and its gauge,
the sessions list, the composer, the compaction status lines and the dialogs."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.dom import DOMNode
from textual.widgets import Button, Input, Label, OptionList, Static

from oncall_tui.core.memory import MemoryMode
from oncall_tui.errors import Language
from oncall_tui.tui.app import OncallApp
from oncall_tui.tui.chat_log import ChatLog, MessageBlock
from oncall_tui.tui.chat_log.entries import Divider, Earlier
from oncall_tui.tui.screens.main import MainScreen
from oncall_tui.tui.screens.models import details_note
from oncall_tui.tui.screens.prompts import PromptEditorScreen
from oncall_tui.tui.screens.summary import SummaryScreen
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.context_panel import ContextPanel, OllamaStatus, mode_label
from oncall_tui.tui.widgets.dialogs import ConfirmDialog, UnsavedChangesDialog
from oncall_tui.tui.widgets.gauge import ContextGauge
from oncall_tui.tui.widgets.plain_text import PlainText
from oncall_tui.tui.widgets.session_list import SessionList
from tests.fakes.chat_model import Turn
from tests.tui.harness import (
    notifications,
    question_read,
    screen_rows,
    scripted_app,
    seed_session,
    wait_until,
)
from tests.tui.test_memory_visible import ready_to_compact, status

SIZE = (120, 36)


def descriptions(widget: DOMNode) -> set[str]:
    return {
        binding.description
        for bindings in widget._bindings.key_to_bindings.values()
        for binding in bindings
    }


def test_the_ollama_line_and_mode_names_speak_chinese() -> None:
    status = OllamaStatus("http://127.0.0.1:9", "qwen3:8b", reachable=False)
    assert status.describe("en", "f5") == "Ollama unreachable at http://127.0.0.1:9"
    assert status.describe("zh", "f5") == "无法连接 Ollama：http://127.0.0.1:9"
    assert mode_label(MemoryMode.MANUAL, "en") == "Manual only"
    assert mode_label(MemoryMode.MANUAL, "zh") == "仅手动"


async def test_the_panel_sessions_and_composer_speak_chinese(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db", lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        panel = app.screen.query_one(ContextPanel)
        titles = [str(label.render()) for label in panel.query(Label)]
        assert titles[:2] == ["上下文", "记忆"]
        assert panel.query_one("#compact", PlainText).text == "立即压缩"
        assert panel.query_one("#mode", PlainText).text == "◂ 每 30 次回复 ▸"
        assert "下一模式" in descriptions(panel.query_one("#mode"))
        assert panel.query_one(ContextGauge).figures() == "正在读取上下文用量…"  # before a reading
        sessions = app.screen.query_one(SessionList)
        assert sessions.query_one(Input).placeholder == "筛选会话"
        assert {"删除会话", "筛选"} <= descriptions(sessions)
        composer = app.screen.query_one(Composer)
        assert composer.placeholder == "输入消息 · Enter 发送 · ctrl+j 换行 · ↑ 历史"
        assert {"发送", "换行", "全选"} <= descriptions(composer)
        sessions.query_one(Input).value = "zzz"
        await wait_until(pilot, lambda: "没有匹配“zzz”的会话" in str(sessions._shown))


async def test_the_widgets_keep_their_english_without_lang(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=SIZE):
        panel = app.screen.query_one(ContextPanel)
        assert panel.query_one("#compact", PlainText).text == "Compact now"
        assert panel.query_one(ContextGauge).figures() == "reading the context…"  # before a reading
        composer = app.screen.query_one(Composer)
        assert composer.placeholder == "Message · Enter sends · ctrl+j new line · ↑ history"
        assert {"Send", "Newline", "Select all"} <= descriptions(composer)


async def test_compacting_says_so_in_chinese(tmp_path: Path) -> None:
    summary = Turn(text="Goal: fix api-7.", chunk_size=3, delay_per_chunk=0.05)
    app, _ = scripted_app(tmp_path / "t.db", [summary], lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        screen, _, log = await ready_to_compact(pilot)
        await pilot.press("f9")
        assert status(screen) == "压缩中：模型正在总结边界之后的消息…（escape 停止）"
        await wait_until(pilot, lambda: log.boundary == 6)
        assert status(screen) == "记忆已压缩：分隔线上方的消息已总结（f6 / alt+v 查看摘要）。"
        summary_text = screen.query_one(ContextPanel).query_one("#summary")
        await wait_until(pilot, lambda: "已总结 6 条消息" in str(summary_text.render()))


async def test_the_dialogs_speak_chinese_and_keep_given_labels(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db", lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        answers: list[bool | None] = []
        app.push_screen(ConfirmDialog("删除？", "真的删除吗？"), answers.append)
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmDialog)
        keys = str(dialog.query_one("#confirm-keys", Static).render())
        assert keys == "y 是 · n/esc 否 · tab 切换 · enter = 否"
        assert {"是", "否", "取消"} <= descriptions(dialog)
        await question_read(pilot)
        await pilot.press("n")
        assert answers == [False]
        app.push_screen(ConfirmDialog("t", "m", yes_label="Delete"))
        await pilot.pause()
        assert "Delete" in str(app.screen.query_one("#yes", Button).label)
        app.pop_screen()
        app.push_screen(UnsavedChangesDialog("有未保存的修改。"))
        await pilot.pause()
        labels = [str(button.label) for button in app.screen.query(Button)]
        assert labels == ["保存", "放弃", "继续编辑"]  # as the keys line says (it said 取消)
        assert str(app.screen.query(Static).first().render()) == "未保存的修改"


def test_the_model_picker_notes_speak_chinese() -> None:
    assert details_note(2, "en") == (
        "Ollama gave no details for 2 models: context and tool support unknown."
    )
    assert details_note(1, "zh") == "Ollama 未提供 1 个模型的详情：上下文长度与工具支持未知。"
    assert details_note(0, "zh") == ""


async def test_the_summary_screen_speaks_chinese(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db", lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(SummaryScreen(None))
        await pilot.pause()
        box = app.screen.query_one("#summary-box")
        assert box.border_title == "会话摘要（模型撰写）"
        assert box.border_subtitle == "esc/f6/alt+v 关闭"
        assert str(app.screen.query(Static).first().render()) == "暂无摘要：本会话尚未压缩过。"
        assert "关闭" in descriptions(app.screen)


async def test_the_chat_log_speaks_chinese(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db", ["磁盘快满了。"], lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        log = app.screen.query_one(ChatLog)
        app.screen.query_one(Composer).text = "db-3 disk alert"
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: len(log.messages) == 2 and log.messages[1].status != "streaming"
        )
        question, reply = log.messages
        assert question.who == "你"
        assert reply.who == "助手"
        assert "磁盘快满了" in reply.copy_text()
        reply.status = "interrupted"
        assert reply.who == "助手 · ⏸ 已中断"
        assert Earlier(3, "zh", "ctrl+up").text.startswith("↑ 还有 3 条更早的消息")
        assert Divider(6, "zh", "f6").lines(60) == [
            f"{' ' * 9}── 之前的 6 条消息已总结 · f6 查看摘要 ──"
        ]
        assert {"上一条消息", "复制消息"} <= descriptions(log)


def test_the_chat_log_keeps_its_english_by_default() -> None:
    block = MessageBlock("assistant", "ok", status="failed", lang="en")
    assert block.who == "assistant · ✗ failed"
    assert MessageBlock("user", "hi", lang="en").who == "you"
    assert (
        Earlier(2, "en", "ctrl+up").text
        == "↑ 2 earlier messages · ctrl+up or Enter here to load more"
    )


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_divider_fits_its_width_in_cells_and_keeps_its_rules_only_on_one_line(
    lang: Language,
) -> None:
    divider = Divider(1234, lang, "f6")
    ruled = f"── {divider.text} ──"
    fits = cell_len(ruled)  # a Chinese character is two cells
    assert divider.lines(fits) == [ruled]
    assert divider.lines(fits + 3) == [" " + ruled]  # centred
    for width in (fits - 1, 24, 9):  # one cell short: the text alone, over lines that fit
        lines = divider.lines(width)
        assert all(cell_len(line) <= width for line in lines)
        assert "──" not in "".join(lines)
        assert "".join(line.strip() for line in lines).replace(" ", "") == divider.text.replace(
            " ", ""
        )
    assert len(divider.lines(fits - 1)) == 1


async def test_the_chinese_divider_is_shown_whole_at_80_columns(tmp_path: Path) -> None:
    """It was centred and cut by characters, not cells: half its width off the line."""
    app, _ = scripted_app(tmp_path / "t.db", lang="zh")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.shown.open(seed_session(app, 2, compacted=4, summary="磁盘满了。"))
        log = screen.query_one(ChatLog)
        await wait_until(pilot, lambda: log.boundary == 4)
        await pilot.pause()
        rows = " ".join(row.strip(" ▏▕") for row in screen_rows(app) if "之前的" in row)
        assert "之前的 4 条消息已总结 · f6 查看摘要" in rows
        assert "…" not in rows


async def test_the_prompt_editor_speaks_chinese(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db", lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        app.action_prompts()
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, PromptEditorScreen) and app.screen.loaded,
        )
        screen = app.screen
        assert isinstance(screen, PromptEditorScreen)
        assert str(screen.query_one("#prompts-title", Static).render()) == "系统提示词"
        assert screen.query_one("#prompt-label", Input).placeholder == "为这个提示词起个简短的名字"
        assert str(screen.query_one("#editor-title", Static).render()).startswith("正在编辑：")
        listed = screen.query_one("#prompt-list", OptionList).get_option_at_index(0).prompt
        assert str(listed).endswith("（默认）")
        assert str(screen.query_one("#label-count", Static).render()).startswith("名称 ")
        assert str(screen.query_one("#content-count", Static).render()).startswith("内容 ")
        assert {"保存", "新建", "设为使用中", "删除", "返回"} <= descriptions(screen)
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: "新提示词" in str(title(screen)))
        await pilot.press("ctrl+d")
        await wait_until(pilot, lambda: bool(notes(app)))
        assert "此提示词尚未保存，无需删除。" in notes(app)


def title(screen: PromptEditorScreen) -> object:
    return screen.query_one("#editor-title", Static).render()


def notes(app: OncallApp) -> list[str]:
    return notifications(app)


async def test_the_skill_library_speaks_chinese(tmp_path: Path) -> None:
    from oncall_tui.tui.screens.skills import SkillLibraryScreen

    app, _ = scripted_app(tmp_path / "t.db", lang="zh")
    async with app.run_test(size=SIZE) as pilot:
        app.action_skills()
        await wait_until(
            pilot, lambda: isinstance(app.screen, SkillLibraryScreen) and app.screen.loaded
        )
        screen = app.screen
        assert isinstance(screen, SkillLibraryScreen)
        heading = screen.query_one("#skills-title", Static)
        await wait_until(pilot, lambda: str(heading.render()).startswith("技能"))
        assert "添加 SKILL.md" in screen.query_one("#skill-path", Input).placeholder
        assert {"返回", "浏览", "删除"} <= descriptions(screen)
        description = str(screen.query_one("#skill-description", Static).render())
        assert description == "还没有技能：请在上方添加 SKILL.md。"
