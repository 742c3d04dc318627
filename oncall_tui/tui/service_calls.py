"""The one way the TUI calls a service: off the UI's loop, in a worker, errors to one sink.

A service method is synchronous (its database work would block the loop), so it runs in a
thread (``asyncio.to_thread``) inside an async worker of the screen or pane that asked; what is
done with its result runs on the UI's loop after it. A catalog error goes to the caller's sink
(the main screen's status line, a dialog's inline error text); anything else is a fault, which
the app reports as unexpected (``exit_on_error=False``: the app never ends for it).

A *flow* (:meth:`ServiceCalls.flow`) is the asset screens' kind of action: an async function that
awaits several calls and may ask questions in dialogs; only one runs at a time, and the keys typed
behind the key that started it wait for where it leads (:func:`.key_order.hold_keys_for`).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import TypeVar

from textual.dom import DOMNode
from textual.worker import Worker

from oncall_tui.errors import OncallError
from oncall_tui.texts import text
from oncall_tui.tui.key_order import hold_keys_for
from oncall_tui.tui.widgets.lang import ui_lang

T = TypeVar("T")

Report = Callable[[OncallError], object]
"""Where a catalog error is said."""
Fault = Callable[[Exception], object]
"""Where anything else a call raises is said (a bug: the app goes on)."""


async def in_thread(call: Callable[[], T]) -> T:
    """``call()`` in a thread, awaited on the UI's loop."""
    return await asyncio.to_thread(call)


class ServiceCalls:
    """Service calls on behalf of ``node`` (a screen or a pane), catalog errors to ``report``,
    any other exception to ``fault`` (by default a notification that says it was unexpected)."""

    def __init__(self, node: DOMNode, report: Report, fault: Fault | None = None) -> None:
        self._node = node
        self._report = report
        self._fault = fault or self._notify_fault
        self._flow: Worker[None] | None = None
        self._when_done: Callable[[], object] | None = None

    def start(
        self,
        call: Callable[[], T],
        then: Callable[[T], object],
        *,
        group: str = "services",
        exclusive: bool = False,
        report: Report | None = None,
    ) -> Worker[None]:
        """Run ``call`` in a thread; ``then(result)`` (which may be a coroutine function) runs on
        the UI's loop after it. With ``exclusive``, a call of the same group still running is
        cancelled (a newer query replaces it). ``report`` takes this call's catalog errors in
        place of the caller's sink."""

        async def run() -> None:
            try:
                result = await in_thread(call)
                outcome = then(result)
                if inspect.isawaitable(outcome):
                    await outcome
            except OncallError as error:
                (report or self._report)(error)
            except Exception as exc:  # a bug: said, and the app goes on
                self._fault(exc)

        # The function, not a coroutine made of it: a worker the app cancels before it starts
        # (the app closing) would leave that coroutine never awaited.
        return self._node.run_worker(run, group=group, exclusive=exclusive, exit_on_error=False)

    def _notify_fault(self, exc: Exception) -> None:
        lang = ui_lang(self._node)
        self._node.app.notify(text("status.unexpected", lang, error=exc), severity="error")

    # -- flows ----------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        """Whether a flow (a service call, or a question it depends on) is in progress."""
        return self._flow is not None

    def flow(
        self, steps: Callable[[], Awaitable[object]], *, finished: Callable[[], object]
    ) -> None:
        """Run ``steps`` unless a flow is running (then the bell rings): a catalog error it lets
        out goes to ``report``; ``finished`` runs on the UI's loop after it, whatever happened."""
        if self._flow is not None:
            self._node.app.bell()
            return

        async def run() -> None:
            try:
                await steps()
            except OncallError as error:
                self._report(error)
            except Exception as exc:  # a bug: said, and the app goes on
                self._fault(exc)
            finally:
                self._flow = None
                finished()
                action, self._when_done = self._when_done, None
                if action is not None and self._node.app.screen is self._node:
                    self._node.call_later(action)  # not under a dialog the flow opened

        self._flow = self._node.run_worker(run, group="flows", exit_on_error=False)
        hold_keys_for(self._node.app, self._flow)  # the keys typed behind go where it leads

    def when_idle(self, action: Callable[[], object]) -> None:
        """Run ``action`` now, or (a flow running) once it has ended, if the screen is still the
        one on top then: a key such as Esc is kept, not lost with a bell."""
        if self._flow is not None:
            self._when_done = action
        else:
            action()
