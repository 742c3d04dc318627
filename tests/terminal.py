"""The app in a real pseudo-terminal, its screen kept by a terminal emulator (pyte).

What a person's terminal does: keys are written to the app's terminal in one write (as a fast
typist over SSH, a paste, or tmux send-keys deliver them), and the app's output is drawn on a
screen of ``columns`` x ``lines`` cells that the test reads as text.
"""

from __future__ import annotations

import fcntl
import os
import pty
import signal
import struct
import sys
import termios
import threading
import time
from collections.abc import Callable

import pyte


def wait_for(condition: Callable[[], bool], timeout: float = 30.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"condition not met in time: {what}"
        time.sleep(0.05)


class Terminal:
    """``python -m oncall_tui`` on a pseudo-terminal, its output drawn as a terminal would."""

    def __init__(
        self,
        env: dict[str, str],
        columns: int = 120,
        lines: int = 40,
        argv: list[str] | None = None,
    ) -> None:
        # The size comes from the terminal, not from variables a test runner may have set.
        env = {k: v for k, v in env.items() if k not in ("COLUMNS", "LINES")}
        argv = argv or [sys.executable, "-m", "oncall_tui"]
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the app (or ``argv``), the pty its controlling terminal
            self.resize(0, columns, lines)  # sized before the app asks
            os.execve(argv[0], argv, env)
        self.output = bytearray()
        self._screen = pyte.Screen(columns, lines)
        self._stream = pyte.ByteStream(self._screen)
        self._lock = threading.Lock()
        threading.Thread(target=self._drain, daemon=True).start()

    @staticmethod
    def resize(fd: int, columns: int, lines: int) -> None:
        """Set the terminal's size; the app hears of it by SIGWINCH, as from a real one."""
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))

    def resize_to(self, columns: int, lines: int) -> None:
        """The terminal resized, as a window is: the app hears SIGWINCH; what the screen showed
        stays where it was until the app draws over it."""
        with self._lock:
            self._screen.resize(lines, columns)
        self.resize(self.fd, columns, lines)

    def _drain(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:
                return
            if not data:
                return
            with self._lock:
                self.output.extend(data)
                self._stream.feed(data)

    def rows(self) -> list[str]:
        """The screen as it is now, a string per row."""
        with self._lock:
            return [row.rstrip() for row in self._screen.display]

    def wait_to_show(self, text: str, timeout: float = 30.0) -> None:
        """Wait until some row shows ``text``; the screen is in the failure if none does."""
        try:
            wait_for(lambda: self.shows(text), timeout)
        except AssertionError:
            screen = "\n".join(self.rows())
            raise AssertionError(f"{text!r} not on screen in {timeout}s:\n{screen}") from None

    def shows(self, text: str) -> bool:
        return any(text in row for row in self.rows())

    def row_of(self, text: str) -> int:
        """The first row that shows ``text`` (-1 if none)."""
        return next((n for n, row in enumerate(self.rows()) if text in row), -1)

    def write(self, data: str) -> None:
        """``data`` in one write, as one read for the app."""
        os.write(self.fd, data.encode())

    def wait(self, timeout: float = 30.0) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return status
            time.sleep(0.05)
        os.kill(self.pid, signal.SIGKILL)
        raise AssertionError("the app did not exit")

    def quit(self) -> None:
        """ctrl+q, then the process's end; killed if it does not go."""
        self.write("\x11")
        try:
            self.wait(timeout=15)
        finally:
            os.close(self.fd)
