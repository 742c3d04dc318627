"""Code fences: highlighted as rich highlights them, with each language's lexer looked up once
(a lookup by name searches every lexer's aliases, a millisecond a fence on every render), and
each line of code on one line of the screen: cut at the edge with a mark, never wrapped."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.console import Console, RenderableType
from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment

import oncall_tui.tui.chat_log.rich_markdown as markdown_module
from oncall_tui.tui.chat_log import ChatLog
from oncall_tui.tui.chat_log.rich_markdown import code_lexer, rich_markdown
from oncall_tui.tui.screens.main import MainScreen
from tests.tui.harness import screen_rows, scripted_app, spy, wait_until
from tests.tui.test_keys import seed_reply

FENCES = (
    "```bash\nkubectl -n payments get pods | grep -v Running\n```\n\n"
    '```json\n{"p99_ms": 2400, "route": "POST /charge"}\n```\n\n'
    "```nosuchlanguage\nleft as plain text\n```\n\n"
    "```\nno language at all\n```\n"
)


def rendered(renderable: RenderableType) -> list[list[Segment]]:
    console = Console(width=60, color_system="truecolor")
    return console.render_lines(renderable, console.options)


def test_fences_are_highlighted_exactly_as_rich_highlights_them() -> None:
    ours = rendered(rich_markdown(FENCES))
    theirs = rendered(RichMarkdown(FENCES, code_theme="monokai"))
    assert ours == theirs
    colours = {s.style.color for line in ours for s in line if s.style and s.text.strip()}
    assert len(colours) > 2  # highlighted, not plain


def test_each_language_is_looked_up_once(monkeypatch: pytest.MonkeyPatch) -> None:
    lookups = spy(monkeypatch, markdown_module, "get_lexer_by_name", lambda name, **_: name)
    code_lexer.cache_clear()
    try:
        for _ in range(3):
            rendered(rich_markdown(FENCES))
        assert sorted(lookups) == ["bash", "json", "nosuchlanguage", "text"]
    finally:
        code_lexer.cache_clear()  # no lexer from the counting lookup is kept for other tests


COMMAND = (
    "kubectl -n payments logs deploy/payments-api --since=30m --all-containers=true"
    " | grep 'POST /charge' | awk '{print $9}' | sort | uniq -c | tail -40"
)
LONG_LINE = f"Run this:\n\n```bash\n{COMMAND}\nkubectl get pods\n```\n\nThen tell me.\n"


def text_rows(renderable: RenderableType, width: int) -> list[str]:
    console = Console(width=width, color_system=None)
    lines = console.render_lines(renderable, console.options, pad=False)
    return ["".join(segment.text for segment in line).rstrip() for line in lines]


@pytest.mark.parametrize("width", [40, 60, 100])
def test_a_code_line_too_long_for_the_chat_is_cut_with_a_mark_never_wrapped(width: int) -> None:
    rows = text_rows(rich_markdown(LONG_LINE), width)
    code_rows = [row for row in rows if "kubectl" in row]
    assert len(code_rows) == 2, rows  # each line of code on one row of the screen
    first, second = code_rows
    assert first.endswith("…")
    assert first.strip()[:-1] in COMMAND  # its beginning, as written
    assert second.strip() == "kubectl get pods"
    assert not any("-40" in row or "uniq" in row for row in rows if row not in code_rows)
    assert rows.index(second) == rows.index(first) + 1


def test_a_code_line_that_fits_is_not_cut() -> None:
    rows = text_rows(rich_markdown(LONG_LINE), len(COMMAND) + 4)  # the block's padding too
    assert any(row.strip() == COMMAND for row in rows), rows
    assert not any("…" in row for row in rows)


async def test_in_the_chat_a_long_command_keeps_its_line_and_copies_whole(
    tmp_path: Path,
) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.screen
        assert isinstance(screen, MainScreen)
        screen.shown.open(seed_reply(app, LONG_LINE))
        await wait_until(pilot, lambda: len(screen.query_one(ChatLog).messages) == 2)
        await pilot.pause()
        rows = [row.rstrip() for row in screen_rows(app)]
        code = [row for row in rows if "kubectl -n payments" in row]
        assert len(code) == 1, rows
        assert code[0].endswith("…")
        assert not any("-40" in row for row in rows)
        await pilot.press("alt+y")
        await wait_until(pilot, lambda: COMMAND in app.clipboard)
