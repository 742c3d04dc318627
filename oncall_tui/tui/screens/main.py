"""The main screen: sessions on the left, the chat in the centre, the context panel on the right.

One screen composed of its panes: the sessions list (its keys' actions in
:mod:`..panes.sessions`), the chat pane (:mod:`..panes.chat`: sending, the log, the composer,
the status line) and the context panel (its memory actions in :mod:`..panes.memory`). The
panes say what happened with messages; the screen, which knows the open session
(:mod:`..panes.shown`), calls down.
Service calls run off the UI's loop (:mod:`..service_calls`). Text typed in the composer is
cleared only once the service has stored it, so a rejected send (95% limit, server down, bad
input) leaves it where it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import events, on
from textual.app import ComposeResult
from textual.binding import BindingsMap
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import TextArea

from oncall_tui.core.memory import MemoryState
from oncall_tui.errors import OncallError
from oncall_tui.texts import text as t
from oncall_tui.tui.chat_log import ChatLog
from oncall_tui.tui.commands import main_bindings
from oncall_tui.tui.messages import SessionsChanged
from oncall_tui.tui.panes.chat import ChatPane
from oncall_tui.tui.panes.layout import PaneLayout
from oncall_tui.tui.panes.memory import MemoryChanged, SessionMemory
from oncall_tui.tui.panes.server import ServerCheck
from oncall_tui.tui.panes.sessions import SessionActions
from oncall_tui.tui.panes.shown import ShownSession
from oncall_tui.tui.service_calls import ServiceCalls
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.context_panel import ContextPanel
from oncall_tui.tui.widgets.gauge import ContextGauge
from oncall_tui.tui.widgets.key_bar import KeyBar
from oncall_tui.tui.widgets.lang import ui_lang
from oncall_tui.tui.widgets.session_list import SessionList
from oncall_tui.tui.widgets.status_line import StatusLine
from oncall_tui.tui.widgets.welcome import Welcome

if TYPE_CHECKING:
    from oncall_tui.services.container import Services
    from oncall_tui.services.search import SearchHit

POLL_SECONDS = 3.0
"""How often the sessions are read again, for what other processes (the CLI, another
terminal) wrote: a new session, or messages, a compaction or a memory mode in the open one."""


class MainScreen(Screen[None]):
    AUTO_FOCUS = "#composer"

    def __init__(self, services: Services, typeahead: str = "") -> None:
        super().__init__()
        # Built here, in the user's language, rather than as a class-level BINDINGS list; added
        # to the screen's own (Tab and shift+Tab move the focus, as on every screen).
        self.lang = ui_lang(self)
        main = BindingsMap(main_bindings(self.lang))
        self._bindings = BindingsMap.merge([self._bindings, main])
        self.services = services
        self.status = StatusLine(services, id="status")
        self.chat = ChatPane(services, self.status, typeahead)
        self.sessions = SessionList(id="sessions")
        self.panel = ContextPanel(id="context")
        self.session_actions = SessionActions(services, self.sessions, self.status)
        self.memory_actions = SessionMemory(
            services, self.panel, self.status, lambda: self.chat.sending
        )
        self._calls = ServiceCalls(self, self.status.report, self.status.show_fault)
        self.shown = ShownSession(
            services, self, self.chat, self.sessions, self.memory_actions, self.status
        )
        self.server_check = ServerCheck(
            services, self.panel, lambda: self.query_one(Welcome), self.status
        )
        self.panes = PaneLayout(self, self.sessions, self.panel)

    def compose(self) -> ComposeResult:
        # Fitted before the panes mount: a narrow screen's class set later would style every
        # widget twice (15 ms of the start-up).
        self.panes.fit(self.app.size.width)
        with Horizontal(id="panes"):
            yield self.sessions
            yield self.chat
            yield self.panel
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one(Composer).focus()
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        """What needs the database or the network waits until the screen is up: the user can
        type from the first frame."""
        self.chat.draft.claim()
        self.shown.load(open_newest=self.session_id is None and not self.sending)
        self.server_check.check()
        self.refresh_tools()
        self.set_interval(POLL_SECONDS, self.shown.poll)

    @property
    def sending(self) -> bool:
        """A send or a retry is in progress."""
        return self.chat.sending

    @property
    def session_id(self) -> int | None:
        """The open session (``None``: a new one, not stored yet)."""
        return self.shown.id

    @property
    def memory(self) -> MemoryState | None:
        """The open session's memory, as last read (``None``: a new session)."""
        return self.memory_actions.state

    # -- what the app asks of the screen ---------------------------------------------------

    def show_error(self, error: OncallError) -> None:
        self.status.show_error(error)

    def show_warning(self, text: str) -> None:
        self.status.show_warning(text)

    def save_preference(self, name: str, value: str) -> None:
        """Keep a choice (a theme) in the settings file, off the UI's loop; a file that must not
        be overwritten is said on the status line."""
        self._calls.start(lambda: self.services.save_preference(name, value), lambda _: None)

    def refresh_context(self) -> None:
        """Read the selection and the open session's memory (gauge, mode, summary) again."""
        self.memory_actions.read(self.session_id)

    def refresh_tools(self) -> None:
        """The tool servers' state in the panel (they start in the background the first
        time); nothing when the settings file registers none."""
        if self.services.settings.mcp_servers:
            self._calls.start(lambda: self.services.tools.servers(), self.panel.show_tools)

    # -- what the panes say ------------------------------------------------------------------

    @on(Composer.Submitted)
    def _submit(self, event: Composer.Submitted) -> None:
        if self.sending:
            self.status.refuse_while_streaming()
            return
        self.status.say(t("send.sending", self.lang))
        self.chat.send(self.session_id, event.text)

    @on(ChatPane.SessionStarted)
    def _session_started(self, event: ChatPane.SessionStarted) -> None:
        self.shown.started(event.session_id)

    @on(ChatPane.MessageStored)
    def _message_stored(self) -> None:
        """The gauge counts the message just stored while its reply comes, not only once the
        reply has ended (a long message pasted into a new session is most of the request)."""
        self.refresh_context()

    @on(ChatPane.SendEnded)
    def _send_ended(self) -> None:
        self.shown.send_ended()
        self.refresh_context()
        self.refresh_tools()

    @on(ChatPane.UsageReported)
    def _usage_reported(self, event: ChatPane.UsageReported) -> None:
        self.panel.gauge.update_usage(event.tokens, event.window)

    @on(ChatPane.ServerSaid)
    def _server_said(self, event: ChatPane.ServerSaid) -> None:
        self.server_check.send_found(event.answered)

    @on(ChatPane.ToolsChanged)
    def _tools_changed(self) -> None:
        self.refresh_tools()

    @on(MemoryChanged)
    def _memory_changed(self, event: MemoryChanged) -> None:
        """Show the session again with its new memory, if it is still the one open (another
        opened meanwhile stays on screen)."""
        if event.session_id == self.session_id:
            self.shown.open(event.session_id, keep_status=True)  # what it did stays said

    @on(SessionsChanged)
    def _sessions_changed(self, event: SessionsChanged) -> None:
        event.stop()
        self.shown.load(open_newest=event.open_newest, select=event.select)

    @on(SessionList.Opened)
    def _opened(self, event: SessionList.Opened) -> None:
        """Open the session chosen; refused while a reply streams, the focus goes back to the
        composer too (left in the filter, the question typed next went there)."""
        if self._may_leave_the_reply():
            self.shown.open(event.session_id, keep_status=True)  # what it did stays said
        self.query_one(Composer).focus()

    @on(SessionList.DeleteRequested)
    def _delete_requested(self, event: SessionList.DeleteRequested) -> None:
        self._delete(event.session_id)

    @on(ChatLog.EarlierRequested)
    def _earlier_requested(self) -> None:
        self.chat.load_earlier(self.session_id)

    @on(ContextPanel.CompactPressed)
    def _compact_pressed(self) -> None:
        self.memory_actions.compact()

    @on(ContextPanel.ModeStepped)
    def _mode_stepped(self, event: ContextPanel.ModeStepped) -> None:
        self.memory_actions.cycle_mode(event.step)

    @on(ContextGauge.Changed)
    def _gauge_changed(self, event: ContextGauge.Changed) -> None:
        self.query_one(Composer).show_figures(event.summary)

    @on(SessionList.Titled)
    def _titled(self, event: SessionList.Titled) -> None:
        self.query_one(Composer).show_title(event.title)

    # -- the keys (main_bindings) -------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "interrupt_reply":
            return self.sending
        return True

    def action_interrupt_reply(self) -> None:
        """ctrl+c while a reply streams: stop it, keeping what arrived (marked interrupted)."""
        self.chat.interrupt()

    def action_cancel_reply(self) -> None:
        """Esc: stop the streaming reply, or the compaction under way; with neither, back to
        the composer. (Always offered in the footer: showing it only mid-reply would lay the
        footer out at every send.)"""
        if not self.chat.interrupt() and not self.memory_actions.stop():
            self.query_one(Composer).focus()

    def action_retry(self) -> None:
        if self.session_id is not None:
            self.chat.retry(self.session_id)
        else:
            self._may_leave_the_reply()  # a first message's reply streams: say so

    def _may_leave_the_reply(self) -> bool:
        """Whether another session (or a new one) may open now: not while a reply streams
        into this one, and then the status line says why and how to stop it."""
        if self.sending:
            self.status.refuse_while_streaming()
        return not self.sending

    def action_new_session(self) -> None:
        """ctrl+n: a session not stored yet, listed first; a filter typed is done with (it
        hid the new session's row)."""
        if self._may_leave_the_reply():
            self.sessions.action_clear_filter()
            self.shown.open(None)
            self.query_one(Composer).focus()

    def action_search(self) -> None:
        """ctrl+f: search every message; Enter on a hit opens its session there."""
        from oncall_tui.tui.screens.search import SearchScreen

        def chosen(hit: SearchHit | None) -> None:
            if hit is not None and self._may_leave_the_reply():
                find = "".join(hit.snippet[start:end] for start, end in hit.highlights[:1])
                self.shown.open(hit.session_id, keep_status=True, at=hit.position, find=find)

        self.app.push_screen(SearchScreen(self.services), chosen)

    def action_keys(self) -> None:
        """F1: the keys help; Enter there runs the action it highlights."""
        from oncall_tui.tui.screens.keys import KeysScreen

        def chosen(action: str | None) -> None:
            if action:
                self.call_after_refresh(self.run_action, action)

        keymap = dict(self.services.settings.keymap)
        self.app.push_screen(KeysScreen(keymap, self.query_one(Composer)), chosen)

    def action_rename_session(self) -> None:
        self.session_actions.rename(self.session_id)

    def action_delete_session(self) -> None:
        self._delete(self.session_id)

    def _delete(self, session_id: int | None) -> None:
        """Ask to delete a session; not the one a reply streams into (deleting it is leaving
        it, and its answer would stream on into a session gone)."""
        if session_id is None or session_id != self.session_id or self._may_leave_the_reply():
            self.session_actions.delete(session_id)

    def action_export(self) -> None:
        self.session_actions.export(self.session_id)

    def action_find_session(self) -> None:
        self.sessions.action_filter()

    def action_compact(self) -> None:
        self.memory_actions.compact()

    def action_cycle_mode(self) -> None:
        self.memory_actions.cycle_mode()

    def action_show_summary(self) -> None:
        self.memory_actions.show_summary(self.query_one(Composer))

    def action_check_ollama(self) -> None:
        """alt+g: ask the model server again, and say what it answered."""
        self.server_check.check(say=True)

    def action_load_earlier(self) -> None:
        self.chat.load_earlier(self.session_id)

    def action_page_chat(self, pages: int) -> None:
        self.chat.scroll_page(pages)

    def action_copy_message(self) -> None:
        self.chat.copy_message()

    def action_copy_code(self) -> None:
        self.chat.copy_code()

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """The composer takes the focus (typing in a pane that takes none, Tab, Esc): the
        panel open over the chat (narrow) closes, or it would hide the composer."""
        if isinstance(event.widget, Composer):
            self._uncover_the_composer()

    @on(TextArea.Changed, "Composer")
    def _composer_changed(self) -> None:
        """Typed with the panel open over the chat (ctrl+b leaves the focus in the composer):
        the panel closes, or most of what is typed goes on under it."""
        self._uncover_the_composer()

    def _uncover_the_composer(self) -> None:
        if self.has_class("-narrow") and self.panel.display:
            self.panes.toggle_panel()

    def on_resize(self, event: events.Resize) -> None:
        self.panes.fit(event.size.width)

    def action_toggle_panel(self) -> None:
        self.panes.toggle_panel()

    def action_toggle_sessions(self) -> None:
        self.panes.toggle_sessions()
