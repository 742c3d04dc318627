"""One send's events drawn in the chat pane as they come: the user's message, the reply's
pieces, its tools, its end; what the rest of the screen must know goes up as the pane's
messages."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from oncall_tui.core.events import (
    ChatEvent,
    CompactionFailed,
    CompactionStarted,
    ContextLimitReached,
    MemoryCompacted,
    ReplyDone,
    ReplyFailed,
    ReplyHeld,
    ThinkingStarted,
    TokenDelta,
    ToolFinished,
    ToolServerFailed,
    ToolServersStarting,
    ToolStarted,
    ToolsUnavailable,
    UsageReported,
    UserMessageStored,
)
from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import joined
from oncall_tui.texts import text as t
from oncall_tui.tui.chat_log import ChatLog, MessageBlock
from oncall_tui.tui.commands import keys_to_say
from oncall_tui.tui.panes.memory import compacting_status
from oncall_tui.tui.widgets.composer import Composer
from oncall_tui.tui.widgets.lang import ui_lang
from oncall_tui.tui.widgets.status_line import SERVER_AWAY_CODES, StatusLine

if TYPE_CHECKING:
    from oncall_tui.tui.panes.chat import ChatPane


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


class Replies:
    """Draws one send's events in ``pane``'s log and status line."""

    def __init__(
        self,
        pane: ChatPane,
        log: ChatLog,
        status: StatusLine,
        keymap: Mapping[str, str],
        *,
        retrying: bool = False,
    ) -> None:
        self._pane = pane
        self._retrying = retrying
        """A retry: it stores no message, and its reply starts with its first piece."""
        self._keymap = keymap
        self._log = log
        self._status = status
        self._lang = ui_lang(pane)
        self._reply: MessageBlock | None = None
        self._answered = False
        """The server has answered this send (said up once)."""

    def apply(self, event: ChatEvent) -> None:
        pane, status, lang = self._pane, self._status, self._lang
        if isinstance(event, ToolServersStarting):
            status.say(t("status.tool_servers_starting", lang, seconds=f"{event.seconds:g}"))
        elif isinstance(event, ToolServerFailed):
            pane.notify(terminal_safe(event.message), severity="warning", timeout=8)
            pane.post_message(pane.ToolsChanged())
        elif isinstance(event, CompactionStarted):
            stop = keys_to_say("cancel_reply", self._keymap).split(" / ")[0]
            status.say(compacting_status(event.message_count, lang, stop))
        elif isinstance(event, MemoryCompacted):
            self._log.mark_boundary(event.compacted_message_count)
            status.say(t("status.sending", lang))
            count = event.compacted_message_count
            pane.notify(t("memory.compacted_notice", lang, count=count))
        elif isinstance(event, UserMessageStored):
            pane.query_one(Composer).sent()
            status.clear_unless_error()
            if status.open_session != event.session_id:
                status.open_session = event.session_id  # what is said now is of this one
                pane.post_message(pane.SessionStarted(event.session_id))
            pane.post_message(pane.MessageStored(event.session_id))
            self._reply = self._log.add_exchange(event.content)
        elif isinstance(event, TokenDelta):
            self._server_answered()
            self._replying().append(event.text)
        elif isinstance(event, ThinkingStarted):
            self._server_answered()
            self._replying().think()
        elif isinstance(event, ToolStarted):
            self._replying().add_tool(event.call_id, event.name, event.arguments)
        elif isinstance(event, ToolFinished) and self._reply is not None:
            self._reply.finish_tool(event.call_id, event.summary, event.status)
        elif isinstance(event, UsageReported):
            usage = event.usage
            pane.post_message(pane.UsageReported(usage.context_tokens, usage.context_window_tokens))
        elif isinstance(event, ReplyDone):
            self._server_answered()
            if self._reply is not None:
                self._reply.finish(event.status)
            status.clear_unless_error()
            if event.note is not None:
                pane.notify(terminal_safe(event.note), timeout=10, markup=False)
        elif isinstance(event, ReplyHeld):
            if self._reply is not None:
                self._reply.finish(event.status, note=event.message)
            status.say(event.message, error=True)
            status.database_away = True  # said until a call reaches the database again
        elif isinstance(event, ToolsUnavailable):
            pane.notify(terminal_safe(event.message), severity="warning", timeout=8, markup=False)
        elif isinstance(event, ReplyFailed):
            self._failed(event)
        elif isinstance(event, ContextLimitReached):
            # Where this message would take the context, and what would help; the gauge keeps
            # showing where it is (a shorter message may still fit).
            status.say(self._with_keys(event), error=True)
        elif isinstance(event, CompactionFailed):
            status.say(event.message, error=True)  # said until the reply starts

    def interrupted(self, *, said: bool) -> None:
        """The send was cancelled (Esc, ctrl+c, quitting): the reply shown so far stays,
        marked interrupted, and (unless the app is going) the status line says so."""
        if self._reply is not None:
            self._reply.finish("interrupted")
        if said:
            # Before the message was stored (the first send of a run loads the model stack, a
            # second or two) no reply began: none is kept, and the text is still in the composer.
            kept = self._reply is not None
            said_key = "status.reply_cancelled" if kept else "status.send_cancelled"
            self._status.say(t(said_key, self._lang))

    def failed(self, note: str) -> None:
        """A fault ended the send: a reply still streaming ends, failed, with ``note``."""
        if self._reply is not None and not self._reply.ended:
            self._reply.finish("failed", note=note)

    def _with_keys(self, refused: ContextLimitReached) -> str:
        """A refusal that advises compacting or a new session, with the keys that do them."""
        if not refused.compacting_helps:
            return refused.message
        compact = keys_to_say("compact", self._keymap)
        new = keys_to_say("new_session", self._keymap)
        hint = t("send.full_hint", self._lang, compact=compact, new=new)
        return joined(self._lang, refused.message, hint)

    def _server_answered(self) -> None:
        """The model server answered this send: what the screen says of it follows (it may
        have said the server was away)."""
        if not self._answered:
            self._answered = True
            self._pane.post_message(self._pane.ServerSaid(answered=True))

    def _replying(self) -> MessageBlock:
        """The streaming reply; a retry's first piece starts it (it stores no user message)."""
        if self._reply is None:
            self._status.say("")
            self._reply = self._log.add_reply()
        return self._reply

    def _failed(self, event: ReplyFailed) -> None:
        """The message is stored (it is in the log): it is not given back to the composer,
        where Enter would store it a second time."""
        keys = keys_to_say("retry", self._keymap)
        if event.code == "MODEL_NOT_FOUND":  # pulled meanwhile, or another picked: then retry
            models = keys_to_say("models", self._keymap)
            retry = t("send.pick_or_retry_hint", self._lang, models=models, retry=keys)
        else:
            retry = t("send.retry_hint", self._lang, retry=keys)
        message = joined(self._lang, event.message, retry)
        self._status.say(message, error=True)
        if self._reply is None and self._retrying:  # failed before a word: an attempt all the
            self._reply = self._log.add_reply()  # same (the screen stayed as it was)
        if self._reply is not None:
            self._reply.finish("failed", note=message)
        if event.code in SERVER_AWAY_CODES:
            self._status.server_away(retry)
            self._pane.post_message(self._pane.ServerSaid(answered=False))
