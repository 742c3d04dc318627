"""The engine with a real tool-calling model: Qwen2.5-Coder-1.5B-Instruct behind llama.cpp's
server (``--jinja``), the example log-search tool server, and three small incidents
(:mod:`tests.real_model.triage`), driven through the CLI with ``--provider openai``.

Each test selects the incident's runbook skill, registers the log-search server over the
incident's logs in the settings file, asks the question and checks the app's side of the turn,
not the model's wisdom:

- at least one tool call was made and ran (``tool_start``, then a ``tool_end`` that is ``ok``),
  whether the model made it natively or wrote it as text and the app recovered it;
- every recovered call is well formed: its tool was offered in the request (read from the
  request bodies, through :class:`~tests.real_model.recorder.Recorder`) and its arguments fit
  that tool's JSON schema;
- the gauge's figure for every request of the turn (the 95% guard's own reading, taken as it
  measures each request) lies within −15%..+25% of the server's count of that request;
- no tool result was cut, withheld or declined: the window (8,192) holds every incident's
  logs and runbook whole, several times over.

What the final answers name is the bench's to report (``bench/real_triage.py``), not a test's:
a 1.5B model's judgement varies with the build and the machine.

Run with ``python -m pytest -m real_model -n 0 -s tests/real_model/test_real_triage.py``
(CONTRIBUTING.md, "A real model").
"""

from __future__ import annotations

import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain.agents.middleware import ModelRequest, ModelResponse

from oncall_tui.llm.guard import ContextGuard
from oncall_tui.llm.mcp_calls import model_name
from tests.conftest import CliResult, RunCli
from tests.real_model.llama_server import LlamaServer
from tests.real_model.recorder import Recorder
from tests.real_model.test_real_model import GAUGE_HIGH, GAUGE_LOW
from tests.real_model.triage import (
    ASK_FOR_TOOLS,
    QWEN_NAME,
    Incident,
    events,
    final_answer,
    incidents,
    offered_tools,
    schema_problems,
    settings_file,
    tool_calls,
)

pytestmark = pytest.mark.real_model

TIMEOUT = "600"
"""The read timeout for these turns: a 1,000-token prompt on two busy cores may take more than
the default 120 s before its first token."""
FITTING = frozenset({"ok", "error"})
"""The ``tool_end`` statuses of a result that reached the model whole: ``cut`` and ``withheld``
(too big for the 95% rule) and ``declined`` (a tool that asks first) did not."""


@pytest.fixture
def recorder(qwen_server: LlamaServer) -> Iterator[Recorder]:
    """A loopback proxy before the server that keeps every request body."""
    with Recorder(qwen_server.base_url) as proxy:
        yield proxy


@pytest.fixture
def gauges(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The gauge's figure for each model request, in order: what the turn's 95% guard reads
    for the request just before it is sent (the same estimate and budget the app acts on)."""
    readings: list[int] = []
    measure = ContextGuard.awrap_model_call

    async def spy(
        guard: ContextGuard,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        raw = guard._raw(request.messages)  # the guard's own measure of this request
        readings.append(guard._budget.reading(raw).context_tokens)
        return await measure(guard, request, handler)

    monkeypatch.setattr(ContextGuard, "awrap_model_call", spy)
    return readings


def bound_name(shown: str) -> str:
    """The name the request gives a tool shown as ``server.tool`` (built-ins keep theirs)."""
    server, dot, tool = shown.partition(".")
    return model_name(server, tool) if dot else shown


@pytest.mark.parametrize("incident", incidents(), ids=lambda incident: incident.name)
def test_a_triage_turn_runs_a_tool_and_the_gauge_follows_every_request(
    incident: Incident,
    cli: RunCli,
    qwen_server: LlamaServer,
    recorder: Recorder,
    gauges: list[int],
    private_config: Path,
) -> None:
    private_config.parent.mkdir(parents=True, exist_ok=True)
    private_config.write_text(settings_file(sys.executable, incident.logs), "utf-8")

    def run(*args: str) -> CliResult:
        server = ("--provider", "openai", "--base-url", recorder.base_url, "--model", QWEN_NAME)
        return cli(*server, "--timeout", TIMEOUT, *args)

    assert run("skills", "add", str(incident.skill_file)).code == 0
    assert run("skills", "select", incident.skill).code == 0
    sent_before = len(qwen_server.requests())
    started = time.monotonic()

    result = run("chat", "--json", incident.question + ASK_FOR_TOOLS)

    seconds = time.monotonic() - started
    assert result.code == 0, result.err
    stream = events(result.out)
    assert stream[-1]["type"] == "done", stream[-1]
    requests = qwen_server.requests()[sent_before:]
    calls = tool_calls(stream)
    ends = {e["call_id"]: e for e in stream if e["type"] == "tool_end"}
    recovered = [c for c in calls if c.get("recovered")]
    named = incident.named(final_answer(stream))
    print(  # shown with -s
        f"\n{incident.name}: {seconds:.0f} s, {len(requests)} requests; tool calls "
        f"{len(calls) - len(recovered)} native, {len(recovered)} recovered: "
        + ", ".join(f"{c['name']}({ends.get(c['call_id'], {}).get('status')})" for c in calls)
        + f"; gauge/server {list(zip(gauges, (r.n_tokens for r in requests), strict=False))}"
        f"; facts named {len(named)}/{len(incident.facts)}"
    )

    # at least one call ran
    assert calls, f"no tool call, natively or as text; the model wrote {final_answer(stream)!r}"
    assert any(ends.get(c["call_id"], {}).get("status") == "ok" for c in calls), ends
    # every recovered call names an offered tool and fits its schema
    offered = offered_tools(recorder.chat_bodies())
    for call in recovered:
        name = bound_name(str(call["name"]))
        assert name in offered, f"{call['name']} was not offered: {sorted(offered)}"
        assert schema_problems(call["arguments"], offered[name]) == [], call
    # the gauge followed every request, each within its tolerance of the server's count
    assert len(gauges) == len(requests), (gauges, requests)
    for gauge, request in zip(gauges, requests, strict=True):
        error = (gauge - request.n_tokens) / request.n_tokens
        assert GAUGE_LOW <= error <= GAUGE_HIGH, (
            f"gauge {gauge}, server {request.n_tokens}: {error:+.1%}"
        )
    # nothing that fitted was refused
    assert all(end["status"] in FITTING for end in ends.values()), ends
