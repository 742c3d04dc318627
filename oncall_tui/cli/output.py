"""How the headless CLI prints: one JSON document with ``--json``, aligned text otherwise.

Every human (non-JSON) line goes through :func:`oncall_tui.core.text.terminal_safe`, so text
from the database or a model never reaches the terminal as control sequences; JSON escapes
control characters itself and is printed exactly. Both go through the redactor first
(:mod:`oncall_tui.redaction`): no secret is printed, whatever text carries it.

A reader that goes away (``| head -1``) ends nothing: while :func:`reader_safe_output` is in
force the rest of the output is dropped quietly, the command finishes its work (a chat stores
its whole reply), and then exits with :data:`EXIT_BROKEN_PIPE`. Output that cannot be written
(``> answer.md`` on a full disk) ends nothing either: the command finishes, and then says so
(:func:`output_failure`), as the failure of the output, not of the database.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import logging
import os
import sys
import traceback
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import Language, OncallError
from oncall_tui.inputs import id_type
from oncall_tui.redaction import redact, redact_tree
from oncall_tui.texts import text

if TYPE_CHECKING:
    from datetime import datetime

    from oncall_tui.services.container import Services

log = logging.getLogger(__name__)

EXIT_OK = 0
EXIT_DEFECT = 1
"""An error the program did not expect (a defect of its own), as Python exits on one."""
DEFECT_CODE = "DEFECT"
"""An error document's code for a defect (``--json``); it is in no catalog: nothing expects it."""
EXIT_USER_ERROR = 2
EXIT_CONTEXT_LIMIT = 3
EXIT_MODEL_ERROR = 4
EXIT_INTERRUPTED = 130
"""Ctrl-C, as shells report a process ended by SIGINT."""
EXIT_BROKEN_PIPE = 141
"""The reader of standard output went away, as shells report a process ended by SIGPIPE."""

_EXIT_BY_CODE = {
    "CHAT_CONTEXT_LIMIT_REACHED": EXIT_CONTEXT_LIMIT,
    "MODEL_UNAVAILABLE": EXIT_MODEL_ERROR,
    "MODEL_NOT_FOUND": EXIT_MODEL_ERROR,
    "STREAM_FAILED": EXIT_MODEL_ERROR,
    "MEMORY_COMPACTION_FAILED": EXIT_MODEL_ERROR,
    "MEMORY_MODE_UNCHANGED": EXIT_MODEL_ERROR,
}


def exit_status(code: str) -> int:
    """0 ok; 2 user error; 3 context limit; 4 the model could not be used; 130 Ctrl-C."""
    return _EXIT_BY_CODE.get(code, EXIT_USER_ERROR)


Handler = Callable[["Services", argparse.Namespace], int]
"""A command's body: it gets the services and the parsed arguments, and returns the exit
status."""


def add_command(
    actions: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    help: str,
    handler: Handler,
    *ids: str,
) -> argparse.ArgumentParser:
    """A command, or an action of one, that runs ``handler`` and takes ``--json``; each of
    ``ids`` is a stored id it takes first, in order (``"session"`` shows as ``SESSION``)."""
    parser = actions.add_parser(name, help=help)
    for dest in ids:
        parser.add_argument(dest, type=id_type(dest.upper()))
    add_json_flag(parser).set_defaults(handler=handler)
    return parser


def add_json_flag(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Every command takes ``--json`` and then prints one JSON document; after the command, or
    before it with the global options (absent here, it leaves theirs as it is)."""
    parser.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
    return parser


def utc_minute(moment: datetime) -> str:
    """A stored time (UTC) as the CLI prints it, to the minute: ``2026-11-30 02:51``."""
    return f"{moment:%Y-%m-%d %H:%M}"


def emit_json(document: object, stream: TextIO | None = None) -> None:
    shown = redact_tree(document)
    (stream or sys.stdout).write(json.dumps(shown, ensure_ascii=False, indent=2) + "\n")


def emit_line(text: str = "", stream: TextIO | None = None) -> None:
    (stream or sys.stdout).write(terminal_safe(redact(text)) + "\n")


def emit_deleted(kind: str, id: int, line: str, as_json: bool) -> None:
    """What a delete command did: ``{"deleted": {"kind": …, "id": …}}`` with ``--json``,
    ``line`` otherwise."""
    if as_json:
        emit_json({"deleted": {"kind": kind, "id": id}})
    else:
        emit_line(line)


def emit_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    cells = [
        [terminal_safe(redact(str(c))) for c in headers],
        *([terminal_safe(redact(str(c))) for c in row] for row in rows),
    ]
    widths = [max(cell_width(row[i]) for row in cells) for i in range(len(headers))]
    for row in cells:  # the last column is not padded: no line ends in spaces
        emit_line(
            "  ".join(pad(cell, width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )


def cell_width(text: str) -> int:
    """How many terminal columns ``text`` takes: a wide (CJK) character takes two, so a
    Chinese header or title keeps the columns after it aligned."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def pad(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` columns (``str.ljust`` counts characters)."""
    return text + " " * max(0, width - cell_width(text))


def emit_text(text: str, stream: TextIO | None = None, *, flush: bool = False) -> None:
    """Human text as it comes (tool lines, notes), made terminal-safe and redacted (piece by
    piece: a reply's own text goes through :class:`~oncall_tui.redaction.StreamRedactor`
    first, which sees a secret split across its tokens whole)."""
    out = stream or sys.stdout
    out.write(terminal_safe(redact(text)))
    if flush:
        out.flush()


@contextlib.contextmanager
def reader_safe_output() -> Iterator[Callable[[], bool]]:
    """Standard output and error, for the block, as streams whose reader may go away and
    whose writes may fail.

    Yields a function that tells whether standard output's reader went away meanwhile."""
    out, err = _ReaderSafeStream(sys.stdout), _ReaderSafeStream(sys.stderr)
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = cast(TextIO, out), cast(TextIO, err)
    try:
        yield lambda: out.gone
    finally:
        sys.stdout, sys.stderr = saved


def output_failure() -> OSError | None:
    """Why writing standard output failed during :func:`reader_safe_output` (a full disk under
    a redirect, a terminal's I/O error), or ``None``: a reader that went away is no failure."""
    return sys.stdout.failure if isinstance(sys.stdout, _ReaderSafeStream) else None


class _ReaderSafeStream(io.TextIOBase):
    """A standard stream that drops what it is given once its reader has gone away (a
    closed pipe) or a write failed (a full disk), instead of raising into whatever was
    writing: a chat piped into ``head -1`` or redirected to a full disk goes on to store its
    reply, a listing simply ends.

    The descriptor behind it is then pointed at /dev/null, so what the stream had buffered
    is dropped at exit too, without Python's "Exception ignored"."""

    def __init__(self, stream: TextIO | None) -> None:
        super().__init__()
        self._stream = stream
        self.gone = stream is None
        """Whether the reader went away (or there was no stream at all: its descriptor was
        closed when the program started)."""
        self.failure: OSError | None = None
        """The write's error, when one failed otherwise (``ENOSPC``, ``EIO``)."""

    def write(self, text: str) -> int:
        if (stream := self._open()) is not None:
            try:
                stream.write(text)
            except OSError as error:
                self._stopped(error)
        return len(text)

    def flush(self) -> None:
        if (stream := self._open()) is not None:
            try:
                stream.flush()
            except OSError as error:
                self._stopped(error)

    def _open(self) -> TextIO | None:
        """The stream, while it is written to."""
        return None if self.gone or self.failure is not None else self._stream

    def _stopped(self, error: OSError) -> None:
        if isinstance(error, BrokenPipeError):
            self.gone = True
        else:
            self.failure = error
        self._to_null()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self._stream is not None and self._stream.isatty()

    def fileno(self) -> int:
        if self._stream is None:
            raise io.UnsupportedOperation("no stream")
        return self._stream.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8" if self._stream is None else self._stream.encoding

    def _to_null(self) -> None:
        if self._stream is None:
            return
        with contextlib.suppress(OSError, ValueError):  # no descriptor: a test's capture
            descriptor = self._stream.fileno()
            null = os.open(os.devnull, os.O_WRONLY)
            try:
                os.dup2(null, descriptor)
            finally:
                os.close(null)


def report_error(error: OncallError, lang: Language, as_json: bool) -> int:
    if as_json:
        document = redact_tree({"error": error.to_json(lang)})
        sys.stderr.write(json.dumps(document, ensure_ascii=False) + "\n")
    else:
        sys.stderr.write(f"oncall-tui: {terminal_safe(redact(error.message(lang)))}\n")
    return exit_status(error.code)


def report_defect(
    error: str,
    places: Sequence[str],
    lang: Language,
    log_path: Path | None,
    *,
    app: bool,
    as_json: bool = False,
) -> int:
    """An error the app (``app``) or a command did not expect, a defect of its own: its kind
    and words (``error``) said in one line, masked, as every error is (the traceback of Python,
    or of Textual with each frame's variables, said them unmasked), with ``--json`` as an error
    document of code ``DEFECT``; the log gets its kind and the frames it went through
    (``places``, innermost last), no words of it (a message's text may be in them)."""
    kind = error.partition(":")[0]
    who = "app" if app else "command"
    log.error("the %s ended on an error it did not expect: %s at %s", who, kind, list(places[-6:]))
    said = text("cli.tui.defect" if app else "cli.defect", lang, error=error, log=log_path)
    if as_json:
        document = {"error": {"code": DEFECT_CODE, "message": redact(said), "reason": None}}
        sys.stderr.write(json.dumps(document, ensure_ascii=False) + "\n")
    else:
        sys.stderr.write(terminal_safe(redact(said)) + "\n")
    return EXIT_DEFECT


def frames_of(error: BaseException) -> list[str]:
    """The frames ``error`` went through, innermost last, as ``path.py:263 in line_count``."""
    frames = traceback.extract_tb(error.__traceback__)
    return [f"{frame.filename}:{frame.lineno} in {frame.name}" for frame in frames]


def report_warning(problem: OncallError, lang: Language, as_json: bool) -> None:
    """A problem the command goes on despite (a settings file it could not use), on stderr:
    one JSON line with ``--json``, else one line of text."""
    if as_json:
        document = redact_tree({"warning": problem.to_json(lang)})
        sys.stderr.write(json.dumps(document, ensure_ascii=False) + "\n")
    else:
        line = text("cli.warning", lang, message=problem.message(lang))
        sys.stderr.write(terminal_safe(redact(line)) + "\n")
