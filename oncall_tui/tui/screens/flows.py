"""A screen whose actions run as flows: service calls off the UI thread, one at a time."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, ClassVar

from textual import work
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from oncall_tui.errors import OncallError
from oncall_tui.texts import text
from oncall_tui.tui.key_order import hold_keys_for
from oncall_tui.tui.widgets.dialogs import ErrorText
from oncall_tui.tui.widgets.lang import ui_lang

if TYPE_CHECKING:
    from oncall_tui.services.container import Services


class FlowScreen(Screen[None]):
    """Each action is a *flow*: an async function that awaits services in threads and may ask
    questions in dialogs. Only one flow runs at a time; an action started meanwhile rings the bell,
    and one that must not be lost (Esc) waits for the flow's end (:meth:`_when_idle`).
    Catalog errors are shown inline in the screen's :class:`ErrorText`."""

    ERROR_TEXT_ID: ClassVar[str] = "error"
    """The id of the screen's :class:`ErrorText` widget."""

    def __init__(self, services: Services) -> None:
        super().__init__()
        self._services = services
        self._lang = services.settings.lang
        self._busy = False
        self._when_done: Callable[[], object] | None = None
        """What to do once the running flow has reported (Esc pressed meanwhile)."""

    @property
    def busy(self) -> bool:
        """Whether a service call (or a question it depends on) is in progress."""
        return self._busy

    def _show_error(self, error: OncallError | None) -> None:
        message = None if error is None else error.message(self._lang)
        self.query_one(f"#{self.ERROR_TEXT_ID}", ErrorText).show_error(message)

    def _when_idle(self, action: Callable[[], object]) -> None:
        """Run ``action`` now, or (a flow running) once it has reported, if the screen is still
        the one on top then: a key such as Esc is kept, not lost with a bell."""
        if self._busy:
            self._when_done = action
        else:
            action()

    def _start(self, flow: Callable[[], Awaitable[None]]) -> None:
        if self._busy:
            self.app.bell()
            return
        self._busy = True
        hold_keys_for(self.app, self._run_flow(flow))  # the keys typed behind go where it leads

    @work(group="flows", exit_on_error=False)
    async def _run_flow(self, flow: Callable[[], Awaitable[None]]) -> None:
        try:
            await flow()
        finally:
            self._busy = False
            self._flow_finished()
            action, self._when_done = self._when_done, None
            if action is not None and self.app.screen is self:  # not under a dialog it opened
                self.call_later(action)

    def _flow_finished(self) -> None:
        """Called on the UI thread after every flow, successful or not."""

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            lang = ui_lang(self)
            self.notify(text("status.unexpected", lang, error=event.worker.error), severity="error")
