"""A reply's tool calls in the chat log: one line each (name, how it ended, the one-line
result), the arguments under it while the message's details are open; drawn where the reply
made the call, or under its header for a call stored before calls kept their places."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.strip import Strip

from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import Language
from oncall_tui.texts import text as t
from oncall_tui.tui.chat_log.lines import Palette, text_line

if TYPE_CHECKING:
    from oncall_tui.services.views import ToolCallView


def tool_title(name: str, summary: str, status: str) -> str:
    marks = {
        "ok": "→",
        "error": "✗",
        "withheld": "✗",
        "cut": "✂",  # the model got the result's beginning and a note of what was left out
        "interrupted": "⏸",
        "declined": "⊘",  # not run: the user said no, or the run could not ask
        "running": "…",
    }
    mark = marks.get(status, "→")
    return f"⚙ {name} {mark} {summary}".rstrip()


@dataclass
class ToolCallLine:
    """One tool call of a message: a single line (name and one-line result); the arguments are
    shown below it when the message's tool details are open."""

    call_id: str
    name: str
    arguments: dict[str, object]
    summary: str = ""
    status: str = "running"
    at: int | None = None
    """Characters of the reply's text before the call: it is drawn there, between the words
    around it. ``None`` (a call stored before replies kept their calls' places): under the
    header."""

    @property
    def title(self) -> str:
        return tool_title(self.name, self.summary, self.status)

    def detail(self, lang: Language = "en") -> list[str]:
        shown = json.dumps(self.arguments, ensure_ascii=False, indent=2) if self.arguments else "{}"
        label = t("log.tool.arguments", lang)
        return terminal_safe(f"{label}: {shown}").splitlines()  # JSON leaves C1 controls

    @classmethod
    def of(cls, call: ToolCallView) -> ToolCallLine:
        name, summary = terminal_safe(call.name), terminal_safe(call.summary)
        return cls(call.call_id, name, dict(call.arguments), summary, call.status, call.text_at)


def tool_call_lines(
    tool: ToolCallLine, width: int, palette: Palette, *, opened: bool, lang: Language
) -> list[Strip]:
    """A tool call's line, and its arguments' when the message's tool details are ``opened``."""
    marker = "▼" if opened else "▶"
    style = palette.tool_failed if tool.status in ("error", "withheld") else palette.tool
    lines = [text_line(f"{marker} {tool.title}", style, width)]
    if opened:
        detail = palette.tool_detail
        lines += [text_line(f"    {line}", detail, width) for line in tool.detail(lang)]
    return lines


def tool_call_rows(tool: ToolCallLine, *, opened: bool) -> int:
    """How many lines :func:`tool_call_lines` draws."""
    return 1 + (len(tool.detail()) if opened else 0)


def place(tool: ToolCallLine) -> int | None:
    """Where a call stands in its reply's text (``None``: a call stored without its place)."""
    return tool.at
