"""Discovery over Ollama's HTTP API and the context-window rule, against the fake server."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from pathlib import Path

import pytest

from oncall_tui.errors import OncallError
from oncall_tui.llm.factory import read_timeout_of
from oncall_tui.llm.gateway import OllamaGateway
from oncall_tui.llm.ollama_api import (
    DEFAULT_WINDOW_CAP,
    ModelDetails,
    OllamaApi,
    parse_show,
    parse_tags,
    resolve_context_window,
)
from oncall_tui.llm.server import ListedModel
from oncall_tui.settings import Settings
from tests.fakes import FakeModel, FakeOllama, ScriptedChatModel, StaticGateway


def settings_for(url: str, model: str = "qwen3:8b", num_ctx: int | None = None) -> Settings:
    return Settings(
        db_path=Path("unused.db"), user="alice", ollama_url=url, model=model, num_ctx=num_ctx
    )


def test_version_and_installed_models(server: FakeOllama) -> None:
    api = OllamaApi(server.url)
    assert api.version() == "0.12.6"
    assert api.list_models() == ["qwen3:8b", "llama3.2:3b", "tiny:2k", "gemma:2b"]


def test_show_reads_trained_length_modelfile_num_ctx_and_capabilities(server: FakeOllama) -> None:
    server.models["qwen3:8b"] = FakeModel("qwen3:8b", context_length=40960, num_ctx=16384)
    details = OllamaApi(server.url).show("qwen3:8b")
    assert details == ModelDetails(
        name="qwen3:8b",
        context_length=40960,
        modelfile_num_ctx=16384,
        capabilities=("completion", "tools"),
    )
    assert server.requests[-1].body == {"model": "qwen3:8b"}


def test_show_without_modelfile_num_ctx(server: FakeOllama) -> None:
    details = OllamaApi(server.url).show("llama3.2:3b")
    assert details.context_length == 131072
    assert details.modelfile_num_ctx is None


def test_show_unknown_model_is_model_not_found(server: FakeOllama) -> None:
    with pytest.raises(OncallError) as info:
        OllamaApi(server.url).show("nope:7b")
    assert info.value.code == "MODEL_NOT_FOUND"
    assert "ollama pull nope:7b" in info.value.message("en")


@pytest.mark.parametrize("call", ["version", "list_models", "show"])
def test_server_down_is_model_unavailable_with_the_url(closed_url: str, call: str) -> None:
    api = OllamaApi(closed_url, timeout=2.0)
    with pytest.raises(OncallError) as info:
        api.show("qwen3:8b") if call == "show" else getattr(api, call)()
    assert info.value.code == "MODEL_UNAVAILABLE"
    assert info.value.params == {"url": closed_url}


def test_unexpected_http_error_is_model_unavailable(server: FakeOllama) -> None:
    api = OllamaApi(server.url + "/not-ollama")  # every route answers 404
    with pytest.raises(OncallError) as info:
        api.version()
    assert info.value.code == "MODEL_UNAVAILABLE"


# -- the window rule ---------------------------------------------------------------------------

DETAILS = ModelDetails("m", context_length=40960, modelfile_num_ctx=None, capabilities=())


def test_window_setting_wins_over_everything() -> None:
    with_modelfile = dataclasses.replace(DETAILS, modelfile_num_ctx=16384)
    assert resolve_context_window(4096, with_modelfile) == 4096
    assert resolve_context_window(65536, None) == 65536


def test_window_modelfile_num_ctx_is_used_even_above_the_cap() -> None:
    assert resolve_context_window(None, dataclasses.replace(DETAILS, modelfile_num_ctx=16384)) == (
        16384
    )


def test_window_trained_length_is_capped() -> None:
    assert resolve_context_window(None, DETAILS) == DEFAULT_WINDOW_CAP == 8192
    small = dataclasses.replace(DETAILS, context_length=2048)
    assert resolve_context_window(None, small) == 2048


def test_window_unknown_is_the_cap() -> None:
    assert resolve_context_window(None, None) == 8192
    assert resolve_context_window(None, dataclasses.replace(DETAILS, context_length=None)) == 8192


# -- the gateway -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fake", "num_ctx", "expected"),
    [
        (FakeModel("qwen3:8b", context_length=40960), None, 8192),
        (FakeModel("qwen3:8b", context_length=4096), None, 4096),
        (FakeModel("qwen3:8b", context_length=40960, num_ctx=16384), None, 16384),
        (FakeModel("qwen3:8b", context_length=40960, num_ctx=16384), 2048, 2048),
    ],
)
def test_gateway_window_from_show(
    server: FakeOllama, fake: FakeModel, num_ctx: int | None, expected: int
) -> None:
    server.models[fake.name] = fake
    gateway = OllamaGateway(settings_for(server.url, num_ctx=num_ctx))
    assert gateway.context_window() == expected
    assert gateway.context_window() == expected
    shows = [r for r in server.requests if r.path == "/api/show"]
    assert len(shows) == (0 if num_ctx is not None else 1)  # cached; a setting needs no call


def test_gateway_window_falls_back_offline_without_raising(closed_url: str) -> None:
    assert OllamaGateway(settings_for(closed_url)).context_window() == 8192
    assert OllamaGateway(settings_for(closed_url, num_ctx=4096)).context_window() == 4096


def test_gateway_window_falls_back_for_a_missing_model(server: FakeOllama) -> None:
    assert OllamaGateway(settings_for(server.url, model="nope:7b")).context_window() == 8192


@pytest.mark.asyncio
async def test_gateway_chat_model_sends_the_window_and_the_model(server: FakeOllama) -> None:
    server.models["qwen3:8b"] = FakeModel("qwen3:8b", num_ctx=16384)
    gateway = OllamaGateway(settings_for(server.url))
    assert gateway.model_name == "qwen3:8b"
    await gateway.chat_model().ainvoke("hi")
    (request,) = server.chat_requests
    assert request["model"] == "qwen3:8b"
    assert request["options"]["num_ctx"] == gateway.context_window() == 16384


def test_static_gateway_hands_back_what_it_was_given() -> None:
    model = ScriptedChatModel(["hi"])
    gateway = StaticGateway(model, 4096)
    assert gateway.chat_model() is model
    assert gateway.context_window() == 4096
    assert gateway.model_name == "scripted"


def test_request_timeout_setting_reaches_the_chat_model(server: FakeOllama) -> None:
    settings = Settings.resolve(
        db="unused.db", user="alice", ollama_url=server.url, environ={"ONCALL_TUI_TIMEOUT": "30"}
    )
    assert settings.request_timeout == 30.0
    assert Settings.resolve(db="x", user="a", environ={}).request_timeout == 120.0
    assert read_timeout_of(OllamaGateway(settings).chat_model()) == 30.0


@pytest.mark.parametrize("value", ["soon", "0", "-5", "inf"])
def test_request_timeout_must_be_a_positive_number(value: str) -> None:
    with pytest.raises(OncallError) as info:
        Settings.resolve(db="x", user="a", environ={"ONCALL_TUI_TIMEOUT": value})
    assert info.value.code == "VALIDATION_INVALID_ARGUMENT"


def test_the_window_explanation_names_the_rule_that_chose_it() -> None:
    from oncall_tui.llm.ollama_api import ModelDetails, explain_context_window

    tuned = ModelDetails("m", context_length=131072, modelfile_num_ctx=16384, capabilities=())
    trained = ModelDetails("m", context_length=131072, modelfile_num_ctx=None, capabilities=())
    assert explain_context_window(4096, tuned) == (4096, "flag", None)
    assert explain_context_window(None, tuned) == (16384, "modelfile", None)
    assert explain_context_window(None, trained) == (8192, "trained", 131072)
    small = ModelDetails("m", context_length=4096, modelfile_num_ctx=None, capabilities=())
    assert explain_context_window(None, small) == (4096, "trained", 4096)  # under the cap
    assert explain_context_window(None, None) == (8192, "default", None)


# -- the listing (/api/tags) and what /api/show says of tools ----------------------------------


def test_the_listing_reads_size_family_parameters_quantization_and_time(
    server: FakeOllama,
) -> None:
    installed = OllamaApi(server.url).installed()
    assert [model.name for model in installed] == ["qwen3:8b", "llama3.2:3b", "tiny:2k", "gemma:2b"]
    assert installed[1] == ListedModel(
        name="llama3.2:3b",
        size_bytes=2_019_393_189,
        family="llama",
        parameter_size="3.2B",
        quantization_level="Q4_K_M",
        modified_at=datetime(2025, 10, 1, 12, 0, tzinfo=UTC),
    )


def test_a_listing_entry_missing_its_details_keeps_them_unknown() -> None:
    body = {
        "models": [
            {"name": "bare:1b"},
            {"model": "only-model-key:2b", "size": 42, "details": {"family": "llama"}},
            {
                "name": "odd:3b",
                "size": "lots",
                "modified_at": "yesterday",
                "details": {"family": 7, "parameter_size": " ", "quantization_level": None},
            },
            {"name": "no-details-object:4b", "details": ["llama"]},
        ]
    }
    bare, model_key, odd, listed = parse_tags(body)
    unknown = ListedModel("bare:1b", None, None, None, None, None)
    assert bare == unknown
    assert model_key == ListedModel("only-model-key:2b", 42, "llama", None, None, None)
    assert odd == dataclasses.replace(unknown, name="odd:3b")
    assert listed == dataclasses.replace(unknown, name="no-details-object:4b")


@pytest.mark.parametrize(
    "body",
    [{}, {"models": None}, {"models": "qwen3"}, {"models": [None, 3, {"size": 5}, {"name": ""}]}],
)
def test_a_listing_without_usable_entries_is_empty(body: dict[str, object]) -> None:
    assert parse_tags(body) == []


def test_a_name_listed_twice_is_listed_once() -> None:
    body = {"models": [{"name": "qwen3:8b", "size": 1}, {"name": "qwen3:8b", "size": 2}]}
    assert [(m.name, m.size_bytes) for m in parse_tags(body)] == [("qwen3:8b", 1)]


def test_capabilities_with_tools_without_tools_and_not_reported() -> None:
    tools = parse_show("a", {"capabilities": ["completion", "tools"]})
    no_tools = parse_show("b", {"capabilities": ["completion"]})
    old_server = parse_show("c", {"model_info": {"general.architecture": "llama"}})
    assert (tools.tool_support, tools.supports_tools) == (True, True)
    assert (no_tools.tool_support, no_tools.supports_tools) == (False, False)
    # an older Ollama says nothing: unknown, and a send still offers the tools
    assert (old_server.tool_support, old_server.supports_tools) == (None, True)


def test_show_from_an_older_server_without_capabilities_or_context_length(
    server: FakeOllama,
) -> None:
    server.models["old:7b"] = FakeModel("old:7b", capabilities=None, context_length=None)
    details = OllamaApi(server.url).show("old:7b")
    assert details.capabilities == ()
    assert details.tool_support is None
    assert details.context_length is None
