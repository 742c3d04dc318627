"""The schema's history as Alembic revisions, one history for SQLite and PostgreSQL.

Run by :mod:`oncall_tui.store.schema`, never by hand: the app upgrades a database when it opens
it. Each revision describes the past with its own table definitions (never the table classes,
which describe the present), and branches on the dialect only where the engines differ (the
search indexes).
"""
