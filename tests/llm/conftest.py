from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from tests.fakes import FakeOllama


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        yield fake


@pytest.fixture
def closed_url() -> str:
    """A loopback address nothing listens on: connecting is refused at once."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"
