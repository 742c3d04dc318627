"""A loopback proxy that keeps the body of every request it forwards, byte for byte.

For the prompt-cache figures (``bench/real_triage.py``): when the server's cache serves less
of a prompt than expected, the bodies of two consecutive chat requests say exactly where their
prefixes part (:func:`first_difference`). It listens on 127.0.0.1 and a free port, forwards
each request to the real server unchanged and streams the answer back as it comes (SSE
included), so the app behaves as it does without it.
"""

from __future__ import annotations

import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Self
from urllib.parse import urlsplit

_HOP_BY_HOP = frozenset(
    {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "host"}
)


class Recorder:
    """``Recorder(upstream)``: ``base_url`` is the proxy's address with the upstream's path
    (``http://127.0.0.1:PORT/v1``); ``bodies`` the (path, body) of each request, in order."""

    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        host, port = parts.hostname or "127.0.0.1", parts.port or 80
        self.bodies: list[tuple[str, bytes]] = []
        lock = threading.Lock()
        bodies = self.bodies

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:
                return  # quiet: the test's output is its figures

            def _forward(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                with lock:
                    bodies.append((self.path, body))
                headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP_BY_HOP}
                upstream_connection = http.client.HTTPConnection(host, port, timeout=600)
                try:
                    upstream_connection.request(self.command, self.path, body, headers)
                    answer = upstream_connection.getresponse()
                    self.send_response(answer.status)
                    for key, value in answer.getheaders():
                        if key.lower() not in _HOP_BY_HOP and key.lower() != "content-length":
                            self.send_header(key, value)
                    self.send_header("Transfer-Encoding", "chunked")
                    self.send_header("Connection", "close")
                    self.end_headers()
                    while piece := answer.read1(65536):
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                        self.wfile.flush()
                    self.wfile.write(b"0\r\n\r\n")
                    self.wfile.flush()
                finally:
                    upstream_connection.close()
                    self.close_connection = True

            do_GET = _forward  # noqa: N815
            do_POST = _forward  # noqa: N815

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        port_number = self._server.server_address[1]
        self.base_url = f"http://127.0.0.1:{port_number}{parts.path}"

    def chat_bodies(self) -> list[bytes]:
        """The bodies of the chat-completion requests so far, in order."""
        return [body for path, body in self.bodies if path.endswith("/chat/completions")]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(10)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def first_difference(before: bytes, after: bytes) -> int | None:
    """Where ``after`` stops starting with ``before``: the first byte offset at which they
    differ, or ``None`` when ``before`` is a prefix of ``after``."""
    for index, (a, b) in enumerate(zip(before, after, strict=False)):
        if a != b:
            return index
    return None if len(before) <= len(after) else len(after)
