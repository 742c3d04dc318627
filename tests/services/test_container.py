"""The services' parts are built on first use, one at a time in the process.

Two threads that imported the store at once (SQLAlchemy, whose modules import one another)
could each be handed the other's half-imported module: "cannot import name
'AdaptedConnection'" on the TUI's status line at start, when the sessions' first read, the
panel's and the model stack's warm-up (the first key typed) came together. In fresh processes
three such threads failed so in 15 runs of 20; a test process has the store imported already,
so this proves the rule that prevents it: a part's build waits for the one under way.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from oncall_tui.services.container import Services
from oncall_tui.settings import Settings
from oncall_tui.store import opening


def test_a_part_is_built_only_once_the_one_under_way_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = Services(Settings(db_path=tmp_path / "t.db", user="alice"))
    opening_now, go_on = threading.Event(), threading.Event()
    order: list[str] = []
    open_database = opening.open_database

    def held_open(*args: object, **kwargs: object) -> object:
        opening_now.set()
        assert go_on.wait(10)
        order.append("database built")
        return open_database(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(opening, "open_database", held_open)
    first = threading.Thread(target=lambda: services.database)
    first.start()
    assert opening_now.wait(10)
    second = threading.Thread(target=lambda: order.append(f"spool {services.spool.database}"))
    second.start()
    second.join(0.3)
    assert second.is_alive()  # waits for the database's build, though it needs none of it
    go_on.set()
    first.join(10)
    second.join(10)
    assert order[0] == "database built"
    assert order[1].startswith("spool ")
    assert services.database is services.database  # built once, then read without a lock
