"""SQLModel table classes: the stored shape of user data.

These are storage rows, not what clients see; services convert them to views.
The schema itself is created by the migrations in :mod:`oncall_tui.store.schema`,
and a test keeps these classes and that schema in agreement.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import JSON, Column, UniqueConstraint
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    """Every stored time is UTC."""
    return datetime.now(UTC)


class PromptRow(SQLModel, table=True):
    __tablename__ = "prompt"

    id: int | None = Field(default=None, primary_key=True)
    owner: str = Field(index=True)
    label: str
    content: str
    is_default: bool = False
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class SkillRow(SQLModel, table=True):
    __tablename__ = "skill"
    __table_args__ = (UniqueConstraint("owner", "name", name="uq_skill_owner_name"),)

    id: int | None = Field(default=None, primary_key=True)
    owner: str = Field(index=True)
    filename: str
    name: str
    description: str
    content: str
    size_bytes: int
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class ConfigurationRow(SQLModel, table=True):
    __tablename__ = "configuration"

    owner: str = Field(primary_key=True)
    system_prompt_id: int | None = None
    skill_ids: list[int] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    updated_at: datetime = Field(default_factory=utcnow)
