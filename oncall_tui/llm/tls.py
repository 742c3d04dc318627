"""The TLS context every HTTP client of the app verifies servers with, loaded once.

httpx loads the certificate authorities for each client it builds: about 45 ms of CPU, paid
twice by a chat model (its sync and its async client) and once by every listing or readiness
check, even against a plain-HTTP server on the loopback. An SSL context is made to be shared;
each client still keeps its own connections.
"""

from __future__ import annotations

import ssl
from functools import cache
from typing import Any

import httpx


@cache
def tls_context() -> ssl.SSLContext:
    """httpx's own default context (its certificate bundle; ``SSL_CERT_FILE`` and
    ``SSL_CERT_DIR`` honoured), made once per process."""
    return httpx.create_ssl_context()


def http_client(**options: Any) -> httpx.Client:
    """An httpx client that verifies with :func:`tls_context` (``options`` as httpx takes
    them): the app's own metadata calls build theirs here."""
    return httpx.Client(verify=tls_context(), **options)
