"""Full garbage collections wait while a reply streams, and nothing is frozen for good."""

from __future__ import annotations

import gc
import time
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from oncall_tui.tui.collector import QUIET_SECONDS, Collector
from tests.tui.harness import scripted_app


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only a full pass over its generation can free it


@pytest.fixture(autouse=True)
def _thaw() -> Iterator[None]:
    yield
    gc.unfreeze()


def test_a_stream_freezes_the_heap_so_its_full_passes_stay_short() -> None:
    gc.unfreeze()
    collector = Collector()
    collector.stream_started()
    assert gc.get_freeze_count() > 0  # what exists now is left out of full passes
    during = weakref.ref(Node())  # garbage made while streaming is still collected
    gc.collect()
    assert during() is None
    collector.stream_ended()
    assert collector.streams == 0


def quiet_collector() -> Collector:
    return Collector(last_activity=time.monotonic() - QUIET_SECONDS)


def test_garbage_frozen_by_a_stream_is_freed_by_the_next_tidy() -> None:
    collector = quiet_collector()
    node = Node()
    alive = weakref.ref(node)
    collector.stream_started()  # the cycle is frozen while still in use
    del node  # ... and becomes garbage
    gc.collect()
    assert alive() is not None  # a full pass does not visit frozen objects
    assert collector.tidy() is False  # never while a reply streams
    assert alive() is not None
    collector.stream_ended()
    assert collector.tidy() is False  # a reply that just ended is being read
    collector.last_activity -= QUIET_SECONDS
    assert collector.tidy() is True
    assert alive() is None
    assert gc.get_freeze_count() > 0  # what survived is frozen again
    assert collector.tidied == 1


def test_stream_counts_never_go_negative() -> None:
    collector = quiet_collector()
    collector.stream_ended()
    assert collector.streams == 0
    collector.stream_started()
    collector.stream_started()
    collector.stream_ended()
    collector.last_activity -= QUIET_SECONDS
    assert collector.tidy() is False  # one reply still streams
    collector.stream_ended()
    collector.last_activity -= QUIET_SECONDS
    assert collector.tidy() is True


def test_the_full_collection_waits_until_the_user_pauses() -> None:
    collector = quiet_collector()
    collector.note_activity()
    assert not collector.quiet
    assert collector.tidy() is False
    collector.last_activity -= QUIET_SECONDS
    assert collector.tidy() is True


async def test_keys_reach_the_collector_through_the_app(tmp_path: Path) -> None:
    app, _ = scripted_app(tmp_path / "t.db")
    async with app.run_test(size=(100, 30)) as pilot:
        app.collector.last_activity -= QUIET_SECONDS
        assert app.collector.quiet
        await pilot.press("a")
        assert not app.collector.quiet
