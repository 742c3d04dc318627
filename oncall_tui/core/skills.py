"""SKILL.md upload validation: structure, not meaning.

A skill that passes is still untrusted text. The rules are those of docs/ARCHITECTURE.md
"Skill upload validation", checked in order, and every failure names the rule.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

import yaml

from oncall_tui.errors import OncallError

SKILL_FILENAME = "SKILL.md"
MAX_SKILL_BYTES = 65_536
MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
_UTF8_BOM = b"\xef\xbb\xbf"
_NAME_CHARSET = re.compile(r"[a-z0-9-]+")


@dataclass(frozen=True, slots=True)
class SkillDocument:
    """A validated SKILL.md: the fields the catalog needs and the Markdown to store."""

    name: str
    description: str
    content: str
    size_bytes: int


@dataclass(frozen=True, slots=True)
class SkillCatalogEntry:
    """What the model is told about a skill before loading it: name and description only."""

    name: str
    description: str


def validate_skill_upload(filename: str, data: bytes) -> SkillDocument:
    """Validate an uploaded file and return the document to store, or raise ``SKILL_INVALID``."""
    _check_filename(filename)
    text = _decode(data)
    frontmatter = _parse_frontmatter(text)
    name = _check_name(frontmatter)
    description = _check_description(frontmatter)
    return SkillDocument(name=name, description=description, content=text, size_bytes=len(data))


def _invalid(reason: str, **params: object) -> OncallError:
    return OncallError("SKILL_INVALID", reason, **params)


def _check_filename(filename: str) -> None:
    normalized = filename.replace("\\", "/")
    if filename != SKILL_FILENAME or posixpath.basename(normalized) != SKILL_FILENAME:
        raise _invalid("skill_filename", filename=filename)


def _decode(data: bytes) -> str:
    if not data:
        raise _invalid("skill_empty")
    if len(data) > MAX_SKILL_BYTES:
        raise _invalid("skill_too_large", size=len(data), limit=MAX_SKILL_BYTES)
    body = data[len(_UTF8_BOM) :] if data.startswith(_UTF8_BOM) else data
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _invalid("skill_not_utf8", position=exc.start) from None
    text = text.replace("\r\n", "\n")
    if not text.strip():
        raise _invalid("skill_blank")
    return text


def _parse_frontmatter(text: str) -> dict[object, object]:
    """The frontmatter at the start of the text; as in the seed, blank lines and spaces before
    the opening ``---`` do not count."""
    leading = text[: len(text) - len(text.lstrip())]
    first_line = leading.count("\n") + 1  # the opening ---, as the file numbers it
    lines = text.strip().split("\n")
    if lines[0].rstrip() != "---":
        raise _invalid("skill_no_frontmatter")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].rstrip() == "---")
    except StopIteration:
        raise _invalid("skill_no_frontmatter") from None
    try:
        parsed = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or type(exc).__name__
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + first_line + 1}" if mark is not None else ""
        raise _invalid("skill_frontmatter_yaml", problem=f"{problem}{where}") from None
    if not isinstance(parsed, dict):
        raise _invalid("skill_frontmatter_not_mapping", kind=_kind(parsed))
    return parsed


def _string_field(frontmatter: dict[object, object], field: str) -> str:
    if field not in frontmatter:
        raise _invalid("skill_field_missing", field=field)
    value = frontmatter[field]
    if not isinstance(value, str):
        raise _invalid("skill_field_not_string", field=field, kind=_kind(value))
    return value


def _check_name(frontmatter: dict[object, object]) -> str:
    name = _string_field(frontmatter, "name")
    if not 1 <= len(name) <= MAX_NAME_CHARS:
        raise _invalid("skill_name_length", limit=MAX_NAME_CHARS, length=len(name))
    if not _NAME_CHARSET.fullmatch(name):
        raise _invalid("skill_name_charset", name=name)
    if name.startswith("-") or name.endswith("-"):
        raise _invalid("skill_name_hyphen_edge", name=name)
    if "--" in name:
        raise _invalid("skill_name_double_hyphen", name=name)
    return name


def _check_description(frontmatter: dict[object, object]) -> str:
    description = _string_field(frontmatter, "description").strip()
    if not description:
        raise _invalid("skill_description_empty")
    if len(description) > MAX_DESCRIPTION_CHARS:
        raise _invalid(
            "skill_description_length", limit=MAX_DESCRIPTION_CHARS, length=len(description)
        )
    return description


def _kind(value: object) -> str:
    if value is None:
        return "empty"
    names = {bool: "a boolean", int: "a number", float: "a number", list: "a list", str: "text"}
    return names.get(type(value), type(value).__name__)
