"""The main screen's sending: a send or a retry, its events drawn as they come, Esc to stop.

A send is an async worker on the app's event loop that iterates the chat service's events
(the service keeps its database work off the loop). Esc cancels the worker; the service then
stores what arrived, marked interrupted. Quitting (ctrl+q, SIGTERM, SIGHUP) does the same and
waits for the partial reply to be stored before the app goes.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
from collections.abc import AsyncGenerator, Iterator
from typing import TYPE_CHECKING

from textual import work
from textual.worker import Worker, WorkerCancelled, WorkerFailed

from oncall_tui.core.events import (
    ChatEvent,
    CompactionFailed,
    CompactionStarted,
    ContextLimitReached,
    MemoryCompacted,
    ReplyDone,
    ReplyFailed,
    ReplyHeld,
    TokenDelta,
    ToolConfirmation,
    ToolFinished,
    ToolServerFailed,
    ToolStarted,
    ToolsUnavailable,
    UsageReported,
    UserMessageStored,
)
from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import OncallError
from oncall_tui.texts import text as t
from oncall_tui.tui.chat_log import ChatLog, MessageBlock
from oncall_tui.tui.screens.memory_actions import MemoryActions, compacting_status
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.context_panel import ContextPanel, OllamaStatus
from oncall_tui.tui.widgets.plain_text import PlainText
from oncall_tui.tui.widgets.session_list import SessionList

STOP_SECONDS = 5.0
"""How long quitting waits for a cancelled send to store its partial reply."""


@contextlib.contextmanager
def full_collections_deferred() -> Iterator[None]:
    """While a reply streams, the garbage collector's full passes wait for its end; the young
    passes go on. LangChain keeps every chunk of a model call until the call ends (a dozen
    objects a token), so a full pass late in a long reply visits tens of thousands of objects:
    80-130 ms at 200 tokens a second after 30 s (bench/tui_stream.py), a visible stall. The
    start-up heap is frozen (see the app's warm-up); this is the reply's share."""
    young, middle, full = gc.get_threshold()
    gc.set_threshold(young, middle, 1 << 30)
    try:
        yield
    finally:
        gc.set_threshold(young, middle, full)


class ChatActions(MemoryActions):
    """Sends, retries and their replies; at most one at a time."""

    _reply: MessageBlock | None = None
    _known_count: int | None = None
    _closing = False
    _checking_server = False
    """A check of the model server, asked because a send found it answering, is running."""

    def start_send(self, session_id: int | None, text: str | None) -> None:
        """Send ``text`` (``None``: retry the session's unanswered message)."""
        self._sending = self._send(session_id, text)

    @work(exclusive=True, group="chat", exit_on_error=False)
    async def _send(self, session_id: int | None, text: str | None) -> None:
        """The send's events, drawn as they come. Nothing raised here ends the app: the chat
        service itself is built inside (a database that fails as it opens is a refused send,
        the typed text kept), and any other fault ends the reply with a message."""
        try:
            events = await self._events(session_id, text)
            with full_collections_deferred():
                async with contextlib.aclosing(events):  # closed as the worker ends, not at GC
                    async for event in events:
                        self._apply(event)
        except OncallError as error:  # refused before anything was stored
            if not self._closing:
                self.show_error(error)
                if error.code in ("MODEL_UNAVAILABLE", "MODEL_NOT_FOUND"):
                    self.check_ollama()  # the panel says what the send found
        except asyncio.CancelledError:
            if self._reply is not None:
                self._reply.finish("interrupted")
            if not self._closing:  # quitting: the screen's widgets are going
                self._set_status(t("status.reply_cancelled", self.services.settings.lang))
            raise
        except Exception as exc:  # a fault must still end the reply, or it streams for ever
            problem = f"{type(exc).__name__}: {exc}"[:200]
            fault = OncallError("STREAM_FAILED", "engine_error", problem=problem)
            if not self._closing:
                self.show_error(fault)
            if self._reply is not None and not self._reply.ended:
                self._reply.finish("failed", note=fault.message(self.services.settings.lang))
        finally:
            self._sending = None
            self._reply = None
            if not self._closing:
                self.query_one(Composer).send_ended()
                self._known_count = None  # the log shows this send: take the count as it is
                self.load_sessions()
                self.refresh_context()
                self.refresh_tools()

    async def _events(
        self, session_id: int | None, text: str | None
    ) -> AsyncGenerator[ChatEvent, None]:
        """The chat service's events for this send. The service is built off the loop: the
        first send may be what opens the database (a team's server across the network)."""
        services = self.services
        chat, owner = await asyncio.to_thread(lambda: services.chat), services.owner
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

        lang = self.services.settings.lang
        answer: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        dialog = ToolConfirmDialog(request, self.query_one(Composer).type_key, lang)

        def decided(yes: bool | None) -> None:
            if not answer.done():
                answer.set_result(bool(yes))

        self._set_status(t("tools.confirm.waiting", lang, name=request.name))
        self.app.push_screen(dialog, decided)
        try:
            return await answer
        finally:
            if dialog.is_attached and not answer.done():
                dialog.dismiss(False)

    def refresh_tools(self) -> None:
        """The tool servers' state in the panel (they start in the background the first
        time); nothing when the settings file registers none."""
        if self.services.settings.mcp_servers:
            panel = self.query_one(ContextPanel)
            self._in_thread(self.services.tools.servers, panel.show_tools)

    def _apply(self, event: ChatEvent) -> None:
        log = self.query_one(ChatLog)
        lang = self.services.settings.lang
        if isinstance(event, ToolServerFailed):
            self.notify(terminal_safe(event.message), severity="warning", timeout=8)
            self.refresh_tools()
        elif isinstance(event, CompactionStarted):
            self._set_status(compacting_status(event.message_count, lang))
        elif isinstance(event, MemoryCompacted):
            log.mark_boundary(event.compacted_message_count)
            self._set_status(t("status.sending", lang))
            count = event.compacted_message_count
            self.notify(t("memory.compacted_notice", lang, count=count))
        elif isinstance(event, UserMessageStored):
            self.query_one(Composer).sent()
            self._clear_status()
            if self.session_id != event.session_id:
                self.session_id = event.session_id
                self.load_sessions(select=None)
                self.query_one(SessionList).current = event.session_id
            self._reply = log.add_exchange(event.content)
        elif isinstance(event, TokenDelta):
            self._server_answered()
            self._replying().append(event.text)
        elif isinstance(event, ToolStarted):
            self._replying().add_tool(event.call_id, event.name, event.arguments)
        elif isinstance(event, ToolFinished) and self._reply is not None:
            self._reply.finish_tool(event.call_id, event.summary, event.status)
        elif isinstance(event, UsageReported):
            usage = event.usage
            self.query_one(ContextPanel).gauge.update_usage(
                usage.context_tokens, usage.context_window_tokens
            )
        elif isinstance(event, ReplyDone):
            self._server_answered()
            if self._reply is not None:
                self._reply.finish(event.status)
            self._clear_status()
            if event.note is not None:
                self.notify(terminal_safe(event.note), timeout=10, markup=False)
        elif isinstance(event, ReplyHeld):
            if self._reply is not None:
                self._reply.finish(event.status, note=event.message)
            self._set_status(event.message, error=True)
            self.database_away = True  # said until a call reaches the database again
        elif isinstance(event, CompactionFailed):
            self._set_status(event.message, error=True)  # said until the reply starts
        elif isinstance(event, ToolsUnavailable):
            self.notify(terminal_safe(event.message), severity="warning", timeout=8, markup=False)
        elif isinstance(event, ReplyFailed):
            self._failed(event)
        elif isinstance(event, ContextLimitReached):
            # The refusal says where this message would take the context; the gauge keeps
            # showing where it is (a shorter message may still fit).
            self._set_status(event.message, error=True)

    def _server_answered(self) -> None:
        """The model server answered this send: what the panel and the guide say of it follows
        (it may have said the server was away)."""
        if self.ollama.usable is not True and not self._checking_server:
            self._checking_server = True
            self.check_ollama()

    def _clear_status(self) -> None:
        """Clear "Sending…"; an error said since (an Enter refused mid-reply) stays."""
        if not self.query_one("#status", PlainText).has_class("-error"):
            self._set_status("")

    def _replying(self) -> MessageBlock:
        """The streaming reply; a retry's first piece starts it (it stores no user message)."""
        if self._reply is None:
            self._set_status("")
            self._reply = self.query_one(ChatLog).add_reply()
        return self._reply

    def _failed(self, event: ReplyFailed) -> None:
        """The message is stored (it is in the log): it is not given back to the composer,
        where Enter would store it a second time."""
        self._set_status(event.message, error=True)
        if self._reply is not None:
            self._reply.finish("failed", note=event.message)
        if event.code in ("MODEL_UNAVAILABLE", "MODEL_NOT_FOUND"):
            self.check_ollama()

    def action_retry(self) -> None:
        """Answer the open session's last message again; the service says if there is none."""
        lang = self.services.settings.lang
        if self._sending is not None:
            self._set_status(t("status.still_streaming", lang), error=True)
        elif self.session_id is not None:
            self._set_status(t("status.retrying", lang))
            self.start_send(self.session_id, None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "interrupt_reply":
            return self._sending is not None
        return True

    def action_interrupt_reply(self) -> None:
        """ctrl+c while a reply streams: stop it, keeping what arrived (marked interrupted)."""
        if self._sending is not None:
            self._sending.cancel()

    def action_cancel_reply(self) -> None:
        """Esc: stop the streaming reply; with none, back to the composer. (Always offered in
        the footer: showing it only mid-reply would lay the footer out at every send.)"""
        if self._sending is not None:
            self._sending.cancel()
        else:
            self.query_one(Composer).focus()

    async def on_unmount(self) -> None:
        """Quitting mid-reply keeps it, marked interrupted: the service stores it as the
        worker winds down, and the app waits for that (a few seconds at most)."""
        self._closing = True
        sending: Worker[None] | None = self._sending
        if sending is not None:
            sending.cancel()
            # Cancelled, or failed (its own handler said why): either way it has ended, and
            # nothing it raised may stop the app from going.
            with contextlib.suppress(WorkerCancelled, WorkerFailed, TimeoutError):
                await asyncio.wait_for(sending.wait(), STOP_SECONDS)

    if TYPE_CHECKING:  # the main screen's, which this part of it uses

        def load_sessions(
            self, *, open_newest: bool = False, select: int | None = None
        ) -> None: ...

        def refresh_context(self) -> None: ...

        def check_ollama(self) -> None: ...

        ollama: OllamaStatus
