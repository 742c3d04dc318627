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
import sys
from pathlib import Path

from oncall_tui.private_files import FILE_MODE, make_private_directories
from oncall_tui.redaction import redact

MAX_BYTES = 1_000_000
BACKUPS = 3
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
APP_LOGGER = "oncall_tui"


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

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802  (logging's name)
        """A record the file cannot take now (a full disk) is let go quietly, as when the file
        cannot be opened; the next ones are tried. Python's default printed a traceback on
        stderr for each. Any other fault (a call with the wrong arguments) is still said."""
        if not isinstance(sys.exc_info()[1], OSError):
            super().handleError(record)


class _OtherLibraries(logging.Handler):
    """On the root logger: the other libraries' warnings and errors (SQLAlchemy's pool, the
    MCP SDK, httpx) go to the app's handler. With no handler on their way, Python's last
    resort would print them, traceback and all, on the terminal: on the TUI's screen, or
    after a Ctrl-C that landed as SQLAlchemy closed a connection."""

    def __init__(self, to: logging.Handler) -> None:
        super().__init__(logging.WARNING)  # also when a library sets its own logger lower
        self.to = to

    def emit(self, record: logging.LogRecord) -> None:
        if record.name != APP_LOGGER and not record.name.startswith(f"{APP_LOGGER}."):
            self.to.handle(record)  # the app's own records: written by its logger's handler


def configure_logging(path: Path | None, level: str) -> None:
    """Send the app's records to ``path`` at ``level``, and the other libraries' warnings and
    errors with them; with no path, to nowhere.

    Called once per process by the entry point; calling it again replaces what it set up.
    A log that cannot be opened (a read-only home) or written (a full disk) is no reason not
    to run: the records are then dropped."""
    app, top = logging.getLogger(APP_LOGGER), logging.getLogger()
    for previous in list(app.handlers):
        app.removeHandler(previous)
        previous.close()
    for forward in [h for h in top.handlers if isinstance(h, _OtherLibraries)]:
        top.removeHandler(forward)
    app.setLevel(level.upper())
    handler: logging.Handler = logging.NullHandler()
    if path is not None:
        try:
            make_private_directories(path.parent)
            handler = _PrivateFileHandler(
                path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8"
            )
        except OSError:
            pass  # dropped, as with no path
    handler.setFormatter(RedactingFormatter(FORMAT))
    app.addHandler(handler)
    top.addHandler(_OtherLibraries(handler))
