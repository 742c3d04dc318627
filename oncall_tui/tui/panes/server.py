"""The model server's state, as the context panel and the first-start guide show it.

Asked once the first frame is up, after a model is picked, on alt+g (which also says the answer),
again while sends find the server away or without the model, and every :data:`RECHECK_SECONDS`
while it is away or lacks the model: the guide and the panel follow an ``ollama serve`` or an
``ollama pull`` run in another pane (they said "does not answer" until a key asked). A model the
server does not have is said on the status line too (the panel is folded away on small
screens). Sends do not wait on any of it: the chat service checks again before storing anything.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.notifications import SeverityLevel
from textual.worker import Worker

from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import OncallError
from oncall_tui.tui.commands import keys_here
from oncall_tui.tui.panes.part import StatusPart
from oncall_tui.tui.widgets.context_panel import ContextPanel, OllamaStatus
from oncall_tui.tui.widgets.lang import ui_lang
from oncall_tui.tui.widgets.status_line import StatusLine
from oncall_tui.tui.widgets.welcome import Welcome, readiness

if TYPE_CHECKING:
    from textual.timer import Timer

    from oncall_tui.services.container import Services

RECHECK_SECONDS = 5.0
"""How often a server that is away (or lacks the model) is asked again; none is asked while
it answers with the model."""


class ServerCheck(StatusPart):
    """Asks the model server, off the UI's loop, whether it answers and has the model; what it
    said last is :attr:`state`, shown on ``panel`` and on the guide ``welcome()`` gives."""

    def __init__(
        self,
        services: Services,
        panel: ContextPanel,
        welcome: Callable[[], Welcome],
        status: StatusLine,
    ) -> None:
        super().__init__(services, panel, status)
        self._panel = panel
        self._welcome = welcome
        settings = services.settings
        wording = services.server.wording
        self.state = OllamaStatus(settings.server_url, settings.model, wording=wording)
        self._again: Worker[None] | None = None
        """The check asked because a send found the server answering (one at a time)."""
        self._recheck: Timer | None = None
        """The next check, while the server is away or lacks the model."""

    def check(self, *, say: bool = False) -> Worker[None]:
        """Ask the server; ``say``: a notification says what it answered, even when the panel
        said the same already (the key was heard)."""
        services = self._services

        def probe() -> tuple[str | None, bool, OncallError | None]:
            try:
                version = services.server_version()
            except OncallError as error:
                return None, False, error if error.server_answered else None
            try:
                services.check_model()
            except OncallError as error:
                return version, error.code == "MODEL_NOT_FOUND", None
            return version, False, None

        def show(result: tuple[str | None, bool, OncallError | None]) -> None:
            version, missing, answer = result
            before, lang = self.state, ui_lang(self._panel)
            self.state = OllamaStatus(
                services.settings.server_url,
                services.settings.model,
                version is not None,
                str(version or ""),
                model_missing=missing,
                wording=services.server.wording,
                answer=answer,
            )
            self.show()
            if self.state.usable and before.usable is False:  # it was away: it is back
                self._status.server_back(*readiness(self.state, lang))
            if say:
                severity: SeverityLevel = "information" if self.state.usable else "warning"
                said = terminal_safe(self.state.describe(lang, keys_here(self._panel, "models")))
                self._panel.notify(said, severity=severity, markup=False)
            said_already = before.model_missing and before.model == self.state.model
            if missing and not said_already:  # said once: asked again, it stays said
                error = services.model_not_found()
                said = self._status.with_picker_keys(error.code, error.message(lang))
                if before.reachable is None:  # the first check, at start: beside what is said
                    self._status.say_also(said, error=True)
                else:
                    self._status.say(said, True, app_wide=True)
            elif not missing and before.model_missing:  # pulled since, or another picked
                self._status.say("")
            self._ask_again_later()

        self.show()
        return self._calls.start(probe, show)

    def send_found(self, answered: bool) -> None:
        """A send found the server away or without the model (``answered`` false): ask again,
        so the panel says what it found. It answered: if the panel said it was away, ask once
        more, so what the panel and the guide say follows."""
        if not answered:
            self.check()
        elif self.state.usable is not True and (self._again is None or self._again.is_finished):
            self._again = self.check()

    def _ask_again_later(self) -> None:
        if self._recheck is not None:
            self._recheck.stop()
            self._recheck = None
        if self.state.usable is not True:
            self._recheck = self._panel.set_timer(RECHECK_SECONDS, self.check)

    def show(self) -> None:
        self._panel.show_ollama(self.state)
        self._welcome().show_ollama(self.state)
