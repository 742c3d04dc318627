"""The open session: which one the main screen shows, its page read and shown, and the sessions
read again (after each change and each send, and every few seconds for what other processes
wrote), so that the list and the open session follow the database."""

from __future__ import annotations

from typing import TYPE_CHECKING

from oncall_tui.core.memory import MemoryMode
from oncall_tui.errors import OncallError, held_saved_note
from oncall_tui.tui.panes.chat import PAGE_SIZE
from oncall_tui.tui.panes.part import StatusPart
from oncall_tui.tui.widgets.composer import HISTORY_LIMIT
from oncall_tui.tui.widgets.lang import ui_lang

if TYPE_CHECKING:
    from textual.screen import Screen

    from oncall_tui.services.container import Services
    from oncall_tui.services.views import MessageView, SessionView
    from oncall_tui.tui.panes.chat import ChatPane
    from oncall_tui.tui.panes.memory import SessionMemory
    from oncall_tui.tui.widgets.session_list import SessionList
    from oncall_tui.tui.widgets.status_line import StatusLine

REACH_BACK = 1_000
"""A search hit at most this many messages back opens with the page reaching back to it;
further back, the session opens at its newest page and says how far the message is."""
Shown = tuple[int, int, MemoryMode | None]
"""The open session as its page shows it: messages, compaction boundary, memory mode."""
STALE: Shown = (-1, -1, None)
"""Matches no listing: the open session is read again at the next."""


class ShownSession(StatusPart):
    """Which session ``screen`` shows (:attr:`id`): its page in ``chat``, its row marked in
    ``listing``, its memory read again by ``memory`` each time it is shown."""

    def __init__(
        self,
        services: Services,
        screen: Screen[None],
        chat: ChatPane,
        listing: SessionList,
        memory: SessionMemory,
        status: StatusLine,
    ) -> None:
        super().__init__(services, screen, status)
        self._screen = screen
        self._chat = chat
        self._listing = listing
        self._memory = memory
        self.id: int | None = None
        """The open session (``None``: a new one, not stored yet)."""
        self._known: Shown | None = None
        """The open session as shown (messages, the compaction boundary, the memory mode);
        None: take the next listing's."""
        self._after_send: int | None = None
        """The messages the log holds once this terminal's send ended: a listing that counts
        more has what another terminal stored meanwhile (its question, asked at once)."""
        self._listed = False
        """A listing has come: until then each one may open the newest session (the first
        failed where the database went away just after the start)."""

    def poll(self) -> None:
        """Read the sessions again, unless a reply streams or another screen is on top."""
        if not self._chat.sending and self._screen.app.screen is self._screen:
            self.load(open_newest=not self._listed and self.id is None)

    def started(self, session_id: int) -> None:
        """A send stored the first message of a new session: it is the one open."""
        self.id = session_id
        self._listing.current = session_id
        self.load()

    def send_ended(self) -> None:
        """The log shows this send: the session is taken as listed next, unless another
        terminal added to it meanwhile (:meth:`_follow`)."""
        self._known = None
        self._after_send = self._chat.shown_count
        self.load()

    def load(self, *, open_newest: bool = False, select: int | None = None) -> None:
        """Refresh the sessions list; ``open_newest`` opens the most recent one, unless the user
        has started a session (or a send) since the request was made."""
        started = self.id

        def done(sessions: list[SessionView]) -> None:
            self._listed = True
            self._status.database_answered()
            listing = self._listing
            listing.sessions = tuple(sessions)
            user_moved_on = self._chat.sending or self.id != started
            if select is None and not open_newest and not user_moved_on:
                self._follow(sessions)
            target = select
            if open_newest and listing.sessions and not user_moved_on:
                target = listing.sessions[0].id
            if target is not None:
                self.open(target, keep_status=open_newest)
            elif open_newest and not user_moved_on:
                self.open(None, keep_status=True)
            elif self.id is None:  # none opens (a first message went meanwhile)
                self._chat.sessions_read()

        def listing() -> list[SessionView]:
            self._save_held_replies()  # the database answers: what it did not take goes in
            return self._services.sessions.list_sessions(self._services.owner)

        self._calls.start(listing, done)

    def _save_held_replies(self) -> None:
        """In the listing's thread: replies held while the database was away are stored now,
        before the listing that shows them; said once stored. A database still away is the
        listing's to report."""
        try:
            saved = self._services.save_held_replies()
        except OncallError:
            return
        if saved:
            self._known = STALE  # the open session's page is read again, with them
            message = held_saved_note(saved, ui_lang(self._screen))
            self._screen.app.call_from_thread(self._screen.notify, message, timeout=10)

    def _follow(self, sessions: list[SessionView]) -> None:
        """Show again the open session if another process added messages to it, compacted it
        or changed its memory mode (or it was deleted there)."""
        if self.id is None:
            return
        listed = next((s for s in sessions if s.id == self.id), None)
        if listed is None:
            self.open(None, keep_status=True)
            return
        shown = (listed.message_count, listed.compacted_message_count, listed.memory_mode)
        after_send, self._after_send = self._after_send, None
        if self._known is None:
            self._known = shown
            if after_send is None or listed.message_count <= after_send:
                return  # (fewer: a reply that failed with nothing stored is still shown)
        elif shown == self._known:
            return
        self.open(self.id, keep_status=True)

    def open(
        self,
        session_id: int | None,
        *,
        keep_status: bool = False,
        at: int | None = None,
        find: str = "",
    ) -> None:
        """Show a session's newest page at once; the gauge follows when it is computed. With
        ``at`` (a search hit), the page reaches back to that message, which is selected, in
        view at its line that holds ``find``.

        What the status line said of another session goes (of this one too unless
        ``keep_status``); a page read for a session no longer open by the time it comes is
        not shown."""
        self.id = session_id
        self._listing.current = session_id
        self._status.session_opened(session_id, keep=keep_status)
        services, owner = self._services, self._services.owner

        def fetch() -> tuple[list[MessageView], SessionView | None, list[str]]:
            sessions = services.sessions  # built in the thread (see ``Services``' parts)
            recall = sessions.input_history(owner, session_id, HISTORY_LIMIT)
            if session_id is None:
                return [], None, recall
            view = sessions.get(owner, session_id)
            limit = PAGE_SIZE
            if at is not None and PAGE_SIZE < view.message_count - at <= REACH_BACK:
                limit = view.message_count - max(0, at - 2)
            return sessions.messages(owner, session_id, limit=limit), view, recall

        def show(result: tuple[list[MessageView], SessionView | None, list[str]]) -> None:
            if self.id != session_id:  # another was opened (or started) since
                return
            page, view, recall = result
            earlier = 0 if view is None else view.message_count - len(page)
            boundary = 0 if view is None else view.compacted_message_count
            if view is not None:
                self._known = (earlier + len(page), boundary, view.memory_mode)
            self._chat.show_page(page, earlier=earlier, boundary=boundary, recall=recall)
            if at is not None:
                found, count = self._chat.select_found, earlier + len(page)
                self._screen.call_after_refresh(found, at, count, find)

        def unread(error: OncallError) -> None:
            """The page could not be read (the database is away): another session's messages
            no longer stand under this one's title; the next listing reads it again."""
            if self.id == session_id:
                self._known = STALE
                self._chat.show_page([], earlier=0, boundary=0, recall=[])
            self._status.report(error)

        if session_id is None:  # a new session's page is empty, whatever the database says
            self._chat.show_page([], earlier=0, boundary=0, recall=[])
        self._calls.start(fetch, show, report=unread)
        self._memory.read(session_id)
