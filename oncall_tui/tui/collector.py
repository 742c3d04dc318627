"""When the garbage collector may make a full pass: when nobody is waiting on the screen.

CPython's full collection walks every tracked object and stops the event loop while it does:
over a hundred milliseconds for this app's heap once a long reply has been read. The young
generations are cheap and run as usual. What this module moves is the full pass:

- a reply freezes what exists when it starts (``gc.freeze``), and on a short timer what it has
  made since, so the full passes that run during it only visit recent objects;
- once things are quiet (no reply streaming or ending, no key or click for
  :data:`QUIET_SECONDS`), one
  full collection runs over everything, unfrozen first so that frozen objects that have since
  become garbage (widgets of a closed session, say) are freed, and the survivors are frozen
  again.
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field

QUIET_SECONDS = 2.0
"""The full collection waits for this long without input: its pause then meets no keystroke."""


@dataclass
class Collector:
    streams: int = 0
    """Replies streaming now; the tidy waits while any is."""
    tidied: int = 0
    last_activity: float = field(default_factory=time.monotonic)

    def note_activity(self) -> None:
        self.last_activity = time.monotonic()

    @property
    def quiet(self) -> bool:
        return not self.streams and time.monotonic() - self.last_activity >= QUIET_SECONDS

    def stream_started(self) -> None:
        gc.freeze()
        self.streams += 1

    def stream_ended(self) -> None:
        self.streams = max(0, self.streams - 1)
        self.note_activity()  # the reply just ended: someone is reading it

    def settle(self) -> None:
        """While streaming, on a timer: what the stream made so far leaves the full passes
        (until the next tidy, which visits everything)."""
        if self.streams:
            gc.freeze()

    def tidy(self) -> bool:
        """One full collection, then freeze the survivors; skipped (False) unless quiet."""
        if not self.quiet:
            return False
        gc.unfreeze()
        gc.collect()
        gc.freeze()
        self.tidied += 1
        return True
