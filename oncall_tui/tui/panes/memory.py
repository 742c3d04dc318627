"""The open session's memory, as the context panel shows it and acts on it: the selection and
the gauge read again, compact now, change the mode, read the summary. Left alone while a reply
streams; one change at a time (a compaction is a model call)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

from textual.message import Message
from textual.widget import Widget
from textual.worker import Worker

from oncall_tui.core.memory import ContextUsage, MemoryMode, MemoryState
from oncall_tui.errors import Language, OncallError, joined
from oncall_tui.texts import text as t
from oncall_tui.tui.commands import keys_here
from oncall_tui.tui.panes.part import StatusPart
from oncall_tui.tui.widgets.context_panel import ContextPanel, mode_label
from oncall_tui.tui.widgets.lang import ui_lang
from oncall_tui.tui.widgets.status_line import StatusLine
from oncall_tui.tui.widgets.typing_on import composer_of

if TYPE_CHECKING:
    from oncall_tui.services.container import Services
    from oncall_tui.tui.widgets.typing_on import TypingField

_MODES = list(MemoryMode)
PanelReading = tuple[str, list[str], MemoryState | None, ContextUsage | None]
"""The active prompt's label, the selected skills' names, the session's memory, and a new
session's gauge."""


def compacting_status(messages: int | None, lang: Language, stop_keys: str) -> str:
    """The status line while the model summarises (``messages``: how many, when known), and
    the keys that stop it (Esc stops f9's compaction, and a send's with the send)."""
    if messages is None:
        working = t("memory.compacting", lang)
    else:
        working = t("memory.compacting_count", lang, count=messages)
    return joined(lang, working, t("memory.stop_hint", lang, keys=stop_keys))


class MemoryChanged(Message):
    """The memory of ``session_id`` changed: the screen shows the session again."""

    def __init__(self, session_id: int) -> None:
        super().__init__()
        self.session_id = session_id


class SessionMemory(StatusPart):
    """The memory of the main screen's panel (``panel``) and its actions, said on ``status``.

    ``streaming`` tells whether a reply streams (memory is left alone then). The memory shown is
    :attr:`state`, read again (:meth:`read`) each time the screen shows the open session."""

    def __init__(
        self,
        services: Services,
        panel: ContextPanel,
        status: StatusLine,
        streaming: Callable[[], bool],
    ) -> None:
        super().__init__(services, panel, status)
        self._panel = panel
        self._streaming = streaming
        self.state: MemoryState | None = None
        self._work: Worker[None] | None = None
        self._summarising: Worker[None] | None = None
        """The work under way when it has the model summarise (Esc stops it; a mode being
        saved is left to finish)."""

    def read(self, session_id: int | None) -> None:
        """Read the selection (the active prompt, the selected skills) and ``session_id``'s
        memory into the panel, with the gauge (a new session's: its first request without the
        message); what comes for a session no longer open is left unshown."""
        services, owner = self._services, self._services.owner

        def fetch() -> PanelReading:
            configuration = services.configuration.get_configuration(owner)
            names = [skill.name for skill in configuration.selected_skills]
            memory = None
            if session_id is not None:
                try:
                    memory = services.memory.state(owner, session_id)
                except OncallError as error:  # deleted elsewhere: the listing closes it
                    if error.code != "NOT_FOUND":
                        raise
            baseline = services.memory.baseline(owner) if memory is None else None
            return configuration.active_prompt.label, names, memory, baseline

        def show(result: PanelReading) -> None:
            if self._status.open_session != session_id:  # the read of the one open shows it
                return
            label, names, memory, baseline = result
            self._panel.show_selection(label, names)
            self.state = memory
            self._panel.show_memory(memory)
            if baseline is not None:
                self._panel.gauge.update_usage(
                    baseline.context_tokens, baseline.context_window_tokens
                )

        def unread(error: OncallError) -> None:
            """Not read (the database is away): the gauge shows no figure rather than the
            session before's, which stood under a new session's empty page."""
            if self._status.open_session == session_id:
                self.state = None
                self._panel.gauge.update_usage(0, 0)
            self._status.report(error)

        self._calls.start(fetch, show, report=unread)

    def compact(self) -> None:
        session_id, lang = self._status.open_session, ui_lang(self._panel)
        if session_id is None:
            self._panel.notify(t("memory.nothing_to_compact", lang))
            return
        owner = self._services.owner
        self._call(
            lambda sid: self._services.memory.compact(owner, sid),
            t("memory.compacted_done", lang, keys=keys_here(self._panel, "show_summary")),
        )

    def stop(self) -> bool:
        """Esc: stop a compaction under way (the model call ends; a summary being stored at
        that moment is stored, and the screen reads the session again); ``False`` if none
        runs."""
        if self._summarising is None or self._summarising.is_finished:
            return False
        self._summarising.cancel()
        return True

    def cycle_mode(self, step: int = 1) -> None:
        """Store the mode after the session's (``step`` -1: the one before)."""
        if self.state is not None:
            self.set_mode(_MODES[(_MODES.index(self.state.memory_mode) + step) % len(_MODES)])

    def set_mode(self, mode: MemoryMode) -> None:
        """Save the mode; ``manual`` compacts first (a model call), so it asks before."""
        owner, lang = self._services.owner, ui_lang(self._panel)

        def save(sid: int) -> Awaitable[MemoryState]:
            return self._services.memory.set_mode(owner, sid, mode)

        done = t("memory.mode_done", lang, mode=mode_label(mode, lang))
        if mode is not MemoryMode.MANUAL or not (self.state and self.state.can_compact):
            self._call(save, done, working=t("memory.saving_mode", lang))
            return
        from oncall_tui.tui.widgets.dialogs import ConfirmDialog

        def decided(yes: bool | None) -> None:
            if yes:
                self._call(save, done)

        question = t("memory.manual.question", lang, keys=keys_here(self._panel, "compact"))
        typing_to = composer_of(self._panel)
        dialog = ConfirmDialog(t("memory.manual.title", lang), question, typing_to=typing_to)
        self._panel.app.push_screen(dialog, decided)

    def show_summary(self, typing_to: TypingField) -> None:
        """The summary over the chat; ``typing_to`` takes what is typed or pasted there (the
        composer)."""
        from oncall_tui.tui.screens.summary import SummaryScreen

        self._panel.app.push_screen(SummaryScreen(self.state, typing_to))

    def _call(
        self,
        call: Callable[[int], Awaitable[MemoryState]],
        done: str,
        *,
        working: str | None = None,
    ) -> None:
        """Run ``call`` on the open session, saying ``working`` meanwhile (``None``: that the
        model summarises, which Esc stops) and ``done`` after (or the error); not while a
        reply streams, and not twice at once."""
        session_id, lang = self._status.open_session, ui_lang(self._panel)
        if session_id is None:  # nothing stored yet: the mode is chosen with the first message
            return
        if self._streaming():
            self._status.say(t("memory.busy_streaming", lang), True)
            return
        if self._work is not None and not self._work.is_finished:
            self._status.say(t("memory.busy_changing", lang), True)
            return
        stop_keys = keys_here(self._panel, "cancel_reply", first=True)
        self._status.say(compacting_status(None, lang, stop_keys) if working is None else working)
        panel = self._panel

        summarising = working is None

        async def run() -> None:  # the function: a worker cancelled unstarted leaves no coroutine
            await self._run(panel, session_id, call, done, summarising=summarising)

        self._work = panel.run_worker(run, group="memory", exit_on_error=False)
        self._summarising = self._work if summarising else None

    async def _run(
        self,
        node: Widget,
        session_id: int,
        call: Callable[[int], Awaitable[MemoryState]],
        done: str,
        *,
        summarising: bool,
    ) -> None:
        try:
            await call(session_id)
        except OncallError as error:
            database = error.code.startswith("DATABASE")
            if session_id == self._status.open_session or database:
                # a summary the database did not take is lost: said, since the line that says
                # the database is away goes once it is back
                lost = database and summarising
                also = t("memory.summary_not_stored", ui_lang(node)) if lost else ""
                self._status.show_error(error, also=also)
            else:  # another session is open now: its status line is not for this one
                message = error.message(ui_lang(node))
                self._status.say_about(session_id, message, error=True)
            return
        except Exception as exc:  # a bug: said, and the app goes on
            self._status.show_fault(exc)
            return
        except asyncio.CancelledError:  # Esc (:meth:`stop`), or the app is going
            if node.is_attached:
                self._status.say_about(session_id, t("memory.stopped", ui_lang(node)))
                node.post_message(MemoryChanged(session_id))
            raise
        self._status.say_about(session_id, done)
        node.post_message(MemoryChanged(session_id))
