from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes import FakeOllama


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama() as fake:
        yield fake
