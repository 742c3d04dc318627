"""6: PostgreSQL row-level security: a team member's own connection (``psql`` included) reads
and changes only their own rows, not just the app's queries (see docs/TEAM.md).

A row's owner name is keyed to the database role that is acting, ``current_user``: the role
whose privileges PostgreSQL checks anyway. ``SET ROLE`` to a role one is a member of takes that
role's rows as it takes its privileges, and that is how an administrator sees what an engineer
sees. ``session_user`` would ignore ``SET ROLE`` and follow the login alone.

- A role reads and writes the rows whose ``owner`` is its own name.
- Where the administrator allows other user names (``team_policy``: ``allow_user_override``,
  ``true`` as :func:`~oncall_tui.store.repositories.allows_user_override` reads it: trimmed,
  any case), it reads and writes rows of names that no role holds too, so that engineers
  sharing one login, each with their own ``--user``, keep working. A name some role holds is
  that role's alone, whatever the policy.
- ``message`` and ``tool_audit`` belong to their session: a role sees and writes those of the
  sessions it sees (``chat_session``'s policy applies inside theirs).
- ``team_policy`` and ``alembic_version`` are readable by every role and writable by none but
  the tables' owner (the administrator), whatever privileges a role holds.

The tables' owner (the administrator who upgrades them) and superusers are not subject to the
policies (no ``FORCE ROW LEVEL SECURITY``), so they keep seeing and backing up everything.

SQLite has no roles: a file is its user's own, and this revision changes nothing there (its
number still advances, with ``PRAGMA user_version``).
"""

from __future__ import annotations

from alembic import op

revision = "0006"
down_revision = "0005"

OWNED = ("prompt", "skill", "configuration", "chat_session")
"""The tables with an ``owner`` column."""
THROUGH_SESSION = ("message", "tool_audit")
"""The tables whose rows belong to the owner of their ``session_id``."""
READ_ONLY = ("team_policy", "alembic_version")
"""Everyone reads them; only the tables' owner changes them."""


def may_act_for(owner: str) -> str:
    """SQL: may the acting role read and write rows owned by the name in column ``owner``?"""
    return (
        f"({owner} = current_user OR ("
        f"NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles AS r WHERE r.rolname = {owner}) "
        "AND EXISTS (SELECT 1 FROM public.team_policy AS p "
        "WHERE p.name = 'allow_user_override' AND lower(btrim(p.value)) = 'true')))"
    )


def _session_visible(table: str) -> str:
    """SQL: is the row's session one the acting role sees? (``chat_session``'s own policy
    applies inside the subquery, as to any query of the role.)"""
    return f"EXISTS (SELECT 1 FROM public.chat_session AS s WHERE s.id = {table}.session_id)"


def statements() -> list[str]:
    """The revision on PostgreSQL: one policy per table, for every command."""
    rules = {table: may_act_for(f"{table}.owner") for table in OWNED}
    rules |= {table: _session_visible(table) for table in THROUGH_SESSION}
    found: list[str] = []
    for table, rule in rules.items():
        found += [
            f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
            f"CREATE POLICY own_rows ON {table} FOR ALL USING ({rule}) WITH CHECK ({rule})",
        ]
    for table in READ_ONLY:
        found += [
            f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
            f"CREATE POLICY everyone_reads ON {table} FOR SELECT USING (true)",
        ]
    return found


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        return
    for statement in statements():
        op.execute(statement)
