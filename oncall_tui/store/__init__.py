"""Persistence: SQLModel tables, the SQLite engine, schema versions, owner-scoped repositories."""
