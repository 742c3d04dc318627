"""The chat pane: the welcome, the chat log, the status line and the composer, and what is done
there: a send or a retry drawn as it comes (see :mod:`.replies`), Esc to stop it, a page of a
session shown, earlier messages read, copying.

A send is an async worker on the app's event loop that iterates the chat service's events (the
service keeps its database work off the loop). Esc cancels the worker; the service then stores
what arrived, marked interrupted. Quitting (ctrl+q, SIGTERM, SIGHUP) does the same and waits for
the partial reply to be stored before the app goes. What the rest of the screen must know (a
session started, the send ended, the context's size, the server answered) goes up as messages.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, Sequence
from typing import TYPE_CHECKING, cast

from textual import on, work
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import TextArea
from textual.worker import Worker, WorkerCancelled, WorkerFailed

from oncall_tui.core.examples import skills_examples_path
from oncall_tui.errors import OncallError
from oncall_tui.texts import text as t
from oncall_tui.tui.chat_log import ChatLog, MessageBlock
from oncall_tui.tui.commands import keys_here
from oncall_tui.tui.panes.draft import ComposerDraft
from oncall_tui.tui.service_calls import ServiceCalls, in_thread
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.lang import ui_lang
from oncall_tui.tui.widgets.status_line import SERVER_AWAY_CODES, StatusLine
from oncall_tui.tui.widgets.welcome import Welcome

if TYPE_CHECKING:
    from oncall_tui.core.code_blocks import CodeBlock
    from oncall_tui.core.events import ChatEvent, ToolConfirmation
    from oncall_tui.services.container import Services
    from oncall_tui.services.views import MessageView
    from oncall_tui.tui.app import OncallApp

PAGE_SIZE = 40
"""Messages shown when a session opens, and read each time earlier ones are asked for."""
STOP_SECONDS = 5.0
"""How long quitting waits for a cancelled send to store its partial reply."""


class ChatPane(Vertical):
    """The centre of the main screen; at most one send at a time."""

    class SessionStarted(Message):
        """A send stored the first message of a new session."""

        def __init__(self, session_id: int) -> None:
            super().__init__()
            self.session_id = session_id

    class MessageStored(Message):
        """A send stored the user's message: the gauge counts it while the reply comes."""

        def __init__(self, session_id: int) -> None:
            super().__init__()
            self.session_id = session_id

    class SendEnded(Message):
        """A send or retry ended, however: the rest of the screen reads what it changed."""

    class UsageReported(Message):
        """The model server's count of the context, after a reply."""

        def __init__(self, tokens: int, window: int) -> None:
            super().__init__()
            self.tokens = tokens
            self.window = window

    class ServerSaid(Message):
        """The model server answered this send (``answered``), or a send found it away or
        without the model: what the screen says of the server should be checked again."""

        def __init__(self, *, answered: bool) -> None:
            super().__init__()
            self.answered = answered

    class ToolsChanged(Message):
        """A tool server failed during a send: its state should be read again."""

    def __init__(self, services: Services, status: StatusLine, typeahead: str = "") -> None:
        super().__init__(id="centre", classes="-empty")
        self._services = services
        self.status = status
        self._calls = ServiceCalls(self, status.report, status.show_fault)
        self._composer = Composer(id="composer")
        self._typeahead = typeahead
        self._sending: Worker[None] | None = None
        self.draft = ComposerDraft(services, self._composer, status, lambda: self.sending)
        """The composer's text, kept across the app's end (claimed by the screen)."""
        self._quitting = False
        """The app is going: the pane's widgets are, too."""
        self._oldest_loaded: int | None = None

    def compose(self) -> ComposeResult:
        keymap = dict(self._services.settings.keymap)
        examples = skills_examples_path()
        yield Welcome(examples, keymap, reading_sessions=True, id="welcome")
        log = ChatLog(id="chat-log")
        log.model_in_use = self._services.settings.model
        yield log
        yield self.status
        yield self._composer

    def on_mount(self) -> None:
        composer = self._composer
        if self._typeahead:
            composer.text = self._typeahead
            composer.move_cursor(composer.document.end)

    @property
    def sending(self) -> bool:
        """A send or a retry is in progress."""
        return self._sending is not None

    # -- sending ----------------------------------------------------------------------------

    def send(self, session_id: int | None, text: str | None) -> None:
        """Send ``text`` (``None``: retry the session's unanswered message)."""
        self._sending = self._send(session_id, text)

    def retry(self, session_id: int) -> None:
        """Answer the session's last message again; the service says if there is none."""
        if self._sending is not None:
            self.status.refuse_while_streaming()
        else:
            self.status.say(t("status.retrying", ui_lang(self)))
            self.send(session_id, None)

    def interrupt(self) -> bool:
        """Stop the streaming reply, keeping what arrived (marked interrupted); ``False`` if
        none streams."""
        if self._sending is None:
            return False
        self._sending.cancel()
        return True

    @work(exclusive=True, group="chat", exit_on_error=False)
    async def _send(self, session_id: int | None, text: str | None) -> None:
        """The send's events, drawn as they come. Nothing raised here ends the app: the chat
        service itself is built inside (a database that fails as it opens is a refused send,
        the typed text kept), and any other fault ends the reply with a message."""
        # Loaded with the first send: the events it draws (15 dataclasses, 14 ms) are not the
        # first frame's to wait for.
        from oncall_tui.tui.panes.replies import Replies, full_collections_deferred

        keymap = self._services.settings.keymap
        log = self.query_one(ChatLog)
        replies = Replies(self, log, self.status, keymap, retrying=text is None)
        try:
            events = await self._events(session_id, text)
            with full_collections_deferred():
                async with contextlib.aclosing(events):  # closed as the worker ends, not at GC
                    async for event in events:
                        replies.apply(event)
        except OncallError as error:  # refused, or the answer had no session left to go in
            if not self._quitting:
                self.status.show_error(error)
                if error.code in SERVER_AWAY_CODES:
                    self.post_message(self.ServerSaid(answered=False))
            replies.failed(error.message(ui_lang(self)))  # an answer shown is marked unsaved
        except asyncio.CancelledError:
            replies.interrupted(said=not self._quitting)  # quitting: the widgets are going
            raise
        except Exception as exc:  # a fault must still end the reply, or it streams for ever
            problem = f"{type(exc).__name__}: {exc}"[:200]
            fault = OncallError("STREAM_FAILED", "engine_error", problem=problem)
            if not self._quitting:
                self.status.show_error(fault)
            replies.failed(fault.message(ui_lang(self)))
        finally:
            self._sending = None
            if not self._quitting:
                composer = self.query_one(Composer)
                composer.send_ended()
                self.status.reply_ended(unsent=bool(composer.text.strip()))
                self.post_message(self.SendEnded())

    async def _events(
        self, session_id: int | None, text: str | None
    ) -> AsyncGenerator[ChatEvent, None]:
        """The chat service's events for this send. The service is built off the loop: the
        first send may be what opens the database (a team's server across the network)."""
        services = self._services
        chat, owner = await in_thread(lambda: services.chat), services.owner
        if text is not None:
            return chat.send(owner, session_id, text, confirm=self._confirm_tool)
        if session_id is None:  # a retry answers a stored message again
            raise ValueError("a retry needs a session")
        return chat.retry(owner, session_id, confirm=self._confirm_tool)

    async def _confirm_tool(self, request: ToolConfirmation) -> bool:
        """Before a ``confirm`` tool runs: its server, tool and arguments in a dialog that
        takes only a deliberate answer (``ToolConfirmDialog``: keys typed as it opens go back
        to the composer, in order); y runs it, n or Esc (or Enter, which starts on "Don't
        run") returns "the user declined" to the model. A send cancelled meanwhile
        (quitting) takes the dialog with it."""
        from oncall_tui.tui.widgets.tool_dialog import ToolConfirmDialog

        lang = ui_lang(self)
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        composer = self.query_one(Composer)
        dialog = ToolConfirmDialog(request, composer.type_key, composer.type_text)

        def decided(yes: bool | None) -> None:
            if not answer.done():
                answer.set_result(bool(yes))

        self.status.say(t("tools.confirm.waiting", lang, name=request.name))
        self.app.push_screen(dialog, decided)
        try:
            return await answer
        finally:
            if dialog.is_attached and not answer.done():
                dialog.dismiss(False)

    async def on_unmount(self) -> None:
        """Quitting keeps the composer's text (the draft; what the file does not hold is
        printed after the app, :class:`~oncall_tui.tui.exit_deadline.HandBack`) and,
        mid-reply, the reply, marked interrupted: the service stores it as the worker winds
        down, and the app waits for that (a few seconds at most)."""
        self._quitting = True
        # Handed back until the draft is known kept: the exit deadline may come first.
        unkept = cast("OncallApp", self.app).unkept
        unkept.text = self._composer.text
        unkept.text = await self.draft.keep_now() or ""
        sending = self._sending
        if sending is not None:
            sending.cancel()
            # Cancelled, or failed (its own handler said why): either way it has ended, and
            # nothing it raised may stop the app from going.
            with contextlib.suppress(WorkerCancelled, WorkerFailed, TimeoutError):
                await asyncio.wait_for(sending.wait(), STOP_SECONDS)

    @on(TextArea.Changed, "Composer")
    def _composer_changed(self) -> None:
        self.draft.changed()

    def follow_model(self, model: str) -> None:
        """Replies are written by ``model`` from now on (the picker's choice)."""
        self.query_one(ChatLog).follow_model(model)

    # -- a session's messages ---------------------------------------------------------------

    @property
    def shown_count(self) -> int:
        """How many of the open session's messages the log holds, loaded or offered as
        earlier ones."""
        log = self.query_one(ChatLog)
        return log.earlier + len(log.messages)

    def show_page(
        self, page: Sequence[MessageView], *, earlier: int, boundary: int, recall: list[str]
    ) -> None:
        """Show a session's page (its newest messages, ``earlier`` before them); a last
        message without an answer (its reply failed, or the app ended first) says how to ask
        again, unless the status line speaks of something else or an answer is held for the
        database (it goes in when the database answers)."""
        self._oldest_loaded = page[0].position if page else None
        self.query_one(ChatLog).show_page(page, earlier=earlier, boundary=boundary)
        self.query_one(Welcome).loaded()
        self.query_one(Composer).remember(recall)
        unanswered = page and page[-1].role == "user" and not self.sending
        if unanswered and not self.status.text and not self._services.has_held():
            keys = keys_here(self, "retry", first=True)
            self.status.say(t("log.unanswered", ui_lang(self), keys=keys))

    def sessions_read(self) -> None:
        """The sessions are read and none opens here: an empty log is a new session's, and
        the welcome guides it (it said the most recent session would open)."""
        self.query_one(Welcome).loaded()

    def select_found(self, position: int, count: int, find: str = "") -> None:
        """Select the message a search hit is on, at the line with ``find``, if the page
        reaches it."""
        log = self.query_one(ChatLog)
        if log.select_position(position, find):
            log.focus()
        else:
            earlier = keys_here(self, "load_earlier", first=True)
            self.status.say(
                t("search.far_back", ui_lang(self), count=count - position, keys=earlier)
            )

    def load_earlier(self, session_id: int | None) -> None:
        """The page before the oldest message shown, read and put above it."""
        before = self._oldest_loaded
        if session_id is None or before is None or before == 0:
            return
        sessions, owner = self._services.sessions, self._services.owner

        def fetch() -> tuple[list[MessageView], int]:
            page = sessions.messages(owner, session_id, before=before, limit=PAGE_SIZE)
            return page, sessions.get(owner, session_id).compacted_message_count

        def show(result: tuple[list[MessageView], int]) -> None:
            page, boundary = result
            if page:
                self._oldest_loaded = page[0].position
                log = self.query_one(ChatLog)
                log.prepend_page(page, earlier=page[0].position, boundary=boundary)

        self._calls.start(fetch, show)

    def scroll_page(self, pages: int) -> None:
        """PgUp/PgDn in the composer: the chat scrolls by a page, the focus stays."""
        log = self.query_one(ChatLog)
        if pages < 0:
            log.scroll_page_up(animate=False)
        else:
            log.scroll_page_down(animate=False)

    @on(ChatLog.EmptyChanged)
    def _log_emptied(self, event: ChatLog.EmptyChanged) -> None:
        """An empty session shows the welcome; the log keeps its width (a reply about to
        stream is laid out to it) at no height."""
        self.set_class(event.empty, "-empty")

    # -- copying ----------------------------------------------------------------------------

    def copy_message(self) -> None:
        """Copy the message selected in the log, else the newest one."""
        log, lang = self.query_one(ChatLog), ui_lang(self)
        messages = log.messages
        message = log.selected or (messages[-1] if messages else None)
        if message is None:
            self.notify(t("copy.nothing", lang), timeout=3)
            return
        self.app.copy_to_clipboard(message.copy_text())
        self.notify(t("copy.message_done", lang), timeout=2)

    def copy_code(self) -> None:
        """Copy a code block of the selected message (else the newest reply): at once when it
        has one, else the blocks are listed by number."""
        from oncall_tui.core.code_blocks import code_blocks  # markdown-it: not at start-up
        from oncall_tui.tui.screens.code_blocks import CodeBlockPicker, line_count

        log, lang = self.query_one(ChatLog), ui_lang(self)
        replies = [m for m in log.messages if m.role == "assistant"]
        message: MessageBlock | None = log.selected or (replies[-1] if replies else None)
        blocks = [] if message is None else code_blocks(message.content)
        if not blocks:
            self.notify(t("code.none", lang), timeout=3)
            return

        def chosen(block: CodeBlock | None) -> None:
            if block is not None:
                self.app.copy_to_clipboard(block.code)
                self.notify(
                    t("code.copied", lang, lines=line_count(block.line_count, lang)), timeout=2
                )

        if len(blocks) == 1:
            chosen(blocks[0])
        else:
            self.app.push_screen(CodeBlockPicker(blocks, self._composer), chosen)
