"""When the garbage collector may make a full pass: not while a reply streams.

CPython's full collection walks every tracked object and stops the event loop while it does:
tens of milliseconds for the app's heap, more as it grows. The young generations are cheap
and keep running. What this module moves is the full pass:

- while a reply streams, full collections are held back (their threshold is raised);
- once things are quiet (start-up done, a reply finished), one full collection runs, and what
  survives it is frozen out of later passes (``gc.freeze``), so that a full pass that does run
  only visits what was created since.

Each tidy first unfreezes: objects frozen earlier that have since become garbage in cycles
(widgets of a closed session, say) are found and freed, never kept for the process's life.
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field

STREAMING_FULL_THRESHOLD = 1_000_000
"""Young collections between full ones while streaming (CPython's default is 10)."""


@dataclass
class Collector:
    streams: int = 0
    """Replies streaming now; full collections wait while any is."""
    tidied: int = 0
    last_tidy_ms: float = 0.0
    _thresholds: tuple[int, int, int] | None = field(default=None, repr=False)

    def stream_started(self) -> None:
        gc.freeze()
        self.streams += 1

    def stream_ended(self) -> None:
        self.streams = max(0, self.streams - 1)

    def tidy(self) -> bool:
        """One full collection, then freeze the survivors; skipped (False) while streaming."""
        if self.streams:
            return False
        start = time.perf_counter()
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.tidied += 1
        self.last_tidy_ms = (time.perf_counter() - start) * 1000
        return True
