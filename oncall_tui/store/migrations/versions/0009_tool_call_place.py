"""9: where in its reply's text a tool call was made: the characters of the reply written before
it (``NULL`` for a call stored before this revision), so that a reopened reply, its export and
``sessions show`` put the call between the words around it, as it was seen streaming."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"


def upgrade() -> None:
    op.add_column("tool_audit", sa.Column("text_at", sa.Integer, nullable=True))
