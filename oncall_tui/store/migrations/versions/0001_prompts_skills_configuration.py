"""1: prompts, skills, per-owner configuration."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None


def upgrade() -> None:
    op.create_table(
        "prompt",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("owner", sa.String, nullable=False),
        sa.Column("label", sa.String, nullable=False),
        sa.Column("content", sa.String, nullable=False),
        sa.Column("is_default", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("updated_at", sa.DateTime, nullable=False),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_prompt_owner", "prompt", ["owner"])
    op.create_table(
        "skill",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("owner", sa.String, nullable=False),
        sa.Column("filename", sa.String, nullable=False),
        sa.Column("name", sa.String, nullable=False),
        sa.Column("description", sa.String, nullable=False),
        sa.Column("content", sa.String, nullable=False),
        sa.Column("size_bytes", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime, nullable=False),
        sa.Column("updated_at", sa.DateTime, nullable=False),
        sa.UniqueConstraint("owner", "name", name="uq_skill_owner_name"),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_skill_owner", "skill", ["owner"])
    op.create_table(
        "configuration",
        sa.Column("owner", sa.String, primary_key=True),
        sa.Column("system_prompt_id", sa.Integer),
        sa.Column("skill_ids", sa.JSON, nullable=False, server_default="[]"),
        sa.Column("updated_at", sa.DateTime, nullable=False),
    )
