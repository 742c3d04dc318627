"""The built-in tools as plain data: names, descriptions and the JSON schemas a request carries.

A request's token estimate includes the schemas of the tools it offers, and the estimate runs
wherever a context gauge is shown (``memory show``, ``sessions show``, the TUI), not only when a
turn runs. So the schemas live here, as the exact documents LangChain's
``convert_to_openai_tool`` makes of the tools in :mod:`oncall_tui.llm.tools` (same keys, same
order, so the same JSON text and the same estimate), and this module imports nothing: measuring
a request does not load the model stack. :mod:`oncall_tui.llm.tools` builds the callable tools
from these names and descriptions when a turn runs, and a test compares the two, so they cannot
drift apart.

Every request carries these schemas, so their descriptions say only what the tool does: when to
call each is the system prompt's to say (its operating rules and ``## Available Skills``,
:mod:`oncall_tui.core.prompts`), and saying it twice costs tokens in every request.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

ToolSchema = Mapping[str, Any]
"""A tool as a request carries it: ``{"type": "function", "function": {...}}``."""

GET_CURRENT_TIME: Final = "get_current_time"
GET_CURRENT_TIME_DESCRIPTION: Final = (
    "The current date and time, in UTC and in the local time zone (ISO 8601)."
)

LOAD_SKILL: Final = "load_skill"
LOAD_SKILL_DESCRIPTION: Final = "Load the full instructions of a skill listed in Available Skills."
SKILL_NAME_DESCRIPTION: Final = "The skill's exact name"
"""What ``load_skill``'s one argument, ``skill_name``, is."""

GET_CURRENT_TIME_SCHEMA: Final[ToolSchema] = {
    "type": "function",
    "function": {
        "name": GET_CURRENT_TIME,
        "description": GET_CURRENT_TIME_DESCRIPTION,
        "parameters": {"properties": {}, "type": "object"},
    },
}

LOAD_SKILL_SCHEMA: Final[ToolSchema] = {
    "type": "function",
    "function": {
        "name": LOAD_SKILL,
        "description": LOAD_SKILL_DESCRIPTION,
        "parameters": {
            "properties": {
                "skill_name": {"description": SKILL_NAME_DESCRIPTION, "type": "string"},
            },
            "required": ["skill_name"],
            "type": "object",
        },
    },
}

_WITHOUT_SKILLS: Final = (GET_CURRENT_TIME_SCHEMA,)
_WITH_SKILLS: Final = (GET_CURRENT_TIME_SCHEMA, LOAD_SKILL_SCHEMA)


def tool_schemas(*, skills_selected: bool) -> tuple[ToolSchema, ...]:
    """The schemas of the tools a request offers, in the order the turn binds them:
    ``get_current_time`` always, ``load_skill`` when at least one skill is selected (its
    schema does not depend on which skills, nor on their bodies)."""
    return _WITH_SKILLS if skills_selected else _WITHOUT_SKILLS
