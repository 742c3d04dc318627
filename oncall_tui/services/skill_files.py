"""The ``SKILL.md`` files a user names to add: a file, a folder holding one, or a folder of such
folders (the bundled ``skills-examples``, a team's runbook checkout), each added on its own.

Files are read here, before the owner's lock is taken; a huge file is not read whole (its real
size is reported with the catalog's size rule), and a named pipe or a device is refused without
being waited on (see :mod:`oncall_tui.inputs`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from oncall_tui.core.skills import MAX_SKILL_BYTES, SKILL_FILENAME, check_upload_size
from oncall_tui.errors import Language, OncallError
from oncall_tui.inputs import expanded_path, find_named_file, read_file
from oncall_tui.services.views import SkillView

MAX_FOLDERS = 100
"""The most skill folders one path adds: a folder of more is not a runbook collection (a home
directory named by mistake), and the rest are left, said so."""


@dataclass(frozen=True, slots=True)
class AddedSkills:
    """What adding a path did: the skills stored, and each folder refused with why."""

    added: tuple[SkillView, ...]
    refused: tuple[tuple[str, OncallError], ...] = ()
    """``(folder name, error)`` of each skill folder not added, in the folders' order."""
    left: int = 0
    """Skill folders past :data:`MAX_FOLDERS`, not looked at."""
    of_folders: bool = False
    """The path was a folder of skill folders (else one file, or a folder holding it)."""

    def to_json(self, lang: Language) -> dict[str, object]:
        refused = [{"folder": folder, **error.to_json(lang)} for folder, error in self.refused]
        added = [skill.to_json() for skill in self.added]
        return {"added": added, "refused": refused, "left": self.left}


def skill_folders(raw: str) -> list[Path] | None:
    """The ``SKILL.md`` of each folder of ``raw`` that holds one, by name, when ``raw`` is a
    folder without one of its own; ``None`` when ``raw`` names one file (a ``SKILL.md``, or a
    folder holding it), or a folder that holds no skill folder (then reading it says why)."""
    folder = expanded_path(raw)
    if not folder.is_dir() or (folder / SKILL_FILENAME).exists():
        return None
    try:
        with os.scandir(folder) as entries:
            names = sorted(entry.name for entry in entries if entry.is_dir())
    except OSError:
        return None
    found = [folder / name / SKILL_FILENAME for name in names]
    return [skill for skill in found if skill.is_file()] or None


def read_skill_file(path: str) -> tuple[str, bytes]:
    """The file a user named: its base name and bytes (``~`` expanded, a folder meaning the
    ``SKILL.md`` inside it). A folder with none, in it or in its folders, is refused as such
    (a folder of runbooks named ``*.md``), not as a file that could not be read."""
    folder = expanded_path(path)
    if folder.is_dir() and not (folder / SKILL_FILENAME).exists():
        raise OncallError("VALIDATION_INVALID_ARGUMENT", "no_skill_in_folder", path=str(folder))
    found = find_named_file(path, SKILL_FILENAME)
    upload = read_file(found, MAX_SKILL_BYTES)
    check_upload_size(found.name, upload.size)
    return found.name, upload.data
