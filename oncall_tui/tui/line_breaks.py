"""Lines broken where Chinese, Japanese and Korean text may break, wherever text wraps.

Rich breaks lines only at spaces. Chinese has none between words, so a sentence after a Latin
word was one "word" longer than the line, moved whole to the next line and cut there by
width: ``fast 数据库连接池耗尽导致订单服务超时`` at 30 columns showed ``fast`` alone on its
first line. Here a line may also break before and after each wide character (an ideograph,
kana, hangul, a fullwidth sign), as CJK text is set, except where the rules of line breaking
forbid it: a closing sign (``，。）」``) never starts a line and an opening one (``（「``)
never ends one. Latin text breaks at its spaces, as before; a word longer than the line is
folded as rich folds it.

:class:`LineBreakingText` is rich's ``Text`` with this in its public ``wrap``; a text with no
such character is wrapped by rich itself. :func:`fitted` breaks a text for a widget that Textual
wraps (the status line, the panel's values).
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

from rich.cells import cell_len, chop_cells
from rich.containers import Lines
from rich.text import DEFAULT_JUSTIFY, DEFAULT_OVERFLOW, Text

if TYPE_CHECKING:
    from rich.console import Console, JustifyMethod, OverflowMethod

_WIDE = (
    "\u2e80-\u2fdf\u3001-\u303f\u3040-\u30ff\u3100-\u312f\u3190-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\ufe30-\ufe4f\uff01-\uff60"
    "\uffe0-\uffe6\U00020000-\U0003ffff"
)
"""CJK radicals, symbols and punctuation, kana, bopomofo, ideographs, hangul, compatibility
forms and the fullwidth forms: each may stand at a line's end or start."""
OPENING = "（［｛〈《「『【〔〖〘〚“‘"
"""Never at a line's end: kept with what follows."""
CLOSING = (
    "、。，．：；！？）］｝〉》」』】〕〗〙〛”’％…‥々〻ゝゞヽヾー"
    "ぁぃぅぇぉっゃゅょゎァィゥェォッャュョヮ,.:;!?)]}%"
)
"""Never at a line's start: kept with what comes before (the small kana and the prolonged
sound mark too, as Japanese sets them)."""


@cache
def _atom() -> re.Pattern[str]:
    """What a line is not broken inside: one wide character or one run of other non-spaces,
    its opening and closing signs, and the spaces after it (the line's first one, those before
    it). Compiled when first needed: its classes take milliseconds, on no one's way to the
    first frame."""
    opening, closing = re.escape(OPENING), re.escape(CLOSING)
    return re.compile(rf"\s*[{opening}]*(?:[{_WIDE}]|[^\s{_WIDE}]+)[{closing}]*\s*")


@cache
def _wide() -> re.Pattern[str]:
    return re.compile(f"[{_WIDE}]")


def has_wide(text: str) -> bool:
    """Whether ``text`` holds a wide character. Asked of every text the status line and the
    panel show: the pattern is compiled only once a character from its first range on comes."""
    return not text.isascii() and max(text) >= "\u2e80" and _wide().search(text) is not None


def break_offsets(text: str, width: int, fold: bool = True) -> list[int]:
    """Where ``text`` (one line, no line break) is broken to fit ``width`` cells: rich's
    ``divide_line``, with the atoms above for its words."""
    breaks: list[int] = []
    used = 0  # cells on the line so far
    for atom in _atom().finditer(text):
        start, word = atom.start(), atom.group()
        length = cell_len(word.rstrip())
        if width - used >= length:
            used += cell_len(word)
        elif length > width:  # on no line whole: folded, or cropped
            pieces = chop_cells(word, width) if fold else [word]
            for index, piece in enumerate(pieces):
                if start:
                    breaks.append(start)
                if index == len(pieces) - 1:
                    used = cell_len(piece)
                else:
                    start += len(piece)
        elif used and start:  # on the next line
            breaks.append(start)
            used = cell_len(word)
    return breaks


def fitted(text: str, width: int) -> str:
    """``text`` with a line break wherever :func:`break_offsets` breaks it at ``width`` cells,
    for a widget that Textual wraps (at spaces only): the lines it is given fit, and stay. A
    text without a wide character, or no width yet, is given as it is."""
    if width <= 0 or not has_wide(text):
        return text
    return "\n".join(piece for line in text.split("\n") for piece in broken(line, width))


def broken(line: str, width: int) -> list[str]:
    """``line`` (no line break in it) in the pieces :func:`break_offsets` breaks it into at
    ``width`` cells, without the spaces it breaks at."""
    ends = break_offsets(line, width)
    pieces = zip([0, *ends], [*ends, len(line)], strict=True)
    return [line[start:end].rstrip() for start, end in pieces]


class LineBreakingText(Text):
    """Rich's ``Text``, its lines broken as :func:`break_offsets` breaks them."""

    @classmethod
    def of(cls, text: Text) -> LineBreakingText:
        """``text``, its styles kept, broken as this class breaks lines."""
        broken = cls(
            text.plain, style=text.style, justify=text.justify, overflow=text.overflow,
            no_wrap=text.no_wrap, end=text.end, tab_size=text.tab_size,
        )  # fmt: skip
        broken.spans = list(text.spans)
        return broken

    def wrap(
        self,
        console: Console,
        width: int,
        *,
        justify: JustifyMethod | None = None,
        overflow: OverflowMethod | None = None,
        tab_size: int = 8,
        no_wrap: bool | None = None,
    ) -> Lines:
        unwrapped = no_wrap if no_wrap is not None else bool(self.no_wrap)
        if unwrapped or overflow == "ignore" or not has_wide(self.plain):
            return super().wrap(
                console, width, justify=justify, overflow=overflow, tab_size=tab_size,
                no_wrap=no_wrap,
            )  # fmt: skip
        # rich's own steps, with the break offsets above
        wrap_justify = justify or self.justify or DEFAULT_JUSTIFY
        wrap_overflow = overflow or self.overflow or DEFAULT_OVERFLOW
        lines = Lines()
        for line in self.split(allow_blank=True):
            if "\t" in line:
                line.expand_tabs(tab_size)
            offsets = break_offsets(line.plain, width, fold=wrap_overflow == "fold")
            broken = line.divide(offsets)
            for piece in broken:
                piece.rstrip_end(width)
            if wrap_justify:
                broken.justify(console, width, justify=wrap_justify, overflow=wrap_overflow)
            for piece in broken:
                piece.truncate(width, overflow=wrap_overflow)
            lines.extend(broken)
        return lines
