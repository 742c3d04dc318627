"""8: which model wrote a reply, as the request for it named the model
(``NULL`` for a person's message, and for a reply stored before this revision): a postmortem
names the model of each answer, not the one in use when it is exported."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"


def upgrade() -> None:
    op.add_column("message", sa.Column("model", sa.String, nullable=True))
