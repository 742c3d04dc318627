"""Quitting is bounded: the process ends within :data:`QUIT_SECONDS` of being asked to.

The orderly way out (the send cancelled and its partial reply stored, Textual's shutdown, the
services closed, the interpreter's end) takes a few hundred milliseconds. Some of its waits
cannot be bounded from inside it: ``asyncio.run`` waits for every thread of its executor (a
service call in ``asyncio.to_thread``, a thread worker) to return, the interpreter for every
thread that is not a daemon, and a thread blocked in a call cannot be stopped. One such wait
kept the process alive, its terminal gone, for as long as the call blocked, with SIGTERM
heard by an event loop that no longer acted on it.

So quitting arms an :class:`ExitDeadline`: a daemon thread that, :data:`QUIT_SECONDS` later,
first lets a partial reply still being stored finish (up to its own bound), then ends the
tool servers' processes, puts the terminal back as it was, and ends the process with
``os._exit``. A process that ends on its own first never reaches it.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from oncall_tui.core.text import terminal_safe
from oncall_tui.redaction import redact

if TYPE_CHECKING:
    from rich.console import Console

log = logging.getLogger(__name__)

QUIT_SECONDS = 0.7
"""From ctrl+q, SIGTERM, SIGHUP or the terminal gone to the process's end, at most (a reply
still being stored then gets its own bound first)."""
LAST_STEP_SECONDS = 0.15
"""How long each last step may take (a write to a terminal that reads nothing blocks)."""
RESET = (
    "\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l"  # mouse reports off
    "\x1b[?2004l\x1b[?7h\x1b[<u"  # bracketed paste off, line wrap on, kitty keys popped
    "\x1b[?1049l\x1b[?25h\x1b[?1004l"  # main screen, cursor shown, focus reports off
)
"""What Textual's driver writes when it leaves application mode."""


class ExitDeadline:
    """Armed once (from any thread); ends the process if it is still there at the deadline."""

    def __init__(
        self,
        last_steps: Sequence[Callable[[], None]],
        *,
        seconds: float = QUIT_SECONDS,
        keep_seconds: float = 5.0,
    ) -> None:
        self._last_steps = tuple(last_steps)
        self._seconds = seconds
        self._keep_seconds = keep_seconds
        self._lock = threading.Lock()
        self._armed = False
        self._clock = threading.Event()
        """Never set: waited on for its timeout."""

    @property
    def armed(self) -> bool:
        return self._armed

    def arm(self, storing: Callable[[], bool]) -> None:
        """Start the countdown; ``storing()`` says whether a partial reply is still being
        stored (called from the deadline's thread)."""
        with self._lock:
            if self._armed:
                return
            self._armed = True
        thread = threading.Thread(
            target=self._run, args=(storing,), name="exit-deadline", daemon=True
        )
        thread.start()

    def _run(self, storing: Callable[[], bool]) -> None:
        started = time.monotonic()
        self._clock.wait(self._seconds)
        keep_until = started + self._seconds + self._keep_seconds
        while storing() and time.monotonic() < keep_until:
            self._clock.wait(0.02)
        log.warning("still running %.1f s after quitting began: ending now", self._seconds)
        for step in self._last_steps:
            helper = threading.Thread(target=_quietly, args=(step,), daemon=True)
            helper.start()
            helper.join(LAST_STEP_SECONDS)
        os._exit(0)


def _quietly(step: Callable[[], None]) -> None:
    try:
        step()
    except Exception:  # a last resort never raises: the process ends next
        log.exception("a last step before the exit failed")


def terminal_restorer() -> Callable[[], None]:
    """A step that puts the terminal back as it is now (before the app starts), if the app
    has not; nothing when standard input is no terminal."""
    try:
        import termios
    except ImportError:  # not POSIX
        return _nothing
    stream = sys.__stdin__
    output = sys.__stderr__
    if stream is None or output is None or not stream.isatty():
        return _nothing
    fd, out = stream.fileno(), output.fileno()
    try:
        saved = termios.tcgetattr(fd)
    except termios.error:
        return _nothing

    def restore() -> None:
        try:
            if termios.tcgetattr(fd) == saved:  # Textual's driver has put it back
                return
            termios.tcsetattr(fd, termios.TCSANOW, saved)
            os.write(out, RESET.encode())
        except (termios.error, OSError):  # the terminal has gone
            return

    return restore


def _nothing() -> None:
    return None


class HandBack:
    """What the user typed that the app could not keep (:attr:`text`), printed after the app
    has left the terminal, once, by whichever of the process's two ends comes first: the
    app's return (``run_tui``) or the exit deadline's last steps. Masked as all the CLI
    prints, as it stays in the scrollback; a terminal gone by now is not written to."""

    def __init__(self, heading: str) -> None:
        self.text = ""
        self._heading = heading
        self._lock = threading.Lock()

    def print(self) -> None:
        with self._lock:  # the deadline's step waits for the app's print (up to its bound)
            text, self.text = self.text, ""
            output = sys.__stderr__
            if text.strip() and output is not None:
                with contextlib.suppress(OSError, ValueError):
                    output.write(f"{self._heading}\n{terminal_safe(redact(text))}\n")
                    output.flush()


class Defect:
    """Where Textual writes the error that ended the app when the app did not expect it (a
    defect), in place of the terminal: its traceback shows each frame's variables (a
    message's text, a prompt's body), which the scrollback would keep. The CLI says the
    error's words, masked (:attr:`error`), and logs where it happened (:attr:`places`)."""

    def __init__(self) -> None:
        self._written = io.StringIO()

    def capture(self, console: Console) -> None:
        """Have ``console`` (the app's ``error_console``) write here, not on the terminal."""
        console.file = self._written

    @property
    def error(self) -> str | None:
        """The error's kind and words, as the traceback ends with them (after its last frame);
        None if the app did not end on one."""
        lines = self._plain().splitlines()
        last_frame = max((n for n, line in enumerate(lines) if line.startswith("╰")), default=-1)
        said = " ".join(line.strip() for line in lines[last_frame + 1 :] if line.strip())
        return said or None

    @property
    def places(self) -> list[str]:
        """The frames it went through, innermost last, as ``path.py:263 in line_count``."""
        return PLACE.findall(self._plain())

    def _plain(self) -> str:
        from rich.text import Text

        return Text.from_ansi(self._written.getvalue()).plain


PLACE = re.compile(r"\S+\.py:\d+ in \S+")
"""A frame of a traceback as rich writes it: ``path.py:263 in line_count``."""
