"""The tool schemas every request carries stay small: a server's long description is cut to
what the model needs, built-in descriptions say only what the tool does, and nothing the model
needs to call a tool (names, types, required, enums, defaults, bounds) is lost."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import ollama
import pytest
from langchain_core.tools import StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from examples.mcp import log_search
from oncall_tui.core.prompts import MANDATORY_INSTRUCTIONS, SKILLS_INSTRUCTION
from oncall_tui.llm.mcp import McpTools
from oncall_tui.llm.mcp_schemas import DESCRIPTION_CHARS, for_the_model
from oncall_tui.llm.tokens import tool_schema_tokens
from oncall_tui.llm.tool_specs import (
    GET_CURRENT_TIME_DESCRIPTION,
    LOAD_SKILL_DESCRIPTION,
    SKILL_NAME_DESCRIPTION,
    tool_schemas,
)
from oncall_tui.settings.mcp import McpServer

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "mcp" / "log_search.py"
SAMPLE_LOGS = REPO / "examples" / "mcp" / "sample-logs"

DOCSTRING = """\
Restart one service of the cluster, draining it first.

Args:
    service: The service to restart.
    drain_seconds: How long to drain.

Returns:
    What the orchestrator said."""


def description(text: str) -> str:
    return for_the_model(text, {"type": "object", "properties": {}})[0]


def parameters(schema: dict[str, Any]) -> dict[str, Any]:
    return for_the_model("", schema)[1]


# -- descriptions --------------------------------------------------------------------------


def test_a_multi_paragraph_description_is_its_first_paragraph_on_one_line() -> None:
    text = "Search the logs,\n  line by line.\n\n- pattern: a regex\n\nEach result is a line."
    assert description(text) == "Search the logs, line by line."
    assert description(DOCSTRING) == "Restart one service of the cluster, draining it first."


def test_a_docstring_section_ends_the_description_even_without_a_blank_line() -> None:
    text = "Restart a service.\nArgs:\n    service: which one\nReturns:\n    the output"
    assert description(text) == "Restart a service."
    assert description("Args:\n    service: which one") == ""


def test_a_long_paragraph_keeps_its_whole_sentences_within_the_cap() -> None:
    first = "Search the logs of every service of the cluster for a regular expression. "
    text = first * 3  # 225 characters, three sentences
    kept = description(text)
    assert kept == (first * 2).strip()
    assert len(kept) <= DESCRIPTION_CHARS


def test_a_long_sentence_is_cut_between_words_and_marked() -> None:
    text = "search " * 50
    kept = description(text)
    assert len(kept) <= DESCRIPTION_CHARS
    assert kept.endswith("search…")


def test_chinese_sentences_end_at_their_full_stops() -> None:
    sentence = "在集群的每个服务的日志中逐行搜索一个正则表达式，并返回匹配的行和行号。"
    kept = description(sentence * 10)
    assert kept == sentence * (DESCRIPTION_CHARS // len(sentence))


def test_a_short_description_is_kept_as_it_is() -> None:
    assert description("Restart a service (changes state).") == (
        "Restart a service (changes state)."
    )
    assert description("") == ""


# -- parameters ----------------------------------------------------------------------------


def test_a_description_that_repeats_the_name_or_title_is_dropped() -> None:
    schema = {
        "type": "object",
        "properties": {
            "path_glob": {"type": "string", "title": "Path Glob", "description": "Path glob."},
            "service": {"type": "string", "title": "Which", "description": "Service"},
            "limit": {"type": "integer", "title": "Limit", "description": "Most lines."},
        },
    }
    properties = parameters(schema)["properties"]
    assert "description" not in properties["path_glob"]
    assert "description" not in properties["service"]
    assert properties["limit"]["description"] == "Most lines."


def test_a_long_parameter_description_is_collapsed_and_capped() -> None:
    long = "The time range start, in ISO 8601.\n   A time without a zone is UTC. " * 5
    schema = {"type": "object", "properties": {"since": {"type": "string", "description": long}}}
    kept = parameters(schema)["properties"]["since"]["description"]
    assert "\n" not in kept
    assert "  " not in kept
    assert len(kept) <= DESCRIPTION_CHARS
    assert kept.startswith("The time range start, in ISO 8601. A time without a zone is UTC.")


def test_an_optional_nullable_parameter_is_just_its_type() -> None:
    schema = {
        "type": "object",
        "properties": {
            "since": {
                "anyOf": [{"type": "string"}, {"type": "null"}],
                "default": None,
                "description": "Start.",
                "title": "Since",
            },
        },
    }
    assert parameters(schema)["properties"]["since"] == {
        "type": "string",
        "description": "Start.",
        "title": "Since",
    }


def test_an_optional_nullable_enum_reaches_the_ollama_wire_with_its_values() -> None:
    schema = {
        "$defs": {"Level": {"enum": ["error", "warn"], "title": "Level", "type": "string"}},
        "type": "object",
        "properties": {
            "level": {
                "anyOf": [{"$ref": "#/$defs/Level"}, {"type": "null"}],
                "default": None,
                "description": "Which level to keep.",
            },
        },
    }
    tool = StructuredTool(name="t", description="T.", args_schema=parameters(schema), func=print)
    wire = ollama.Tool.model_validate(convert_to_openai_tool(tool)).model_dump(exclude_none=True)
    assert wire["function"]["parameters"]["properties"]["level"] == {
        "type": "string",
        "description": "Which level to keep.",
        "enum": ["error", "warn"],
    }
    untrimmed = StructuredTool(name="t", description="T.", args_schema=schema, func=print)
    before = ollama.Tool.model_validate(convert_to_openai_tool(untrimmed))
    assert before.model_dump(exclude_none=True)["function"]["parameters"]["properties"][
        "level"
    ] == {"description": "Which level to keep."}  # what the model got: no type, no values


def test_a_nullable_parameter_that_is_required_or_defaults_to_a_value_keeps_its_any_of() -> None:
    nullable = {"anyOf": [{"type": "string"}, {"type": "null"}]}
    schema = {
        "type": "object",
        "properties": {"must": dict(nullable), "some": {**nullable, "default": "1h"}},
        "required": ["must"],
    }
    assert parameters(schema) == schema


def test_nothing_the_model_calls_with_is_lost() -> None:
    """Names, types, required, enums (also behind a ``$ref``), defaults, bounds, nesting."""
    schema = {
        "$defs": {
            "Level": {"enum": ["error", "warn"], "title": "Level", "type": "string"},
        },
        "type": "object",
        "title": "searchArguments",
        "properties": {
            "level": {"$ref": "#/$defs/Level", "default": "error"},
            "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100},
            "hosts": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"name": {"type": "string", "description": "Name"}},
                    "required": ["name"],
                },
            },
        },
        "required": ["level"],
    }
    kept = parameters(schema)
    hosts = kept["properties"]["hosts"]
    assert hosts["items"]["properties"] == {"name": {"type": "string"}}  # "Name" repeated it
    hosts["items"]["properties"]["name"]["description"] = "Name"
    assert kept == schema  # and nothing else changed
    tool = StructuredTool(name="search", description="Search.", args_schema=kept, func=print)
    sent = convert_to_openai_tool(tool)["function"]["parameters"]  # as the app converts it
    assert sent["properties"]["level"]["enum"] == ["error", "warn"]


def test_a_trimmed_schema_is_trimmed_already() -> None:
    first = for_the_model(log_search.DESCRIPTION, {"type": "object", "properties": {}})
    assert for_the_model(*first) == first


# -- the example server, as the app binds it -----------------------------------------------


@pytest.fixture(scope="module")
def example_tools() -> Iterator[McpTools]:
    server = McpServer(
        name="logs",
        command=sys.executable,
        args=(str(EXAMPLE), "--root", str(SAMPLE_LOGS)),
        allow=("search_logs",),
    )
    runtime = McpTools([server], timeout=30.0, result_chars=20_000)
    runtime.start()
    yield runtime
    runtime.close()


def test_the_example_tool_is_sent_with_its_first_paragraph_and_every_parameter(
    example_tools: McpTools,
) -> None:
    (schema,) = example_tools.schemas()
    function = schema["function"]
    assert function["description"] == (
        "Search log files under the server's log directory, line by line, read-only."
    )
    sent = function["parameters"]
    assert list(sent["properties"]) == [
        "pattern",
        "since",
        "until",
        "limit",
        "path_glob",
        "ignore_case",
    ]
    assert sent["required"] == ["pattern"]
    types = {name: item.get("type") for name, item in sent["properties"].items()}
    assert types == {
        "pattern": "string",
        "since": "string",
        "until": "string",
        "limit": "integer",
        "path_glob": "string",
        "ignore_case": "boolean",
    }
    limit = sent["properties"]["limit"]
    assert (limit["minimum"], limit["maximum"], limit["default"]) == (1, 1000, 100)
    assert sent["properties"]["path_glob"]["default"] == "**/*.log"


def test_on_the_ollama_wire_every_parameter_of_the_example_keeps_its_type(
    example_tools: McpTools,
) -> None:
    """The ``ollama`` client keeps only type, items, description and enum of a parameter: a
    ``str | None`` parameter sent as ``anyOf`` would reach the model with no type."""
    (schema,) = example_tools.schemas()
    wire = ollama.Tool.model_validate(dict(schema)).model_dump(exclude_none=True)
    properties = wire["function"]["parameters"]["properties"]
    assert all("type" in item for item in properties.values()), properties


def test_the_example_tool_costs_less_than_the_servers_description_alone(
    example_tools: McpTools,
) -> None:
    (tool,) = example_tools.bound()
    (offered,) = example_tools.states()[0].offered
    assert offered.description == log_search.DESCRIPTION  # people still see all of it
    untrimmed = {
        "type": "function",
        "function": {"name": tool.model_name, "description": offered.description},
    }
    assert tool_schema_tokens(tool.schema) < tool_schema_tokens(untrimmed)
    assert tool_schema_tokens(tool.schema) < 300


def test_the_estimated_schema_is_the_one_the_model_is_sent(example_tools: McpTools) -> None:
    (bound,) = example_tools.tools(None)
    assert [json.dumps(convert_to_openai_tool(bound))] == [
        json.dumps(schema) for schema in example_tools.schemas()
    ]


async def test_the_trimmed_tool_still_runs(example_tools: McpTools) -> None:
    (bound,) = example_tools.tools(None)
    result = await bound.ainvoke({"pattern": "ERROR", "limit": 1})
    assert "[searched: pattern 'ERROR'" in str(result)


# -- the built-in tools --------------------------------------------------------------------


def test_the_built_in_descriptions_say_what_the_tool_does_and_no_more() -> None:
    """When to call them is the system prompt's to say; the schemas do not say it again."""
    for text in (GET_CURRENT_TIME_DESCRIPTION, LOAD_SKILL_DESCRIPTION, SKILL_NAME_DESCRIPTION):
        assert description(text) == text  # one short paragraph
        assert text.count(". ") == 0, text  # one sentence
        assert "before" not in text.lower(), text  # the prompt says when
    assert "get_current_time" in MANDATORY_INSTRUCTIONS
    assert "load_skill" in SKILLS_INSTRUCTION


def test_the_built_in_schemas_stay_small() -> None:
    clock, load_skill = tool_schemas(skills_selected=True)
    assert tool_schema_tokens(clock) <= 64
    assert tool_schema_tokens(load_skill) <= 80
