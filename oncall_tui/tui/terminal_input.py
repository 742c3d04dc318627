"""The terminal's bytes, read as the engineer meant them.

Two things a terminal sends cannot be told apart once Textual has parsed them into keys:

- **alt+enter**: xterm and tmux send ESC CR, which Textual's parser reads as a plain Enter,
  so it sent the message the engineer meant to break. It is rewritten here to the kitty
  keyboard protocol's form of alt+enter, which the parser reports as ``alt+enter``.
- **A paste without bracketed paste** (a terminal or multiplexer that does not bracket it):
  the lines arrive as keys, and each line break is an Enter that sends. A read that holds two
  line breaks or more is no typist's: it is wrapped in bracketed-paste markers, so that it
  reaches the composer whole, as a paste, and is not sent. Reads that follow a paste within
  :data:`PASTE_GAP` continue it (a long paste comes in several reads). A single line break is
  typing (``A`` Enter ``B`` over a slow link arrives in one read): Enter sends ``A`` and ``B``
  stays in the composer.
- **alt+letter**: terminals send ESC and the letter, which Textual's parser reports as
  ``alt+p`` *with the character* ``p``: the composer, which takes every printable character,
  typed a ``p`` instead of the app opening the prompts. ESC followed by a lowercase letter or
  a digit is rewritten to the kitty protocol's form of the same key, which carries no
  character, so the key reaches its binding.

:class:`InputDriver` is Textual's Linux driver with the read loop running each read through
:class:`InputFilter` before the parser (``docs/ARCHITECTURE.md``, "Private APIs").
"""

from __future__ import annotations

import os
import re
import selectors
import time
from codecs import getincrementaldecoder

from textual._parser import ParseError
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

ESC = "\x1b"
PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
ALT_ENTER = "\x1b[13;3u"
"""alt+enter in the kitty keyboard protocol, which Textual's parser understands."""
PASTE_GAP = 0.05
"""Seconds after a paste's read within which the next read is more of the same paste."""


def line_breaks(text: str) -> int:
    """How many lines ``text`` breaks into, a CR LF pair counting once."""
    return text.replace("\r\n", "\n").count("\n") + text.replace("\r\n", "").count("\r")


class InputFilter:
    """Rewrites each read of the terminal (already decoded) before Textual parses it."""

    def __init__(self) -> None:
        self._paste_seen = float("-inf")
        """When the last read taken as a paste arrived (``time.monotonic``)."""

    def __call__(self, data: str, now: float) -> str:
        if PASTE_START in data:  # the terminal brackets its pastes itself
            return data
        if ESC not in data and data.strip():
            continuing = now - self._paste_seen < PASTE_GAP
            if continuing or line_breaks(data) >= 2:
                self._paste_seen = now
                text = data.replace("\r\n", "\n").replace("\r", "\n")
                return f"{PASTE_START}{text}{PASTE_END}"
        return _ALT_KEY.sub(_kitty_alt, data.replace(f"{ESC}\r", ALT_ENTER))


_ALT_KEY = re.compile(f"{ESC}([a-z0-9])")


def _kitty_alt(match: re.Match[str]) -> str:
    return f"{ESC}[{ord(match[1])};3u"


class InputDriver(LinuxDriver):
    """Textual's Linux driver, its input read through :class:`InputFilter`.

    The loop is Textual's own (``LinuxDriver.run_input_thread``), with the filter between the
    decoder and the parser; a test per behaviour runs the app in a real pseudo-terminal."""

    def run_input_thread(self) -> None:
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        parser = XTermParser(False)
        decode = getincrementaldecoder("utf-8")().decode
        rewrite = InputFilter()

        def process(ready: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> None:
            for index, (_, mask) in enumerate(ready):
                if mask & selectors.EVENT_READ:
                    last = index == len(ready) - 1
                    data = decode(os.read(self.fileno, 4096), final=final and last)
                    if not data:
                        break
                    for event in parser.feed(rewrite(data, time.monotonic())):
                        self.process_message(event)
            for event in parser.tick():
                self.process_message(event)

        try:
            while not self.exit_event.is_set():
                process(selector.select(0.1))
            selector.unregister(self.fileno)
            process(selector.select(0.1), final=True)
        finally:
            selector.close()
            try:
                for _ in parser.feed(""):
                    pass
            except (EOFError, ParseError):
                pass
