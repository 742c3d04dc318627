"""2: chat sessions with their memory, messages, and the tool-call audit."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.create_table(
        "chat_session",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("owner", sa.String, nullable=False),
        sa.Column("title", sa.String, nullable=False),
        sa.Column("memory_mode", sa.String, nullable=False, server_default="every_30_turns"),
        sa.Column("memory_summary", sa.String),
        sa.Column("compacted_message_count", sa.Integer, nullable=False, server_default="0"),
        sa.Column("context_tokens", sa.Integer, nullable=False, server_default="0"),
        sa.Column("last_compacted_at", sa.DateTime),
        sa.Column("reported_prompt_tokens", sa.Integer),
        sa.Column("token_calibration", sa.Float, nullable=False, server_default="1.0"),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("updated_at", sa.DateTime, nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_chat_session_owner", "chat_session", ["owner", "updated_at"])
    op.create_table(
        "message",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "session_id",
            sa.Integer,
            sa.ForeignKey("chat_session.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("role", sa.String, nullable=False),
        sa.Column("content", sa.String, nullable=False),
        sa.Column("status", sa.String, nullable=False, server_default="complete"),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.UniqueConstraint("session_id", "position", name="uq_message_position"),
        sqlite_autoincrement=True,
    )
    op.create_table(
        "tool_audit",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column(
            "session_id",
            sa.Integer,
            sa.ForeignKey("chat_session.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "message_id",
            sa.Integer,
            sa.ForeignKey("message.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("call_id", sa.String, nullable=False),
        sa.Column("tool_name", sa.String, nullable=False),
        sa.Column("arguments", sa.String, nullable=False),
        sa.Column("status", sa.String, nullable=False),
        sa.Column("summary", sa.String, nullable=False),
        sa.Column("started_at", sa.DateTime, nullable=False),
        sa.Column("duration_ms", sa.Integer, nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_tool_audit_session_id", "tool_audit", ["session_id"])
    op.create_index("ix_tool_audit_message_id", "tool_audit", ["message_id"])
