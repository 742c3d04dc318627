"""Where the bundled example skills are: inside the installed package (a wheel carries them as
``oncall_tui/skills_examples``), else beside it in a source checkout (``skills-examples/``)."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent.parent


def skills_examples_path() -> Path | None:
    """The directory of example ``SKILL.md`` skills, or ``None`` if this install has none."""
    for candidate in (_PACKAGE / "skills_examples", _PACKAGE.parent / "skills-examples"):
        if candidate.is_dir():
            return candidate
    return None
