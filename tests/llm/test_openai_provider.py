"""An OpenAI-compatible server as the model server: the window it reports, readiness, doctor,
the key, and the CLI, against the loopback `FakeOpenAI` through the real ``langchain-openai``.

The engine's promises on this provider (streaming, tools, calibration, the 95% rule,
failures) are the engine suite's, run on both servers (``both_providers`` in conftest)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from oncall_tui.core.events import ReplyDone, UsageReported
from oncall_tui.errors import OncallError
from oncall_tui.llm.gateway import READY_SECONDS, gateway_for
from oncall_tui.llm.openai_gateway import OpenAIGateway
from oncall_tui.services.container import Services
from oncall_tui.tui.widgets.context_panel import OllamaStatus
from tests.conftest import RunCli, collect, make_settings
from tests.fakes.ollama_server import FakeModel, Reply
from tests.fakes.openai_server import FakeOpenAI

KEY = "sk-test-4f9a2c"
OnServer = Callable[..., Services]


@pytest.fixture
def openai() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


def gateway(server: FakeOpenAI, db_path: Path, **overrides: object) -> OpenAIGateway:
    values: dict[str, object] = {"provider": "openai", "base_url": server.url, "model": "qwen3:8b"}
    values.update(overrides)
    built = gateway_for(make_settings(db_path, **values))
    assert isinstance(built, OpenAIGateway)
    return built


# -- the window ---------------------------------------------------------------------------


def window(gateway: OpenAIGateway) -> tuple[int, str]:
    """The window, and the rule that gave it as doctor reports it."""
    return gateway.context_window(), gateway.report().window.source


def test_the_flag_sets_the_window_whatever_the_server_says(db_path: Path) -> None:
    with FakeOpenAI(props_n_ctx=4096) as server:
        chosen = gateway(server, db_path, num_ctx=3000)
        assert chosen.context_window() == 3000
        assert server.requests == []  # nothing to ask
        assert window(chosen) == (3000, "flag")


@pytest.mark.parametrize("top_level", [False, True])
def test_llama_cpp_props_give_the_window(db_path: Path, top_level: bool) -> None:
    with FakeOpenAI(props_n_ctx=4096, props_top_level=top_level) as server:
        found = gateway(server, db_path)
        assert window(found) == (4096, "llama.cpp /props")


def test_vllm_max_model_len_gives_the_window(openai: FakeOpenAI, db_path: Path) -> None:
    openai.models["big:1m"] = FakeModel("big:1m", context_length=32768, num_ctx=32768)
    found = gateway(openai, db_path, model="big:1m")
    assert window(found) == (32768, "vLLM /v1/models")


def test_without_a_word_from_the_server_the_window_is_8192(db_path: Path) -> None:
    with FakeOpenAI(max_model_len=False) as server:
        found = gateway(server, db_path)
        assert window(found) == (8192, "default")


def test_a_server_that_comes_back_replaces_the_fallback(db_path: Path, closed_url: str) -> None:
    with FakeOpenAI(props_n_ctx=2048) as server:
        found = gateway(server, db_path, base_url=f"{closed_url}/v1")
        assert window(found) == (8192, "default")
        found._api.base_url = server.url  # the server comes up where it was looked for
        found.check_ready()
        assert window(found) == (2048, "llama.cpp /props")


# -- readiness ----------------------------------------------------------------------------


def test_a_model_the_server_does_not_list_is_not_found_naming_what_it_serves(
    openai: FakeOpenAI, db_path: Path
) -> None:
    with pytest.raises(OncallError) as missing:
        gateway(openai, db_path, model="mistral:7b").check_ready()
    assert missing.value.code == "MODEL_NOT_FOUND"
    assert missing.value.message("en") == (
        f"The model server at {openai.url} does not serve 'mistral:7b' (it serves: qwen3:8b, "
        "llama3.2:3b, tiny:2k, gemma:2b). Pick one of those with --model."
    )
    assert "ollama pull" not in missing.value.message("zh")


def test_a_server_that_lists_no_models_is_taken_at_its_word(db_path: Path) -> None:
    with FakeOpenAI(list_models=False) as server:
        assert gateway(server, db_path, model="anything").check_ready().tools is True


def test_a_ready_server_is_asked_again_only_after_a_few_seconds(
    openai: FakeOpenAI, db_path: Path
) -> None:
    now = [100.0]
    settings = make_settings(db_path, provider="openai", base_url=openai.url, model="qwen3:8b")
    ready = OpenAIGateway(settings, clock=lambda: now[0])

    def listings() -> int:
        return sum(r.path == "/v1/models" for r in openai.requests)

    ready.check_ready()
    now[0] += READY_SECONDS - 0.01
    ready.check_ready()
    assert listings() == 1
    now[0] += 0.01
    ready.check_ready()
    assert listings() == 2


def test_a_server_that_is_down_is_unavailable_in_its_own_words(
    db_path: Path, closed_url: str
) -> None:
    with pytest.raises(OncallError) as down:
        gateway_for(
            make_settings(db_path, provider="openai", base_url=f"{closed_url}/v1")
        ).check_ready()
    assert down.value.code == "MODEL_UNAVAILABLE"
    assert down.value.message("en").startswith(f"The model server is not reachable at {closed_url}")
    assert "Ollama" not in down.value.message("en")
    assert "模型服务器" in down.value.message("zh")


# -- the key ------------------------------------------------------------------------------


async def test_the_key_is_sent_as_a_bearer_token_and_the_reply_counts(
    on_ollama: OnServer, db_path: Path
) -> None:
    with FakeOpenAI(api_key=KEY) as server:
        services = on_ollama(server, model="qwen3:8b", api_key=KEY)
        server.script(Reply("Restart it.", prompt_eval_count=321, eval_count=3))
        events = await collect(services.chat.send("alice", None, "pod down"))
        assert isinstance(events[-1], ReplyDone)
        (usage,) = [e for e in events if isinstance(e, UsageReported)]
        assert (usage.input_tokens, usage.output_tokens) == (321, 3)  # the final chunk's usage
        chat = [r for r in server.requests if r.path == "/v1/chat/completions"]
        assert chat[0].headers["authorization"] == f"Bearer {KEY}"
        assert chat[0].body["stream_options"] == {"include_usage": True}
        assert all(r.headers.get("authorization") == f"Bearer {KEY}" for r in server.requests)


async def test_a_server_that_refuses_the_key_says_so_and_stores_nothing(
    on_ollama: OnServer,
) -> None:
    with FakeOpenAI(api_key=KEY) as server:
        services = on_ollama(server, model="qwen3:8b", api_key="sk-wrong-key")
        with pytest.raises(OncallError) as refused:
            await collect(services.chat.send("alice", None, "pod down"))
        assert refused.value.code == "MODEL_UNAVAILABLE"
        assert refused.value.message("en") == (
            f"The model server at {server.url} refused the request (HTTP 401): set "
            "OPENAI_API_KEY to the key it expects."
        )
        assert "sk-wrong-key" not in refused.value.message("en")
        assert services.sessions.list_sessions("alice") == []


async def test_a_401_in_the_middle_of_a_turn_is_the_same_refusal(on_ollama: OnServer) -> None:
    """The listing answered (a proxy that checks only chat requests): the reply fails, said
    as the key's refusal, and the message stays for a retry."""
    with FakeOpenAI() as server:
        services = on_ollama(server, model="qwen3:8b")
        server.script(Reply.failure(401, "Invalid API Key"))
        events = await collect(services.chat.send("alice", None, "pod down"))
        failed = events[-1]
        assert failed.to_json()["code"] == "MODEL_UNAVAILABLE"
        assert "refused the request (HTTP 401)" in str(failed.to_json()["message"])


async def test_a_llama_cpp_server_without_jinja_is_told_how_to_take_tools(
    on_ollama: OnServer,
) -> None:
    """llama.cpp's server refuses every request that offers tools unless started with
    --jinja: the message says so, not only what the server said."""
    with FakeOpenAI() as server:
        services = on_ollama(server, model="qwen3:8b")
        server.script(Reply.failure(500, "tools param requires --jinja flag"))
        events = await collect(services.chat.send("alice", None, "pod down"))
        failed = events[-1].to_json()
        assert failed["code"] == "STREAM_FAILED"
        assert "refused the tools (tools param requires --jinja flag)" in str(failed["message"])
        assert "only when started with --jinja; restart it so" in str(failed["message"])
        assert "the tools are offered to the model as text from now on" in str(failed["message"])
        server.script("Check the pod's events.")  # the same server: the retry goes without them
        again = await collect(services.chat.retry("alice", int(str(failed["session_id"]))))
        assert isinstance(again[-1], ReplyDone)
        assert not server.chat_requests[-1].get("tools")


# -- the CLI ------------------------------------------------------------------------------


def test_doctor_says_where_the_window_came_from(cli: RunCli) -> None:
    with FakeOpenAI(props_n_ctx=4096) as server:
        args = ("--provider", "openai", "--base-url", server.url, "--model", "qwen3:8b")
        report = cli(*args, "doctor", "--json").json_object()
        assert report["provider"] == "openai"
        assert (report["server_url"], report["server_reachable"]) == (server.url, True)
        assert report["server_version"] == "b6000-fake"
        assert (report["context_window_tokens"], report["context_window_source"]) == (
            4096,
            "llama.cpp /props",
        )
        assert report["installed_models"] == ["qwen3:8b", "llama3.2:3b", "tiny:2k", "gemma:2b"]
        assert (report["model_pulled"], report["pull_command"], report["ollama_url"]) == (
            True,
            None,
            None,
        )
        human = cli(*args, "doctor")
        assert human.code == 0
        lines = human.out.splitlines()
        assert lines[0].split() == ["Server", server.url, "reachable,", "version", "b6000-fake"]
        assert lines[1].split() == ["Model", "qwen3:8b", "served"]
        assert "4,096 tokens (from the server's llama.cpp /props)" in lines[2]
        assert "Ollama" not in human.out


def test_doctor_on_a_vllm_server_without_props(cli: RunCli) -> None:
    with FakeOpenAI() as server:
        args = ("--provider", "openai", "--base-url", server.url, "--model", "tiny:2k")
        report = cli(*args, "doctor", "--json").json_object()
        assert (report["context_window_tokens"], report["context_window_source"]) == (
            2048,
            "vLLM /v1/models",
        )
        assert report["server_version"] == "fake-openai"  # the Server header


def test_doctor_with_a_refused_key_shows_the_problem_and_never_the_key(
    cli: RunCli, monkeypatch: pytest.MonkeyPatch, private_log: Path
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong-key")
    with FakeOpenAI(api_key=KEY) as server:
        args = ("--provider", "openai", "--base-url", server.url, "--log-level", "debug")
        refused = cli(*args, "doctor")
        assert refused.code == 4
        assert "refused the request (HTTP 401)" in refused.out
        assert f"{server.url}  answers, but refused the key (HTTP 401)" in refused.out
        assert "NOT reachable" not in refused.out
        assert "8,192 tokens (from the default: the server did not say)" in refused.out
        report = cli(*args, "doctor", "--json")
        assert report.json_object()["ok"] is False
        assert report.json_object()["server_reachable"] is True
        everything = refused.out + refused.err + report.out + report.err
        assert "sk-wrong-key" not in everything
    assert "sk-wrong-key" not in private_log.read_text(encoding="utf-8")


def test_a_base_url_without_v1_is_said_to_answer_but_not_as_the_api(
    cli: RunCli, openai: FakeOpenAI
) -> None:
    """The server is up; the URL misses the ``/v1`` its API is under. Saying it does not answer
    would send the engineer to restart a server that is running."""
    root = openai.url.removesuffix("/v1")
    args = ("--provider", "openai", "--base-url", root, "--model", "qwen3:8b")
    doctor = cli(*args, "doctor")
    assert doctor.code == 4
    lines = doctor.out.splitlines()
    assert (
        lines[0] == f"Server    {root}  answers, but not as its API (HTTP 404 from {root}/models)"
    )
    assert lines[1] == "Model     qwen3:8b  (cannot check until the server answers)"
    said = (
        f"Something answers at {root}, but not as an OpenAI-compatible API does: {root}/models "
        "gave HTTP 404. Check --base-url: it usually ends in /v1."
    )
    assert lines[-1] == said
    report = cli(*args, "doctor", "--json").json_object()
    assert (report["server_reachable"], report["server_version"], report["ok"]) == (
        True,
        None,
        False,
    )
    chat = cli(*args, "chat", "why is checkout slow?")
    assert (chat.code, chat.err) == (4, f"oncall-tui: {said}\n")
    assert openai.chat_requests == []


def test_a_chat_through_the_cli_with_a_tool_call(
    cli: RunCli, monkeypatch: pytest.MonkeyPatch, private_log: Path
) -> None:
    """What the real-model test drives: --provider openai --base-url URL --num-ctx N."""
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAI(api_key=KEY) as server:
        server.script(Reply.tool_call("get_current_time", {}), "It is noon.")
        args = ("--provider", "openai", "--base-url", server.url, "--num-ctx", "4096")
        sent = cli(*args, "--model", "qwen3:8b", "--log-level", "debug", "chat", "--json", "time?")
        assert sent.code == 0, sent.err
        events = [json.loads(line) for line in sent.out.splitlines()]
        kinds = [e["type"] for e in events]
        assert kinds[:2] == ["user_message", "tool_start"]
        assert kinds[-2:] == ["usage", "done"]
        usage = next(e for e in events if e["type"] == "usage")
        assert usage["context_window_tokens"] == 4096
        assert "".join(e["text"] for e in events if e["type"] == "token") == "It is noon."
        second = server.chat_requests[1]["messages"]
        assert second[-1]["role"] == "tool"
        assert second[-2]["tool_calls"][0]["function"]["name"] == "get_current_time"
        assert KEY not in sent.out + sent.err
    assert KEY not in private_log.read_text(encoding="utf-8")


def test_the_model_picker_lists_what_the_server_serves(openai: FakeOpenAI, db_path: Path) -> None:
    services = Services(make_settings(db_path, provider="openai", base_url=openai.url))
    listed = services.model_catalog()
    assert [(m.name, m.window_tokens, m.size_bytes) for m in listed] == [
        ("qwen3:8b", 8192, None),
        ("llama3.2:3b", 8192, None),
        ("tiny:2k", 2048, None),
        ("gemma:2b", 8192, None),
    ]
    assert all(m.described and m.tools is None for m in listed)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_status_texts_name_the_server_not_ollama(lang: str, db_path: Path) -> None:
    services = Services(
        make_settings(db_path, provider="openai", base_url="http://gpu-box:8080/v1")
    )
    server = services.server
    assert (server.url, server.wording) == ("http://gpu-box:8080/v1", "server")
    states = [
        OllamaStatus(server.url, "m", reachable, "b6000", missing, wording=server.wording)
        for reachable, missing in ((True, False), (True, True), (False, False))
    ]
    for state in states:
        said = state.describe("zh" if lang == "zh" else "en", "f5")
        assert "Ollama" not in said
        assert "http://gpu-box:8080/v1" in said


def test_a_model_the_server_lacks_is_said_as_this_server_says_it(
    openai: FakeOpenAI, db_path: Path
) -> None:
    services = Services(make_settings(db_path, provider="openai", base_url=openai.url))
    missing = services.model_not_found()
    assert (missing.code, missing.reason) == ("MODEL_NOT_FOUND", "openai_model_refused")
    assert missing.message("en") == (
        f"The model server at {openai.url} has no model 'llama3.1:8b'. Pick one it serves with "
        "--model."
    )
    assert "ollama pull" not in missing.message("en") + missing.message("zh")
