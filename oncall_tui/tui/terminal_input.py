"""The terminal's bytes, read as the engineer meant them.

Two things a terminal sends cannot be told apart once Textual has parsed them into keys:

- **alt+enter**: xterm and tmux send ESC CR, which Textual's parser reads as a plain Enter,
  so it sent the message the engineer meant to break. It is rewritten here to the kitty
  keyboard protocol's form of alt+enter, which the parser reports as ``alt+enter``.
- **A paste without bracketed paste** (a terminal or multiplexer that does not bracket it):
  the lines arrive as keys, and each line break is an Enter that sends. A read that holds two
  line breaks or more is no typist's: it is wrapped in bracketed-paste markers, so that it
  reaches the composer whole, as a paste, and is not sent. So is a read of
  :data:`LONG_READ` characters or more without a line break (a one-line paste: minified JSON,
  a long log record), which as keys went into the composer one at a time, each one wrapping
  the whole line again: 61 kB took minutes of CPU while the screen stood still. A question
  and its Enter that a stalled link delivers in one read are still typing, and sent. Reads
  that follow a paste within
  :data:`PASTE_GAP` continue it (a long paste comes in several reads). A single line break is
  typing (``A`` Enter ``B`` over a slow link arrives in one read): Enter sends ``A`` and ``B``
  stays in the composer. A paste the terminal brackets itself passes as its text, however many
  reads it spans: a read from its middle is its text, never an unbracketed paste of its own.
- **Escape codes inside a bracketed paste** (a log with its colours, pasted from a file):
  Textual's parser takes an ESC in a paste for the start of a key, gives up a few characters
  later and sends the rest of the paste as keys: its tabs moved the focus, its line breaks
  sent the message line by line, its letters typed into whatever had the focus. Inside a
  bracketed paste the escape codes are dropped (the colours, not the text), and so are the
  other control characters but tab and the line breaks. A code cut by the end of a read is
  kept back until the next read completes it: the paste's end marker may be cut so too.
- **alt+letter**: terminals send ESC and the letter, which Textual's parser reports as
  ``alt+p`` *with the character* ``p``: the composer, which takes every printable character,
  typed a ``p`` instead of the app opening the prompts. ESC followed by a lowercase letter or
  a digit is rewritten to the kitty protocol's form of the same key, which carries no
  character, so the key reaches its binding.

:class:`InputDriver` is Textual's Linux driver with the read loop running each read through
:class:`InputFilter` before the parser (``docs/ARCHITECTURE.md``, "Private APIs").

It also tells the app when the terminal has gone (``tmux kill-session``, a dropped SSH
connection: the terminal is hung up). A read then ends (end of file) or fails (EIO), and so does
a write (EIO). Textual's loop took the end of file for "nothing to read" and read again, at
once, for ever; its writer thread died of the first failed write, after which the app's 31st
write waited for ever on the writer's full queue, its event loop with it (signals were no
longer heard). Here either posts :class:`TerminalGone` once, reading stops, and output to the
terminal is dropped from then on.
"""

from __future__ import annotations

import os
import re
import selectors
import threading
import time
from codecs import getincrementaldecoder
from collections.abc import Callable
from typing import IO, Any

from textual._parser import ParseError
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

ESC = "\x1b"
PASTE_START = "\x1b[200~"
PASTE_END = "\x1b[201~"
ALT_ENTER = "\x1b[13;3u"
"""alt+enter in the kitty keyboard protocol, which Textual's parser understands."""
PASTE_GAP = 0.05
"""Seconds after a paste's read within which the next read is more of the same paste."""
LONG_READ = 64
"""Characters in one read (without escape codes) that no typist sends at once, even a fast one
over a link that stalled for a few seconds."""


def line_breaks(text: str) -> int:
    """How many lines ``text`` breaks into, a CR LF pair counting once."""
    return text.replace("\r\n", "\n").count("\n") + text.replace("\r\n", "").count("\r")


class InputFilter:
    """Rewrites each read of the terminal (already decoded) before Textual parses it."""

    def __init__(self) -> None:
        self._paste_seen = float("-inf")
        """When the last read taken as a paste arrived (``time.monotonic``)."""
        self._bracketed = False
        """Inside a paste the terminal brackets itself, which may span many reads."""
        self._held = ""
        """The end of the last read of a bracketed paste, an escape code cut short by it."""

    def __call__(self, data: str, now: float) -> str:
        """The read as Textual should parse it: a bracketed paste's text, however many reads
        it spans (its line breaks are the text's, never keys), without its escape codes and
        control characters (:func:`pasted_text`); the keys around it rewritten
        (:meth:`_keys`)."""
        parts = []
        while data:
            if self._bracketed:
                data, self._held = self._held + data, ""
                end = data.find(PASTE_END)
                if end == -1:
                    cut = _unfinished_code(data)
                    parts.append(pasted_text(data[:cut]))
                    self._held = data[cut:]
                    break
                parts.append(pasted_text(data[:end]) + PASTE_END)
                data, self._bracketed = data[end + len(PASTE_END) :], False
            else:
                start = data.find(PASTE_START)
                if start == -1:
                    parts.append(self._keys(data, now))
                    break
                parts.append(self._keys(data[:start], now) + PASTE_START)
                data, self._bracketed = data[start + len(PASTE_START) :], True
        return "".join(parts)

    def _keys(self, data: str, now: float) -> str:
        """Keys, or an unbracketed paste: see the module. A read holding a control key
        (ctrl+u, Backspace) is typing: a paste holds none, and as text it would be typed in."""
        if ESC not in data and data.strip() and not _CONTROL_KEY.search(data):
            continuing = now - self._paste_seen < PASTE_GAP
            breaks = line_breaks(data)
            if continuing or breaks >= 2 or (breaks == 0 and len(data) >= LONG_READ):
                self._paste_seen = now
                text = data.replace("\r\n", "\n").replace("\r", "\n")
                return f"{PASTE_START}{text}{PASTE_END}"
        return _ALT_KEY.sub(_kitty_alt, data.replace(f"{ESC}\r", ALT_ENTER))


_ALT_KEY = re.compile(f"{ESC}([a-z0-9])")
_CODE = (
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves
    r"|\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: a title, a link
    r"|[ -/]*[0-Z\\^-~])"  # the others (a character set, a cursor saved), not [ or ]
)
_UNFINISHED_CODE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?|[ -/]*)\Z")
"""The start of an escape code, cut short at the end of a read."""
_CONTROL_KEY = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
"""The control characters that are not text (all but tab, LF and CR): keys such as ctrl+u."""
_NOT_TEXT = re.compile(_CODE + "|" + _CONTROL_KEY.pattern)
"""Escape codes, and the control characters that are not text (all but tab, LF and CR)."""
_LONGEST_CODE = 256
"""An escape code still unfinished this far from its ESC is not one: the ESC is dropped."""


def pasted_text(text: str) -> str:
    """The text of a bracketed paste without its escape codes and control characters."""
    return _NOT_TEXT.sub("", text)


def _unfinished_code(text: str) -> int:
    """Where an escape code the next read may finish starts at the end of ``text`` (a bracketed
    paste's); ``len(text)`` when there is none."""
    cut = _UNFINISHED_CODE.search(text, max(0, len(text) - _LONGEST_CODE))
    return len(text) if cut is None else cut.start()


def _kitty_alt(match: re.Match[str]) -> str:
    return f"{ESC}[{ord(match[1])};3u"


class TerminalGone(Message):
    """The terminal has gone: a read of it ended or failed, or a write failed."""


class TerminalOutput:
    """The terminal's output for Textual's writer thread: a write or flush that fails (the
    terminal is gone) reports it once, through ``gone``, and every later one does nothing,
    so the writer thread lives on and keeps emptying its queue."""

    def __init__(self, file: IO[str], gone: Callable[[], None]) -> None:
        self._file = file
        self._gone = gone
        self.failed = False

    def write(self, text: str) -> int:
        if not self.failed:
            try:
                self._file.write(text)
            except (OSError, ValueError):  # EIO (hung up), or a closed file
                self._fail()
        return len(text)

    def flush(self) -> None:
        if not self.failed:
            try:
                self._file.flush()
            except (OSError, ValueError):
                self._fail()

    def fileno(self) -> int:
        return self._file.fileno()

    def isatty(self) -> bool:
        return self._file.isatty()

    def _fail(self) -> None:
        self.failed = True
        self._gone()


class InputDriver(LinuxDriver):
    """Textual's Linux driver, its input read through :class:`InputFilter`, and
    :class:`TerminalGone` posted to the app when the terminal goes away.

    The loop is Textual's own (``LinuxDriver.run_input_thread``), with the filter between the
    decoder and the parser; a test per behaviour runs the app in a real pseudo-terminal."""

    def __init__(self, app: Any, **options: Any) -> None:
        super().__init__(app, **options)
        self._gone_once = threading.Lock()
        self._gone = False
        if self._file is not None:  # Textual's writer thread writes here
            self._file = TerminalOutput(self._file, self.terminal_gone)  # type: ignore[assignment]

    def terminal_gone(self) -> None:
        """Tell the app, once, from any thread; the exit deadline is armed here too, where the
        app has one, so the process ends though its loop never reads the message."""
        with self._gone_once:
            if self._gone:
                return
            self._gone = True
        arm = getattr(self._app, "arm_deadline", None)
        if callable(arm):
            arm()
        self._app.post_message(TerminalGone())

    def _read(self) -> bytes | None:
        """One read of the terminal; ``None`` when it has gone (end of file or EIO on a
        terminal; a pipe's end of file stays Textual's "nothing to read")."""
        try:
            data = os.read(self.fileno, 4096)
        except OSError:  # EIO: the other side of the terminal has closed
            return None
        if not data and self.input_tty:
            return None
        return data

    def run_input_thread(self) -> None:
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        parser = XTermParser(False)
        decode = getincrementaldecoder("utf-8")().decode
        rewrite = InputFilter()

        def process(ready: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> bool:
            """Read and parse what is ready; ``False`` once the terminal has gone."""
            for index, (_, mask) in enumerate(ready):
                if mask & selectors.EVENT_READ:
                    last = index == len(ready) - 1
                    raw = self._read()
                    if raw is None:
                        self.terminal_gone()
                        return False
                    data = decode(raw, final=final and last)
                    if not data:
                        break
                    for event in parser.feed(rewrite(data, time.monotonic())):
                        self.process_message(event)
            for event in parser.tick():
                self.process_message(event)
            return True

        try:
            while not self.exit_event.is_set():
                if not process(selector.select(0.1)):
                    return  # nothing more will come; the app is told and quits
            selector.unregister(self.fileno)
            process(selector.select(0.1), final=True)
        finally:
            selector.close()
            try:
                for _ in parser.feed(""):
                    pass
            except (EOFError, ParseError):
                pass
