"""Alembic's environment: migrate the connection the caller passes, inside its transaction.

:func:`oncall_tui.store.schema.upgrade` opens the transaction (and takes the lock that makes two
processes opening an old database upgrade it once) and hands its connection over in
``config.attributes["connection"]``; Alembic adds no transaction of its own.
"""

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None)
with context.begin_transaction():
    context.run_migrations()
