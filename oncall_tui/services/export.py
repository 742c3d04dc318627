"""Export a session to Markdown or JSON: the file a postmortem starts from.

The JSON export is the document ``sessions show --json`` prints, made by the same function
(:meth:`ExportService.render` with ``"json"``; the CLI's ``show`` calls it too). The Markdown
is described in :mod:`oncall_tui.services.transcript_markdown`.

A file is written whole or not at all: into a temporary file in the target's directory, created
0600, synced, then renamed over the target (``os.replace``), so a reader never sees half a
document and a failure leaves no file behind. Every failure is the catalog's ``EXPORT_FAILED``
with the reason. Reading is owner-scoped as everywhere: another owner's session answers
``NOT_FOUND``, as a missing one does. The log records that a session was exported, never what
it holds.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import re
import stat
from collections.abc import Callable
from datetime import datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from oncall_tui.errors import Language, OncallError
from oncall_tui.private_files import write_privately
from oncall_tui.redaction import redact, redact_tree
from oncall_tui.services.views import SessionTranscript

if TYPE_CHECKING:
    from oncall_tui.services.memory import MemoryService
    from oncall_tui.services.sessions import SessionService

log = logging.getLogger(__name__)

ExportFormat = Literal["md", "json"]
EXPORT_FORMATS: tuple[ExportFormat, ...] = ("md", "json")
TITLE_CHARS = 40
"""At most this much of a session's title goes into the name an export is offered."""


def format_for(path: Path) -> ExportFormat:
    """What a file is written as when no format is given: a name ending ``.json`` gets the JSON
    document, any other Markdown (the TUI's dialog and ``sessions export -o``)."""
    return "json" if path.suffix.lower() == ".json" else "md"


_TEMP_PREFIX = ".oncall-export-"
"""Short, so that a target name near the file system's limit does not fail for its temp."""
_PROBLEMS = {
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EROFS: "read-only file system",
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.ENAMETOOLONG: "the file name is too long",
    errno.ELOOP: "too many symbolic links",
}


def local_now() -> datetime:
    """The local time now, aware of its offset."""
    return datetime.now().astimezone()


def document_json(document: object) -> str:
    """A JSON document as the CLI prints it (``emit_json``): indented, UTF-8 as is."""
    return json.dumps(document, ensure_ascii=False, indent=2) + "\n"


class ExportService:
    """Renders an owner's session and writes it to a file.

    ``model`` gives the name of the chat model in use (a session does not record which model
    wrote each reply, so the export says which one was configured when it was made);
    ``clock`` the time of the export; ``zone`` the zone of every time shown (the system's
    local zone when ``None``); ``lang`` the language of the Markdown's facts and headings."""

    def __init__(
        self,
        sessions: SessionService,
        memory: MemoryService,
        *,
        model: str,
        clock: Callable[[], datetime] = local_now,
        zone: tzinfo | None = None,
        lang: Language = "en",
    ) -> None:
        self._sessions = sessions
        self._memory = memory
        self._model = model
        self._clock = clock
        self._zone = zone
        self._lang: Language = lang

    def transcript(self, owner: str, session_id: int) -> SessionTranscript:
        """The whole session: what ``sessions show`` and both export formats are made of."""
        session = self._sessions.get(owner, session_id)
        messages = self._sessions.messages(owner, session_id)
        memory = self._memory.state(owner, session_id)
        return SessionTranscript(session, tuple(messages), memory)

    def render(self, owner: str, session_id: int, fmt: ExportFormat) -> str:
        """The document: Markdown, or the JSON of ``sessions show --json`` (same text). A
        secret in the session (a token in a pasted log, echoed by the model) is masked, as
        everywhere the app prints: the document is made to be shared."""
        _check_format(fmt)
        transcript = self.transcript(owner, session_id)
        if fmt == "json":
            return document_json(redact_tree(transcript.to_json()))
        from oncall_tui.services.transcript_markdown import render_markdown  # Markdown parser

        return redact(
            render_markdown(
                transcript,
                model=self._model,
                exported_at=self._clock(),
                zone=self._zone,
                lang=self._lang,
            )
        )

    def write(self, owner: str, session_id: int, fmt: ExportFormat, path: Path | str) -> Path:
        """Write atomically (temp file in the same directory + os.replace), mode 0600, to
        :meth:`target`; returns the absolute path. A directory that does not exist or cannot
        be written is a catalog error (``EXPORT_FAILED``) and leaves nothing behind."""
        text = self.render(owner, session_id, fmt)
        target = self.target(owner, session_id, fmt, path)
        data = text.encode("utf-8")
        _write(target, data)
        log.info("session %s exported as %s (%d bytes)", session_id, fmt, len(data))
        return target

    def target(self, owner: str, session_id: int, fmt: ExportFormat, path: Path | str) -> Path:
        """The absolute file an export to ``path`` writes: ``path`` itself, or in a directory
        the offered name (:meth:`default_filename`), as ``cp`` puts a file in a folder. ``~``
        is expanded and a symbolic link is followed: the file it names is replaced. An
        existing regular file is replaced; anything else that exists (a named pipe, a
        device) is refused untouched, with its catalog error, as is a missing directory. A
        name typed with a slash at its end (``str``) is a folder, which must exist: it wrote a
        file of that name (``-o /nonexistent/``), or replaced one (``-o notes.md/``)."""
        folder = isinstance(path, str) and path.endswith(("/", os.sep))
        path = Path(path)
        if _is_directory(path):
            path = path / self.default_filename(owner, session_id, fmt)
        elif folder:
            raise _failed("export_no_directory", os.path.abspath(os.path.expanduser(path)))
        return export_target(path)

    def default_filename(self, owner: str, session_id: int, fmt: ExportFormat) -> str:
        """e.g. 'oncall-session-12-inc-4211-checkout-5xx-2026-12-01-2130.md' (safe characters
        only): the session's id, its title's words (:func:`title_words`) and the local time of
        the export, to the minute, so that a postmortem's exports tell which incident is which."""
        _check_format(fmt)
        session = self._sessions.get(owner, session_id)  # the owner's, or NOT_FOUND
        now = self._clock().astimezone(self._zone)
        words = title_words(session.title)
        return f"oncall-session-{session_id}-{words}{'-' if words else ''}{now:%Y-%m-%d-%H%M}.{fmt}"


def title_words(title: str, limit: int = TITLE_CHARS) -> str:
    """The title's ASCII letters and digits, lower case, a ``-`` between words: whole words
    up to ``limit`` characters (a first word longer than that, cut), ``""`` when none (a
    Chinese title). A secret in the title (its first message's: a pasted token) is left out,
    as the export leaves it out: a file's name travels further than the file."""
    words = re.findall(r"[a-z0-9]+", redact(title).lower())
    kept = words[0][:limit] if words else ""
    for word in words[1:]:
        if len(kept) + 1 + len(word) > limit:
            break
        kept = f"{kept}-{word}"
    return kept


def _check_format(fmt: str) -> None:
    if fmt not in EXPORT_FORMATS:
        raise OncallError("VALIDATION_INVALID_ARGUMENT", "export_format", fmt=fmt)


def _failed(reason: str, path: Path | str, exc: OSError | None = None) -> OncallError:
    params: dict[str, object] = {"path": str(path)}
    if exc is not None:
        params["problem"] = (
            _PROBLEMS.get(exc.errno or 0) or (exc.strerror or type(exc).__name__).lower()
        )
    return OncallError("EXPORT_FAILED", reason, **params)


def _is_directory(path: Path) -> bool:
    try:
        return os.path.isdir(os.path.expanduser(path))
    except ValueError:  # a NUL in the path: :func:`export_target` says so
        return False


def export_target(path: Path) -> Path:
    """The absolute file an export to ``path`` writes, after checking it can be one: its
    directory exists, and it is missing or a regular file."""
    try:
        with contextlib.suppress(RuntimeError):  # ``~user`` of no known user: as written
            path = path.expanduser()
        target = Path(os.path.realpath(os.path.abspath(path)))
        try:
            mode: int | None = os.stat(target).st_mode
        except FileNotFoundError:
            mode = None
        except NotADirectoryError:  # a file where a directory of the path should be
            raise _failed("export_no_directory", target.parent) from None
        if mode is not None and stat.S_ISDIR(mode):
            raise _failed("export_is_directory", target)
        if mode is not None and not stat.S_ISREG(mode):
            raise _failed("export_not_regular", target)
        if not target.parent.is_dir():
            raise _failed("export_no_directory", target.parent)
    except ValueError:  # a NUL in the path: no file can have that name
        raise _failed("export_write_failed", path, OSError(errno.EINVAL, "invalid name")) from None
    except OSError as exc:
        raise _failed("export_write_failed", path, exc) from None
    return target


def _write(target: Path, data: bytes) -> None:
    """``data`` into ``target`` whole or not at all, the file 0600 whatever the umask."""
    try:
        write_privately(target, data, prefix=_TEMP_PREFIX)
    except FileNotFoundError:  # the directory removed since it was checked
        raise _failed("export_no_directory", target.parent) from None
    except PermissionError as exc:
        raise _failed("export_not_writable", target.parent, exc) from None
    except OSError as exc:
        raise _failed("export_write_failed", target, exc) from None
