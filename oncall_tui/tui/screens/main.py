"""The main screen: sessions on the left, the chat in the centre, the context panel on the right.

Every service call runs in a thread worker and reports back on the UI thread; a send runs
through :class:`ChatRunner`. Text typed in the composer is cleared only once the service has
stored it, so a rejected send (95% limit, Ollama down, bad input) leaves it where it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import Footer

from oncall_tui.core.events import (
    ChatEvent,
    CompactionFailed,
    ContextLimitReached,
    MemoryCompacted,
    ReplyDone,
    ReplyFailed,
    TokenDelta,
    ToolFinished,
    ToolStarted,
    ToolsUnavailable,
    UsageReported,
    UserMessageStored,
)
from oncall_tui.core.memory import ContextUsage, MemoryState
from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import OncallError
from oncall_tui.services.sessions import MessageView, SessionView
from oncall_tui.tui.collector import Collector
from oncall_tui.tui.runner import ChatEventsArrived, ChatRunner, SendEnded
from oncall_tui.tui.screens.memory_actions import MemoryActions
from oncall_tui.tui.widgets.chat_log import ChatLog
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.context_panel import ContextPanel, OllamaStatus
from oncall_tui.tui.widgets.message import MessageBlock
from oncall_tui.tui.widgets.plain_text import PlainText
from oncall_tui.tui.widgets.session_list import SessionList

if TYPE_CHECKING:
    from oncall_tui.services.container import Services

PAGE_SIZE = 40
TIDY_SECONDS = 1.0
"""A full garbage collection runs this long after start-up or a reply, not during either."""


class MainScreen(MemoryActions):
    AUTO_FOCUS = "#composer"
    BINDINGS = [
        Binding("escape", "cancel_reply", "Cancel"),
        Binding("ctrl+n", "new_session", "New"),
        Binding("f2", "rename_session", "Rename", show=False),
        Binding("f8", "delete_session", "Delete", show=False),
        Binding("f9", "compact", "Compact"),
        Binding("f3", "app.prompts", "Prompts"),
        Binding("f4", "app.skills", "Skills"),
        Binding("f5", "app.models", "Model"),
        Binding("f6", "show_summary", "Summary", show=False, priority=True),
        Binding("f7", "cycle_mode", "Memory mode", show=False, priority=True),
        Binding("ctrl+b", "toggle_panel", "Panel"),
        Binding("ctrl+f", "find_session", "Find", show=False),
        Binding("ctrl+up", "load_earlier", "Earlier", show=False),
        Binding("ctrl+r", "retry", "Retry", show=False),
    ]

    def __init__(self, services: Services, collector: Collector, draft: str = "") -> None:
        super().__init__(services)
        self._draft = draft
        self.session_id: int | None = None
        self.memory: MemoryState | None = None
        self.ollama = OllamaStatus(services.settings.ollama_url, services.settings.model)
        self._runner: ChatRunner | None = None
        self._reply: MessageBlock | None = None
        self._oldest_loaded: int | None = None
        self.collector = collector
        self._tidy_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        with Horizontal(id="panes"):
            yield SessionList(id="sessions")
            with Vertical(id="centre"):
                yield ChatLog(id="chat-log")
                yield PlainText(id="status")
                yield Composer(id="composer")
            yield ContextPanel(id="context")
        yield Footer()

    def on_mount(self) -> None:
        if self.app.size.width < 100:  # 80 columns: chat first; ctrl+b brings the panel back
            self.query_one(ContextPanel).display = False
        composer = self.query_one(Composer)
        if self._draft:
            composer.text = self._draft
            composer.move_cursor(composer.document.end)
        composer.focus()
        self.load_sessions(open_newest=True)
        self.check_ollama()
        self._tidy_soon()

    def load_sessions(self, *, open_newest: bool = False, select: int | None = None) -> None:
        """Refresh the sessions list; ``open_newest`` opens the most recent one, unless the user
        has started a session (or a send) since the request was made."""
        started = self.session_id

        def done(sessions: list[SessionView]) -> None:
            listing = self.query_one(SessionList)
            listing.sessions = tuple(sessions)
            user_moved_on = self._runner is not None or self.session_id != started
            target = select
            if open_newest and listing.sessions and not user_moved_on:
                target = listing.sessions[0].id
            if target is not None:
                self.open_session(target, keep_status=open_newest)
            elif open_newest and not user_moved_on:
                self.open_session(None, keep_status=True)

        self._in_thread(lambda: self.services.sessions.list_sessions(self.services.owner), done)

    def open_session(self, session_id: int | None, *, keep_status: bool = False) -> None:
        """Show a session's newest page at once; the gauge follows when it is computed."""
        self.session_id = session_id
        self.query_one(SessionList).current = session_id
        if not keep_status:
            self._set_status("")
        owner = self.services.owner

        def fetch() -> tuple[list[MessageView], int, int]:
            if session_id is None:
                return [], 0, 0
            view = self.services.sessions.get(owner, session_id)
            page = self.services.sessions.messages(owner, session_id, limit=PAGE_SIZE)
            return page, view.message_count - len(page), view.compacted_message_count

        async def show(result: tuple[list[MessageView], int, int]) -> None:
            page, earlier, boundary = result
            self._oldest_loaded = page[0].position if page else None
            await self.query_one(ChatLog).show_page(page, earlier=earlier, boundary=boundary)

        self._in_thread(fetch, show)
        self.refresh_context()

    def refresh_context(self) -> None:
        """Re-read the selection and the session's memory (gauge, mode, summary)."""
        owner, session_id = self.services.owner, self.session_id

        def fetch() -> tuple[str, list[str], MemoryState | None, ContextUsage | None]:
            configuration = self.services.configuration.get_configuration(owner)
            names = [skill.name for skill in configuration.selected_skills]
            memory = None if session_id is None else self.services.memory.state(owner, session_id)
            baseline = self.services.memory.baseline(owner) if memory is None else None
            return configuration.active_prompt.label, names, memory, baseline

        def show(result: tuple[str, list[str], MemoryState | None, ContextUsage | None]) -> None:
            label, names, memory, baseline = result
            panel = self.query_one(ContextPanel)
            panel.show_selection(label, names)
            self.memory = memory
            panel.show_memory(memory)
            if baseline is not None:
                panel.gauge.update_usage(baseline.context_tokens, baseline.context_window_tokens)

        self._in_thread(fetch, show)

    def check_ollama(self) -> None:
        """Ask the model server for its version, off the UI thread; sending waits on a 'yes'."""
        services = self.services

        def probe() -> str | None:
            try:
                version = services.server_version()
            except OncallError:
                return None
            services.warm_up()  # the first send should not wait for the model stack to load
            return version

        def show(version: str | None) -> None:
            settings = services.settings
            self.ollama = OllamaStatus(
                settings.ollama_url, settings.model, version is not None, str(version or "")
            )
            self.query_one(ContextPanel).show_ollama(self.ollama)

        self.query_one(ContextPanel).show_ollama(self.ollama)
        self._in_thread(probe, show)

    # -- sending ------------------------------------------------------------------------------

    @on(Composer.Submitted)
    def _submit(self, event: Composer.Submitted) -> None:
        lang = self.services.settings.lang
        if self._runner is not None:
            self._set_status("A reply is still streaming; Esc cancels it.", error=True)
            return
        gauge = self.query_one(ContextPanel).gauge
        if gauge.at_limit:
            full = OncallError(
                "CHAT_CONTEXT_LIMIT_REACHED",
                "limit_full",
                percent=gauge.percent,
                window=f"{gauge.window:,}",
            )
            self._set_status(
                f"{full.message(lang)} (f9 compacts, ctrl+n starts a new session)", True
            )
            return
        if self.ollama.reachable is False:
            error = OncallError("MODEL_UNAVAILABLE", url=self.ollama.url)
            self._set_status(error.message(lang), error=True)
            self.check_ollama()
            return
        self._set_status("Sending…")
        self.collector.stream_started()  # no full garbage collection until the reply is in
        self._start_send(self.session_id, event.text)

    @work(thread=True, exclusive=True, group="chat", exit_on_error=False)
    def _start_send(self, session_id: int | None, text: str | None) -> None:
        runner = ChatRunner(self.services, self)
        self._runner = runner
        runner.run(session_id, text)

    async def on_chat_events_arrived(self, message: ChatEventsArrived) -> None:
        for event in message.events:
            await self._apply(event)

    async def _apply(self, event: ChatEvent) -> None:
        log = self.query_one(ChatLog)
        if isinstance(event, MemoryCompacted):
            await log.mark_boundary(event.compacted_message_count)
            self.notify(f"Memory compacted: {event.compacted_message_count:,} messages summarised")
        elif isinstance(event, UserMessageStored):
            self.query_one(Composer).clear()
            self._set_status("")
            if self.session_id != event.session_id:
                self.session_id = event.session_id
                self.load_sessions(select=None)
                self.query_one(SessionList).current = event.session_id
            self._reply = await log.add_exchange(event.content)
        elif isinstance(event, TokenDelta):
            await (await self._replying()).append(event.text)
        elif isinstance(event, ToolStarted):
            await (await self._replying()).add_tool(event.call_id, event.name, event.arguments)
        elif isinstance(event, ToolFinished) and self._reply is not None:
            self._reply.finish_tool(event.call_id, event.summary, event.status)
        elif isinstance(event, UsageReported):
            self.query_one(ContextPanel).gauge.update_usage(
                event.usage.context_tokens, event.usage.context_window_tokens
            )
        elif isinstance(event, ReplyDone) and self._reply is not None:
            await self._reply.finish(event.status)
        elif isinstance(event, CompactionFailed | ToolsUnavailable):
            self.notify(terminal_safe(event.message), severity="warning", timeout=8, markup=False)
        elif isinstance(event, ReplyFailed):
            await self._failed(event)
        elif isinstance(event, ContextLimitReached):
            self._set_status(event.message, error=True)
            usage = event.usage
            self.query_one(ContextPanel).gauge.update_usage(
                usage.context_tokens, usage.context_window_tokens
            )

    async def _replying(self) -> MessageBlock:
        """The streaming reply; a retry's first piece starts it (it stores no user message)."""
        if self._reply is None:
            self._set_status("")
            self._reply = await self.query_one(ChatLog).add_reply()
        return self._reply

    async def _failed(self, event: ReplyFailed) -> None:
        """The message is stored (it is in the log): it is not given back to the composer,
        where Enter would store it a second time."""
        self._set_status(event.message, error=True)
        if self._reply is not None:
            await self._reply.finish("failed", note=event.message)
        if event.code in ("MODEL_UNAVAILABLE", "MODEL_NOT_FOUND"):
            self.check_ollama()

    async def on_send_ended(self, message: SendEnded) -> None:
        self._runner = None
        if message.error is not None:
            self.show_error(message.error)
            if self._reply is not None and not self._reply.ended:  # a fault mid-reply
                note = message.error.message(self.services.settings.lang)
                await self._reply.finish("failed", note=note)
        elif message.cancelled and self._reply is not None:
            await self._reply.finish("interrupted")
            self._set_status("Reply cancelled; the partial answer is kept.")
        elif self.query_one("#status", PlainText).has_class("-error") is False:
            self._set_status("")
        reply, self._reply = self._reply, None
        self._settle_after(reply)

    @work(group="settle")
    async def _settle_after(self, reply: MessageBlock | None) -> None:
        """Once the reply is drawn (a fast model leaves a backlog of text to draw), the sessions
        and the context panel are brought up to date: done while the reply is still being drawn,
        their repaints would widen the log's frames to the whole screen. The stream is then over
        for the garbage collector too: its full pass may run once things are quiet."""
        if reply is not None:
            await reply.drawn.wait()
        self.load_sessions()
        self.refresh_context()
        self.collector.stream_ended()
        self._tidy_soon()

    def _tidy_when_quiet(self) -> None:
        """A full garbage collection once nothing streams and the user pauses (see collector)."""
        self._tidy_timer = None
        if self.collector.streams == 0 and not self.collector.tidy():
            self._tidy_timer = self.set_timer(TIDY_SECONDS, self._tidy_when_quiet)

    def _tidy_soon(self) -> None:
        if self._tidy_timer is None:
            self._tidy_when_quiet()

    @on(MemoryActions.MemoryChanged)
    def _memory_changed(self, event: MemoryActions.MemoryChanged) -> None:
        self.open_session(event.session_id)

    def on_unmount(self) -> None:
        if self._runner is not None:  # quitting mid-reply keeps it, marked interrupted
            self._runner.stop()

    def action_retry(self) -> None:
        """Answer the open session's last message again; the service says if there is none."""
        if self._runner is not None:
            self._set_status("A reply is still streaming; Esc cancels it.", error=True)
        elif self.session_id is not None:
            self._set_status("Retrying…")
            self.collector.stream_started()
            self._start_send(self.session_id, None)

    def action_cancel_reply(self) -> None:
        if self._runner is not None:
            self._runner.cancel()
        else:
            self.query_one(Composer).focus()

    # -- sessions -----------------------------------------------------------------------------

    @on(SessionList.Opened)
    def _opened(self, event: SessionList.Opened) -> None:
        if self._runner is None:
            self.open_session(event.session_id)
            self.query_one(Composer).focus()

    @on(SessionList.DeleteRequested)
    def _delete_requested(self, event: SessionList.DeleteRequested) -> None:
        self._confirm_delete(event.session_id)

    def action_new_session(self) -> None:
        if self._runner is None:
            self.open_session(None)
            self.query_one(Composer).focus()

    def action_delete_session(self) -> None:
        if self.session_id is None:
            self.notify("Nothing to delete: this session has not started yet.")
            return
        self._confirm_delete(self.session_id)

    def _confirm_delete(self, session_id: int) -> None:
        from oncall_tui.tui.widgets.dialogs import ConfirmDialog

        def decided(yes: bool | None) -> None:
            if yes:
                self._in_thread(
                    lambda: self.services.sessions.delete(self.services.owner, session_id),
                    lambda _: self.load_sessions(open_newest=self.session_id == session_id),
                )

        self.app.push_screen(
            ConfirmDialog("Delete session", f"Delete session {session_id} and all its messages?"),
            decided,
        )

    def action_rename_session(self) -> None:
        from oncall_tui.tui.widgets.dialogs import TextDialog

        session_id = self.session_id
        if session_id is None:
            self.notify("Nothing to rename yet: the session starts with its first message.")
            return

        def renamed(title: str | None) -> None:
            if title:
                self._in_thread(
                    lambda: self.services.sessions.rename(self.services.owner, session_id, title),
                    lambda _: self.load_sessions(),
                )

        self.app.push_screen(TextDialog("Rename session", "New title"), renamed)

    def action_find_session(self) -> None:
        self.query_one(SessionList).action_filter()

    def action_load_earlier(self) -> None:
        self._load_earlier()

    @on(ChatLog.EarlierRequested)
    def _load_earlier(self) -> None:
        session_id, before = self.session_id, self._oldest_loaded
        if session_id is None or before is None or before == 0:
            return

        def fetch() -> tuple[list[MessageView], int]:
            owner = self.services.owner
            page = self.services.sessions.messages(
                owner, session_id, before=before, limit=PAGE_SIZE
            )
            return page, self.services.sessions.get(owner, session_id).compacted_message_count

        async def show(result: tuple[list[MessageView], int]) -> None:
            page, boundary = result
            if page:
                self._oldest_loaded = page[0].position
                await self.query_one(ChatLog).prepend_page(
                    page, earlier=page[0].position, boundary=boundary
                )

        self._in_thread(fetch, show)

    def action_toggle_panel(self) -> None:
        panel = self.query_one(ContextPanel)
        panel.display = not panel.display
