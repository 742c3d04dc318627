"""Tool calls written as text: every form models write is read, and nothing else is.

Plain functions on plain strings (:mod:`oncall_tui.llm.text_calls`); how a turn uses them is
in tests/services/test_recovered_calls.py.
"""

from __future__ import annotations

import pytest

from oncall_tui.llm.call_arguments import conform
from oncall_tui.llm.text_calls import (
    BoundTool,
    Tools,
    find_calls,
    only_a_call,
    without_calls,
)

SEARCH = {
    "type": "object",
    "properties": {
        "pattern": {"type": "string"},
        "since": {"type": "string"},
        "limit": {"type": "integer"},
    },
    "required": ["pattern"],
}
SKILL = {
    "type": "object",
    "properties": {"skill_name": {"type": "string"}},
    "required": ["skill_name"],
}
CLOCK = {"type": "object", "properties": {}}
TOOLS = Tools(
    [
        BoundTool("logs__search_logs", SEARCH, "logs.search_logs"),
        BoundTool("load_skill", SKILL, "load_skill"),
        BoundTool("get_current_time", CLOCK, "get_current_time"),
    ]
)
STRIPE = {"pattern": "stripe", "since": "1h"}


def calls(reply: str, tools: Tools = TOOLS) -> list[tuple[str, dict[str, object]]]:
    return [(call.name, call.arguments) for call in find_calls(reply, tools)]


@pytest.mark.parametrize(
    "reply",
    [
        # a fenced JSON block, as Qwen2.5-Coder wrote it
        'I will search the logs.\n```json\n{"name": "logs__search_logs", '
        '"arguments": {"pattern": "stripe", "since": "1h"}}\n```',
        # bare JSON on its own line, "parameters" for "arguments" (Llama 3.x)
        '{"name": "logs__search_logs", "parameters": {"pattern": "stripe", "since": "1h"}}',
        # Hermes / Qwen tags
        '<tool_call>\n{"name": "logs.search_logs", "arguments": {"pattern": "stripe", '
        '"since": "1h"}}\n</tool_call>',
        # the OpenAI API's own shape, in a list
        '[{"type": "function", "function": {"name": "logs__search_logs", '
        '"arguments": "{\\"pattern\\": \\"stripe\\", \\"since\\": \\"1h\\"}"}}]',
        # Mistral, old and new
        '[TOOL_CALLS] [{"name": "search_logs", "arguments": {"pattern": "stripe", "since": "1h"}}]',
        '[TOOL_CALLS]search_logs[ARGS]{"pattern": "stripe", "since": "1h"}',
        # Llama 3.1's built-in form
        '<|python_tag|>{"name": "logs__search_logs", "parameters": '
        '{"pattern": "stripe", "since": "1h"}}<|eom_id|>',
        # a Python-style call, fenced or bare, keywords or positional
        'search_logs(pattern="stripe", since="1h")',
        '```python\nlogs.search_logs("stripe", since="1h")\n```',
        '`logs__search_logs(pattern="stripe", since="1h")`',
    ],
)
def test_each_form_models_write_is_read_as_the_bound_call(reply: str) -> None:
    assert calls(reply) == [("logs__search_logs", STRIPE)]


def test_names_match_exactly_by_model_name_shown_name_or_a_unique_bare_name() -> None:
    for name in ("logs__search_logs", "logs.search_logs", "search_logs", "`search_logs`"):
        assert calls(f'{{"name": "{name}", "arguments": {{"pattern": "x"}}}}') != []
    assert calls('{"name": "Search_Logs", "arguments": {"pattern": "x"}}') == []
    two = Tools(
        [
            BoundTool("logs__search_logs", SEARCH, "logs.search_logs"),
            BoundTool("audit__search_logs", SEARCH, "audit.search_logs"),
        ]
    )
    assert calls('search_logs(pattern="x")', two) == []  # which server's? not a guess
    assert calls('audit.search_logs(pattern="x")', two) == [
        ("audit__search_logs", {"pattern": "x"})
    ]


def test_values_written_into_a_copy_of_the_schema_are_read_as_the_arguments() -> None:
    """Seen from Qwen2.5-Coder-1.5B: the schema copied, its values where the specs stood."""
    copied = (
        '{"name": "load_skill", "arguments": {"properties": {"skill_name": "dns-triage"}, '
        '"required": ["skill_name"], "type": "object"}}'
    )
    assert calls(copied) == [("load_skill", {"skill_name": "dns-triage"})]
    spec_left = copied.replace('"dns-triage"', '{"type": "string"}')
    assert calls(spec_left) == []  # a spec is no value


def test_a_list_of_calls_is_read_in_order_and_all_or_nothing() -> None:
    both = (
        '[{"name": "get_current_time", "arguments": {}}, '
        '{"name": "load_skill", "arguments": {"skill_name": "dns-triage"}}]'
    )
    assert calls(both) == [("get_current_time", {}), ("load_skill", {"skill_name": "dns-triage"})]
    one_wrong = both.replace("load_skill", "drop_tables")
    assert calls(one_wrong) == []


def test_several_written_calls_are_each_read() -> None:
    reply = (
        "First the time:\n<tool_call>\n"
        '{"name": "get_current_time", "arguments": {}}\n</tool_call>\n'
        '<tool_call>\n{"name": "load_skill", "arguments": {"skill_name": "dns"}}\n</tool_call>'
    )
    assert calls(reply) == [("get_current_time", {}), ("load_skill", {"skill_name": "dns"})]
    texts = [call.text for call in find_calls(reply, TOOLS)]
    assert without_calls(reply, texts).strip() == "First the time:"


@pytest.mark.parametrize(
    "reply",
    [
        '```json\n{"name": "delete_all", "arguments": {}}\n```',  # not bound in this turn
        '{"name": "logs__search_logs", "arguments": {"pattern": "x", "rm": "-rf"}}',  # unknown key
        '{"name": "logs__search_logs", "arguments": {"since": "1h"}}',  # required missing
        '{"name": "logs__search_logs", "arguments": {"pattern": "x", "limit": "many"}}',
        '{"name": "logs__search_logs", "arguments": {"pattern": "x"}, "then": "delete_all"}',
        '{"name": "logs__search_logs", "arguments": ["x"]}',
        'Use the `logs__search_logs` function, e.g. search_logs(pattern="stripe").',  # prose
        "search_logs(pattern=open('/etc/passwd').read())",  # not a literal
        "search_logs(**options)",
        '{"name": "logs__search_logs", "arguments": {"pattern": "x"}',  # never closed
        '{"level": "error", "msg": "upstream timeout", "name": "api"}',  # a log line
        "load_skill dns-triage",  # a command line, not a call form
        'search_logs(pattern="stripe") found nothing earlier.',  # a sentence
        '{"name": "get_current_time", "arguments": {}} is what I would call.',
    ],
)
def test_what_is_not_a_well_formed_call_to_a_bound_tool_is_left_as_text(reply: str) -> None:
    assert calls(reply) == []


def test_a_tool_without_arguments_drops_those_written_for_it() -> None:
    """The clock with a made-up ``timezone`` (a native call so written runs, the argument
    ignored); a tool that has arguments still refuses an unknown one (above)."""
    reply = '```json\n{"name": "get_current_time", "arguments": {"timezone": "UTC"}}\n```'
    assert calls(reply) == [("get_current_time", {})]
    assert conform({"format": "iso", "tz": 8}, CLOCK) == {}
    assert conform(["UTC"], CLOCK) is None
    free_form = {"type": "object", "properties": {}, "additionalProperties": True}
    assert conform({"query": "up"}, free_form) is None  # its arguments matter: not dropped


def test_no_tools_bound_reads_nothing() -> None:
    assert calls('{"name": "get_current_time", "arguments": {}}', Tools([])) == []


def test_a_call_is_read_only_where_a_line_begins() -> None:
    assert calls('The call was {"name": "get_current_time", "arguments": {}} earlier.') == []
    assert calls('The call:\n  {"name": "get_current_time", "arguments": {}}') == [
        ("get_current_time", {})
    ]


def test_arguments_are_coerced_where_the_type_is_obvious_and_refused_where_not() -> None:
    assert conform({"pattern": 502, "limit": "40"}, SEARCH) == {"pattern": "502", "limit": 40}
    assert conform({"pattern": "x", "limit": 40.0}, SEARCH) == {"pattern": "x", "limit": 40}
    assert conform({"pattern": "x", "limit": 40.5}, SEARCH) is None
    assert conform({"pattern": "x", "limit": True}, SEARCH) is None
    assert conform('{"pattern": "x"}', SEARCH) == {"pattern": "x"}  # arguments as a JSON string
    assert conform("not json", SEARCH) is None
    flags = {
        "type": "object",
        "properties": {
            "follow": {"type": "boolean"},
            "levels": {"type": "array"},
            "level": {"enum": ["error", "warn"]},
            "window": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
            "ratio": {"type": "number"},
        },
    }
    assert conform(
        {"follow": "true", "levels": '["error"]', "level": "warn", "window": None, "ratio": "0.5"},
        flags,
    ) == {"follow": True, "levels": ["error"], "level": "warn", "window": None, "ratio": 0.5}
    assert conform({"level": "debug"}, flags) is None
    assert conform({"follow": "maybe"}, flags) is None
    assert conform({"window": "soon"}, flags) is None


def test_the_text_of_a_call_is_exactly_what_the_reply_wrote() -> None:
    fenced = '```json\n{"name": "get_current_time", "arguments": {}}\n```'
    reply = f"Checking the clock.\n{fenced}\nThe time will tell."
    (call,) = find_calls(reply, TOOLS)
    assert call.text == fenced
    assert without_calls(reply, [call.text]) == "Checking the clock.\n"  # not the guess after it


@pytest.mark.parametrize(
    "reply",
    [
        '{"name": "logs__search_logs", "arguments": {"pattern": "502"}}',
        '  ```json\n{"name": "search_logs", "parameters": {}}\n```\n',
        '[{"name": "a", "arguments": {}}, {"type": "function", "function": {"name": "b"}}]',
        '<tool_call>\n{"name": "anything", "arguments": {}}\n</tool_call>',
        '[TOOL_CALLS] [{"name": "x", "arguments": {}}]',
    ],
)
def test_a_reply_that_is_only_a_call_to_any_tool_is_one(reply: str) -> None:
    assert only_a_call(reply)


@pytest.mark.parametrize(
    "reply",
    [
        "- 02:51 checkout 502s; the pool on db-2 ran out.",
        'Ran search_logs:\n{"name": "search_logs", "arguments": {}}',
        '{"name": "x", "arguments": {}, "result": "502 found"}',  # a key no call has
        '{"incident": "502s", "owner": "alice"}',
        "[]",
        "",
    ],
)
def test_prose_and_other_data_are_not_only_a_call(reply: str) -> None:
    assert not only_a_call(reply)
