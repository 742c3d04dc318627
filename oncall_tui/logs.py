"""The log file: what happened, for the engineer reading it after an incident; never what was said.

One file in the platform's user log directory (``--log-level``, ``ONCALL_TUI_LOG_LEVEL``;
``ONCALL_TUI_LOG_FILE`` moves it), rotated at :data:`MAX_BYTES` with :data:`BACKUPS` old files
kept, private to its user like the database. Records name what happened to which ids: a reply
stored, a compaction discarded, a failed model call and its catalog code. No prompt, skill,
message or summary text is ever logged; the modules that log keep to that, and a test checks
the file after a send of known text. No secret either: every line goes through the redactor.

Nothing is written to the terminal: the TUI owns the screen, and the CLI's output is its own.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
from pathlib import Path

from oncall_tui.private_files import FILE_MODE, make_private_directories
from oncall_tui.redaction import redact

MAX_BYTES = 1_000_000
BACKUPS = 3
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class RedactingFormatter(logging.Formatter):
    """The log's formatter: the whole line (message, arguments, a traceback) without a
    secret (:func:`oncall_tui.redaction.redact`), whichever module logged it."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class _PrivateFileHandler(logging.handlers.RotatingFileHandler):
    """A rotating file that is created private to its user, and rotated files too."""

    def _open(self):  # type: ignore[no-untyped-def]  # typeshed leaves it untyped
        descriptor = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, FILE_MODE)
        os.fchmod(descriptor, FILE_MODE)
        return os.fdopen(descriptor, self.mode, encoding=self.encoding, errors=self.errors)


def configure_logging(path: Path | None, level: str) -> None:
    """Send the app's records to ``path`` at ``level``; with no path, to nowhere.

    Called once per process by the entry point; calling it again replaces what it set up.
    A log that cannot be opened (a read-only home) is no reason not to run: the records are
    then dropped."""
    root = logging.getLogger("oncall_tui")
    for previous in list(root.handlers):
        root.removeHandler(previous)
        previous.close()
    root.setLevel(level.upper())
    if path is None:  # a handler all the same: Python's last resort would print to stderr
        root.addHandler(logging.NullHandler())
        return
    try:
        make_private_directories(path.parent)
        handler: logging.Handler = _PrivateFileHandler(
            path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
        )
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(RedactingFormatter(FORMAT))
    root.addHandler(handler)
