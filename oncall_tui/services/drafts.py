"""The message being written when the app ended: kept in a private file, given back next time.

An SSH link that drops, a terminal closed, a process killed, a database away at that moment:
the text in the composer is not lost. The TUI writes it a moment after each edit, and as it
quits, to ``draft.txt`` in the owner's spool folder for this database (0600, in 0700
directories, as held replies are: :mod:`.spool`), and puts it back in the composer at its next
start. An empty composer removes the file. The file is local to the host, as the terminal is;
the database is not involved, so a draft is kept while PostgreSQL is down.

The prompt editor's unsaved edits are kept the same way when the app ends without asking (a
signal, the terminal gone), in ``prompt-draft.json`` (:class:`PromptDraft`), and put back in
the editor when it next opens.

Each app keeps its own drafts, up to :data:`SLOTS` apps of the same owner and database at once
(a second tmux pane, a second SSH session): an app takes the first slot free and holds its lock
(``draft.lock``, ``draft-2.lock``, …) for its life (the kernel lets go of it when the process
ends, however it ends); the slot's files are its own (``draft.txt``, ``draft-2.txt``, …). It
neither shows nor writes over another app's drafts, and the next app to start takes the first
slot free, with what was kept there.

Never logged: the text, nor its length.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from oncall_tui.private_files import make_private_directories, write_privately

log = logging.getLogger(__name__)

DRAFT_FILE = "draft.txt"
PROMPT_DRAFT_FILE = "prompt-draft.json"
LOCK_FILE = "draft.lock"
MAX_DRAFT_BYTES = 4 * 1024 * 1024
"""A draft's UTF-8 at most; a longer one (a pasted log of megabytes) is not kept."""
SLOTS = 4
"""Apps of one owner and database that keep drafts of their own at once; a fifth keeps none."""


def slot_file(name: str, slot: int) -> str:
    """Slot ``slot``'s file of ``name``: the first slot's is ``name`` itself (``draft.txt``),
    the others' carry their number (``draft-2.txt``)."""
    if slot == 1:
        return name
    stem, dot, suffix = name.rpartition(".")
    return f"{stem}-{slot}{dot}{suffix}"


@dataclass(frozen=True, slots=True)
class PromptDraft:
    """The prompt editor's unsaved edits: of the stored prompt ``prompt_id`` (``None``: a new
    one), its label and content as they were."""

    prompt_id: int | None
    label: str
    content: str


class DraftKeeper:
    """The draft of one owner of one database (``folder``: their spool folder; ``None``: no
    spool, nothing is kept). Thread-safe: the TUI writes from worker threads."""

    def __init__(self, folder: Path | None) -> None:
        self._folder = folder
        self._lock = threading.Lock()
        self._claim: IO[bytes] | None = None
        self._slot = 1
        """The slot claimed (its lock held while :attr:`_claim` is open)."""
        self._written = -1
        """The generation of the newest text written: an older one that comes late is not."""

    def claim(self) -> bool:
        """Take the first slot free for this app's life; ``False`` when :data:`SLOTS` apps
        hold them all, or there is nowhere to keep a draft."""
        with self._lock:
            if self._claim is not None:
                return True
            if self._folder is None:
                return False
            try:
                import fcntl
            except ImportError:  # no advisory locks here (Windows): drafts are not kept
                return False
            try:
                make_private_directories(self._folder)
            except OSError as exc:
                log.warning("the draft cannot be kept: %s", exc.strerror)
                return False
            for slot in range(1, SLOTS + 1):
                path = self._folder / slot_file(LOCK_FILE, slot)
                try:
                    lock = os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600), "wb")
                except OSError as exc:
                    log.warning("the draft cannot be kept: %s", exc.strerror)
                    return False
                try:
                    fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    lock.close()  # another app's slot
                    continue
                self._claim, self._slot = lock, slot
                return True
            log.info("%d other oncall-tui keep drafts: this one keeps none", SLOTS)
            return False

    def read(self) -> str:
        """The draft kept, ``""`` if none (or this app has not claimed it)."""
        if self._folder is None or self._claim is None:
            return ""
        try:
            with (self._folder / slot_file(DRAFT_FILE, self._slot)).open("rb") as file:
                data = file.read(MAX_DRAFT_BYTES + 1)
        except FileNotFoundError:
            return ""
        except OSError as exc:
            log.warning("the draft was not read: %s", exc.strerror)
            return ""
        if len(data) > MAX_DRAFT_BYTES:
            log.warning("the draft file is larger than a draft can be: not read")
            return ""
        return data.decode("utf-8", errors="replace")

    def keep(self, text: str, generation: int) -> bool:
        """Write ``text`` as the draft (``""``: none), unless a later generation was written
        already; ``False`` when it could not be kept (too long, the disk refusing it)."""
        with self._lock:
            if self._folder is None or self._claim is None or generation <= self._written:
                return False
            self._written = generation
            target = self._folder / slot_file(DRAFT_FILE, self._slot)
            data = text.encode("utf-8", errors="replace") if text.strip() else b""
            try:
                if data and len(data) <= MAX_DRAFT_BYTES:
                    write_privately(target, data, prefix=".draft-")
                    return True
                with contextlib.suppress(FileNotFoundError):  # an older draft is not this one
                    os.unlink(target)
            except OSError as exc:
                log.warning("the draft could not be written: %s", exc.strerror)
                return False
            if data:
                log.warning("the draft is larger than %d bytes: not kept", MAX_DRAFT_BYTES)
            return not data

    def keep_prompt(self, draft: PromptDraft | None) -> bool:
        """Write the prompt editor's unsaved edits (``None``: there are none, the file goes);
        ``False`` when they could not be kept."""
        with self._lock:
            if self._folder is None or self._claim is None:
                return False
            target = self._folder / slot_file(PROMPT_DRAFT_FILE, self._slot)
            try:
                if draft is None:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(target)
                    return True
                fields = {"prompt_id": draft.prompt_id, "label": draft.label}
                data = json.dumps({**fields, "content": draft.content}).encode("utf-8")
                if len(data) > MAX_DRAFT_BYTES:
                    log.warning(
                        "the prompt draft is larger than %d bytes: not kept", MAX_DRAFT_BYTES
                    )
                    return False
                write_privately(target, data, prefix=".prompt-draft-")
                return True
            except OSError as exc:
                log.warning("the prompt draft could not be written: %s", exc.strerror)
                return False

    def read_prompt(self) -> PromptDraft | None:
        """The prompt editor's edits kept when the app last ended, if any (and this app keeps
        the drafts); a file that is not one is left unread."""
        if self._folder is None or self._claim is None:
            return None
        try:
            with (self._folder / slot_file(PROMPT_DRAFT_FILE, self._slot)).open("rb") as file:
                data = file.read(MAX_DRAFT_BYTES + 1)
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("the prompt draft was not read: %s", exc.strerror)
            return None
        try:
            kept = json.loads(data) if len(data) <= MAX_DRAFT_BYTES else None
        except ValueError:
            kept = None
        if not isinstance(kept, dict):
            log.warning("the prompt draft file is not one: not read")
            return None
        prompt_id, label, content = (kept.get(k) for k in ("prompt_id", "label", "content"))
        if not (isinstance(label, str) and isinstance(content, str)):
            return None
        return PromptDraft(prompt_id if type(prompt_id) is int else None, label, content)

    def release(self) -> None:
        """Let another app take the draft (the process ending does it too)."""
        with self._lock:
            if self._claim is not None:
                self._claim.close()  # closing the file lets go of its lock
                self._claim = None
