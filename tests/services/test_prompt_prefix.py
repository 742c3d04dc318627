"""The request prefix stays byte-identical from request to request, so a local server's prompt
cache (llama.cpp's, Ollama's) reuses it and a turn costs only its new text.

A conversation of several turns (the clock, a skill loaded, a tool server's tool, a plain
answer) runs through the real services, the real client of each provider and its loopback
server, which records every request body as the client sent it. Each request must start with
the bytes of the one before: everything before the history (model, options, the system
message) and the messages already sent, byte for byte, and carry the same ``tools`` array.
Within a turn, a request extends the previous one (the model's tool call and its result come
after it). The next turn extends the first request of the turn before: its tool exchange is
not part of the stored history, so the next turn carries that turn's user message and then its
answer.

Nothing in the system prompt or the tools varies with time (dates, clock times, ids), so a new
session, or the app started again, sends the same system message and tools; and the skill
catalog is in name order whatever the order the skills were selected in.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from oncall_tui.core.events import ReplyDone
from oncall_tui.core.prompts import SKILLS_HEADING
from oncall_tui.llm import mcp
from oncall_tui.services.container import Services
from oncall_tui.settings.mcp import McpServer
from tests.conftest import EXAMPLES, FakeServer, both_providers, collect
from tests.fakes.ollama_server import Reply

OnOllama = Callable[..., Services]
OPS = str(Path(__file__).resolve().parents[1] / "mcp_servers" / "ops.py")
SKILLS = ("log-analysis", "alert-triage")

TURNS: tuple[tuple[str, tuple[Reply | str, ...]], ...] = (
    ("what time is it?", (Reply.tool_call("get_current_time", {}), "It is 02:51 UTC.")),
    (
        "use skill log-analysis",
        (Reply.tool_call("load_skill", {"skill_name": "log-analysis"}), "Grep the 502s first."),
    ),
    (
        "any timeouts in the last hour?",
        (Reply.tool_call("ops__search_logs", {"pattern": "timeout"}), "Three lines match."),
    ),
    ("thanks", ("You are welcome.",)),
)

TIME_VARYING = {
    "a date": re.compile(r"\b\d{4}-\d{2}-\d{2}\b"),
    "a clock time": re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b"),
    "a UUID": re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b"),
    "a long hex id": re.compile(r"\b[0-9a-f]{16,}\b"),
    "an epoch timestamp": re.compile(r"\b1[6-9]\d{8}\b"),
}

_WHITESPACE = re.compile(r"[ \t\n\r]*")


@dataclass(frozen=True)
class Body:
    """A request body as the client sent it, with where each top-level field's value and each
    message lie in it (character offsets into the UTF-8 text: the same prefixes as bytes)."""

    text: str
    fields: dict[str, tuple[int, int]]
    messages: tuple[tuple[int, int], ...]

    @classmethod
    def parse(cls, raw: bytes) -> Body:
        text = raw.decode("utf-8")
        decoder = json.JSONDecoder()
        fields: dict[str, tuple[int, int]] = {}
        messages: list[tuple[int, int]] = []

        def skip(at: int) -> int:
            found = _WHITESPACE.match(text, at)
            assert found is not None
            return found.end()

        at = skip(0)
        assert text[at] == "{", text[:80]
        at = skip(at + 1)
        while text[at] != "}":
            key, at = decoder.raw_decode(text, at)
            at = skip(at)
            assert text[at] == ":"
            start = at = skip(at + 1)
            if key == "messages":
                assert text[at] == "["
                at = skip(at + 1)
                while text[at] != "]":
                    _, end = decoder.raw_decode(text, at)
                    messages.append((at, end))
                    at = skip(end)
                    if text[at] == ",":
                        at = skip(at + 1)
                at += 1
            else:
                _, at = decoder.raw_decode(text, at)
            fields[key] = (start, at)
            at = skip(at)
            if text[at] == ",":
                at = skip(at + 1)
        return cls(text, fields, tuple(messages))

    def field(self, key: str) -> str:
        start, end = self.fields[key]
        return self.text[start:end]

    def up_to_message(self, count: int) -> str:
        """The body's text from its first byte to the end of its ``count``-th message."""
        return self.text[: self.messages[count - 1][1]]

    def message(self, index: int) -> dict[str, object]:
        start, end = self.messages[index]
        value = json.loads(self.text[start:end])
        assert isinstance(value, dict)
        return value

    @property
    def system(self) -> str:
        first = self.message(0)
        assert first["role"] == "system", first
        return str(first["content"])

    def outside_messages(self) -> dict[str, str]:
        """Every top-level field but the messages, as sent (tools, model, options...)."""
        return {key: self.field(key) for key in self.fields if key != "messages"}


def ops() -> McpServer:
    return McpServer(
        name="ops", command=sys.executable, args=(OPS,), allow=("search_logs", "restart_service")
    )


def select(services: Services, names: Sequence[str]) -> None:
    """Upload the example skills ``names`` (once) and select them in that order."""
    known = {skill.name: skill.id for skill in services.configuration.list_skills("alice")}
    for name in names:
        if name not in known:
            data = (EXAMPLES / name / "SKILL.md").read_bytes()
            known[name] = services.configuration.add_skill("alice", "SKILL.md", data).id
    services.configuration.save_configuration("alice", skill_ids=[known[n] for n in names])


async def converse(
    services: Services, server: FakeServer, turns: Sequence[tuple[str, Sequence[Reply | str]]]
) -> list[list[Body]]:
    """Send each turn in one session; the requests each turn made, parsed."""
    session_id: int | None = None
    per_turn: list[list[Body]] = []
    for text, replies in turns:
        before = len(server.chat_raw_requests)
        server.script(*replies)
        events = await collect(services.chat.send("alice", session_id, text))
        done = events[-1]
        assert isinstance(done, ReplyDone), done
        session_id = done.session_id
        raws = server.chat_raw_requests[before:]
        assert len(raws) == len(replies)
        per_turn.append([Body.parse(raw) for raw in raws])
    return per_turn


def assert_extends(later: Body, earlier: Body) -> None:
    """``later`` starts with every byte of ``earlier`` up to the end of its last message."""
    prefix = earlier.up_to_message(len(earlier.messages))
    assert later.text.startswith(prefix), first_difference(later.text, prefix)


def first_difference(text: str, prefix: str) -> str:
    at = next((i for i, (a, b) in enumerate(zip(text, prefix, strict=False)) if a != b), None)
    if at is None:
        at = min(len(text), len(prefix))
    around = slice(max(0, at - 60), at + 60)
    return f"differs at {at}: sent {text[around]!r}, before {prefix[around]!r}"


@both_providers
async def test_every_request_starts_with_the_bytes_of_the_one_before(
    on_ollama: OnOllama, server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(mcp, "TOOL_TIMEOUT", 5.0)
    services = on_ollama(server, model="qwen3:8b", mcp_servers=(ops(),))
    select(services, SKILLS)
    per_turn = await converse(services, server, TURNS)
    requests = [body for turn in per_turn for body in turn]
    assert len(requests) == 7

    first = requests[0]
    names = [tool["function"]["name"] for tool in json.loads(first.field("tools"))]
    assert names == ["get_current_time", "load_skill", "ops__search_logs", "ops__restart_service"]
    for body in requests[1:]:  # the same tools, model and options, byte for byte
        assert body.outside_messages() == first.outside_messages()

    for turn in per_turn:  # a turn's tool exchange comes after the request it answers
        for earlier, later in itertools.pairwise(turn):
            assert_extends(later, earlier)
            assert len(later.messages) == len(earlier.messages) + 2  # the call, its result

    for (earlier, *_), (later, *_) in itertools.pairwise(per_turn):
        assert_extends(later, earlier)  # the history so far, then the answer and the question
        assert len(later.messages) == len(earlier.messages) + 2
        answer = later.message(len(earlier.messages))
        assert answer["role"] == "assistant"


@both_providers
async def test_the_system_message_and_tools_hold_nothing_that_varies_with_time(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    """And so a new session, or the app started again (new services, the tool server started
    again), sends the same system message and tools, byte for byte."""
    first = on_ollama(server, model="qwen3:8b", mcp_servers=(ops(),))
    select(first, SKILLS)
    (turn,) = await converse(first, server, TURNS[:1])
    again = on_ollama(server, model="qwen3:8b", mcp_servers=(ops(),))
    (later,) = await converse(again, server, TURNS[:1])
    opening, reopened = turn[0], later[0]
    assert reopened.up_to_message(1) == opening.up_to_message(1)
    assert reopened.outside_messages() == opening.outside_messages()
    for name, pattern in TIME_VARYING.items():
        for text in (opening.system, opening.field("tools")):
            assert pattern.search(text) is None, f"{name} in the prefix: {pattern.search(text)}"


@both_providers
async def test_the_skill_catalog_keeps_the_selection_order_and_the_same_selection_the_same_bytes(
    on_ollama: OnOllama, server: FakeServer
) -> None:
    """The catalog lists the skills as they were selected (the seed's rule): saving the same
    selection again changes nothing the server caches. Selecting them in another order is a
    new catalog, and the one request after it pays for the prompt from the catalog on."""
    services = on_ollama(server, model="qwen3:8b")
    select(services, SKILLS[::-1])
    (first,) = await converse(services, server, [("hello", ("Hi.",))])
    select(services, SKILLS[::-1])
    (again,) = await converse(services, server, [("hello", ("Hi.",))])
    catalog = first[0].system.split(SKILLS_HEADING, 1)[1]
    listed = re.findall(r"^- \*\*(.+?)\*\*:", catalog, re.MULTILINE)
    assert listed == list(SKILLS[::-1])
    assert again[0].system == first[0].system
    assert again[0].outside_messages() == first[0].outside_messages()
