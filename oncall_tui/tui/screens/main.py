"""The main screen: sessions on the left, the chat in the centre, the context panel on the right.

Service calls run off the UI's loop (see :mod:`.background`); a send is an async worker (see
:mod:`.chat_actions`). Text typed in the composer is cleared only once the service has stored
it, so a rejected send (95% limit, Ollama down, bad input) leaves it where it was.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import BindingsMap
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer

from oncall_tui.core.examples import skills_examples_path
from oncall_tui.core.memory import ContextUsage, MemoryState
from oncall_tui.errors import OncallError, note
from oncall_tui.texts import text as t
from oncall_tui.tui.chat_log import ChatLog, MessageBlock
from oncall_tui.tui.commands import main_bindings
from oncall_tui.tui.screens.chat_actions import ChatActions
from oncall_tui.tui.screens.panes import Panes
from oncall_tui.tui.widgets.composer import HISTORY_LIMIT, Composer
from oncall_tui.tui.widgets.context_panel import MISSING_MODEL_HINT, ContextPanel, OllamaStatus
from oncall_tui.tui.widgets.gauge import ContextGauge
from oncall_tui.tui.widgets.plain_text import PlainText
from oncall_tui.tui.widgets.session_list import SessionList
from oncall_tui.tui.widgets.welcome import Welcome

if TYPE_CHECKING:
    from oncall_tui.core.code_blocks import CodeBlock
    from oncall_tui.services.container import Services
    from oncall_tui.services.search import SearchHit
    from oncall_tui.services.views import MessageView, SessionView

PAGE_SIZE = 40
REACH_BACK = 1_000
"""A search hit at most this many messages back opens with the page reaching back to it;
further back, the session opens at its newest page and says how far the message is."""
POLL_SECONDS = 3.0
"""How often the sessions are read again, for what other processes (the CLI, another
terminal) wrote: a new session, or messages in the open one."""


class MainScreen(ChatActions, Panes):
    AUTO_FOCUS = "#composer"

    def __init__(self, services: Services, draft: str = "") -> None:
        super().__init__(services)
        # Built here, in the user's language, rather than as a class-level BINDINGS list; added
        # to the screen's own (Tab and shift+Tab move the focus, as on every screen).
        main = BindingsMap(main_bindings(services.settings.lang))
        self._bindings = BindingsMap.merge([self._bindings, main])
        self._draft = draft
        self.lang = services.settings.lang
        self.session_id: int | None = None
        self.memory: MemoryState | None = None
        settings = services.settings
        self.ollama = OllamaStatus(settings.server_url, settings.model, provider=settings.provider)
        self._oldest_loaded: int | None = None
        self._known_count: int | None = None
        """Messages in the open session as shown; None: take the next listing's count."""

    def compose(self) -> ComposeResult:
        with Horizontal(id="panes"):
            yield SessionList(id="sessions")
            with Vertical(id="centre", classes="-empty"):
                keymap = dict(self.services.settings.keymap)
                examples = skills_examples_path()
                yield Welcome(self.lang, examples, keymap, reading_sessions=True, id="welcome")
                yield ChatLog(id="chat-log")
                yield PlainText(id="status")
                yield Composer(id="composer")
            yield ContextPanel(id="context")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._fit(self.app.size.width)
        composer = self.query_one(Composer)
        if self._draft:
            composer.text = self._draft
            composer.move_cursor(composer.document.end)
        composer.focus()
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        """What needs the database or the network waits until the screen is up: the user can
        type from the first frame."""
        self.load_sessions(open_newest=self.session_id is None and self._sending is None)
        self.check_ollama()
        self.refresh_tools()
        self.set_interval(POLL_SECONDS, self._poll)

    def _poll(self) -> None:
        if self._sending is None and self.app.screen is self:
            self.load_sessions()

    def load_sessions(self, *, open_newest: bool = False, select: int | None = None) -> None:
        """Refresh the sessions list; ``open_newest`` opens the most recent one, unless the user
        has started a session (or a send) since the request was made."""
        started = self.session_id

        def done(sessions: list[SessionView]) -> None:
            self.database_answered()
            listing = self.query_one(SessionList)
            listing.sessions = tuple(sessions)
            user_moved_on = self._sending is not None or self.session_id != started
            if select is None and not open_newest and not user_moved_on:
                self._follow_open_session(sessions)
            target = select
            if open_newest and listing.sessions and not user_moved_on:
                target = listing.sessions[0].id
            if target is not None:
                self.open_session(target, keep_status=open_newest)
            elif open_newest and not user_moved_on:
                self.open_session(None, keep_status=True)

        def listing() -> list[SessionView]:
            self._save_held_replies()  # the database answers: what it did not take goes in
            return self.services.sessions.list_sessions(self.services.owner)

        self._in_thread(listing, done)

    def _save_held_replies(self) -> None:
        """In the listing's thread: replies held while the database was away are stored now,
        before the listing that shows them; said once stored. A database still away is the
        listing's to report."""
        try:
            saved = self.services.save_held_replies()
        except OncallError:
            return
        if saved:
            self._known_count = -1  # the open session's page is read again, with them
            message = note("held_saved", self.lang, count=saved)
            self.app.call_from_thread(self.notify, message, timeout=10)

    def _follow_open_session(self, sessions: list[SessionView]) -> None:
        """Show again the open session if another process added messages to it (or it was
        deleted there)."""
        if self.session_id is None:
            return
        listed = next((s for s in sessions if s.id == self.session_id), None)
        if listed is None:
            self.open_session(None, keep_status=True)
        elif self._known_count is None:
            self._known_count = listed.message_count
        elif listed.message_count != self._known_count:
            self.open_session(self.session_id, keep_status=True)

    def open_session(
        self, session_id: int | None, *, keep_status: bool = False, at: int | None = None
    ) -> None:
        """Show a session's newest page at once; the gauge follows when it is computed. With
        ``at`` (a search hit), the page reaches back to that message, which is selected.

        What the status line said of another session goes (of this one too unless
        ``keep_status``); a page read for a session no longer open by the time it comes is
        not shown."""
        self.session_id = session_id
        self.query_one(SessionList).current = session_id
        self.forget_status(session_id, keep=keep_status)
        owner = self.services.owner

        def fetch() -> tuple[list[MessageView], int, int, list[str]]:
            recall = self.services.sessions.input_history(owner, session_id, HISTORY_LIMIT)
            if session_id is None:
                return [], 0, 0, recall
            view = self.services.sessions.get(owner, session_id)
            limit = PAGE_SIZE
            if at is not None and PAGE_SIZE < view.message_count - at <= REACH_BACK:
                limit = view.message_count - max(0, at - 2)
            page = self.services.sessions.messages(owner, session_id, limit=limit)
            return page, view.message_count - len(page), view.compacted_message_count, recall

        def show(result: tuple[list[MessageView], int, int, list[str]]) -> None:
            if self.session_id != session_id:  # another was opened (or started) since
                return
            page, earlier, boundary, recall = result
            self._known_count = earlier + len(page)
            self._oldest_loaded = page[0].position if page else None
            log = self.query_one(ChatLog)
            log.show_page(page, earlier=earlier, boundary=boundary)
            self.query_one(Welcome).loaded()
            self.query_one(Composer).remember(recall)
            if at is not None:
                self.call_after_refresh(self._select_found, at, earlier + len(page))

        self._in_thread(fetch, show)
        self.refresh_context()

    def _select_found(self, position: int, count: int) -> None:
        log = self.query_one(ChatLog)
        if log.select_position(position):
            log.focus()
        else:
            self._set_status(t("search.far_back", self.lang, count=count - position))

    def refresh_context(self) -> None:
        """Re-read the selection and the session's memory (gauge, mode, summary); what is
        read for a session no longer open when it comes is left unshown."""
        owner, session_id = self.services.owner, self.session_id

        def fetch() -> tuple[str, list[str], MemoryState | None, ContextUsage | None]:
            configuration = self.services.configuration.get_configuration(owner)
            names = [skill.name for skill in configuration.selected_skills]
            memory = None if session_id is None else self.services.memory.state(owner, session_id)
            baseline = self.services.memory.baseline(owner) if memory is None else None
            return configuration.active_prompt.label, names, memory, baseline

        def show(result: tuple[str, list[str], MemoryState | None, ContextUsage | None]) -> None:
            if self.session_id != session_id:  # the refresh of the one open now shows it
                return
            label, names, memory, baseline = result
            panel = self.query_one(ContextPanel)
            panel.show_selection(label, names)
            self.memory = memory
            panel.show_memory(memory)
            if baseline is not None:
                panel.gauge.update_usage(baseline.context_tokens, baseline.context_window_tokens)

        self._in_thread(fetch, show)

    def check_ollama(self) -> None:
        """Ask the model server, off the UI thread, whether it answers and has the model; the
        panel shows what it said, and a model that is not pulled is said on the status line
        too (the panel is folded away on small screens). Sends do not wait on it: the chat
        service checks again before storing anything."""
        services = self.services

        def probe() -> tuple[str | None, bool]:
            try:
                version = services.server_version()
            except OncallError:
                return None, False
            try:
                services.check_model()
            except OncallError as error:
                return version, error.code == "MODEL_NOT_FOUND"
            return version, False

        def show(result: tuple[str | None, bool]) -> None:
            self._checking_server = False
            version, missing = result
            settings = services.settings
            was_missing = self.ollama.model_missing
            self.ollama = OllamaStatus(
                settings.server_url,
                settings.model,
                version is not None,
                str(version or ""),
                model_missing=missing,
                provider=settings.provider,
            )
            self.query_one(ContextPanel).show_ollama(self.ollama)
            self.query_one(Welcome).show_ollama(self.ollama)
            if missing:
                error = _not_found(settings.provider, settings.server_url, settings.model)
                message = f"{error.message(settings.lang)} ({MISSING_MODEL_HINT})"
                self._set_status(message, True, app_wide=True)
            elif was_missing:  # pulled since, or another model picked: said no more
                self._set_status("")

        self.query_one(ContextPanel).show_ollama(self.ollama)
        self.query_one(Welcome).show_ollama(self.ollama)
        self._in_thread(probe, show)

    # -- sending ------------------------------------------------------------------------------

    @on(Composer.Submitted)
    def _submit(self, event: Composer.Submitted) -> None:
        lang = self.services.settings.lang
        if self._sending is not None:
            self._set_status(t("send.still_streaming", lang), error=True)
            return
        gauge = self.query_one(ContextPanel).gauge
        if gauge.at_limit:
            full = OncallError(
                "CHAT_CONTEXT_LIMIT_REACHED",
                "limit_full",
                percent=gauge.percent,
                window=f"{gauge.window:,}",
            )
            self._set_status(f"{full.message(lang)} {t('send.full_hint', lang)}", True)
            event.composer.send_ended()
            return
        self._set_status(t("send.sending", lang))
        self.start_send(self.session_id, event.text)

    @on(ChatActions.MemoryChanged)
    def _memory_changed(self, event: ChatActions.MemoryChanged) -> None:
        """Show the session again with its new memory, if it is still the one open (another
        opened meanwhile stays on screen)."""
        if event.session_id == self.session_id:
            self.open_session(event.session_id, keep_status=True)  # what it did stays said

    # -- sessions -----------------------------------------------------------------------------

    @on(SessionList.Opened)
    def _opened(self, event: SessionList.Opened) -> None:
        if self._sending is None:
            self.open_session(event.session_id, keep_status=True)  # what it did stays said
            self.query_one(Composer).focus()

    def action_search(self) -> None:
        """ctrl+f: search every message; Enter on a hit opens its session there."""
        from oncall_tui.tui.screens.search import SearchScreen

        def chosen(hit: SearchHit | None) -> None:
            if hit is not None and self._sending is None:
                self.open_session(hit.session_id, keep_status=True, at=hit.position)

        self.app.push_screen(SearchScreen(self.services), chosen)

    def action_new_session(self) -> None:
        if self._sending is None:
            self.open_session(None)
            self.query_one(Composer).focus()

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

        def show(result: tuple[list[MessageView], int]) -> None:
            page, boundary = result
            if page:
                self._oldest_loaded = page[0].position
                self.query_one(ChatLog).prepend_page(
                    page, earlier=page[0].position, boundary=boundary
                )

        self._in_thread(fetch, show)

    def action_page_chat(self, pages: int) -> None:
        """PgUp/PgDn in the composer: the chat scrolls by a page, the focus stays."""
        log = self.query_one(ChatLog)
        if pages < 0:
            log.scroll_page_up(animate=False)
        else:
            log.scroll_page_down(animate=False)

    def action_keys(self) -> None:
        """F1: the keys help; Enter there runs the action it highlights."""
        from oncall_tui.tui.screens.keys import KeysScreen

        def chosen(action: str | None) -> None:
            if action:
                self.call_after_refresh(self.run_action, action)

        keymap = dict(self.services.settings.keymap)
        self.app.push_screen(KeysScreen(self.services.settings.lang, keymap), chosen)

    # -- copying ------------------------------------------------------------------------------

    def _target_message(self) -> MessageBlock | None:
        """What copying acts on: the message selected in the log, else the newest one."""
        log = self.query_one(ChatLog)
        messages = log.messages
        return log.selected or (messages[-1] if messages else None)

    def action_copy_message(self) -> None:
        message = self._target_message()
        if message is None:
            self.notify(t("copy.nothing", self.lang), timeout=3)
            return
        self.app.copy_to_clipboard(message.copy_text())
        self.notify(t("copy.message_done", self.lang), timeout=2)

    def action_copy_code(self) -> None:
        """Copy a code block of the selected message (else the newest reply): at once when it
        has one, else the blocks are listed by number."""
        from oncall_tui.core.code_blocks import code_blocks  # markdown-it: not at start-up
        from oncall_tui.tui.screens.code_blocks import CodeBlockPicker

        log = self.query_one(ChatLog)
        replies = [m for m in log.messages if m.role == "assistant"]
        message = log.selected or (replies[-1] if replies else None)
        blocks = [] if message is None else code_blocks(message.content)
        if not blocks:
            self.notify(t("code.none", self.lang), timeout=3)
            return

        def chosen(block: CodeBlock | None) -> None:
            if block is not None:
                self.app.copy_to_clipboard(block.code)
                self.notify(t("code.copied", self.lang, lines=block.line_count), timeout=2)

        if len(blocks) == 1:
            chosen(blocks[0])
        else:
            self.app.push_screen(CodeBlockPicker(blocks, self.lang), chosen)

    @on(ChatLog.EmptyChanged)
    def _log_emptied(self, event: ChatLog.EmptyChanged) -> None:
        """An empty session shows the welcome; the log keeps its width (a reply about to
        stream is laid out to it) at no height."""
        self.query_one("#centre").set_class(event.empty, "-empty")

    @on(ContextGauge.Changed)
    def _gauge_changed(self, event: ContextGauge.Changed) -> None:
        self.query_one(Composer).border_title = event.summary


def _not_found(provider: str, url: str, model: str) -> OncallError:
    """The catalog's "no such model", as the provider's server would say it."""
    if provider == "openai":
        return OncallError("MODEL_NOT_FOUND", "openai_model_refused", url=url, model=model)
    return OncallError("MODEL_NOT_FOUND", model=model)
