"""The engine with a real model: SmolLM2-135M-Instruct behind llama.cpp's server, driven
through the CLI with ``--provider openai --base-url URL``.

The only tests that show the whole engine working with a real model and a real server: a
streamed turn, a compaction, the 95% refusal, and the gauge's figure for a pasted log against
the server's own count of the same request. A model this small rarely answers well and
rarely calls tools correctly, so nothing here depends on what its answers say: only on what
the engine does with them (events, what is stored, what is counted).

Run with ``python -m pytest -m real_model -n 0`` (CONTRIBUTING.md, "A real model").
"""

from __future__ import annotations

import io
import json
import urllib.request

import pytest

from tests.conftest import REPO, CliResult, RunCli
from tests.real_model.llama_server import MODEL_NAME, WINDOW, LlamaServer

pytestmark = pytest.mark.real_model

LOG_SAMPLE = REPO / "bench" / "tokens" / "corpus" / "logs" / "kubectl-logs-logfmt.txt"
LOG_LINES = 30

GAUGE_LOW, GAUGE_HIGH = -0.15, 0.25
"""How far the gauge's figure for a request may lie from the server's count of it: the
token estimate's own target (tests/core/test_token_accuracy.py): an overcount of up to a quarter
only compacts early, an undercount of more than 15% would let a request overflow unseen."""


@pytest.fixture
def on_server(cli: RunCli, llama_server: LlamaServer) -> RunCli:
    """The CLI on the real server: ``on_server("chat", "--json", "hello")``."""

    def run(*args: str, user: str = "alice") -> CliResult:
        server = ("--provider", "openai", "--base-url", llama_server.base_url)
        return cli(*server, "--model", MODEL_NAME, *args, user=user)

    return run


def events(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def pasted_log() -> str:
    """30 lines of a kubectl log, as an engineer pastes them (the token corpus's sample)."""
    lines = LOG_SAMPLE.read_text("utf-8").splitlines()[:LOG_LINES]
    assert len(lines) == LOG_LINES
    return "\n".join(lines) + "\n"


def test_the_server_listens_on_loopback_and_reports_its_window(llama_server: LlamaServer) -> None:
    assert llama_server.url.startswith("http://127.0.0.1:")
    with urllib.request.urlopen(f"{llama_server.url}/props", timeout=10) as response:
        props = json.load(response)
    assert props["default_generation_settings"]["n_ctx"] == WINDOW


def test_a_streamed_turn_stores_the_exchange_and_the_servers_count_of_it(
    on_server: RunCli, llama_server: LlamaServer
) -> None:
    sent_before = len(llama_server.prompt_counts())
    result = on_server("chat", "--json", "A pod restarts every few minutes. What do I check?")
    assert result.code == 0, result.err
    stream = events(result.out)
    kinds = [e["type"] for e in stream]
    assert kinds[0] == "user_message"
    assert kinds[-2:] == ["usage", "done"]
    assert "token" in kinds  # streamed, piece by piece
    usage, done = stream[-2], stream[-1]
    assert done["status"] in ("complete", "truncated")
    # the window is the server's own (its /props), no --num-ctx given
    assert usage["context_window_tokens"] == WINDOW
    # usage from the stream's final chunk: the server's count of the turn's last request
    counts = llama_server.prompt_counts()[sent_before:]
    assert counts, "no request reached the server"
    assert usage["input_tokens"] == counts[-1]
    assert int(str(usage["output_tokens"])) > 0
    shown = on_server("sessions", "show", str(done["session_id"]), "--json").json_object()
    assert [m["role"] for m in shown["messages"]] == ["user", "assistant"]
    assert [m["status"] for m in shown["messages"]] == ["complete", done["status"]]
    assert shown["memory"]["context_tokens"] >= counts[0]  # never below the model's count


def test_compacting_a_session_summarises_it_with_the_model(
    on_server: RunCli, llama_server: LlamaServer
) -> None:
    first = on_server("chat", "--json", "The checkout-api pods are OOMKilled since 03:00 UTC.")
    assert first.code == 0, first.err
    session_id = str(events(first.out)[-1]["session_id"])
    sent_before = len(llama_server.prompt_counts())

    result = on_server("memory", "compact", session_id, "--json")

    assert result.code == 0, result.err
    state = result.json_object()
    assert state["compacted_message_count"] == 2
    assert state["memory_summary"]  # written by the model; what it says is not checked
    assert state["last_compacted_at"] is not None
    assert len(llama_server.prompt_counts()) == sent_before + 1  # one call, the summary's
    after = on_server("chat", "--json", "And now?", "--session", session_id)
    assert after.code == 0, after.err
    assert events(after.out)[-1]["type"] == "done"


def test_a_message_past_95_percent_is_refused_before_anything_is_sent(
    on_server: RunCli, llama_server: LlamaServer
) -> None:
    sent_before = len(llama_server.prompt_counts())
    result = on_server("--num-ctx", "1024", "chat", "--json", "word " * 2000)
    assert result.code == 3
    stream = events(result.out)
    assert [e["type"] for e in stream] == ["context_limit_reached"]
    assert stream[0]["code"] == "CHAT_CONTEXT_LIMIT_REACHED"
    assert float(str(stream[0]["context_usage_percent"])) >= 95.0
    assert len(llama_server.prompt_counts()) == sent_before  # the server saw nothing
    assert on_server("sessions", "list", "--json").json() == []


def test_the_gauge_of_a_pasted_log_is_within_its_tolerance_of_the_servers_count(
    on_server: RunCli, llama_server: LlamaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = pasted_log()
    # The gauge's figure for a request is measured before it is sent; in a window too small
    # for it the app says that figure and sends nothing (a new session both times, so the
    # request measured is the one sent below).
    monkeypatch.setattr("sys.stdin", io.StringIO(log))
    refused = on_server("--num-ctx", "512", "chat", "--json", "-")
    assert refused.code == 3, refused.err
    (limit,) = events(refused.out)
    gauge = int(str(limit["context_tokens"]))

    sent_before = len(llama_server.prompt_counts())
    monkeypatch.setattr("sys.stdin", io.StringIO(log))
    sent = on_server("chat", "--json", "-")
    assert sent.code == 0, sent.err
    server_count = llama_server.prompt_counts()[sent_before]  # the turn's first request

    error = (gauge - server_count) / server_count
    print(f"\npasted log: gauge {gauge}, server {server_count} tokens ({error:+.1%})")  # -s
    assert GAUGE_LOW <= error <= GAUGE_HIGH, f"gauge {gauge}, server {server_count}: {error:+.1%}"
