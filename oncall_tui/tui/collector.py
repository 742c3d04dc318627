"""When the garbage collector may make a full pass: when nobody is waiting on the screen.

CPython's full collection walks every tracked object and stops the event loop while it does:
over a hundred milliseconds for this app's heap once a long reply has been read. The young
generations are cheap and run as usual. What this module moves is the full pass:

- from the start of a reply there is none: the oldest generation's threshold is raised out of
  reach. (Freezing the heap instead is not enough: with the frozen objects left out of its
  count, CPython then runs a full pass over the rest every tenth young collection, 15 to 30
  ms each mid-stream.)
- once things are quiet (no reply streaming or being drawn, no key or click for
  :data:`QUIET_SECONDS`), one full collection runs over everything, unfrozen first so that
  frozen objects that have since become garbage (widgets of a closed session, say) are freed,
  and the survivors are frozen so that later full passes skip them. Only then is the
  threshold restored: restored as the reply ends, it would let the next young collection
  escalate at once into the full pass it was holding back (140 ms, as the reader starts).
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field

QUIET_SECONDS = 2.0
"""The full collection waits for this long without input: its pause then meets no keystroke."""
NO_FULL_PASS = 1 << 30
"""The oldest generation's threshold while a reply streams: never reached."""


@dataclass
class Collector:
    streams: int = 0
    """Replies streaming (or still being drawn) now; no full pass while any is."""
    tidied: int = 0
    last_activity: float = field(default_factory=time.monotonic)
    _threshold: tuple[int, int, int] | None = None
    """The thresholds to restore at the next tidy, while full passes are held back."""

    def note_activity(self) -> None:
        self.last_activity = time.monotonic()

    @property
    def quiet(self) -> bool:
        return not self.streams and time.monotonic() - self.last_activity >= QUIET_SECONDS

    def stream_started(self) -> None:
        if self._threshold is None:
            young, middle, old = gc.get_threshold()
            self._threshold = (young, middle, old)
            gc.set_threshold(young, middle, NO_FULL_PASS)
        self.streams += 1

    def stream_ended(self) -> None:
        self.streams = max(0, self.streams - 1)
        self.note_activity()  # the reply just ended: someone is reading it

    def tidy(self) -> bool:
        """One full collection, then freeze the survivors and let CPython make its own full
        passes again; skipped (False) unless quiet."""
        if not self.quiet:
            return False
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        if self._threshold is not None:
            gc.set_threshold(*self._threshold)
            self._threshold = None
        self.tidied += 1
        return True
