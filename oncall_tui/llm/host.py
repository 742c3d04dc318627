"""The agent host: model streams run in a warm child process, not in the caller's.

A model stream through LangChain costs a few hundred microseconds of Python per token. In
the TUI's process that work would compete with the event loop for the interpreter lock, and
its garbage would lengthen the collector's full passes over the UI's heap: at a fast model's
rate both stall the screen. In a child process the stream runs on another core, and the
caller reads one JSON line per few dozen milliseconds of tokens.

The child (``llm/host_process.py``) starts when asked (``start``, or the first turn), stays up
between turns, and is started again after it stops. A turn's items arrive as an async
iterator on the caller's own event loop; leaving the iteration early cancels the turn in the
child. If the child dies mid-turn the turn fails with a catalogued ``STREAM_FAILED``.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import subprocess
import sys
import threading
from collections import deque
from collections.abc import AsyncGenerator, Sequence
from pathlib import Path
from typing import IO, Any

from oncall_tui.errors import OncallError
from oncall_tui.llm.turn import AgentStreamItem, Turn, error_from_json, item_from_json

_PACKAGE_ROOT = Path(__file__).resolve().parents[2]
_STDERR_LINES = 20
_STOP_SECONDS = 2.0
NICENESS = 10
"""The child's niceness (it sets it itself): on a busy machine the screen comes first, and a
stream waits for the CPU, the UI does not. Defined here, on the light side of the pipe, so that
what only needs the number does not import the child's LangChain stack."""

Document = dict[str, Any]
_Inbox = tuple[asyncio.AbstractEventLoop, "asyncio.Queue[Document]", "subprocess.Popen[bytes]"]
"""Where a turn's lines go: its event loop, its queue, and the child it runs in."""


def default_command() -> list[str]:
    return [sys.executable, "-m", "oncall_tui.llm.host_process"]


class AgentHost:
    def __init__(self, command: Sequence[str] | None = None) -> None:
        self._command = list(command) if command is not None else default_command()
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._turns: dict[int, _Inbox] = {}
        self._ids = itertools.count(1)
        self._stderr: deque[str] = deque(maxlen=_STDERR_LINES)

    @property
    def pid(self) -> int | None:
        process = self._process
        return process.pid if process is not None and process.poll() is None else None

    def start(self) -> None:
        """Start the child unless it runs; returns at once (it imports LangChain meanwhile)."""
        with self._lock:
            self._ensure_started()

    def _ensure_started(self) -> subprocess.Popen[bytes]:
        process = self._process
        if process is not None and process.poll() is None:
            return process
        environment = dict(os.environ)
        paths = [str(_PACKAGE_ROOT), environment.get("PYTHONPATH", "")]
        environment["PYTHONPATH"] = os.pathsep.join(path for path in paths if path)
        process = subprocess.Popen(
            self._command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=environment,
            start_new_session=True,  # keyboard signals meant for the terminal stay away
        )
        self._process = process
        self._stderr.clear()
        assert process.stdout is not None
        assert process.stderr is not None
        threading.Thread(
            target=self._read, args=(process, process.stdout), daemon=True, name="agent-host"
        ).start()
        threading.Thread(
            target=self._read_stderr, args=(process.stderr,), daemon=True, name="agent-host-err"
        ).start()
        return process

    async def stream(
        self, turn: Turn, *, url: str, model: str, num_ctx: int, timeout: float, deadline: float
    ) -> AsyncGenerator[AgentStreamItem, None]:
        """Run ``turn`` in the child and yield its items; raises only ``OncallError``."""
        loop = asyncio.get_running_loop()
        inbox: asyncio.Queue[Document] = asyncio.Queue()
        with self._lock:
            try:
                process = self._ensure_started()
            except OSError as exc:
                problem = f"cannot start {self._command[0]}: {exc.strerror or exc}"
                raise OncallError("STREAM_FAILED", "engine_error", problem=problem) from exc
            turn_id = next(self._ids)
            self._turns[turn_id] = (loop, inbox, process)
        request = {
            "op": "turn",
            "id": turn_id,
            "url": url,
            "model": model,
            "num_ctx": num_ctx,
            "timeout": timeout,
            "deadline": deadline,
            "turn": turn.to_json(),
        }
        ended = False
        try:
            self._send(process, request)  # in order before any cancel of it
            while True:
                document = await inbox.get()
                kind = document["type"]
                if kind == "end":
                    ended = True
                    return
                if kind in ("error", "exit"):
                    ended = True
                    raise self._error(document)
                yield item_from_json(document)
        finally:
            with self._lock:
                self._turns.pop(turn_id, None)
            if not ended:
                self._send(process, {"op": "cancel", "id": turn_id})

    def close(self) -> None:
        """Stop the child. It holds nothing to save (replies are stored by the caller)."""
        with self._lock:
            process, self._process = self._process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(_STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdin is not None:  # its readers end on their own at end of file
            with contextlib.suppress(OSError):
                process.stdin.close()

    # -- the pipes -------------------------------------------------------------------------------

    def _send(self, process: subprocess.Popen[bytes], document: Document) -> None:
        line = json.dumps(document, ensure_ascii=False).encode() + b"\n"
        try:
            with self._write_lock:
                assert process.stdin is not None
                process.stdin.write(line)
                process.stdin.flush()
        except (OSError, ValueError):
            pass  # the child is gone; its reader reports that to every waiting turn

    def _read(self, process: subprocess.Popen[bytes], stdout: IO[bytes]) -> None:
        for line in stdout:
            try:
                document = json.loads(line)
            except ValueError:
                continue
            self._deliver(document.get("id"), document)
        status = process.wait()
        with self._lock:
            if self._process is process:
                self._process = None
            waiting = [turn_id for turn_id, inbox in self._turns.items() if inbox[2] is process]
        for turn_id in waiting:  # only the turns this child was running
            self._deliver(turn_id, {"type": "exit", "status": status})

    def _read_stderr(self, stderr: IO[bytes]) -> None:
        for line in stderr:
            self._stderr.append(line.decode(errors="replace").rstrip())

    def _deliver(self, turn_id: object, document: Document) -> None:
        with self._lock:
            inbox = self._turns.get(turn_id) if isinstance(turn_id, int) else None
        if inbox is None:
            return  # a turn that was cancelled or has ended
        loop, queue, _ = inbox
        with contextlib.suppress(RuntimeError):  # its event loop has closed
            loop.call_soon_threadsafe(queue.put_nowait, document)

    def _error(self, document: Document) -> OncallError:
        if document["type"] == "error":
            return error_from_json(document)
        status = document["status"]
        described = f"killed by signal {-status}" if status < 0 else f"exit status {status}"
        if self._stderr:
            described += f": {self._stderr[-1][:160]}"
        return OncallError("STREAM_FAILED", "engine_stopped", status=described)
