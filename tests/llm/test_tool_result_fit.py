"""A tool result that would not fit under the 95% limit is cut to what fits, with a note.

The guard on hand-made requests at the bound (the whole result passes at the limit, one token
past it is cut), the cut measured by the same estimate as every request, the note's figures,
and a turn on the scripted model whose next request carries the cut.
"""

from __future__ import annotations

import re

import pytest
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolCall, ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from langgraph.prebuilt.tool_node import ToolCallRequest

from oncall_tui.core.events import ToolFinished, ToolStatus
from oncall_tui.core.memory import ContextBudget
from oncall_tui.core.tokens import estimate_text_tokens
from oncall_tui.llm.agent import run_turn
from oncall_tui.llm.guard import (
    MIN_KEPT_TOKENS,
    ContextGuard,
    as_pairs,
    is_cut,
    is_withheld,
    reply_room,
)
from oncall_tui.llm.mcp_calls import truncate
from oncall_tui.llm.tokens import estimate_tokens, message_tokens
from oncall_tui.llm.tools import build_tools
from oncall_tui.llm.turn import Turn as AgentTurn
from oncall_tui.texts import text
from oncall_tui.tui.chat_log.tool_calls import tool_title
from tests.fakes import ScriptedChatModel, Turn
from tests.llm.helpers import SYSTEM, collect, request_tokens, window_with_limit

HEADER = "1,500 lines match 'timeout' since 1h:"
LINES = [
    f"2024-05-01T10:{i // 60:02d}:{i % 60:02d}Z api-7 ERROR upstream timeout after 30s "
    f"(request {i:05d}, pod api-7-{i % 7})"
    for i in range(1_500)
]
LOG = "\n".join([HEADER, *LINES])
SEARCH = "ops__search_logs"
CALL: ToolCall = {
    "name": SEARCH,
    "args": {"pattern": "timeout", "since": "1h"},
    "id": "c1",
    "type": "tool_call",
}
MESSAGES: list[AnyMessage] = [
    HumanMessage("api-7 returns 502s: any timeouts in the last hour?"),
    AIMessage("", tool_calls=[CALL]),
]
NOTE = re.compile(
    r"\n\[… (?P<left>[\d,]+) of (?P<total>[\d,]+) (?P<unit>lines|characters) "
    r"\(about (?P<left_tokens>[\d,]+) of (?P<total_tokens>[\d,]+) tokens\) left out to fit "
    r"the 95% limit of the (?P<window>[\d,]+)-token context window\."
)


async def run_tool(
    guard: ContextGuard,
    output: str = LOG,
    call: ToolCall = CALL,
    messages: list[AnyMessage] = MESSAGES,
) -> tuple[ToolMessage, ToolMessage]:
    """What the tool returned, and what the guard passed on."""
    returned = ToolMessage(output, tool_call_id=call["id"], name=call["name"])

    async def handler(_: ToolCallRequest) -> ToolMessage:
        return returned

    request = ToolCallRequest(
        tool_call=call,
        tool=None,
        state={"messages": messages},
        runtime=None,  # type: ignore[arg-type]  # outside a graph: the guard never reads it
    )
    result = await guard.awrap_tool_call(request, handler)
    assert isinstance(result, ToolMessage)
    return returned, result


def kept_and_note(text: str) -> tuple[str, re.Match[str]]:
    note = NOTE.search(text)
    assert note is not None, text[-600:]
    return text[: note.start()], note


def number(match: re.Match[str], name: str) -> int:
    return int(match[name].replace(",", ""))


def ceiling(budget: ContextBudget) -> int:
    """The most a request may hold once a result was cut: reply room under the limit."""
    return budget.limit_tokens - reply_room(budget.window)


# -- at the bound -----------------------------------------------------------------------------


async def test_a_result_that_exactly_fits_passes_whole_and_untouched() -> None:
    total = request_tokens(MESSAGES) + message_tokens(LOG)
    returned, result = await run_tool(
        ContextGuard(ContextBudget(window_with_limit(total)), SYSTEM, [])
    )
    assert result is returned
    assert not is_cut(result)
    assert not is_withheld(result)


async def test_odd_whitespace_in_a_result_that_fits_is_kept_byte_for_byte() -> None:
    output = "a\r\nb  \n\n\tc\x0bd\u2028e\n"
    total = request_tokens(MESSAGES) + message_tokens(output)
    guard = ContextGuard(ContextBudget(window_with_limit(total)), SYSTEM, [])
    returned, result = await run_tool(guard, output)
    assert result is returned
    assert result.text == output


async def test_one_token_past_the_limit_the_result_is_cut_at_a_line_with_a_note() -> None:
    total = request_tokens(MESSAGES) + message_tokens(LOG)
    budget = ContextBudget(window_with_limit(total - 1))
    returned, result = await run_tool(ContextGuard(budget, SYSTEM, []))
    assert is_cut(result)
    assert not is_withheld(result)
    assert (result.tool_call_id, result.name, result.status) == ("c1", SEARCH, "success")
    assert returned.text == LOG  # what the tool returned is not changed in place
    kept, note = kept_and_note(result.text)
    assert LOG.startswith(kept + "\n")  # the beginning, ending at a line
    assert kept.startswith(HEADER)
    assert note["unit"] == "lines"
    assert number(note, "left") >= 1
    assert result.text.endswith(
        "Above is only the beginning of the result, not all of it. To see the rest, search "
        f"again with a narrower pattern or a shorter time range (call {SEARCH} again asking "
        "for less).]"
    )


async def test_the_cut_request_fits_under_95_percent_with_room_for_the_reply() -> None:
    """By the estimate every request is measured with, and as close to it as a line allows."""
    budget = ContextBudget(8_192)
    _, result = await run_tool(ContextGuard(budget, SYSTEM, []))
    assert is_cut(result)
    reading = budget.reading(request_tokens([*MESSAGES, result]))
    assert not reading.at_limit
    assert reading.context_tokens <= ceiling(budget)
    kept, _ = kept_and_note(result.text)
    next_line = LOG[len(kept) + 1 :].split("\n", 1)[0]
    assert ceiling(budget) - reading.context_tokens < message_tokens(next_line)


@pytest.mark.parametrize("calibration", [1.0, 1.3])
async def test_the_notes_figures_are_those_of_the_result_and_the_window(
    calibration: float,
) -> None:
    budget = ContextBudget(8_192, calibration=calibration)
    _, result = await run_tool(ContextGuard(budget, SYSTEM, []))
    kept, note = kept_and_note(result.text)
    lines = len(LINES) + 1
    assert number(note, "total") == lines
    assert number(note, "left") == lines - len(kept.split("\n"))
    whole = budget.tokens(estimate_text_tokens(LOG))
    assert number(note, "total_tokens") == whole
    assert number(note, "left_tokens") == whole - budget.tokens(estimate_text_tokens(kept))
    assert number(note, "window") == 8_192
    reading = budget.reading(request_tokens([*MESSAGES, result]))
    assert reading.context_tokens <= ceiling(budget)


async def test_one_long_line_is_cut_inside_and_the_note_counts_characters() -> None:
    output = "{" + ", ".join(f'"pod-{i}": "CrashLoopBackOff"' for i in range(3_000)) + "}"
    budget = ContextBudget(4_096)
    _, result = await run_tool(ContextGuard(budget, SYSTEM, []), output)
    assert is_cut(result)
    kept, note = kept_and_note(result.text)
    assert output.startswith(kept)
    assert note["unit"] == "characters"
    assert (number(note, "left"), number(note, "total")) == (len(output) - len(kept), len(output))
    assert budget.reading(request_tokens([*MESSAGES, result])).context_tokens <= ceiling(budget)


async def test_a_result_the_size_limit_cut_already_says_how_large_the_servers_was() -> None:
    output = truncate("\n".join(LINES * 10), 20_000)
    budget = ContextBudget(4_096)
    _, result = await run_tool(ContextGuard(budget, SYSTEM, []), output)
    kept, note = kept_and_note(result.text)
    body = output[: output.rindex("\n[truncated: ")]
    assert body.startswith(kept + "\n")
    assert "[truncated:" not in result.text
    assert number(note, "total") == body.count("\n") + 1
    total = len("\n".join(LINES * 10))
    assert (
        f"The tool server's result was {total:,} characters; the size limit had kept its first "
        "20,000." in result.text
    )


# -- what is still withheld --------------------------------------------------------------------


async def test_a_skill_that_does_not_fit_whole_is_still_withheld() -> None:
    """A cut runbook would be followed as if whole: a skill loads whole or not at all."""
    call: ToolCall = {**CALL, "name": "load_skill", "args": {"skill_name": "log-analysis"}}
    messages: list[AnyMessage] = [MESSAGES[0], AIMessage("", tool_calls=[call])]
    body = "Loaded skill: log-analysis\n\n" + "\n".join(LINES)
    budget = ContextBudget(8_192)  # room for a good part of it
    _, result = await run_tool(ContextGuard(budget, SYSTEM, []), body, call, messages)
    assert is_withheld(result)
    assert not is_cut(result)
    assert result.status == "error"
    assert result.text.startswith("Skill 'log-analysis' not loaded: it needs about ")
    assert "api-7" not in result.text


async def test_a_cut_keeps_a_useful_part_or_the_result_is_withheld() -> None:
    """Request by request, a word more each time: while the room under the ceiling holds the
    note and the minimum, the result is cut; below that, withheld with today's note."""
    budget = ContextBudget(2_048)
    outcomes: list[tuple[int, str]] = []
    words = ""
    while (room := ceiling(budget) - request_tokens(filled := filled_with(words))) > 0:
        _, result = await run_tool(ContextGuard(budget, SYSTEM, []), LOG, CALL, filled)
        if is_cut(result):
            kept, _ = kept_and_note(result.text)
            assert estimate_text_tokens(kept) >= MIN_KEPT_TOKENS
            assert budget.reading(request_tokens([*filled, result])).context_tokens <= (
                ceiling(budget)
            )
            outcomes.append((room, "cut"))
        else:
            assert is_withheld(result)
            assert result.text.startswith(f"Result of {SEARCH} withheld: it needs about ")
            outcomes.append((room, "withheld"))
        words += " word"
    kinds = [kind for _, kind in outcomes]
    first_withheld = kinds.index("withheld")
    assert set(kinds[:first_withheld]) == {"cut"}  # the room only shrinks
    assert set(kinds[first_withheld:]) == {"withheld"}
    smallest_cut = outcomes[first_withheld - 1][0]
    assert MIN_KEPT_TOKENS < smallest_cut < MIN_KEPT_TOKENS + 150  # the note is under 150


def filled_with(words: str) -> list[AnyMessage]:
    return [MESSAGES[0], HumanMessage(f"context:{words}"), MESSAGES[1]]


# -- calls of one step ---------------------------------------------------------------------------


async def test_two_calls_of_one_step_fit_together() -> None:
    """Each would fit alone; the second sees the first passed on, and is cut to the rest."""
    second_call: ToolCall = {**CALL, "id": "c2", "args": {"pattern": "502"}}
    step: list[AnyMessage] = [MESSAGES[0], AIMessage("", tool_calls=[CALL, second_call])]
    part = "\n".join([HEADER, *LINES[:150]])
    alone = request_tokens(step) + message_tokens(part)
    budget = ContextBudget(window_with_limit(alone + 1_500))
    guard = ContextGuard(budget, SYSTEM, [])
    first_returned, first = await run_tool(guard, part, CALL, step)
    _, second = await run_tool(guard, part, second_call, step)
    assert first is first_returned  # the first fits whole
    assert is_cut(second)
    assert budget.reading(request_tokens([*step, first, second])).context_tokens <= ceiling(budget)


async def test_when_the_first_call_of_a_step_is_cut_the_second_is_withheld() -> None:
    second_call: ToolCall = {**CALL, "id": "c2"}
    step: list[AnyMessage] = [MESSAGES[0], AIMessage("", tool_calls=[CALL, second_call])]
    budget = ContextBudget(8_192)
    guard = ContextGuard(budget, SYSTEM, [])
    _, first = await run_tool(guard, LOG, CALL, step)
    _, second = await run_tool(guard, LOG, second_call, step)
    assert is_cut(first)
    assert is_withheld(second)
    reading = budget.reading(request_tokens([*step, first, second]))
    assert not reading.at_limit


# -- a turn ----------------------------------------------------------------------------------------


def search_tool() -> BaseTool:
    """``search_logs``: 40 lines for ``timeout``, all 1,500 for anything else."""

    def search_logs(pattern: str, since: str = "1h") -> str:
        return "\n".join([HEADER, *LINES[:40]]) if pattern == "timeout" else LOG

    return StructuredTool.from_function(
        search_logs, name=SEARCH, description="Search the service's logs for a pattern."
    )


async def test_the_models_next_request_carries_the_cut_result() -> None:
    tool = search_tool()
    budget = ContextBudget(8_192)
    model = ScriptedChatModel([Turn.call(SEARCH, {"pattern": "502"}), "502s since 10:00."])
    turn = AgentTurn(
        system_prompt=SYSTEM,
        history=(("user", "any timeouts?"),),
        budget=budget,
        server_tools=(tool,),
        tool_names={SEARCH: "ops.search_logs"},
    )
    items = await collect(run_turn(model, turn))
    _, second = model.calls
    sent = second[-1]
    assert isinstance(sent, ToolMessage)
    assert is_cut(sent)
    kept, note = kept_and_note(str(sent.text))
    assert LOG.startswith(kept + "\n")
    assert number(note, "window") == 8_192
    schemas = [convert_to_openai_tool(t) for t in build_tools_for(tool)]
    raw = estimate_tokens(SYSTEM, as_pairs(second[1:]), schemas)
    assert budget.reading(raw).context_tokens <= ceiling(budget)
    (finished,) = [item for item in items if isinstance(item, ToolFinished)]
    assert finished.name == "ops.search_logs"
    assert finished.summary == HEADER  # the one line the user sees is the result's first
    assert finished.status == "cut"
    assert finished.to_json()["status"] == "cut"


def build_tools_for(tool: BaseTool) -> list[BaseTool]:
    """The tools a turn without skills binds: the clock, then the server's."""
    return [*build_tools({}), tool]


async def test_two_parallel_calls_in_a_turn_fit_together() -> None:
    """The two run side by side and either may end first: whichever does is measured first,
    the other against what is left, and the next request holds both under the limit."""
    tool = search_tool()
    budget = ContextBudget(8_192)
    calls = ((SEARCH, {"pattern": "timeout"}), (SEARCH, {"pattern": "502"}))
    model = ScriptedChatModel([Turn(tool_calls=calls), "Both searched."])
    turn = AgentTurn(
        system_prompt=SYSTEM,
        history=(("user", "timeouts and 502s?"),),
        budget=budget,
        server_tools=(tool,),
    )
    await collect(run_turn(model, turn))
    _, second = model.calls
    few, many = [m for m in second if isinstance(m, ToolMessage)]
    assert is_cut(many)  # 1,500 lines never fit an 8,192-token window
    assert few.text == "\n".join([HEADER, *LINES[:40]]) or is_withheld(few)
    schemas = [convert_to_openai_tool(t) for t in build_tools_for(tool)]
    raw = estimate_tokens(SYSTEM, as_pairs(second[1:]), schemas)
    assert not budget.reading(raw).at_limit
    if not is_withheld(few):  # passed whole, then the other cut to the rest
        assert budget.reading(raw).context_tokens <= ceiling(budget)


# -- how clients show it -----------------------------------------------------------------------


def test_a_cut_call_is_marked_in_the_chat_log_and_named_in_exports() -> None:
    assert ToolStatus.CUT == "cut"
    assert tool_title("ops.search_logs", HEADER, "cut") == f"⚙ ops.search_logs ✂ {HEADER}"
    assert text("export.tool_status.cut", "en").startswith("cut (the result did not fit whole")
