"""The asset screens' one shape: the prompt editor and the skill library.

Each lists the user's assets (read from the configuration service) beside a detail or an
editor, shows catalog errors inline in its :class:`ErrorText`, and acts in *flows*
(:meth:`.ServiceCalls.flow`): async functions that await the services in threads and may ask
questions in dialogs, one at a time. An action started while a flow runs rings the bell; Esc
waits for the flow's end and then leaves, if the screen is still the one on top; the keys typed
behind the key that started a flow wait for where it leads. A catalog error a flow lets out is
shown in the error text; anything else is a fault, notified as unexpected.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar

from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.worker import Worker, WorkerState

from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import OncallError
from oncall_tui.services.views import ConfigurationView
from oncall_tui.texts import text
from oncall_tui.tui.service_calls import ServiceCalls, in_thread
from oncall_tui.tui.widgets.dialogs import ConfirmDialog, ErrorText
from oncall_tui.tui.widgets.lang import ui_lang

if TYPE_CHECKING:
    from oncall_tui.services.container import Services

P = ParamSpec("P")
T = TypeVar("T")


def delete_bindings(prefix: str) -> list[BindingType]:
    """ctrl+d and Delete: delete the asset at hand. ctrl+d also means "delete right" in a text
    field; here it always deletes the asset, which is safe because the screen asks first.
    Described by the catalog's ``PREFIX.key.delete`` (:func:`.key_texts`)."""
    description = text(f"{prefix}.key.delete", "en")  # the user's language per instance
    return [
        Binding("ctrl+d", "delete", description, id=f"{prefix}.delete", priority=True),
        Binding("delete", "delete", description, show=False),
    ]


class AssetScreen(Screen[None]):
    """A list of the user's assets and what is done with them, in flows (see the module)."""

    def __init__(self, services: Services) -> None:
        super().__init__()
        self._services = services
        self._lang = ui_lang(self)
        self._calls = ServiceCalls(self, self._show_error)

    @property
    def busy(self) -> bool:
        """Whether a service call (or a question it depends on) is in progress."""
        return self._calls.busy

    def quit_after_asking(self) -> bool:
        """ctrl+q: ``True`` when the screen has asked a question first (unsaved edits) and
        quits on its answer; ``False``, the app quits at once. A screen that holds nothing
        unsaved asks nothing."""
        return False

    def _show_error(self, error: OncallError | None) -> None:
        message = None if error is None else error.message(self._lang)
        self.query_one(ErrorText).show_error(message)  # the screen's one error line

    def _notify_done(self, message: str, *, timeout: float | None = 3) -> None:
        """Say what was done (``timeout`` ``None``: the app's default); names in it are the
        user's own text, shown as written."""
        self.notify(terminal_safe(message), markup=False, timeout=timeout)

    # -- flows -----------------------------------------------------------------------------

    def _start(self, flow: Callable[[], Awaitable[object]]) -> None:
        """Run ``flow``, unless one is running (then the bell rings)."""
        self._calls.flow(flow, finished=self._flow_finished)

    def _flow_finished(self) -> None:
        """Called on the UI thread after every flow, successful or not."""

    def action_back(self) -> None:
        """Esc: leave, once a running flow has ended (the key is kept, not lost with a bell)."""
        self._calls.when_idle(self._leave)

    def _leave(self) -> None:
        self.dismiss(None)  # dismissed, not awaited: this runs in the screen's own handler

    _apply: Callable[[ConfigurationView, int | None], None]
    """Each screen's: show a view, the assets and which of them are in use (the id: the one to
    put the cursor on, where the screen's list follows one)."""

    async def _call(
        self, method: Callable[Concatenate[str, P], T], *args: P.args, **kwargs: P.kwargs
    ) -> T:
        """``method(owner, *args, **kwargs)``, a service call for the screen's user, in a thread."""
        owner = self._services.owner
        return await in_thread(lambda: method(owner, *args, **kwargs))

    async def _fetch(self) -> ConfigurationView:
        owner, services = self._services.owner, self._services
        return await in_thread(lambda: services.configuration.get_configuration(owner))

    async def _reload(self, focus_id: int | None = None) -> None:
        """Read the configuration again and show it; a catalog error is shown, not raised."""
        try:
            view = await self._fetch()
        except OncallError as error:
            self._show_error(error)
            return
        self._apply(view, focus_id)

    async def _or_reload(self, call: Awaitable[T]) -> T:
        """``call``'s result; when it fails, what is stored is read again and shown (the
        screen's view of it may be stale) before its error goes on to the flow."""
        try:
            return await call
        except OncallError:
            await self._reload()
            raise

    async def _confirm_delete(self, title: str, question: str, yes_label: str) -> bool:
        dialog = ConfirmDialog(title, question, yes_label=yes_label, destructive=True)
        confirmed: bool = await self.app.push_screen_wait(dialog)
        return confirmed

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            lang = ui_lang(self)
            self.notify(text("status.unexpected", lang, error=event.worker.error), severity="error")
