"""What clients see: plain frozen records converted explicitly from storage rows.

``to_json`` gives the snake_case shapes the CLI contract promises. Skill views never
carry the body except :class:`SkillDetail`, which exists for the explicit "show". This module
imports no storage code at run time but the id check of :mod:`oncall_tui.store.ids` (plain
Python): a client can hold views (the TUI from its first frame) before the database is opened.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from enum import Enum
from typing import TYPE_CHECKING

from oncall_tui.core.memory import MemoryMode, MemoryState
from oncall_tui.core.text import in_text_order
from oncall_tui.llm.server import ListedModel
from oncall_tui.store.ids import stored_id

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    from oncall_tui.store.tables import MessageRow, PromptRow, SessionRow, SkillRow, ToolAuditRow


def iso(moment: datetime | None) -> str | None:
    """Render a stored (UTC) time as ISO 8601 with an explicit offset."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat()


def json_fields(
    view: DataclassInstance, *extra: str, leave_out: tuple[str, ...] = ()
) -> dict[str, object]:
    """``view``'s fields by name (but those in ``leave_out``), then the properties ``extra``
    names, as JSON holds them: a time in ISO 8601 (:func:`iso`), a mode by its value, a view by
    its own ``to_json``, a tuple as a list."""
    names = [f.name for f in fields(view) if f.name not in leave_out]
    return {name: _json_value(getattr(view, name)) for name in [*names, *extra]}


def _json_value(value: object) -> object:
    if isinstance(value, datetime):
        return iso(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return [_json_value(item) for item in value]
    to_json = getattr(value, "to_json", None)
    return to_json() if callable(to_json) else value


@dataclass(frozen=True, slots=True)
class PromptView:
    id: int
    label: str
    content: str
    is_default: bool
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, row: PromptRow) -> PromptView:
        return cls(
            id=stored_id(row),
            label=row.label,
            content=row.content,
            is_default=row.is_default,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )

    def to_json(self) -> dict[str, object]:
        return json_fields(self)


@dataclass(frozen=True, slots=True)
class SkillView:
    """A skill as listed and selected: everything but the body."""

    id: int
    filename: str
    name: str
    description: str
    size_bytes: int
    created_at: datetime
    updated_at: datetime

    @property
    def label(self) -> str:
        return self.name

    @property
    def content_preview(self) -> str:
        return self.description

    @classmethod
    def of(cls, row: SkillRow) -> SkillView:
        return cls(
            id=stored_id(row),
            filename=row.filename,
            name=row.name,
            description=row.description,
            size_bytes=row.size_bytes,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )

    def to_json(self) -> dict[str, object]:
        return json_fields(self, "label", "content_preview")


@dataclass(frozen=True, slots=True)
class SkillDetail:
    """A skill with its full Markdown, for an explicit read by its owner."""

    skill: SkillView
    content: str

    def to_json(self) -> dict[str, object]:
        return {**self.skill.to_json(), "content": self.content}


@dataclass(frozen=True, slots=True)
class ConfigurationView:
    system_prompt_id: int
    skill_ids: tuple[int, ...]
    prompts: tuple[PromptView, ...]
    skills: tuple[SkillView, ...]
    updated_at: datetime | None

    @property
    def active_prompt(self) -> PromptView:
        return next(p for p in self.prompts if p.id == self.system_prompt_id)

    @property
    def selected_skills(self) -> tuple[SkillView, ...]:
        by_id = {skill.id: skill for skill in self.skills}
        return tuple(by_id[skill_id] for skill_id in self.skill_ids if skill_id in by_id)

    def to_json(self) -> dict[str, object]:
        return json_fields(self)


@dataclass(frozen=True, slots=True)
class SessionView:
    id: int
    title: str
    memory_mode: MemoryMode
    message_count: int
    compacted_message_count: int
    created_at: datetime
    updated_at: datetime

    @classmethod
    def of(cls, row: SessionRow, message_count: int) -> SessionView:
        return cls(
            id=stored_id(row),
            title=row.title,
            memory_mode=MemoryMode(row.memory_mode),
            message_count=message_count,
            compacted_message_count=row.compacted_message_count,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )

    def to_json(self) -> dict[str, object]:
        return json_fields(self)


@dataclass(frozen=True, slots=True)
class ToolCallView:
    call_id: str
    name: str
    arguments: dict[str, object]
    status: str
    summary: str
    duration_ms: int
    recovered: bool = False
    """The model wrote the call as text; it was read from its reply."""
    text_at: int | None = None
    """Characters of the reply's text written before the call; ``None`` for a call stored
    before replies kept where their calls were made."""

    @classmethod
    def of(cls, row: ToolAuditRow) -> ToolCallView:
        try:
            arguments = json.loads(row.arguments)
        except ValueError:
            arguments = {}
        return cls(
            call_id=row.call_id,
            name=row.tool_name,
            arguments=arguments if isinstance(arguments, dict) else {},
            status=row.status,
            summary=row.summary,
            duration_ms=row.duration_ms,
            recovered=row.recovered,
            text_at=row.text_at,
        )

    def to_json(self) -> dict[str, object]:
        return json_fields(self)


@dataclass(frozen=True, slots=True)
class MessageView:
    id: int
    position: int
    role: str
    content: str
    status: str
    created_at: datetime
    tool_calls: tuple[ToolCallView, ...] = field(default=())
    model: str | None = None
    """The model that wrote a reply; ``None`` for a person's message, or a reply stored before
    the app kept it."""

    @property
    def calls_placed(self) -> bool:
        """Whether any of its tool calls kept where it was made (stored since revision 0009)."""
        return any(call.text_at is not None for call in self.tool_calls)

    def in_order(self) -> list[str | ToolCallView]:
        """The text and the tool calls in the order they came (:func:`in_text_order`)."""
        return in_text_order(self.content, self.tool_calls, lambda call: call.text_at)

    @classmethod
    def of(cls, row: MessageRow, tool_calls: tuple[ToolCallView, ...] = ()) -> MessageView:
        return cls(
            id=stored_id(row),
            position=row.position,
            role=row.role,
            content=row.content,
            status=row.status,
            created_at=row.created_at,
            tool_calls=tool_calls,
            model=row.model,
        )

    def to_json(self) -> dict[str, object]:
        return json_fields(self, leave_out=("position",))


@dataclass(frozen=True, slots=True)
class SessionTranscript:
    """A whole session as it is shown and exported: the session, every message (the
    summarised ones too) with its tool calls, and its memory.

    :meth:`to_json` is the one shape of ``sessions show --json`` and of a JSON export, so the
    two cannot drift apart."""

    session: SessionView
    messages: tuple[MessageView, ...]
    memory: MemoryState

    def to_json(self) -> dict[str, object]:
        return {
            **self.session.to_json(),
            "messages": [message.to_json() for message in self.messages],
            "memory": self.memory.to_json(),
        }


ModelInfo = ListedModel
"""An installed model as a client lists it: the model server's own record, its listing's
fields first, then its details once they are known (:mod:`oncall_tui.services.models`)."""
