"""The main screen's session-memory actions: compact now, change the mode, read the summary."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from textual import on, work
from textual.message import Message
from textual.worker import Worker

from oncall_tui.core.memory import MemoryMode, MemoryState
from oncall_tui.errors import OncallError
from oncall_tui.tui.screens.background import BackgroundScreen
from oncall_tui.tui.widgets.context_panel import ContextPanel

_MODES = list(MemoryMode)


class MemoryActions(BackgroundScreen):
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

    def _memory_call(self, call: Callable[[int], Awaitable[MemoryState]]) -> None:
        session_id = self.session_id
        if session_id is None or self._sending is not None:
            return
        self._set_status("Working on the session memory…")
        self._run_memory_call(session_id, call)

    @work(group="memory", exit_on_error=False)
    async def _run_memory_call(
        self, session_id: int, call: Callable[[int], Awaitable[MemoryState]]
    ) -> None:
        try:
            await call(session_id)
        except OncallError as error:
            self.show_error(error)
            return
        self._set_status("")
        self.post_message(self.MemoryChanged(session_id))

    def action_compact(self) -> None:
        owner = self.services.owner
        self._memory_call(lambda sid: self.services.memory.compact(owner, sid))

    @on(ContextPanel.CompactPressed)
    def _compact_pressed(self) -> None:
        self.action_compact()

    @on(ContextPanel.ModeChosen)
    def _mode_chosen(self, event: ContextPanel.ModeChosen) -> None:
        if self.memory is not None and event.mode is self.memory.memory_mode:
            return
        owner = self.services.owner
        self._memory_call(lambda sid: self.services.memory.set_mode(owner, sid, event.mode))

    def action_cycle_mode(self) -> None:
        if self.memory is not None:
            mode = _MODES[(_MODES.index(self.memory.memory_mode) + 1) % len(_MODES)]
            owner = self.services.owner
            self._memory_call(lambda sid: self.services.memory.set_mode(owner, sid, mode))

    def action_show_summary(self) -> None:
        from oncall_tui.tui.screens.summary import SummaryScreen

        self.app.push_screen(SummaryScreen(self.memory))
