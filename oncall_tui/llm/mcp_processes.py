"""The stdio tool servers' processes, ended for certain when their sessions did not end them.

The SDK starts each stdio server in a session of its own (``start_new_session``), so a
hang-up of our terminal never reaches it, and ends it by closing its standard input, then
SIGTERM and SIGKILL seconds later. When the process must end sooner (quitting is bounded, see
``docs/ARCHITECTURE.md``, "Quitting"), the servers that are still there are ended here: each
child of this process that leads its own session, the way the SDK starts them, and its
process group with it, leaving out those that were there before the servers started (each
:class:`~oncall_tui.llm.mcp.McpTools` notes them). Read from ``/proc``; where there is none,
nothing is found and the servers end when their standard input does, with this process.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Collection, Sequence
from pathlib import Path

PROC = Path("/proc")
KILL_AFTER = 0.1
"""Seconds between SIGTERM and SIGKILL for a server that is still there."""


def server_processes(parent: int | None = None) -> list[int]:
    """The live children of ``parent`` (this process) that lead their own session."""
    parent = os.getpid() if parent is None else parent
    found: list[int] = []
    with contextlib.suppress(OSError):
        for entry in PROC.iterdir():
            if not entry.name.isdigit():
                continue
            fields = _stat_fields(entry / "stat")
            # after the command's parentheses: state, ppid, pgrp, session
            if fields is None or fields[0] == "Z" or int(fields[1]) != parent:
                continue
            if int(fields[3]) == int(entry.name):
                found.append(int(entry.name))
    return found


def end_server_processes(exclude: Collection[int] = (), grace: float = KILL_AFTER) -> list[int]:
    """SIGTERM to the process group of each of :func:`server_processes` not in ``exclude``,
    SIGKILL ``grace`` seconds later to those still there (at once with 0); returns them.
    Never raises."""
    servers = [pid for pid in server_processes() if pid not in exclude]
    for pid in servers if grace > 0 else ():
        _signal_group(pid, signal.SIGTERM)
    if servers:
        if grace > 0:
            threading.Event().wait(grace)  # a server that ends at once is not killed
        for pid in server_processes():
            if pid in servers:
                _signal_group(pid, signal.SIGKILL)
    return servers


def end_server_process(pid: int, grace: float = KILL_AFTER) -> None:
    """SIGTERM to ``pid``'s process group (a stdio server leads its own), SIGKILL ``grace``
    seconds later if it is still there. Blocking for ``grace``: call it in a thread. Never
    raises."""
    _signal_group(pid, signal.SIGTERM)
    threading.Event().wait(grace)
    if pid in server_processes():
        _signal_group(pid, signal.SIGKILL)


def started_server(
    before: Collection[int], args: Sequence[str], taken: Collection[int]
) -> int | None:
    """The process of a stdio server just started: the one child leading its own session that
    was not there ``before`` and is no other server's (``taken``); where several are (servers
    started at once), the one whose command line ends with ``args``. ``None``: not found."""
    new = [pid for pid in server_processes() if pid not in before and pid not in taken]
    if len(new) == 1:
        return new[0]
    tail = list(args)
    for pid in new:
        line = _command_line(pid)
        if tail and line[-len(tail) :] == tail:
            return pid
    return None


def _command_line(pid: int) -> list[str]:
    try:
        raw = (PROC / str(pid) / "cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def _signal_group(pid: int, number: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(pid, number)


def _stat_fields(path: Path) -> list[str] | None:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    _, _, rest = text.rpartition(")")
    fields = rest.split()
    return fields if len(fields) >= 4 else None
