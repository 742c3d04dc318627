"""A screen that calls services off the UI thread and reports in a status line."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from textual import on
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import OncallError
from oncall_tui.services.container import Services
from oncall_tui.tui.widgets.plain_text import PlainText

T = TypeVar("T")


class BackgroundScreen(Screen[None]):
    """Runs service calls in thread workers; catalog errors go to the ``#status`` line."""

    def __init__(self, services: Services) -> None:
        super().__init__()
        self.services = services

    def _in_thread(self, call: Callable[[], T], then: Callable[[T], object]) -> None:
        """Run ``call`` in a thread worker; ``then(result)`` runs on the UI thread."""

        def job() -> None:
            try:
                result = call()
            except OncallError as error:
                self.app.call_from_thread(self.show_error, error)
                return
            self.app.call_from_thread(then, result)

        self.run_worker(job, thread=True, exit_on_error=False, group="services")

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self._set_status(f"Unexpected error: {event.worker.error}", error=True)

    def show_error(self, error: OncallError) -> None:
        self._set_status(error.message(self.services.settings.lang), error=True)

    def _set_status(self, text: str, error: bool = False) -> None:
        status = self.query_one("#status", PlainText)
        status.show(terminal_safe(text))
        status.set_class(error, "-error")
