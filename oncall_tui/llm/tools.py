"""The tools a model may call, and the one-line summary clients show of a tool's result.

Tools exist only because this code registers them (docs/ARCHITECTURE.md "Tools"): skill text
can name a tool but never create one. ``load_skill`` reads from the skills selected for *this*
request and nothing else. Names and descriptions come from :mod:`oncall_tui.llm.tool_specs`,
which also holds the schemas the estimates use without importing LangChain; this module is
imported only when a turn runs.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime

from langchain_core.tools import BaseTool, StructuredTool, tool
from pydantic import BaseModel, Field

from oncall_tui.llm.tool_specs import (
    GET_CURRENT_TIME,
    GET_CURRENT_TIME_DESCRIPTION,
    LOAD_SKILL,
    LOAD_SKILL_DESCRIPTION,
    SKILL_NAME_DESCRIPTION,
)

SUMMARY_LIMIT = 120
_WHITESPACE = re.compile(r"\s+")


@tool(GET_CURRENT_TIME, description=GET_CURRENT_TIME_DESCRIPTION)
def get_current_time() -> str:
    """One line: ``UTC: <iso>; local: <iso> (<zone>)``."""
    now = datetime.now(UTC)
    local = now.astimezone()
    zone = local.tzname() or "local"
    return (
        f"UTC: {now.isoformat(timespec='seconds')}; "
        f"local: {local.isoformat(timespec='seconds')} ({zone})"
    )


def build_tools(skills: Mapping[str, str]) -> list[BaseTool]:
    """The tools for one request.

    ``skills`` maps each selected skill's name to its full ``SKILL.md``. ``get_current_time``
    is always present; ``load_skill`` only when at least one skill is selected.
    """
    tools: list[BaseTool] = [get_current_time]
    if skills:
        tools.append(_load_skill_tool(dict(skills)))
    return tools


class LoadSkillArgs(BaseModel):
    """Arguments of ``load_skill``; one shared class keeps every build's schema identical."""

    skill_name: str = Field(description=SKILL_NAME_DESCRIPTION)


def _load_skill_tool(registry: dict[str, str]) -> BaseTool:
    available = ", ".join(registry)  # in selection order, as the catalog lists them

    def load_skill(skill_name: str) -> str:
        name = skill_name.strip()
        content = registry.get(name)
        if content is None:
            return f"Skill '{name}' is not available. Available skills: {available}"
        return f"Loaded skill: {name}\n\n{content}"

    return StructuredTool.from_function(
        load_skill,
        name=LOAD_SKILL,
        description=LOAD_SKILL_DESCRIPTION,
        args_schema=LoadSkillArgs,
    )


def tool_summary(name: str, output: str) -> str:
    """The line UI, CLI and audit show for a tool result: its first non-empty line,
    whitespace collapsed, at most 120 characters. A skill body never gets past its
    ``Loaded skill: NAME`` line.
    """
    for line in output.splitlines():
        text = _WHITESPACE.sub(" ", line).strip()
        if text:
            if len(text) > SUMMARY_LIMIT:
                return text[: SUMMARY_LIMIT - 1].rstrip() + "…"
            return text
    return f"{name}: no output"
