"""The typed events a chat send yields, in order (docs/ARCHITECTURE.md "Events").

``user_message`` -> (``token`` | ``tool_start`` | ``tool_end``)* -> ``usage`` -> ``done``;
or ``error`` (what was stored stays stored) or ``context_limit_reached`` (nothing stored), or
``held`` (the reply ended, the database did not take it: kept and saved later).
Before ``user_message`` may come ``tools_unavailable`` (the model cannot call tools),
``tool_servers_starting`` (the send waits for the tool servers to start, a moment into it),
``tool_server_failed`` (once per process for a registered server that did not start) and an
automatic compaction: ``compacting``, then ``compacted`` or ``compaction_failed``. A retry yields
the same events without ``user_message`` (its message is stored already).

``to_json`` gives the one-line-per-event shape of ``oncall-tui chat --json``: ``type`` plus
the event's fields, with a :class:`ContextUsage` flattened into its usage fields.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, fields
from typing import ClassVar

from oncall_tui.core.memory import ContextUsage


class _Event:
    __slots__ = ()
    type: ClassVar[str]
    _private: ClassVar[frozenset[str]] = frozenset()
    """Fields kept out of the JSON shape."""

    def to_json(self) -> dict[str, object]:
        document: dict[str, object] = {"type": self.type}
        for item in fields(self):  # type: ignore[arg-type]
            if item.name in self._private:
                continue
            value = getattr(self, item.name)
            if isinstance(value, ContextUsage):
                document.update(value.to_json())
            else:
                document[item.name] = value
        return document


@dataclass(frozen=True, slots=True)
class CompactionStarted(_Event):
    """An automatic compaction begins: the model summarises before the send goes on."""

    type: ClassVar[str] = "compacting"
    session_id: int
    message_count: int
    """The messages after the boundary being summarised."""


@dataclass(frozen=True, slots=True)
class MemoryCompacted(_Event):
    type: ClassVar[str] = "compacted"
    session_id: int
    compacted_message_count: int
    summary: str
    summary_status: str = "complete"
    """``truncated`` when the model stopped writing it at its length limit."""


@dataclass(frozen=True, slots=True)
class CompactionFailed(_Event):
    """The automatic compaction before a send failed; the send goes on if it fits."""

    type: ClassVar[str] = "compaction_failed"
    session_id: int | None
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class ToolsUnavailable(_Event):
    """The model cannot call tools: this send runs without skills and the clock tool."""

    type: ClassVar[str] = "tools_unavailable"
    model: str
    message: str


@dataclass(frozen=True, slots=True)
class ToolServersStarting(_Event):
    """The tool servers are still starting a moment into the send, which waits for them (up to
    ``seconds``): a slow one held the first message with nothing said of why."""

    type: ClassVar[str] = "tool_servers_starting"
    seconds: float


@dataclass(frozen=True, slots=True)
class ToolServerFailed(_Event):
    """A registered tool server did not start (or stopped): its tools are absent and the chat
    goes on without them. Said once per process for each server."""

    type: ClassVar[str] = "tool_server_failed"
    server: str
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class ToolConfirmation:
    """What a client shows before a ``confirm`` tool runs: which server, which tool, and the
    arguments the model gave."""

    server: str
    tool: str
    arguments: dict[str, object]

    @property
    def name(self) -> str:
        """The tool as people see it: ``server.tool``."""
        return f"{self.server}.{self.tool}"


ConfirmHook = Callable[[ToolConfirmation], Awaitable[bool | None]]
"""Asked before each call of a ``confirm`` tool: ``True`` runs it, ``False`` declines it (the
user said no), ``None`` when the client cannot ask (a script's run: not allowed in it)."""


@dataclass(frozen=True, slots=True)
class UserMessageStored(_Event):
    type: ClassVar[str] = "user_message"
    _private: ClassVar[frozenset[str]] = frozenset({"content"})
    session_id: int
    message_id: int
    content: str


@dataclass(frozen=True, slots=True)
class TokenDelta(_Event):
    type: ClassVar[str] = "token"
    text: str


@dataclass(frozen=True, slots=True)
class ThinkingStarted(_Event):
    """The model reasons before it answers (a ``<think>`` block, or reasoning its server streams
    apart): not shown, not stored; said so that the wait is not taken for a hang. Once per
    model call, before its first word or tool call."""

    type: ClassVar[str] = "thinking"


@dataclass(frozen=True, slots=True)
class ToolStarted(_Event):
    type: ClassVar[str] = "tool_start"
    call_id: str
    name: str
    arguments: dict[str, object] = field(default_factory=dict)
    recovered: bool = False
    """The model wrote this call as text; it was read from its reply
    (:mod:`oncall_tui.llm.text_calls`) and runs as a native one does."""


class ToolStatus:
    OK = "ok"
    ERROR = "error"
    WITHHELD = "withheld"
    """The result did not fit under the 95% limit; the model got a short note instead."""
    CUT = "cut"
    """The result did not fit whole under the 95% limit; the model got its beginning and a
    note of how much was left out (:func:`oncall_tui.llm.guard.cut_to_fit`)."""
    DECLINED = "declined"
    """A tool that asks first was refused (by the user, or because the run cannot ask)."""


@dataclass(frozen=True, slots=True)
class ToolFinished(_Event):
    """A tool call's outcome. Only the one-line summary travels; a skill body never does."""

    type: ClassVar[str] = "tool_end"
    call_id: str
    name: str
    summary: str
    duration_ms: int = 0
    status: str = ToolStatus.OK
    """``ok``, ``error``, ``cut``, ``withheld`` or ``declined``; :attr:`ok` only for ``ok``."""

    @property
    def ok(self) -> bool:
        return self.status == ToolStatus.OK

    def to_json(self) -> dict[str, object]:
        return {**_Event.to_json(self), "ok": self.ok}


@dataclass(frozen=True, slots=True)
class UsageReported(_Event):
    type: ClassVar[str] = "usage"
    usage: ContextUsage
    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class ReplyDone(_Event):
    type: ClassVar[str] = "done"
    session_id: int
    message_id: int
    status: str = "complete"
    """``complete``, or ``truncated`` when the server stopped it at its length limit."""
    note: str | None = None
    """Said of a reply too long to send back whole: later requests carry its beginning and
    end (:func:`oncall_tui.core.memory.sent_back`), and this says so."""


@dataclass(frozen=True, slots=True)
class ReplyHeld(_Event):
    """The reply ended (``status``) but the database did not take it: it is held on this
    computer (:mod:`oncall_tui.services.spool`) and saved when the database answers again.
    The client has shown it; nothing of it is lost."""

    type: ClassVar[str] = "held"
    code: str
    message: str
    session_id: int
    status: str
    """What the reply will be stored as: ``complete``, ``truncated`` or ``failed``."""
    on_disk: bool
    """``False``: only this process holds it (the spool could not take it)."""


@dataclass(frozen=True, slots=True)
class ReplyFailed(_Event):
    type: ClassVar[str] = "error"
    code: str
    message: str
    session_id: int | None = None
    message_id: int | None = None
    """The stored partial reply, if any text had arrived."""


COMPACTING_HELPS = frozenset({"limit_message", "limit_message_full", "limit_retry"})
"""The refusals that advise compacting the session memory or starting a new session: the
session has messages or a summary to drop."""


@dataclass(frozen=True, slots=True)
class ContextLimitReached(_Event):
    type: ClassVar[str] = "context_limit_reached"
    code: str
    message: str
    usage: ContextUsage
    reason: str | None = None
    """The refusal's rule: ``limit_message`` (shorten it, compact or start anew),
    ``limit_message_new`` (shorten it), ``limit_message_full`` (compact or start anew),
    ``limit_message_base`` (the prompt, skills and tools alone fill the window),
    ``limit_retry``."""

    @property
    def compacting_helps(self) -> bool:
        """Whether compacting or a new session would make room (:data:`COMPACTING_HELPS`)."""
        return self.reason in COMPACTING_HELPS


ChatEvent = (
    CompactionStarted
    | MemoryCompacted
    | CompactionFailed
    | ToolsUnavailable
    | ToolServersStarting
    | ToolServerFailed
    | UserMessageStored
    | ThinkingStarted
    | TokenDelta
    | ToolStarted
    | ToolFinished
    | UsageReported
    | ReplyDone
    | ReplyHeld
    | ReplyFailed
    | ContextLimitReached
)
"""Everything ``ChatService.send`` and ``ChatService.retry`` yield."""
