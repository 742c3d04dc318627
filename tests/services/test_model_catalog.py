"""The model catalog: ``/api/tags`` for the list, ``/api/show`` for each model's details, and a
model whose details do not come leaves only those unknown."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from oncall_tui.errors import OncallError
from oncall_tui.services import models as catalog
from oncall_tui.services.container import Services
from oncall_tui.services.views import ModelInfo
from tests.fakes import FakeModel, FakeOllama, ScriptedChatModel

Build = Callable[..., Services]


def shows(server: FakeOllama) -> list[str]:
    return [str(r.body["model"]) for r in server.requests if r.path == "/api/show"]


def test_the_catalog_has_the_listing_and_each_models_details(
    server: FakeOllama, on_ollama: Build
) -> None:
    models = {m.name: m for m in on_ollama(server).model_catalog()}
    assert list(models) == ["qwen3:8b", "llama3.2:3b", "tiny:2k", "gemma:2b"]
    assert models["llama3.2:3b"] == ModelInfo(
        name="llama3.2:3b",
        size_bytes=2_019_393_189,
        family="llama",
        parameter_size="3.2B",
        quantization_level="Q4_K_M",
        modified_at=models["llama3.2:3b"].modified_at,
        context_length=131072,
        window_tokens=8192,
        tools=True,
        described=True,
    )
    assert models["tiny:2k"].window_tokens == 2048  # its Modelfile's num_ctx
    assert models["gemma:2b"].tools is False
    assert sorted(shows(server)) == sorted(models)


def test_the_window_follows_the_num_ctx_setting(server: FakeOllama, on_ollama: Build) -> None:
    models = on_ollama(server, num_ctx=4096).model_catalog()
    assert {m.window_tokens for m in models} == {4096}
    assert models[0].context_length == 40960


def test_one_failing_show_leaves_only_that_models_details_unknown(
    server: FakeOllama, on_ollama: Build
) -> None:
    server.models["llama3.2:3b"] = FakeModel("llama3.2:3b", family="llama", show_status=500)
    models = {m.name: m for m in on_ollama(server).model_catalog()}
    broken = models["llama3.2:3b"]
    assert (broken.described, broken.context_length, broken.window_tokens, broken.tools) == (
        False,
        None,
        None,
        None,
    )
    assert broken.family == "llama"  # what the listing said stays
    assert all(m.described for name, m in models.items() if name != "llama3.2:3b")


def test_a_show_past_its_timeout_leaves_only_that_models_details_unknown(
    server: FakeOllama, on_ollama: Build, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(catalog, "SHOW_TIMEOUT", 0.2)
    server.models["tiny:2k"] = FakeModel("tiny:2k", show_delay=2.0)
    models = {m.name: m for m in on_ollama(server).model_catalog()}
    assert [name for name, m in models.items() if not m.described] == ["tiny:2k"]


def test_a_model_removed_between_listing_and_show_keeps_its_listing(
    server: FakeOllama, on_ollama: Build
) -> None:
    services = on_ollama(server)
    listed = services.installed_models()
    del server.models["gemma:2b"]
    described = services.describe_models(listed)
    assert [m.name for m in described] == [m.name for m in listed]
    assert described[-1] == listed[-1]  # not described, nothing lost


def test_an_older_ollama_without_capabilities_leaves_tool_support_unknown(
    on_ollama: Build,
) -> None:
    with FakeOllama(models=[FakeModel("old:7b", capabilities=None)]) as server:
        (model,) = on_ollama(server).model_catalog()
    assert model.described
    assert model.tools is None
    assert model.context_length == 40960


def test_the_listing_alone_asks_nothing_per_model(server: FakeOllama, on_ollama: Build) -> None:
    listed = on_ollama(server).installed_models()
    assert [m.described for m in listed] == [False] * 4
    assert all(m.tools is None and m.context_length is None for m in listed)
    assert shows(server) == []


def test_many_models_keep_the_servers_order(on_ollama: Build) -> None:
    names = [f"model-{i:02}:7b" for i in range(30)]
    with FakeOllama(models=names) as server:
        models = on_ollama(server).model_catalog()
        assert [m.name for m in models] == names
        assert all(m.described for m in models)
        assert sorted(shows(server)) == names


def test_no_models_is_an_empty_catalog(on_ollama: Build) -> None:
    with FakeOllama(models=[]) as server:
        assert on_ollama(server).model_catalog() == []
        assert shows(server) == []


def test_a_server_that_does_not_answer_fails_the_catalog(closed_url: str, on_ollama: Build) -> None:
    with pytest.raises(OncallError) as info:
        on_ollama(None, ollama_url=closed_url).model_catalog()
    assert info.value.code == "MODEL_UNAVAILABLE"


def test_the_server_is_named_as_ollama_and_a_missing_model_is_pulled(
    server: FakeOllama, on_ollama: Build
) -> None:
    services = on_ollama(server, model="mistral:7b")
    assert (services.server.url, services.server.wording) == (server.url, "ollama")
    missing = services.model_not_found()
    assert (missing.code, missing.reason) == ("MODEL_NOT_FOUND", None)
    assert missing.message("en") == (
        "Model 'mistral:7b' is not available in Ollama. Run: ollama pull mistral:7b"
    )
    assert server.requests == []  # naming the server asks it nothing


def test_a_listing_on_a_static_gateway_is_its_one_model(engine: Callable[..., Services]) -> None:
    """The fake every TUI test runs on answers the picker too: its model, described."""
    (model,) = engine(ScriptedChatModel(), window=4096).model_catalog()
    assert (model.name, model.window_tokens, model.described) == ("scripted", 4096, True)
