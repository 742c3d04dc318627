"""5: the team's policy, set by whoever administers a shared database (``allow_user_override``:
may an engineer act as another user name than their login)."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"


def upgrade() -> None:
    op.create_table(
        "team_policy",
        sa.Column("name", sa.String, primary_key=True),
        sa.Column("value", sa.String, nullable=False),
    )
