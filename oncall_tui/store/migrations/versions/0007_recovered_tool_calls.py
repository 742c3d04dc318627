"""7: whether the model made a tool call natively or wrote it as text that was recovered from
its reply (``oncall_tui.llm.recovery``): the audit says which."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    op.add_column(
        "tool_audit",
        sa.Column("recovered", sa.Boolean, nullable=False, server_default=sa.false()),
    )
