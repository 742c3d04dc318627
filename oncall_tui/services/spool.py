"""Replies the user has seen but the database did not take: held until it does.

A reply streams to the screen before it is stored. When storing it fails (a PostgreSQL
outage, a full disk under the SQLite file), the reply is *held*: in memory, and in a private
spool file (0600, in a 0700 directory) so that the next run can still save it. It is saved
when the database answers again (:meth:`~oncall_tui.services.chat.ChatService.save_held`:
the TUI on its next successful contact, the CLI at its next run, every send before its own
message) and the file is removed only after the transaction that stored it committed.

The promises:

- **Owner-scoped.** A held reply names its owner and its database (a digest of where the
  database is: no password reaches the file), lives in a directory of that pair, and is read
  back only for the same pair; it is saved through the owner-scoped repositories, so it can
  only land in the owner's own session.
- **Never twice.** Saving checks, in the unit of work that inserts it, that the session does
  not already hold this reply (same text, same held time): a crash between the commit and the
  file's removal, or two processes saving at once, cannot store it a second time.
- **Bounded.** At most :data:`MAX_HELD` replies per owner and database, each file at most
  :data:`MAX_FILE_BYTES`; past that a reply is kept in memory only, and the user is told.
- A held reply whose session was deleted or cleared since is dropped, and the log says so
  (never its text).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import threading
import uuid
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from oncall_tui.private_files import make_private_directories, write_privately

log = logging.getLogger(__name__)

MAX_HELD = 20
"""Held replies per owner and database; one more is kept in memory only."""
MAX_FILE_BYTES = 4 * 1024 * 1024
"""A held reply's file at most (a 200,000-character reply is at most 800 kB of UTF-8)."""
SUFFIX = ".json"


@dataclass(frozen=True, slots=True)
class HeldCall:
    """A tool call of a held reply, as its audit row will record it."""

    call_id: str
    name: str
    arguments: str
    """JSON, as the audit stores it."""
    status: str
    summary: str
    started_at: str
    """ISO time, UTC without a zone (as stored)."""
    duration_ms: int
    recovered: bool = False
    """The model wrote the call as text (a spool file of an older version has no such key)."""
    text_at: int | None = None
    """Characters of the reply's text before the call (an older spool file has no such key)."""


@dataclass(frozen=True, slots=True)
class HeldReply:
    owner: str
    database: str
    """:func:`database_key` of the database it belongs to."""
    session_id: int
    clear_generation: int
    """The session's clear counter when the reply was given: a session cleared since does not
    take it back."""
    status: str
    text: str
    held_at: str
    """ISO time, UTC without a zone: the reply's time in the history, and half of its identity
    when it is saved (with the text)."""
    calls: tuple[HeldCall, ...] = ()
    key: str = field(default_factory=lambda: uuid.uuid4().hex)
    model: str | None = None
    """The model that wrote it (a spool file of an older version has no such key)."""

    @property
    def created_at(self) -> datetime:
        return datetime.fromisoformat(self.held_at)

    def to_bytes(self) -> bytes:
        document = asdict(self)
        document["calls"] = [asdict(call) for call in self.calls]
        return json.dumps(document, ensure_ascii=False).encode()

    @classmethod
    def from_document(cls, document: Any) -> HeldReply:
        """A held reply read back; ``ValueError`` for anything that is not one."""
        if not isinstance(document, dict):
            raise ValueError("not an object")
        try:
            calls = tuple(HeldCall(**call) for call in document.pop("calls", ()))
            reply = cls(**document, calls=calls)
        except TypeError as exc:
            raise ValueError(str(exc)) from None
        checks = (
            (reply.owner, str),
            (reply.database, str),
            (reply.session_id, int),
            (reply.clear_generation, int),
            (reply.status, str),
            (reply.text, str),
            (reply.held_at, str),
            (reply.key, str),
            (reply.model, str | None),
        )
        if any(not isinstance(value, kind) for value, kind in checks):
            raise ValueError("a field of the wrong type")
        reply.created_at  # noqa: B018  # a time that does not parse is refused here
        return reply


def database_key(location: str) -> str:
    """Which database a held reply belongs to, as a digest: the URL may carry a password,
    which must not reach a file."""
    return hashlib.sha256(location.encode()).hexdigest()[:32]


def owner_folder(directory: Path, database: str, owner: str) -> Path:
    """The spool's folder for one owner of one database (``database``: its
    :func:`database_key`), named by a digest of the pair."""
    pair = hashlib.sha256(f"{database}\0{owner}".encode()).hexdigest()[:32]
    return directory / pair


class ReplySpool:
    """The held replies of one database, in memory and (with a ``directory``) on disk.

    Thread-safe: a client's loop holds replies while its threads save them."""

    def __init__(self, directory: Path | None, database: str) -> None:
        self._directory = directory
        self._database = database
        self._memory: dict[str, HeldReply] = {}
        self._memory_only: set[str] = set()
        """The keys of the replies no file holds: they go with the process."""
        self._lock = threading.Lock()

    @property
    def database(self) -> str:
        return self._database

    def hold(self, reply: HeldReply) -> bool:
        """Keep ``reply`` until :meth:`release`; ``True`` when it is on disk too (it survives
        the process), ``False`` when only memory holds it (no spool, the spool full, or the
        disk refusing the file)."""
        with self._lock:
            self._memory[reply.key] = reply
            on_disk = self._write(reply)
            if on_disk:
                self._memory_only.discard(reply.key)
            else:
                self._memory_only.add(reply.key)
            return on_disk

    def _write(self, reply: HeldReply) -> bool:
        folder = self._folder(reply.owner)
        if folder is None:
            return False
        if len(self._files(folder)) >= MAX_HELD:
            log.warning("the spool holds %d replies already: one more kept in memory", MAX_HELD)
            return False
        data = reply.to_bytes()
        if len(data) > MAX_FILE_BYTES:
            return False
        try:
            make_private_directories(folder)
            write_privately(folder / _file_name(reply), data, prefix=".held-")
        except OSError as exc:
            log.warning("a held reply could not be written to the spool: %s", exc.strerror)
            return False
        log.info("a reply in session %s is held in the spool", reply.session_id)
        return True

    def only_in_memory(self, owner: str) -> list[HeldReply]:
        """The owner's held replies that no file holds (they end with the process), oldest
        first."""
        with self._lock:
            found = [self._memory[key] for key in self._memory_only if key in self._memory]
        return sorted((r for r in found if r.owner == owner), key=lambda r: (r.held_at, r.key))

    def pending(self, owner: str) -> list[HeldReply]:
        """The owner's held replies of this database, oldest first."""
        with self._lock:
            found = {key: r for key, r in self._memory.items() if r.owner == owner}
            folder = self._folder(owner)
            for path in [] if folder is None else self._files(folder):
                reply = self._load(path)
                if reply is not None and reply.owner == owner and reply.database == self._database:
                    found.setdefault(reply.key, reply)
        return sorted(found.values(), key=lambda r: (r.held_at, r.key))

    def has_pending(self, owner: str) -> bool:
        """Cheap: memory, then a directory listing; no file is read."""
        with self._lock:
            if any(r.owner == owner for r in self._memory.values()):
                return True
            folder = self._folder(owner)
            return folder is not None and bool(self._files(folder))

    def release(self, reply: HeldReply) -> None:
        """Forget ``reply``: it is saved (or can never be)."""
        with self._lock:
            self._memory.pop(reply.key, None)
            self._memory_only.discard(reply.key)
            folder = self._folder(reply.owner)
            if folder is not None:
                with contextlib.suppress(FileNotFoundError):
                    (folder / _file_name(reply)).unlink()

    def _folder(self, owner: str) -> Path | None:
        return (
            None
            if self._directory is None
            else owner_folder(self._directory, self._database, owner)
        )

    @staticmethod
    def _files(folder: Path) -> list[Path]:
        """The held replies' files: named by the time they were held, so beginning with a
        digit (the drafts kept in the same folder, ``prompt-draft.json``, are not theirs)."""
        try:
            return sorted(
                p for p in folder.iterdir() if p.name[:1].isdigit() and p.name.endswith(SUFFIX)
            )
        except OSError:  # no folder yet, or one we cannot read
            return []

    @staticmethod
    def _load(path: Path) -> HeldReply | None:
        try:
            with path.open("rb") as file:
                data = file.read(MAX_FILE_BYTES + 1)
            if len(data) > MAX_FILE_BYTES:
                raise ValueError("too large")
            return HeldReply.from_document(json.loads(data))
        except (OSError, ValueError) as exc:  # JSONDecodeError and UnicodeError are ValueErrors
            log.warning("a spool file was not read (%s): %s", path.name, type(exc).__name__)
            return None


def _file_name(reply: HeldReply) -> str:
    return f"{reply.held_at.replace(':', '').replace(' ', 'T')}-{reply.key}{SUFFIX}"
