"""A chat's wait, said on a terminal: ``[waiting for the model: 12 s · ctrl+c stops]``.

A local model can take tens of seconds before its first word (loading the model, reading a
pasted log) and as long again after a tool call; a chat that prints nothing for that long
looks hung, and the one thing to do about it (ctrl+c, which keeps what came) is not said.
Once nothing has come for :data:`SHOWN_FROM` seconds, and no answer line is open, one line on
standard error counts the seconds in place; whatever comes next erases it before it is written.

Only on a terminal that can redraw a line (:func:`can_redraw`), and never with ``--json``: a
script's log gets no carriage returns. The TUI counts the same wait in the reply's header
(``MessageBlock.shown_wait``).
"""

from __future__ import annotations

import asyncio
import os
from time import monotonic
from typing import TextIO

from oncall_tui.errors import Language
from oncall_tui.texts import text

SHOWN_FROM = 2.0
"""Seconds with nothing new before the wait is said: a warm model answers within them."""
TICK = 0.25
"""How often the count is looked at; it is written only when its whole seconds change."""
ERASE = "\r\x1b[2K"
"""Back to the line's start, and the line cleared: the count leaves nothing behind."""


def can_redraw(stream: TextIO) -> bool:
    """Whether ``stream`` is a terminal that redraws a line in place: not a pipe or a file, and
    not one that declares it cannot (``TERM=dumb``: Emacs' shell, some CI consoles, which would
    show the erase sequence as text)."""
    return stream.isatty() and os.environ.get("TERM", "dumb") not in ("", "dumb")


class WaitingLine:
    """The count of one chat's wait on ``stream`` (standard error, a terminal)."""

    def __init__(self, stream: TextIO, lang: Language) -> None:
        self._stream = stream
        self._lang = lang
        self._since = monotonic()
        self._shown: int | None = None
        """The seconds on screen, or ``None`` when the line is not there."""
        self.answer_open = False
        """An answer's line is open on the terminal: the count would break it, so it waits."""
        self.tool: str | None = None
        """The tool that runs, if one does: the wait is its, not the model's."""

    def heard(self) -> None:
        """Something came: the line is erased and the count starts again."""
        self._since = monotonic()
        self.erase()

    def erase(self) -> None:
        if self._shown is not None:
            self._stream.write(ERASE)
            self._stream.flush()
            self._shown = None

    async def run(self) -> None:
        """Count until cancelled (the chat is over), from now."""
        self._since = monotonic()
        while True:
            await asyncio.sleep(TICK)
            waited = monotonic() - self._since
            seconds = int(waited)
            if self.answer_open or waited < SHOWN_FROM or seconds == self._shown:
                continue
            said = (
                text("cli.chat.waiting", self._lang, seconds=seconds)
                if self.tool is None
                else text("cli.chat.waiting_tool", self._lang, name=self.tool, seconds=seconds)
            )
            self._stream.write(ERASE + said)
            self._stream.flush()
            self._shown = seconds
