"""What the user sees while a reply that may write a tool call streams in.

:class:`CallHold` holds text from where a call may begin; these feed it a reply in pieces of
every size and check what is let through, and when.
"""

from __future__ import annotations

import pytest

from oncall_tui.llm.call_hold import CallHold
from oncall_tui.llm.text_calls import find_calls
from tests.llm.test_text_calls import TOOLS


def stream(reply: str, size: int) -> tuple[list[str], str]:
    """What the hold lets through for each piece of ``reply`` (``size`` characters each), and
    what it lets through at the end, given the calls recovery finds in the whole reply."""
    hold = CallHold(TOOLS)
    shown = [hold.feed(reply[i : i + size]) for i in range(0, len(reply), size)]
    recovered = [call.text for call in find_calls(reply, TOOLS)]
    return shown, hold.finish(recovered)


SIZES = [1, 2, 3, 5, 8, 13, 1000]

CALL = '```json\n{"name": "logs__search_logs", "arguments": {"pattern": "stripe"}}\n```'


@pytest.mark.parametrize("size", SIZES)
def test_a_written_call_is_never_shown_nor_what_the_model_guessed_after_it(size: int) -> None:
    reply = f"Let me search the logs.\n{CALL}\nThe logs show stripe timing out."
    shown, rest = stream(reply, size)
    assert "".join(shown) + rest == "Let me search the logs.\n"
    assert "search_logs" not in "".join(shown) + rest


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(
    "reply",
    [
        "Restart the resolver:\n```bash\nkubectl -n dns rollout restart deploy/coredns\n```\nDone.",
        '```json\n{"name": "delete_all", "arguments": {}}\n```\nThat tool is not available.',
        '{"level": "error", "msg": "upstream timeout"}\nThis line shows the timeout.',
        "[2026-12-04 01:02:03] ERROR upstream timeout\n- [ ] check the pool",
        'Use the `logs__search_logs` tool: search_logs(pattern="stripe")',
        "get the logs first, then load_skill for dns.",
        '{"name": "logs__search_logs", "arguments": {"pattern": "x"',  # never closed
    ],
)
def test_a_reply_that_writes_no_call_is_shown_whole(reply: str, size: int) -> None:
    shown, rest = stream(reply, size)
    assert "".join(shown) + rest == reply


def test_prose_and_a_shell_block_stream_as_they_arrive() -> None:
    hold = CallHold(TOOLS)
    assert hold.feed("The pods restart ") == "The pods restart "
    assert hold.feed("every minute.\n") == "every minute.\n"
    assert hold.feed("```bash\n") == ""  # whether it is a call shows on the next line
    assert hold.feed("kubectl get pods") == "```bash\nkubectl get pods"
    assert hold.feed(" -n api\n```\n") == " -n api\n"  # a fence: which one shows next
    assert hold.feed("Then") == "```\nThen"
    assert hold.finish([]) == ""


def test_a_candidate_is_let_through_as_soon_as_it_closes_without_being_a_call() -> None:
    hold = CallHold(TOOLS)
    assert hold.feed('{"level": "error",') == ""
    assert hold.feed(' "msg": "timeout"}') == '{"level": "error", "msg": "timeout"}'
    assert hold.feed(" and more") == " and more"


def test_after_a_call_everything_waits_for_the_end_of_the_model_call() -> None:
    hold = CallHold(TOOLS)
    assert hold.feed("Checking.\n<tool_call>") == "Checking.\n"
    assert hold.feed('{"name": "get_current_time", "arguments": {}}</tool_call>') == ""
    assert hold.feed("\nIt is noon.") == ""
    text = '<tool_call>{"name": "get_current_time", "arguments": {}}</tool_call>'
    assert hold.finish([text]) == ""


def test_each_model_call_starts_afresh() -> None:
    hold = CallHold(TOOLS)
    hold.feed("<tool_call>")
    assert hold.finish([]) == "<tool_call>"  # nothing recovered: all of it is shown
    assert hold.feed("Next answer.") == "Next answer."
