"""Files the app keeps for its user alone: the database, the log, the settings file and
exports.

A file is created 0600 and every directory the app creates for it 0700, whatever the umask.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700


def make_private_directories(directory: Path) -> None:
    """Create each missing level of ``directory`` with mode 0700, set explicitly: ``mkdir``'s
    mode is filtered by the umask, and ``parents=True`` would give the intermediate levels the
    default mode. Directories that exist are not the program's and are left as they are."""
    missing: list[Path] = []
    current = directory
    while not current.exists() and not current.is_symlink():  # a dangling link: mkdir fails
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    for level in reversed(missing):
        try:
            os.mkdir(level, DIR_MODE)
        except FileExistsError:  # made meanwhile, by someone else: not ours to change
            continue
        os.chmod(level, DIR_MODE)


def write_privately(target: Path, data: bytes, *, prefix: str) -> None:
    """``data`` into ``target`` whole or not at all (a temporary file named ``prefix…`` beside
    it, 0600 whatever the umask, synced, then renamed over it; the rename synced too). Any
    failure removes the temporary file and raises the ``OSError``: the caller says what it was
    writing."""
    descriptor, temporary = tempfile.mkstemp(prefix=prefix, dir=target.parent)
    try:
        with os.fdopen(descriptor, "wb") as out:
            os.fchmod(out.fileno(), FILE_MODE)
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    with contextlib.suppress(OSError):  # a file system that cannot sync a directory
        directory = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(directory)
        finally:
            os.close(directory)
