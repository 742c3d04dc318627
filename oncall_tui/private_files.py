"""Files the app keeps for its user alone: the database and the log.

A file is created 0600 and every directory the app creates for it 0700, whatever the umask.
"""

from __future__ import annotations

import os
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
