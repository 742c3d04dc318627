"""3: whether the summary is whole or was cut at the model's length limit; a counter of clears,
so that a compaction can tell the session it read was cleared meanwhile; exactly one default
prompt per owner."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    op.add_column(
        "chat_session",
        sa.Column("memory_summary_status", sa.String, nullable=False, server_default="complete"),
    )
    op.add_column(
        "chat_session",
        sa.Column("clear_generation", sa.Integer, nullable=False, server_default="0"),
    )
    _one_default_prompt_per_owner(op.get_bind())
    op.create_index(
        "uq_prompt_one_default",
        "prompt",
        ["owner"],
        unique=True,
        sqlite_where=sa.text("is_default"),
        postgresql_where=sa.text("is_default"),
    )


def _one_default_prompt_per_owner(connection: sa.Connection) -> None:
    """Merge the default prompts that processes starting at once created for one owner: the
    oldest stays; an untouched copy of it goes (a selection of it moves to the oldest); an
    edited one stays as an ordinary prompt, which can be deleted."""
    owners = connection.execute(
        sa.text("SELECT owner FROM prompt WHERE is_default GROUP BY owner HAVING COUNT(*) > 1")
    ).all()
    for (owner,) in owners:
        keep, *extra = connection.execute(
            sa.text(
                "SELECT id, label, content FROM prompt WHERE owner = :owner AND is_default "
                "ORDER BY id"
            ),
            {"owner": owner},
        ).all()
        for prompt_id, label, content in extra:
            if (label, content) == (keep[1], keep[2]):
                connection.execute(
                    sa.text(
                        "UPDATE configuration SET system_prompt_id = :keep "
                        "WHERE owner = :owner AND system_prompt_id = :extra"
                    ),
                    {"keep": keep[0], "owner": owner, "extra": prompt_id},
                )
                connection.execute(
                    sa.text("DELETE FROM prompt WHERE id = :extra"), {"extra": prompt_id}
                )
            else:
                connection.execute(
                    sa.text("UPDATE prompt SET is_default = :no WHERE id = :extra"),
                    {"no": False, "extra": prompt_id},
                )
