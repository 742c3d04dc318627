"""The main screen's session-memory actions: compact now, change the mode, read the summary."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual import on, work
from textual.message import Message
from textual.worker import Worker

from oncall_tui.core.memory import MemoryMode, MemoryState
from oncall_tui.errors import Language, OncallError
from oncall_tui.texts import text as t
from oncall_tui.tui.screens.session_actions import SessionActions
from oncall_tui.tui.widgets.context_panel import ContextPanel, mode_label

_MODES = list(MemoryMode)


def compacting_status(messages: int | None = None, lang: Language = "en") -> str:
    """The status line while the model summarises (``messages``: how many, when known)."""
    if messages is None:
        return t("memory.compacting", lang)
    return t("memory.compacting_count", lang, count=messages)


class MemoryActions(SessionActions):
    """Acts on the open session's memory, and is left alone while a reply streams. When the
    memory has changed it posts :class:`MemoryChanged`; the screen shows the session again."""

    class MemoryChanged(Message):
        def __init__(self, session_id: int) -> None:
            super().__init__()
            self.session_id = session_id

    session_id: int | None = None
    memory: MemoryState | None = None
    _sending: Worker[None] | None = None
    """The send in progress, if any: memory is left alone while a reply streams."""
    _memory_work: Worker[None] | None = None
    """The memory change in progress, if any (a compaction is a model call: one at a time)."""

    def _memory_call(
        self, call: Callable[[int], Awaitable[MemoryState]], working: str, done: str
    ) -> None:
        """Run ``call`` on the open session, saying ``working`` meanwhile and ``done`` after
        (or the error); not while a reply streams, and not twice at once."""
        session_id = self.session_id
        if session_id is None:  # nothing stored yet: the mode is chosen with the first message
            return
        if self._sending is not None:
            self._set_status(t("memory.busy_streaming", self.services.settings.lang), True)
            return
        if self._memory_work is not None and not self._memory_work.is_finished:
            self._set_status(t("memory.busy_changing", self.services.settings.lang), True)
            return
        self._set_status(working)
        self._memory_work = self._run_memory_call(session_id, call, done)

    @work(group="memory", exit_on_error=False)
    async def _run_memory_call(
        self, session_id: int, call: Callable[[int], Awaitable[MemoryState]], done: str
    ) -> None:
        try:
            await call(session_id)
        except OncallError as error:
            if session_id == self.session_id or error.code.startswith("DATABASE"):
                self.show_error(error)
            else:  # another session is open now: its status line is not for this one
                self.say_about(session_id, error.message(self.services.settings.lang), error=True)
            return
        self.say_about(session_id, done)
        self.post_message(self.MemoryChanged(session_id))

    def action_compact(self) -> None:
        lang = self.services.settings.lang
        if self.session_id is None:
            self.notify(t("memory.nothing_to_compact", lang))
            return
        owner = self.services.owner
        self._memory_call(
            lambda sid: self.services.memory.compact(owner, sid),
            compacting_status(lang=lang),
            t("memory.compacted_done", lang),
        )

    @on(ContextPanel.CompactPressed)
    def _compact_pressed(self) -> None:
        self.action_compact()

    @on(ContextPanel.ModeChosen)
    def _mode_chosen(self, event: ContextPanel.ModeChosen) -> None:
        if self.memory is not None and event.mode is self.memory.memory_mode:
            return
        self._set_mode(event.mode)

    def action_cycle_mode(self) -> None:
        if self.memory is not None:
            self._set_mode(_MODES[(_MODES.index(self.memory.memory_mode) + 1) % len(_MODES)])

    def _set_mode(self, mode: MemoryMode) -> None:
        """Save the mode; ``manual`` compacts first (a model call), so it asks before."""
        owner, lang = self.services.owner, self.services.settings.lang

        def save(sid: int) -> Awaitable[MemoryState]:
            return self.services.memory.set_mode(owner, sid, mode)

        done = t("memory.mode_done", lang, mode=mode_label(mode, lang))
        if mode is not MemoryMode.MANUAL or not (self.memory and self.memory.can_compact):
            self._memory_call(save, t("memory.saving_mode", lang), done)
            return
        from oncall_tui.tui.widgets.dialogs import ConfirmDialog

        def decided(yes: bool | None) -> None:
            if yes:
                self._memory_call(save, compacting_status(lang=lang), done)
            else:  # the panel's mode choice goes back to what it is
                self.query_one(ContextPanel).show_memory(self.memory)

        dialog = ConfirmDialog(t("memory.manual.title", lang), t("memory.manual.question", lang))
        self.app.push_screen(dialog, decided)

    def action_show_summary(self) -> None:
        from oncall_tui.tui.screens.summary import SummaryScreen

        self.app.push_screen(SummaryScreen(self.memory))
