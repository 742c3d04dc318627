"""Code fences: highlighted as rich highlights them, with each language's lexer looked up once
(a lookup by name searches every lexer's aliases, a millisecond a fence on every render)."""

from __future__ import annotations

import pytest
from rich.console import Console, RenderableType
from rich.markdown import Markdown as RichMarkdown
from rich.segment import Segment

import oncall_tui.tui.chat_log.rich_markdown as markdown_module
from oncall_tui.tui.chat_log.rich_markdown import code_lexer, rich_markdown
from tests.tui.harness import spy

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
