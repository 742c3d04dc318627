"""Running the engine's database steps off the caller's event loop.

The async service methods (a send, a retry, a compaction, a mode change) are awaited on a
client's event loop, a UI's among them; SQLite blocks, for up to the busy timeout when another
writer holds the lock. So each synchronous step, one short unit of work, runs in a worker
thread (SQLite connections here may be used from any thread), and no unit of work is held open
across an ``await``.

A step that writes must not be lost to a cancellation (Esc, Ctrl-C, a closing terminal): the
partial reply it stores is the point of the cancellation. :func:`completed_in_thread` waits for
such a step to finish even when the awaiting task is cancelled meanwhile, and only then lets
the cancellation go on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


async def completed_in_thread(step: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``step(*args, **kwargs)`` in a worker thread, awaited to its end.

    A cancellation of the awaiting task while the step runs does not abandon it: the step
    finishes (its transaction commits or rolls back as it would have), then
    ``CancelledError`` is raised. An error of the step itself is raised as it is."""
    future = asyncio.ensure_future(asyncio.to_thread(step, *args, **kwargs))
    cancelled = False
    while True:
        try:
            result = await asyncio.shield(future)
        except asyncio.CancelledError:
            if future.done():  # the step's own task was cancelled: the loop is going away
                raise
            cancelled = True  # the caller was: wait for the step, then pass it on
            continue
        if cancelled:
            raise asyncio.CancelledError
        return result
