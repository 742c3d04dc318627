"""The typed events a chat send yields, in order (DESIGN.md "Events").

``user_message`` -> (``token`` | ``tool_start`` | ``tool_end``)* -> ``usage`` -> ``done``;
or ``error`` (what was stored stays stored) or ``context_limit_reached`` (nothing stored).
An automatic compaction before the send is announced with ``compacted``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from oncall_tui.core.memory import ContextUsage


@dataclass(frozen=True, slots=True)
class MemoryCompacted:
    type: ClassVar[str] = "compacted"
    session_id: int
    compacted_message_count: int
    summary: str

    def to_json(self) -> dict[str, object]:
        return {
            "type": self.type,
            "session_id": self.session_id,
            "compacted_message_count": self.compacted_message_count,
            "summary": self.summary,
        }


@dataclass(frozen=True, slots=True)
class UserMessageStored:
    type: ClassVar[str] = "user_message"
    session_id: int
    message_id: int
    content: str

    def to_json(self) -> dict[str, object]:
        return {"type": self.type, "session_id": self.session_id, "message_id": self.message_id}


@dataclass(frozen=True, slots=True)
class TokenDelta:
    type: ClassVar[str] = "token"
    text: str

    def to_json(self) -> dict[str, object]:
        return {"type": self.type, "text": self.text}


@dataclass(frozen=True, slots=True)
class ToolStarted:
    type: ClassVar[str] = "tool_start"
    call_id: str
    name: str
    arguments: dict[str, object] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "type": self.type,
            "call_id": self.call_id,
            "name": self.name,
            "arguments": self.arguments,
        }


@dataclass(frozen=True, slots=True)
class ToolFinished:
    """A tool call's outcome. Only the one-line summary travels; a skill body never does."""

    type: ClassVar[str] = "tool_end"
    call_id: str
    name: str
    summary: str
    ok: bool = True
    duration_ms: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "type": self.type,
            "call_id": self.call_id,
            "name": self.name,
            "summary": self.summary,
            "ok": self.ok,
            "duration_ms": self.duration_ms,
        }


@dataclass(frozen=True, slots=True)
class UsageReported:
    type: ClassVar[str] = "usage"
    usage: ContextUsage
    input_tokens: int | None = None
    output_tokens: int | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "type": self.type,
            **self.usage.to_json(),
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
        }


@dataclass(frozen=True, slots=True)
class ReplyDone:
    type: ClassVar[str] = "done"
    session_id: int
    message_id: int

    def to_json(self) -> dict[str, object]:
        return {"type": self.type, "session_id": self.session_id, "message_id": self.message_id}


@dataclass(frozen=True, slots=True)
class ReplyFailed:
    type: ClassVar[str] = "error"
    code: str
    message: str
    session_id: int | None = None
    message_id: int | None = None
    """The stored partial reply, if any text had arrived."""

    def to_json(self) -> dict[str, object]:
        return {
            "type": self.type,
            "code": self.code,
            "message": self.message,
            "session_id": self.session_id,
            "message_id": self.message_id,
        }


@dataclass(frozen=True, slots=True)
class ContextLimitReached:
    type: ClassVar[str] = "context_limit_reached"
    code: str
    message: str
    usage: ContextUsage

    def to_json(self) -> dict[str, object]:
        return {
            "type": self.type,
            "code": self.code,
            "message": self.message,
            **self.usage.to_json(),
        }


ChatEvent = (
    MemoryCompacted
    | UserMessageStored
    | TokenDelta
    | ToolStarted
    | ToolFinished
    | UsageReported
    | ReplyDone
    | ReplyFailed
    | ContextLimitReached
)
"""Everything ``ChatService.send`` yields."""

AgentEvent = TokenDelta | ToolStarted | ToolFinished
"""What the agent runner yields while the model works."""
