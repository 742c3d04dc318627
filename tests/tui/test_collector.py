"""Full garbage collections wait while a reply streams, and nothing is frozen for good."""

from __future__ import annotations

import gc
import time
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from oncall_tui.tui.collector import NO_FULL_PASS, QUIET_SECONDS, Collector
from tests.tui.harness import scripted_app


class Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only a full pass over its generation can free it


@pytest.fixture(autouse=True)
def _thaw() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def quiet_collector() -> Collector:
    return Collector(last_activity=time.monotonic() - QUIET_SECONDS)


def test_no_full_pass_from_a_reply_until_the_tidy_and_the_thresholds_come_back() -> None:
    before = gc.get_threshold()
    collector = quiet_collector()
    collector.stream_started()
    collector.stream_started()  # a second reply while the first is still being drawn
    young, middle, old = gc.get_threshold()
    assert (young, middle) == before[:2]  # the young generations run as usual
    assert old == NO_FULL_PASS
    during = weakref.ref(Node())  # garbage made while streaming is still collectable
    gc.collect()
    assert during() is None
    collector.stream_ended()
    collector.stream_ended()
    assert gc.get_threshold()[2] == NO_FULL_PASS  # held back while the reply is read
    collector.last_activity -= QUIET_SECONDS
    assert collector.tidy() is True
    assert gc.get_threshold() == before
    assert collector.streams == 0


def full_passes_while_allocating() -> int:
    """Full collections CPython runs by itself while a burst of cyclic objects is made."""
    before = gc.get_stats()[2]["collections"]
    keep = [[Node() for _ in range(50)] for _ in range(2_000)]
    assert keep
    return int(gc.get_stats()[2]["collections"] - before)


def test_young_collections_do_not_escalate_to_full_passes_while_streaming() -> None:
    """The heap is frozen after a tidy; CPython then escalates young collections to full
    passes over the unfrozen rest, which is what a stream must not meet."""
    gc.freeze()
    assert full_passes_while_allocating() > 0  # without the policy, they do
    collector = quiet_collector()
    collector.stream_started()
    try:
        assert full_passes_while_allocating() == 0
        collector.stream_ended()
        assert full_passes_while_allocating() == 0  # nor once it ends, until the tidy
    finally:
        collector.last_activity -= QUIET_SECONDS
        assert collector.tidy()


def test_the_tidy_frees_what_became_garbage_while_frozen_and_waits_for_quiet() -> None:
    collector = quiet_collector()
    node = Node()
    alive = weakref.ref(node)
    gc.freeze()  # as after an earlier tidy: the cycle is frozen while still in use
    del node  # ... and becomes garbage
    gc.collect()
    assert alive() is not None  # a full pass does not visit frozen objects
    collector.stream_started()
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
