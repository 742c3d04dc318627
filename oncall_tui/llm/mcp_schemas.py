"""A tool server's tool as the model is sent it: its description and JSON schema made short.

Every request carries the bound tools' schemas, so a server's long docstring becomes its first
paragraph, at most :data:`DESCRIPTION_CHARS`, and what only repeats a parameter's name goes;
people still see the server's own description (``tools``, the panel). Plain data in and out.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

DESCRIPTION_CHARS = 200
"""The most characters of a tool's description, or of one of its parameters', the model is
sent; a longer one is cut after its last whole sentence within the limit."""
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_DOCSTRING_SECTION = re.compile(
    r"^[ \t]*(?:args|arguments|parameters|params|keyword args|returns?|yields?|raises|"
    r"examples?|notes?)[ \t]*:[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)|[。！？]")
_NOT_A_WORD = re.compile(r"[\W_]+")


def for_the_model(description: str, parameters: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """A server tool's description and JSON schema as the model is sent them, shorter and
    meaning the same to it.

    - The description is its first paragraph, ending before a docstring section (``Args:``,
      ``Returns:``, ...) that would repeat the parameters, whitespace collapsed, at most
      :data:`DESCRIPTION_CHARS`.
    - A parameter's description is collapsed and capped the same way (not cut to its first
      paragraph), and dropped when it only repeats the parameter's name or title
      (``"pattern": {"title": "Pattern", "description": "Pattern"}``).
    - An optional parameter that may also be ``null`` (``anyOf: [{type: string}, {type:
      null}]``, ``default: null``, as Pydantic writes ``str | None = None``) is just its type:
      leaving it out says the same, and the ``ollama`` client, which keeps only ``type``,
      ``items``, ``description`` and ``enum`` of a parameter, would otherwise send no type.

    Names, types, ``required``, enums, defaults (but that ``null``), bounds and nesting are
    kept as they are. People are shown the server's own description
    (:class:`.mcp_state.OfferedTool`).
    """
    return _first_paragraph(description), _schema(parameters)


def _schema(node: Mapping[str, Any]) -> dict[str, Any]:
    """``node`` with the descriptions of it and of every schema nested in it made short."""
    required = node.get("required")
    needed = set(required) if isinstance(required, list) else set()
    shown: dict[str, Any] = {}
    for key, value in node.items():
        if key == "description" and isinstance(value, str):
            shown[key] = _capped(" ".join(value.split()))
        elif key == "properties" and isinstance(value, Mapping):
            shown[key] = {
                name: _property(name, item, name in needed) if isinstance(item, Mapping) else item
                for name, item in value.items()
            }
        elif key in ("$defs", "definitions") and isinstance(value, Mapping):
            shown[key] = {
                name: _schema(item) if isinstance(item, Mapping) else item
                for name, item in value.items()
            }
        elif key in ("items", "additionalProperties") and isinstance(value, Mapping):
            shown[key] = _schema(value)
        elif key in ("anyOf", "oneOf", "allOf") and isinstance(value, list):
            shown[key] = [_schema(item) if isinstance(item, Mapping) else item for item in value]
        else:
            shown[key] = value
    return shown


def _property(name: str, node: Mapping[str, Any], required: bool) -> dict[str, Any]:
    shown = _schema(node)
    choices = shown.get("anyOf")
    if not required and shown.get("default", None) is None and isinstance(choices, list):
        kinds = [choice for choice in choices if choice != {"type": "null"}]
        if len(choices) == 2 and len(kinds) == 1 and isinstance(kinds[0], dict):
            merged: dict[str, Any] = {}
            for key, value in shown.items():
                if key == "anyOf":
                    merged.update({k: v for k, v in kinds[0].items() if k not in shown})
                elif key != "default":
                    merged[key] = value
            shown = merged
    text = shown.get("description")
    title = shown.get("title")
    repeated = {_words(name), _words(title) if isinstance(title, str) else _words(name)}
    if isinstance(text, str) and _words(text) in repeated:
        del shown["description"]
    return shown


def _first_paragraph(text: str) -> str:
    """The first paragraph of ``text``, before any docstring section, on one line, capped."""
    first = _PARAGRAPH_BREAK.split(text.strip(), maxsplit=1)[0]
    section = _DOCSTRING_SECTION.search(first)
    if section is not None:
        first = first[: section.start()]
    return _capped(" ".join(first.split()))


def _capped(line: str) -> str:
    """``line`` if at most :data:`DESCRIPTION_CHARS`, else its whole sentences within that,
    else its words within it and ``…``."""
    if len(line) <= DESCRIPTION_CHARS:
        return line
    ends = [end.end() for end in _SENTENCE_END.finditer(line, 0, DESCRIPTION_CHARS)]
    if ends:
        return line[: ends[-1]]
    cut = line[: DESCRIPTION_CHARS - 1]
    space = cut.rfind(" ")
    if space > DESCRIPTION_CHARS // 2:
        cut = cut[:space]
    return cut.rstrip(" ,;:") + "…"


def _words(text: str) -> str:
    """``text`` as lower-case words: ``path_glob``, ``Path Glob`` and ``path glob.`` agree."""
    return " ".join(_NOT_A_WORD.sub(" ", text).lower().split())
