"""How long the model picker waits for its list and for the details, with many models.

Starts a loopback Ollama with ``--models`` installed models whose ``/api/show`` answers after
``--show-ms`` (a real server reads each model's file header to answer: a few to tens of
milliseconds, more on a cold disk), then times, medians of ``--runs``:

- the listing (``/api/tags``, one request): what the picker shows first;
- the details (``/api/show`` for every model) as the service asks them, a few at a time over
  one shared client, against one at a time, and against a client set up per request.

Prints figures; asserts nothing.

    python bench/model_catalog.py [--models 30] [--show-ms 0 25 100] [--runs 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from oncall_tui.llm.gateway import gateway_for  # noqa: E402
from oncall_tui.llm.ollama_api import OllamaApi  # noqa: E402
from oncall_tui.services import models as catalog  # noqa: E402
from oncall_tui.services.views import ModelInfo  # noqa: E402
from oncall_tui.settings import Settings  # noqa: E402
from tests.fakes.ollama_server import FakeModel, FakeOllama  # noqa: E402


def median_ms(call: Callable[[], object], runs: int) -> float:
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def one_client_per_request(settings: Settings, models: list[ModelInfo]) -> None:
    """Every ``/api/show`` sets up its own client, one after the other (the old way)."""
    api = OllamaApi(settings.ollama_url, timeout=catalog.SHOW_TIMEOUT)
    for model in models:
        api.show(model.name)


def row(show_ms: float, count: int, runs: int) -> str:
    """One table row: the listing and the three ways of getting the details, in ms."""
    fakes = [FakeModel(f"model-{i:02}:7b", show_delay=show_ms / 1000) for i in range(count)]
    with FakeOllama(models=fakes) as server, tempfile.TemporaryDirectory() as scratch:
        database = Path(scratch) / "unused.db"
        settings = Settings(db_path=database, user="bench", ollama_url=server.url)
        gateway = gateway_for(settings)
        listed = catalog.list_models(gateway)
        listing = median_ms(lambda: catalog.list_models(gateway), runs)
        parallel = median_ms(lambda: catalog.describe_models(gateway, listed), runs)
        concurrency = catalog.SHOW_CONCURRENCY
        catalog.SHOW_CONCURRENCY = 1
        try:
            serial = median_ms(lambda: catalog.describe_models(gateway, listed), runs)
        finally:
            catalog.SHOW_CONCURRENCY = concurrency
        old = median_ms(lambda: one_client_per_request(settings, listed), runs)
    return f"| {show_ms:.0f} ms | {listing:.0f} | {parallel:.0f} | {serial:.0f} | {old:.0f} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", type=int, default=30)
    parser.add_argument("--show-ms", type=float, nargs="+", default=[0.0, 25.0, 100.0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"{args.models} models, medians of {args.runs} runs, ms")
    print("| /api/show takes | listing | details, 4 at a time | 1 at a time | client per call |")
    print("|---|---|---|---|---|")
    for show_ms in args.show_ms:
        print(row(show_ms, args.models, args.runs))


if __name__ == "__main__":
    main()
