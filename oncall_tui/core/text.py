"""Text made safe to show on a terminal.

Stored text (skill descriptions, titles, prompts, messages, summaries, tool results) comes
from users and models, and may hold control characters: an escape sequence can recolour or
clear the screen, move the cursor, set the window title, or write the clipboard (OSC 52).
Clients pass such text through :func:`terminal_safe` before they print or draw it; JSON
output does not need to (JSON escapes control characters itself).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

NEW_SESSION = "New session"
"""How a session without a title is listed, by the CLI and the TUI."""

T = TypeVar("T")

REPLACEMENT = "\ufffd"
"""What a C1 control character or a lone surrogate becomes."""

_KEPT = {"\n", "\t"}


def _table() -> dict[int, str]:
    table: dict[int, str] = {}
    for code in range(0x20):
        if chr(code) not in _KEPT:
            table[code] = chr(0x2400 + code)  # its Control Picture: ESC is ␛, BEL is ␇
    table[0x7F] = "\u2421"  # DEL is ␡
    for code in range(0x80, 0xA0):
        table[code] = REPLACEMENT
    for code in range(0xD800, 0xE000):
        table[code] = REPLACEMENT
    return table


_TABLE = _table()


def terminal_safe(text: str) -> str:
    """``text`` with every control character but newline and tab made visible and inert.

    A C0 control becomes its Unicode Control Picture (``ESC`` → ``␛``, ``BEL`` → ``␇``,
    ``CR`` → ``␍``), ``DEL`` becomes ``␡``, and a C1 control (U+0080–U+009F, which some
    terminals also read as ``ESC`` sequences) becomes U+FFFD, as does a lone surrogate, which
    no terminal encoding can carry. Everything else, and the length, is unchanged: one
    character for one character, so widths computed on the result hold."""
    return text.translate(_TABLE)


def one_line(text: str, limit: int | None = None) -> str:
    """Every run of whitespace (newlines included) as one space, the ends trimmed; cut to
    ``limit`` characters, the last one "…", when longer."""
    flat = " ".join(text.split())
    if limit is None or len(flat) <= limit:
        return flat
    return flat[: limit - 1].rstrip() + "…"


def in_text_order(text: str, calls: Sequence[T], place: Callable[[T], int | None]) -> list[str | T]:
    """A reply's ``text`` and its ``calls`` in the order they came: the calls without a place
    first (stored before calls kept theirs), then the text cut at each other call's place (the
    characters written before it), the call after its piece; empty pieces are left out."""
    placed = sorted(
        (call for call in calls if place(call) is not None), key=lambda c: place(c) or 0
    )
    order: list[str | T] = [call for call in calls if place(call) is None]
    start = 0
    for call in placed:
        at = min(max(place(call) or 0, start), len(text))
        order += [text[start:at], call] if at > start else [call]
        start = at
    return order + ([text[start:]] if start < len(text) else [])
