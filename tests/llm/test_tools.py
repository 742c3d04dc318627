"""Registered tools: get_current_time always, load_skill only over this request's skills."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from langchain_core.utils.function_calling import convert_to_openai_tool

from oncall_tui.llm.tools import build_tools, get_current_time, tool_summary

DISK = "---\nname: disk-full\ndescription: Free disk space.\n---\n\n# Steps\n1. df -h\n"
DNS = "---\nname: dns-debug\ndescription: Debug DNS.\n---\n\n# Steps\n1. dig\n"


def test_without_skills_only_get_current_time_is_registered() -> None:
    assert [t.name for t in build_tools({})] == ["get_current_time"]


def test_with_skills_load_skill_is_registered_with_one_string_argument() -> None:
    tools = build_tools({"disk-full": DISK})
    assert [t.name for t in tools] == ["get_current_time", "load_skill"]
    parameters = convert_to_openai_tool(tools[1])["function"]["parameters"]
    assert parameters["required"] == ["skill_name"]
    assert parameters["properties"]["skill_name"]["type"] == "string"


def test_load_skill_returns_the_full_body_of_a_selected_skill() -> None:
    load_skill = build_tools({"disk-full": DISK, "dns-debug": DNS})[1]
    result = load_skill.invoke({"skill_name": "disk-full"})
    assert result == f"Loaded skill: disk-full\n\n{DISK}"


def test_load_skill_unknown_name_is_not_available_and_lists_the_selection() -> None:
    load_skill = build_tools({"disk-full": DISK, "dns-debug": DNS})[1]
    result = load_skill.invoke({"skill_name": "kube-restart"})
    first_line = result.splitlines()[0]
    assert "not available" in first_line
    assert (
        first_line
        == "Skill 'kube-restart' is not available. Available skills: disk-full, dns-debug"
    )
    assert DISK not in result


def test_not_available_lists_the_names_in_selection_order() -> None:
    """As the catalog does, and as the seed joins the registry: not sorted."""
    load_skill = build_tools({"dns-debug": DNS, "disk-full": DISK})[1]
    result = load_skill.invoke({"skill_name": "kube-restart"})
    assert result == "Skill 'kube-restart' is not available. Available skills: dns-debug, disk-full"


def test_load_skill_registry_is_only_the_given_mapping() -> None:
    first = build_tools({"disk-full": DISK})[1]
    second = build_tools({"dns-debug": DNS})[1]
    assert "not available" in second.invoke({"skill_name": "disk-full"})
    assert first.invoke({"skill_name": "disk-full"}).startswith("Loaded skill: disk-full")


def test_load_skill_does_not_see_later_changes_to_the_mapping() -> None:
    skills = {"disk-full": DISK}
    load_skill = build_tools(skills)[1]
    skills["dns-debug"] = DNS
    assert "not available" in load_skill.invoke({"skill_name": "dns-debug"})


def test_get_current_time_is_one_line_with_utc_and_local_iso_times() -> None:
    result = get_current_time.invoke({})
    assert "\n" not in result
    match = re.fullmatch(r"UTC: (\S+); local: (\S+) \((.+)\)", result)
    assert match is not None
    utc, local = (datetime.fromisoformat(match.group(i)) for i in (1, 2))
    assert utc.utcoffset() == timedelta(0)
    assert local.utcoffset() is not None
    assert utc == local
    assert abs(datetime.now(UTC) - utc) < timedelta(seconds=5)


def test_summary_of_a_load_skill_result_is_its_first_line_only() -> None:
    load_skill = build_tools({"disk-full": DISK})[1]
    output = load_skill.invoke({"skill_name": "disk-full"})
    assert tool_summary("load_skill", output) == "Loaded skill: disk-full"


def test_summary_skips_blank_lines_collapses_whitespace_and_truncates() -> None:
    assert tool_summary("t", "\n  \n  a \t b   c  \nsecond") == "a b c"
    summary = tool_summary("t", "x" * 300)
    assert len(summary) == 120
    assert summary.endswith("…")
    assert tool_summary("t", "y" * 120) == "y" * 120


def test_summary_of_empty_output_names_the_tool() -> None:
    assert tool_summary("get_current_time", " \n") == "get_current_time: no output"
