"""What every fake model server shares: an HTTP server on 127.0.0.1 and a free port, served from
a daemon thread, and a FIFO script of replies. The fakes add their wire protocol."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable
from http.server import ThreadingHTTPServer
from types import TracebackType
from typing import Generic, Self, TypeVar

ScriptedReply = TypeVar("ScriptedReply")


class LoopbackServer(Generic[ScriptedReply]):
    """Use as a context manager or call :meth:`start` / :meth:`stop`."""

    thread_name = "fake-server"

    def __init__(self, replies: Iterable[ScriptedReply]) -> None:
        self.bind_port = 0
        """The port to listen on; 0, a free one. A test that starts a server where a client
        already points (a server coming back) sets it first."""
        self._script: deque[ScriptedReply] = deque(replies)
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def make_server(self) -> ThreadingHTTPServer:
        """The HTTP server speaking the fake's protocol, bound to ``("127.0.0.1", bind_port)``."""
        raise NotImplementedError

    def start(self) -> Self:
        self._httpd = self.make_server()
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.02},  # fast shutdown()
            name=self.thread_name,
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return int(self._httpd.server_address[1])

    def script(self, *replies: ScriptedReply) -> None:
        """Append replies to the FIFO script."""
        with self._lock:
            self._script.extend(replies)

    @property
    def pending(self) -> int:
        """Number of scripted replies not yet served."""
        with self._lock:
            return len(self._script)
