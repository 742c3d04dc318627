"""SKILL.md upload validation: structure, not meaning.

A skill that passes is still untrusted text. The rules are those of docs/ARCHITECTURE.md
"Skill upload validation", checked in order, and every failure names the rule.

The frontmatter is read by a strict YAML loader: a field given twice is refused (a reader
would not know which one counts), and so are nesting deeper than
:data:`MAX_FRONTMATTER_DEPTH` and whole numbers longer than :data:`MAX_NUMBER_DIGITS`, which
would otherwise end the parse with Python's own errors instead of a catalog message.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode

from oncall_tui.errors import OncallError

SKILL_FILENAME = "SKILL.md"
MAX_SKILL_BYTES = 65_536
MAX_NAME_CHARS = 64
MAX_DESCRIPTION_CHARS = 1024
MAX_FRONTMATTER_DEPTH = 32
"""Lists and mappings nested deeper than this in a frontmatter are refused."""
MAX_NUMBER_DIGITS = 4300
"""A whole number in a frontmatter may have this many digits (Python's own limit for reading
one from text)."""
_UTF8_BOM = b"\xef\xbb\xbf"
_MERGE_TAG = "tag:yaml.org,2002:merge"
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


def check_upload_size(filename: str, size: int) -> None:
    """Refuse a file past :data:`MAX_SKILL_BYTES` by its real size, for a reader that read no
    more than the limit and a byte; the name is checked first, as validation orders it."""
    _check_filename(filename)
    if size > MAX_SKILL_BYTES:
        raise _invalid("skill_too_large", size=size, limit=MAX_SKILL_BYTES)


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
        parsed = yaml.load("\n".join(lines[1:end]), Loader=_FrontmatterLoader)
    except _RefusedError as refused:
        line = refused.mark.line + first_line + 1
        raise _invalid(refused.reason, line=line, **refused.params) from None
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or type(exc).__name__
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + first_line + 1}" if mark is not None else ""
        raise _invalid("skill_frontmatter_yaml", problem=f"{problem}{where}") from None
    except RecursionError:  # a chain of merged mappings, each into the next
        raise _invalid("skill_frontmatter_yaml", problem="nested too deeply") from None
    except (ValueError, OverflowError) as exc:  # a value YAML matched but Python cannot hold
        raise _invalid("skill_frontmatter_yaml", problem=str(exc)) from None
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


class _RefusedError(Exception):
    """A frontmatter the strict loader refuses: the rule (a reason key), where, and its
    parameters."""

    def __init__(self, reason: str, mark: yaml.Mark, **params: object) -> None:
        super().__init__(reason)
        self.reason = reason
        self.mark = mark
        self.params = params


class _FrontmatterLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that refuses what it would take silently (a key given twice: the
    last one wins) or fail on with a Python error (deep nesting, huge numbers)."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0

    def compose_node(self, parent: Node | None, index: int) -> Node | None:
        opening = self.check_event(yaml.SequenceStartEvent, yaml.MappingStartEvent)
        if opening:
            self._depth += 1
            if self._depth > MAX_FRONTMATTER_DEPTH:
                mark = self.peek_event().start_mark  # type: ignore[no-untyped-call]
                raise _RefusedError("skill_frontmatter_too_deep", mark, limit=MAX_FRONTMATTER_DEPTH)
        try:
            return super().compose_node(parent, index)
        finally:
            if opening:
                self._depth -= 1

    def compose_mapping_node(self, anchor: dict[Any, Node]) -> MappingNode:
        # (typed as the stubs have it; PyYAML passes the anchor's name, or None)
        node = super().compose_mapping_node(anchor)
        seen: set[tuple[str, str]] = set()
        for key, _ in node.value:
            if not isinstance(key, ScalarNode) or key.tag == _MERGE_TAG:
                continue  # a merge (<<) may override keys; other keys are compared as text
            identity = (key.tag, key.value)
            if identity in seen:
                field = " ".join(str(key.value).split())[:MAX_NAME_CHARS]
                raise _RefusedError("skill_frontmatter_duplicate_key", key.start_mark, field=field)
            seen.add(identity)
        return node

    def construct_bounded_int(self, node: ScalarNode) -> int:
        digits = sum(character.isalnum() for character in str(node.value))
        if digits > MAX_NUMBER_DIGITS:
            raise _RefusedError(
                "skill_frontmatter_number", node.start_mark, limit=MAX_NUMBER_DIGITS
            )
        try:
            value: int = self.construct_yaml_int(node)
        except ValueError:  # the interpreter's own digit limit may be set lower
            raise _RefusedError(
                "skill_frontmatter_number", node.start_mark, limit=MAX_NUMBER_DIGITS
            ) from None
        return value


_FrontmatterLoader.add_constructor(
    "tag:yaml.org,2002:int",
    _FrontmatterLoader.construct_bounded_int,
)
