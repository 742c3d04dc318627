"""SQLModel table classes: the stored shape of user data.

These are storage rows, not what clients see; services convert them to views.
The schema itself is created by the migrations in :mod:`oncall_tui.store.schema`,
and a test keeps these classes and that schema in agreement.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import JSON, Column, Index, UniqueConstraint, text
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    """Every stored time is UTC."""
    return datetime.now(UTC)


class PromptRow(SQLModel, table=True):
    __tablename__ = "prompt"
    __table_args__ = (
        Index(
            "uq_prompt_one_default",
            "owner",
            unique=True,
            sqlite_where=text("is_default"),
            postgresql_where=text("is_default"),
        ),
    )

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


class SessionRow(SQLModel, table=True):
    """A chat session and its memory: summary, boundary and the last known usage."""

    __tablename__ = "chat_session"

    id: int | None = Field(default=None, primary_key=True)
    owner: str = Field(index=True)
    title: str
    memory_mode: str = "every_30_turns"
    memory_summary: str | None = None
    memory_summary_status: str = "complete"
    """``truncated`` when the model stopped writing the summary at its length limit."""
    clear_generation: int = 0
    """How many times the messages were cleared: a compaction that read the session before a
    clear must not commit after it."""
    compacted_message_count: int = 0
    """The boundary: messages at positions below it are summarised (and kept)."""
    context_tokens: int = 0
    last_compacted_at: datetime | None = None
    reported_prompt_tokens: int | None = None
    """Prompt tokens the model reported for the last reply (Ollama ``prompt_eval_count``);
    the gauge never shows less. Cleared when compaction changes the context."""
    token_calibration: float = 1.0
    """reported / estimated for the last plain reply, never below 1: scales later estimates up
    when our approximation undercounts this model's tokenizer."""
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)


class MessageRow(SQLModel, table=True):
    __tablename__ = "message"
    __table_args__ = (UniqueConstraint("session_id", "position", name="uq_message_position"),)

    id: int | None = Field(default=None, primary_key=True)
    session_id: int = Field(foreign_key="chat_session.id", ondelete="CASCADE")
    position: int
    role: str
    content: str
    status: str = "complete"
    created_at: datetime = Field(default_factory=utcnow)
    model: str | None = None
    """The model that wrote a reply, as the request named it (revision 0008); ``None`` for a
    person's message and a reply stored before."""


class ToolAuditRow(SQLModel, table=True):
    __tablename__ = "tool_audit"

    id: int | None = Field(default=None, primary_key=True)
    session_id: int = Field(foreign_key="chat_session.id", ondelete="CASCADE", index=True)
    message_id: int = Field(foreign_key="message.id", ondelete="CASCADE", index=True)
    call_id: str
    tool_name: str
    arguments: str
    """JSON text of the arguments the model passed."""
    status: str
    summary: str
    started_at: datetime
    duration_ms: int
    recovered: bool = False
    """The model wrote the call as text; it was read from its reply (revision 0007)."""
    text_at: int | None = None
    """Characters of the reply's text written before the call (revision 0009): where it was
    made. ``None`` for a call stored before."""


class TeamPolicyRow(SQLModel, table=True):
    """One rule of a shared database's policy, set by its administrator in plain SQL (see
    docs/TEAM.md). Known names: ``allow_user_override`` (``true``: an engineer may act under
    another user name than their login)."""

    __tablename__ = "team_policy"

    name: str = Field(primary_key=True)
    value: str
