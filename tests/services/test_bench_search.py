"""The search bench measures real searches: its database is filled through the store (so the
index triggers ran), and every query it times but the no-match one finds something."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from oncall_tui.services.container import Services
from oncall_tui.settings import Settings

BENCH = Path(__file__).resolve().parents[2] / "bench" / "search.py"


def load_bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("search_bench", BENCH)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_timed_query_but_no_match_finds_messages_of_the_bench_owner_only(
    tmp_path: Path,
) -> None:
    bench = load_bench()
    services = Services(Settings(db_path=tmp_path / "bench.db", user=bench.OWNER))
    try:
        bench.fill(services.database, 20, 100, seed=3)
        for label, query in bench.QUERIES:
            timings, hits = bench.time_query(services, query, 2)
            assert len(timings) == 2
            if label == "no match":
                assert hits == 0
            elif label != "rare word":  # a handful in 100,000; maybe none in 2,000
                assert hits > 0, label
        other = services.search.search(bench.OTHER, "error")
        assert other != []
        assert {hit.session_id for hit in other}.isdisjoint(
            hit.session_id for hit in services.search.search(bench.OWNER, "error")
        )
    finally:
        services.close()


def test_the_copy_without_the_index_stores_what_the_search_does_not_see(tmp_path: Path) -> None:
    bench = load_bench()
    indexed, bare = tmp_path / "indexed.db", tmp_path / "bare.db"
    Services(Settings(db_path=indexed, user=bench.OWNER)).database.close()
    bench.without_index(indexed, bare)
    for path in (indexed, bare):
        assert bench.time_inserts(path, 3) > 0
    found: dict[Path, int] = {}
    for path in (indexed, bare):
        services = Services(Settings(db_path=path, user=bench.OWNER))
        try:
            found[path] = len(services.search.search(bench.OWNER, "insert timing"))
            assert len(services.sessions.messages(bench.OWNER, 1)) == 3
        finally:
            services.close()
    assert found == {indexed: 1, bare: 0}
