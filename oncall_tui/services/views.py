"""What clients see: plain frozen records converted explicitly from storage rows.

``to_json`` gives the snake_case shapes the CLI contract promises. Skill views never
carry the body except :class:`SkillDetail`, which exists for the explicit "show".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from oncall_tui.store.tables import PromptRow, SkillRow


def iso(moment: datetime | None) -> str | None:
    """Render a stored (UTC) time as ISO 8601 with an explicit offset."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat()


def _row_id(row_id: int | None) -> int:
    if row_id is None:
        raise ValueError("row has not been flushed")
    return row_id


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
            id=_row_id(row.id),
            label=row.label,
            content=row.content,
            is_default=row.is_default,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "label": self.label,
            "content": self.content,
            "is_default": self.is_default,
            "created_at": iso(self.created_at),
            "updated_at": iso(self.updated_at),
        }


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
            id=_row_id(row.id),
            filename=row.filename,
            name=row.name,
            description=row.description,
            size_bytes=row.size_bytes,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "filename": self.filename,
            "name": self.name,
            "description": self.description,
            "label": self.label,
            "content_preview": self.content_preview,
            "size_bytes": self.size_bytes,
            "created_at": iso(self.created_at),
            "updated_at": iso(self.updated_at),
        }


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
        return {
            "system_prompt_id": self.system_prompt_id,
            "skill_ids": list(self.skill_ids),
            "prompts": [prompt.to_json() for prompt in self.prompts],
            "skills": [skill.to_json() for skill in self.skills],
            "updated_at": iso(self.updated_at),
        }
