"""Storing a reply, or holding it when the database does not take it.

Each storing step is one unit of work in a worker thread (:func:`.steps.completed_in_thread`):
the answer with its tool audit and the session's new usage, a failed reply (if anything of it
is worth keeping), an interrupted one. When the database fails under a step the reply is held
(:mod:`oncall_tui.services.spool`: in memory, and on disk where it can be) and stored before the
owner's next send, or by :meth:`ReplyStore.save_held`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar

from oncall_tui.core.events import ReplyHeld
from oncall_tui.core.memory import ContextUsage
from oncall_tui.errors import Language, OncallError, joined, note
from oncall_tui.llm.turn import ModelUsage
from oncall_tui.services.memory import MemoryService, PreparedSend
from oncall_tui.services.replies import StreamedReply, add_reply, held_from, save_held_reply
from oncall_tui.services.spool import ReplySpool
from oncall_tui.services.steps import completed_in_thread
from oncall_tui.store.engine import Database
from oncall_tui.store.failures import database_failure
from oncall_tui.store.ids import stored_id
from oncall_tui.store.sessions import SessionRepository

if TYPE_CHECKING:
    from sqlmodel import Session

    from oncall_tui.store.tables import SessionRow

log = logging.getLogger(__name__)
P = ParamSpec("P")
T = TypeVar("T")


class ReplyStore:
    """Where a chat's replies go: the database, or the spool until it answers again."""

    def __init__(
        self, database: Database, memory: MemoryService, spool: ReplySpool, lang: Language
    ) -> None:
        self._database = database
        self._memory = memory
        self._spool = spool
        """Replies the database did not take, until it does (in memory only without a file)."""
        self._lang = lang

    async def stored(
        self,
        status: str,
        step: Callable[Concatenate[str, PreparedSend, StreamedReply, P], T],
        owner: str,
        prepared: PreparedSend,
        reply: StreamedReply,
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        """Run a storing ``step`` to its end; when the database fails under it, hold the reply
        (memory and spool) to be stored as ``status`` later, and raise :class:`HeldError` with what
        to tell the user. A session deleted or cleared meanwhile (another window, the CLI) is
        said so: "No session '12' found" named a session the user had not asked for."""
        try:
            return await completed_in_thread(step, owner, prepared, reply, *args, **kwargs)
        except Exception as exc:
            if isinstance(exc, OncallError) and exc.code == "NOT_FOUND":
                if exc.reason == "session_cleared":
                    raise
                # deleted meanwhile
                raise OncallError("NOT_FOUND", "session_gone", ref=prepared.session_id) from None
            failure = database_failure(exc, self._database.label)
            if failure is None:
                raise
            raise self._hold(owner, prepared, reply, status, failure) from None

    def _hold(
        self,
        owner: str,
        prepared: PreparedSend,
        reply: StreamedReply,
        status: str,
        failure: OncallError,
    ) -> HeldError:
        if not reply.worth_keeping:
            return HeldError(None)
        held = held_from(
            reply,
            owner=owner,
            database=self._spool.database,
            session_id=prepared.session_id,
            clear_generation=prepared.clear_generation,
            status=status,
        )
        on_disk = self._spool.hold(held)
        log.warning(
            "the reply in session %s could not be stored (%s): held %s",
            prepared.session_id,
            failure.code,
            "in the spool" if on_disk else "in memory only",
        )
        kept = note("reply_held" if on_disk else "reply_held_memory", self._lang)
        message = joined(self._lang, failure.message(self._lang), kept)
        return HeldError(ReplyHeld(failure.code, message, prepared.session_id, status, on_disk))

    def save_held(self, owner: str) -> int:
        """Store the owner's held replies, oldest first, each in a unit of work of its own, and
        forget each once its unit committed; how many were stored. Blocking (call it in a
        thread). A database still away raises its catalog error, and they stay held."""
        saved = 0
        for held in self._spool.pending(owner):
            try:
                with self._database.session() as session:
                    stored = save_held_reply(session, held)
            except Exception as exc:
                failure = database_failure(exc, self._database.label)
                if failure is None:
                    raise
                raise failure from None
            self._spool.release(held)
            saved += stored
        return saved

    async def save_held_first(self, owner: str) -> None:
        """Before a send stores its message: what was held goes in first, in order. A database
        still away is the send's to report (it fails the same way)."""
        if self._spool.has_pending(owner):
            with contextlib.suppress(OncallError):
                await asyncio.to_thread(self.save_held, owner)

    def answer(
        self,
        owner: str,
        prepared: PreparedSend,
        reply: StreamedReply,
        status: str,
        usage: ModelUsage,
    ) -> tuple[int, ContextUsage]:
        """One unit of work: the answer, its tool audit, and the session's new usage."""
        with self._database.session() as session:
            chat = _answered_session(session, owner, prepared)
            message = add_reply(session, chat, reply, status)
            reading = self._memory.record_reply(chat, prepared, reply.text, usage)
            SessionRepository(session).save(chat)
            _log_stored(prepared, status, reply)
            return stored_id(message), reading

    def failed(self, owner: str, prepared: PreparedSend, reply: StreamedReply) -> int | None:
        """One unit of work: a failed reply, if anything of it is worth keeping, and the usage
        of the session's next request (which does not send it)."""
        with self._database.session() as session:
            chat = _answered_session(session, owner, prepared)
            message_id = None
            if reply.worth_keeping:
                message_id = add_reply(session, chat, reply, "failed").id
                _log_stored(prepared, "failed", reply)
            self._memory.refresh(session, owner, chat)
            return message_id

    def interrupted(self, owner: str, prepared: PreparedSend, reply: StreamedReply) -> None:
        """One unit of work: what arrived of a cancelled reply, if anything, ``interrupted``."""
        if not reply.worth_keeping:
            return
        with self._database.session() as session:
            chat = _answered_session(session, owner, prepared)
            add_reply(session, chat, reply, "interrupted")
            SessionRepository(session).save(chat)
            _log_stored(prepared, "interrupted", reply)


class HeldError(Exception):
    """A storing step failed with the database and the reply is held; ``event`` says so (none
    when nothing of the reply was worth keeping)."""

    def __init__(self, event: ReplyHeld | None) -> None:
        super().__init__()
        self.event = event

    def with_cause(self, error: OncallError, lang: Language) -> ReplyHeld:
        """The held event of a reply that had failed already: both failures said."""
        if self.event is None:
            raise RuntimeError("nothing was held")
        return replace(self.event, message=f"{error.message(lang)} {self.event.message}")


def _answered_session(session: Session, owner: str, prepared: PreparedSend) -> SessionRow:
    """The session a reply answers, as the message was sent into it. Cleared since (another
    window, the CLI), the question is gone: the reply stood alone at its start, first in every
    later request. Not stored, as a held reply is not (:func:`.replies.save_held_reply`)."""
    chat = SessionRepository(session).require(owner, prepared.session_id)
    if chat.clear_generation != prepared.clear_generation:
        raise OncallError("NOT_FOUND", "session_cleared", ref=prepared.session_id)
    return chat


def _log_stored(prepared: PreparedSend, status: str, reply: StreamedReply) -> None:
    log.info(
        "reply stored in session %s: %s, %d tool calls",
        prepared.session_id,
        status,
        len(reply.calls),
    )
