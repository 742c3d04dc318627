"""Keep what the user typed while the app was starting.

An engineer who types ``oncall-tui`` and starts typing at once would otherwise lose the
first words: they sit in the terminal's line buffer before the app can take them. They are
read here, just before the app starts, and become the composer's initial text.
"""

from __future__ import annotations

import os
import re
import select
import sys

_ESCAPE_SEQUENCE = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|.)?")


def read_typeahead() -> str:
    """Printable text waiting on a terminal's standard input; '' when there is none."""
    if not sys.stdin.isatty():
        return ""
    try:
        import termios
        import tty
    except ImportError:  # not a POSIX terminal
        return ""
    fd = sys.stdin.fileno()
    try:
        saved = termios.tcgetattr(fd)
    except termios.error:
        return ""
    data = b""
    try:
        tty.setcbreak(fd, termios.TCSANOW)
        while len(data) < 65_536 and select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            data += chunk
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)
    return clean_typeahead(data.decode("utf-8", errors="ignore"))


def clean_typeahead(text: str) -> str:
    """Drop escape sequences and control characters; keep text, tabs and line breaks."""
    text = _ESCAPE_SEQUENCE.sub("", text).replace("\r\n", "\n").replace("\r", "\n")
    return "".join(ch for ch in text if ch in "\n\t" or ch.isprintable())
