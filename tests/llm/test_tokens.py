"""Request estimates: every message and its role markers, tool schemas and their template."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from oncall_tui.core.tokens import estimate_text_tokens
from oncall_tui.llm.guard import as_pairs
from oncall_tui.llm.tokens import (
    MESSAGE_OVERHEAD_TOKENS,
    REQUEST_OVERHEAD_TOKENS,
    TOOLS_OVERHEAD_TOKENS,
    estimate_tokens,
    tool_schema_tokens,
)
from oncall_tui.llm.tool_specs import tool_schemas
from oncall_tui.llm.tools import build_tools


def test_a_request_is_its_texts_plus_role_markers() -> None:
    messages = [("user", "The disk on db-1 is full."), ("assistant", "Run df -h first.")]
    texts = ["Be brief.", *(content for _, content in messages)]
    assert estimate_tokens("Be brief.", messages) == REQUEST_OVERHEAD_TOKENS + sum(
        estimate_text_tokens(text) + MESSAGE_OVERHEAD_TOKENS for text in texts
    )


def test_tools_add_their_schemas_and_the_templates_instructions() -> None:
    history = [("user", "what time is it?")]
    tools = tool_schemas(skills_selected=True)
    without = estimate_tokens("sys", history)
    assert estimate_tokens("sys", history, tools) == (
        without + TOOLS_OVERHEAD_TOKENS + sum(tool_schema_tokens(tool) for tool in tools)
    )
    fewer = tool_schemas(skills_selected=False)
    assert estimate_tokens("sys", history, fewer) < estimate_tokens("sys", history, tools)


@pytest.mark.parametrize(
    "skills", [{}, {"a": "x"}, {"b": "a much longer skill body " * 50, "c": "y"}]
)
def test_the_estimated_schemas_are_langchains_for_any_selection(skills: dict[str, str]) -> None:
    """The estimate measures plain schemas (no LangChain needed); they are exactly what
    LangChain makes of the tools a turn binds, key order included, whatever the skills and
    their bodies (a body is not in the schema; only the call result carries it)."""
    plain = tool_schemas(skills_selected=bool(skills))
    converted = [convert_to_openai_tool(tool) for tool in build_tools(skills)]
    assert [json.dumps(schema) for schema in plain] == [json.dumps(c) for c in converted]


def test_estimate_is_monotonic_in_text_length() -> None:
    for alphabet in ("word ", "字", "10.0.3.17 "):
        counts = [estimate_tokens("s", [("user", alphabet * n)]) for n in range(0, 400, 7)]
        assert counts == sorted(counts)
        assert counts[-1] > counts[0]


def test_system_prompt_and_every_message_count() -> None:
    base = estimate_tokens("s", [("user", "a")])
    assert estimate_tokens("s" * 400, [("user", "a")]) > base
    assert estimate_tokens("s", [("user", "a"), ("assistant", "b")]) > base


def test_tool_calls_and_results_count_as_the_server_receives_them() -> None:
    call = {"name": "load_skill", "args": {"skill_name": "log-analysis"}, "id": "c1"}
    pairs = as_pairs(
        [
            HumanMessage("use it"),
            AIMessage("Loading.", tool_calls=[call]),
            ToolMessage("Loaded skill: log-analysis", tool_call_id="c1"),
        ]
    )
    assert pairs == [
        ("human", "use it"),
        ("ai", 'Loading.[{"name": "load_skill", "arguments": {"skill_name": "log-analysis"}}]'),
        ("tool", "Loaded skill: log-analysis"),
    ]
