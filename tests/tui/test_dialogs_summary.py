"""The f6 summary dialog at the sizes a new user meets: the header whole, the way out named."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

import oncall_tui.tui.app
from oncall_tui.core.memory import ContextUsage, MemoryMode, MemoryState
from oncall_tui.tui.chat_log.rich_markdown import CUT_MARK
from oncall_tui.tui.screens.summary import SummaryScreen, summary_header
from tests.tui.conftest import wait_until
from tests.tui.harness import screen_rows

APP_CSS = Path(oncall_tui.tui.app.__file__).with_name("app.tcss")
LONG_SUMMARY = "\n".join(
    f"- note {i}: disk on db-3 at {90 + i % 10}% after the rotation" for i in range(60)
)


def memory_state(
    summary: str | None = LONG_SUMMARY, status: str = "truncated", count: int = 1234
) -> MemoryState:
    return MemoryState(
        session_id=1,
        memory_mode=MemoryMode.MANUAL,
        memory_summary=summary,
        memory_summary_status=status,
        compacted_message_count=count,
        usage=ContextUsage(100, 8192),
        can_compact=True,
        last_compacted_at=datetime(2024, 5, 1, 10, 0, tzinfo=UTC),
    )


class SummaryHost(App[None]):
    """Opens the dialog over a plain screen, styled by the real app's stylesheet."""

    CSS_PATH = str(APP_CSS)

    def __init__(self, memory: MemoryState | None) -> None:
        super().__init__()
        self._memory = memory
        self.closed = False

    def compose(self) -> ComposeResult:
        yield Static("host screen")

    def on_mount(self) -> None:
        self.push_screen(SummaryScreen(self._memory), lambda _: setattr(self, "closed", True))


def screen_text(app: App[None]) -> str:
    """What the terminal shows, the dialog's borders taken out and each run of blanks (line
    breaks included) made one space, so text wrapped over rows reads as one."""
    rows = screen_rows(app)
    return " ".join(" ".join(rows).replace("█", " ").split())


async def opened(app: SummaryHost, size: tuple[int, int]) -> str:
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen))
        await pilot.pause()
        return screen_text(app)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
@pytest.mark.parametrize(
    ("status", "shown"),
    [
        ("truncated", "Status: truncated, cut off at the model's length limit"),
        ("complete", "Status: complete"),
    ],
)
async def test_the_whole_header_and_the_close_keys_show_over_a_long_summary(
    size: tuple[int, int], status: str, shown: str
) -> None:
    text = await opened(SummaryHost(memory_state(status=status)), size)
    assert "Session summary (model-written)" in text
    assert "Summarises 1,234 earlier messages · 2024-05-01 10:00" in text  # the tests' zone: UTC
    assert shown in text
    assert "Every message is still in the log, above the divider." in text
    assert "esc/f6/alt+v close" in text
    assert "note 0:" in text  # the summary starts right below the header
    assert "note 59:" not in text  # ...and the rest scrolls


@pytest.mark.parametrize(
    ("status", "shown"),
    [("complete", "状态：完整"), ("truncated", "状态：不完整，已在模型长度上限处截断")],
)
def test_the_status_is_said_in_chinese_too(status: str, shown: str) -> None:
    """It read "状态：complete": the stored value, not a word of the language."""
    assert summary_header(memory_state(status=status), "zh")[1] == shown


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_no_summary_yet_says_so_and_how_to_close(size: tuple[int, int]) -> None:
    text = await opened(SummaryHost(memory_state(summary=None, count=0)), size)
    assert "No summary yet: nothing in this session has been compacted." in text
    assert "esc/f6/alt+v close" in text


@pytest.mark.parametrize("key", ["escape", "f6"])
async def test_the_summary_scrolls_under_a_fixed_header_and_each_close_key_closes(
    key: str,
) -> None:
    app = SummaryHost(memory_state())
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: isinstance(app.screen, SummaryScreen))
        await pilot.pause()
        body = app.screen.query_one("#summary-text", VerticalScroll)
        assert app.screen.focused is body  # so the arrows and pgup/pgdn scroll it
        await pilot.press("pagedown", "pagedown")
        await wait_until(pilot, lambda: body.scroll_y > 0)
        text = screen_text(app)
        assert "note 0:" not in text
        assert "Summarises 1,234 earlier messages" in text  # the header stayed
        await pilot.press(key)
        await wait_until(pilot, lambda: app.closed)


async def test_the_summary_is_drawn_as_markdown_as_the_chat_draws_a_reply() -> None:
    """Headings, emphasis, lists and code as the chat log shows them: the marks are gone, a
    list item has its bullet, and a code line longer than the dialog is cut at its edge."""
    summary = (
        "## Findings\n\n- **disk** full on db-3\n- rotation failed\n\n"
        "```bash\ndf -h /var/lib/postgresql " + "--and-a-very-long-tail " * 6 + "\n```"
    )
    text = await opened(SummaryHost(memory_state(summary=summary)), (80, 24))
    assert "Findings" in text
    assert "##" not in text
    assert "• disk full on db-3" in text
    assert "**" not in text
    assert "df -h /var/lib/postgresql" in text
    assert CUT_MARK in text
