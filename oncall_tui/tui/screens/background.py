"""A screen that calls services off the UI thread and reports in a status line.

The TUI calls services one way: in an async worker, awaiting a synchronous service method
through ``asyncio.to_thread`` (or an asynchronous one directly: those keep their database work
off the event loop themselves), then acting on the result on the UI's loop.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from textual import on, work
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import OncallError, note
from oncall_tui.texts import text
from oncall_tui.tui.messages import CannotGoOn
from oncall_tui.tui.widgets.plain_text import PlainText

if TYPE_CHECKING:
    from oncall_tui.services.container import Services

T = TypeVar("T")


class BackgroundScreen(Screen[None]):
    """Runs service calls in thread workers; catalog errors go to the ``#status`` line.

    The status line speaks of the session that is open: what is said of a session (a reply
    failed, memory compacted, exported to a file) goes when another session opens, and what
    a session's work says once that session is no longer open is a notification instead
    (:meth:`say_about`). What concerns the app (a database away, the model missing, the
    settings file's problems) is said whatever session is open (``app_wide``)."""

    session_id: int | None = None
    """The open session (``None``: a new one, not stored yet)."""

    def __init__(self, services: Services) -> None:
        super().__init__()
        self.services = services
        self.database_away = False
        """The status line says the database is away (until a call reaches it again)."""
        self._status_about: int | None = None
        """The session the status line speaks of, unless it speaks of the app."""
        self._status_app_wide = True
        """The status line says something of the app (or nothing)."""

    def _in_thread(self, call: Callable[[], T], then: Callable[[T], object]) -> Worker[None]:
        """Run ``call`` in a thread; ``then(result)`` runs on the UI's loop after it."""
        return self._call_service(call, then)

    @work(group="services", exit_on_error=False)
    async def _call_service(self, call: Callable[[], T], then: Callable[[T], object]) -> None:
        try:
            result = await asyncio.to_thread(call)
        except OncallError as error:
            if error.code == "DATABASE_UNAVAILABLE" and not self.services.database_opened:
                self.app.post_message(CannotGoOn(error))  # nothing works without it: say why
            else:  # a server gone for a while: say it, keep what was typed, try again later
                self.show_error(error)
            return
        outcome = then(result)
        if inspect.isawaitable(outcome):
            await outcome

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            lang = self.services.settings.lang
            message = text("status.unexpected", lang, error=event.worker.error)
            self._set_status(message, error=True, app_wide=True)

    def show_error(self, error: OncallError) -> None:
        """The error on the status line; a database that is away says too that the answers it
        did not take are kept (the status line is the one place sure to be seen)."""
        lang = self.services.settings.lang
        message = error.message(lang)
        database = error.code in ("DATABASE_UNAVAILABLE", "DATABASE_BUSY")
        if database:
            self.database_away = True
            if self.services.has_held():
                message = f"{message.rstrip('.')}. {note('reply_held', lang)}"
        self._set_status(message, error=True, app_wide=database)

    def database_answered(self) -> None:
        """A call reached the database: a status line that says it is away is said no more."""
        if self.database_away:
            self.database_away = False
            self._set_status("")

    def show_warning(self, text: str) -> None:
        self._set_status(text, error=True, app_wide=True)

    def say_about(self, session_id: int | None, text: str, *, error: bool = False) -> None:
        """Say ``text`` of session ``session_id``: on the status line while it is open, else
        as a notification, which names no other session's work on this one's line."""
        if session_id == self.session_id:
            self._set_status(text, error)
        else:
            shown = terminal_safe(text)
            if error:
                self.notify(shown, severity="error", markup=False, timeout=8)
            else:
                self.notify(shown, markup=False, timeout=8)

    def forget_status(self, opening: int | None, *, keep: bool) -> None:
        """A session opens: the status line stops speaking of any other, and of this one too
        unless ``keep`` (a reopening that keeps what an action said of it)."""
        if self._status_app_wide:
            return
        if not keep or self._status_about != opening:
            self._set_status("")

    def save_preference(self, name: str, value: str) -> None:
        """Keep a choice (a theme) in the settings file, off the UI's loop; a file that must not
        be overwritten is said on the status line."""
        self._in_thread(lambda: self.services.save_preference(name, value), lambda _: None)

    def _set_status(self, text: str, error: bool = False, *, app_wide: bool = False) -> None:
        """Say ``text`` on the status line, of the open session unless ``app_wide``."""
        status = self.query_one("#status", PlainText)
        status.show(terminal_safe(text))
        status.set_class(error, "-error")
        self._status_about = self.session_id
        self._status_app_wide = app_wide or not text
