"""The provider settings: --provider, --base-url and OPENAI_API_KEY, whoever gives them."""

from __future__ import annotations

from pathlib import Path

import pytest

from oncall_tui.errors import Language, OncallError
from oncall_tui.services.container import Services
from oncall_tui.settings import (
    DEFAULT_BASE_URL,
    Settings,
    normalize_base_url,
    parse_provider,
)
from tests.conftest import RunCli, make_settings

KEY = "sk-test-4f9a2c"


def test_ollama_stays_the_default_provider() -> None:
    settings = Settings.resolve(environ={"USER": "x"})
    assert (settings.provider, settings.base_url, settings.api_key) == (
        "ollama",
        DEFAULT_BASE_URL,
        None,
    )


def test_a_flag_wins_over_the_environment_which_wins_over_the_file(private_config: Path) -> None:
    private_config.parent.mkdir(parents=True)
    private_config.write_text(
        'provider = "openai"\nbase_url = "http://file-box:8000/v1"\n', encoding="utf-8"
    )
    config = str(private_config)
    from_file = Settings.resolve(config=config, environ={"USER": "x"})
    assert (from_file.provider, from_file.base_url) == ("openai", "http://file-box:8000/v1")
    assert (from_file.sources["provider"], from_file.sources["base_url"]) == ("file", "file")
    env = {"USER": "x", "ONCALL_TUI_PROVIDER": "ollama", "ONCALL_TUI_BASE_URL": "http://env:1/v1"}
    from_env = Settings.resolve(config=config, environ=env)
    assert (from_env.provider, from_env.base_url) == ("ollama", "http://env:1/v1")
    assert (from_env.sources["provider"], from_env.sources["base_url"]) == ("env", "env")
    from_flags = Settings.resolve(
        config=config, environ=env, provider="OpenAI", base_url="http://gpu-box:8080/v1/"
    )
    assert (from_flags.provider, from_flags.base_url) == ("openai", "http://gpu-box:8080/v1")
    assert (from_flags.sources["provider"], from_flags.sources["base_url"]) == ("flag", "flag")


@pytest.mark.parametrize(
    ("raw", "url"),
    [
        ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"),
        ("https://llm.example/v1/", "https://llm.example/v1"),
        ("http://0.0.0.0:8000/v1", "http://127.0.0.1:8000/v1"),
        ("http://[::1]:8080/v1", "http://[::1]:8080/v1"),
        ("http://gpu-box:65535/v1", "http://gpu-box:65535/v1"),  # the highest port
        ("  ", DEFAULT_BASE_URL),
    ],
)
def test_base_url_forms(raw: str, url: str) -> None:
    assert normalize_base_url(raw) == url


@pytest.mark.parametrize(
    "raw",
    [
        "http://gpu-box:65536/v1",  # one past the highest port
        "gpu-box:8080",  # no scheme: a base URL is given whole
        "ftp://gpu-box/v1",
        "http://user:secret@gpu-box/v1",  # a key goes in OPENAI_API_KEY, not the URL
        "http://gpu-box/v1?x=1",
        "http://256.1.1.1/v1",
    ],
)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_bad_base_url_is_refused_in_both_languages(raw: str, lang: Language) -> None:
    with pytest.raises(OncallError) as refused:
        normalize_base_url(raw)
    assert (refused.value.code, refused.value.reason) == (
        "VALIDATION_INVALID_ARGUMENT",
        "bad_base_url",
    )
    shown = raw.strip().replace(":secret@", ":***@")  # named, without its password
    assert shown in refused.value.message(lang)
    assert ":secret@" not in refused.value.message(lang)
    assert ("基础地址" in refused.value.message(lang)) is (lang == "zh")


@pytest.mark.parametrize(("raw", "provider"), [("ollama", "ollama"), (" OpenAI ", "openai")])
def test_provider_names(raw: str, provider: str) -> None:
    assert parse_provider(raw) == provider


@pytest.mark.parametrize("raw", ["openai2", "open ai", "vllm"])
def test_an_unknown_provider_is_refused(raw: str) -> None:
    with pytest.raises(OncallError) as refused:
        parse_provider(raw)
    assert refused.value.message("en") == (
        f"Invalid argument: provider '{raw}' is not one of ollama, openai"
    )
    assert "提供方" in refused.value.message("zh")


def test_a_bad_provider_from_the_command_line_changes_nothing(cli: RunCli, db_path: Path) -> None:
    refused = cli("--provider", "openia", "doctor", "--json")
    assert refused.code == 2
    assert refused.error()["reason"] == "bad_provider"
    assert not db_path.exists()


def test_a_bad_value_in_the_file_is_its_problem_and_nothing_of_it_is_used(
    private_config: Path,
) -> None:
    private_config.parent.mkdir(parents=True)
    private_config.write_text('provider = "openai"\nbase_url = "gpu-box"\n', encoding="utf-8")
    settings = Settings.resolve(config=str(private_config), environ={"USER": "x"})
    assert settings.provider == "ollama"
    assert settings.config_problem is not None
    assert "base_url" in settings.config_problem.message("en")


def test_the_key_comes_from_the_environment_and_is_never_shown(
    cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings.resolve(environ={"USER": "x", "OPENAI_API_KEY": KEY})
    assert settings.api_key == KEY
    assert KEY not in repr(settings)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    for args in (("config", "paths"), ("config", "paths", "--json")):
        shown = cli("--provider", "openai", *args)
        assert shown.code == 0
        assert KEY not in shown.out + shown.err


def test_config_paths_says_where_provider_and_base_url_came_from(
    cli: RunCli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ONCALL_TUI_BASE_URL", "http://gpu-box:8080/v1")
    paths = cli("--provider", "openai", "config", "paths", "--json").json_object()
    assert paths["settings"]["provider"] == {"value": "openai", "source": "flag"}
    assert paths["settings"]["base_url"] == {"value": "http://gpu-box:8080/v1", "source": "env"}
    (row,) = [line for line in cli("config", "paths").out.splitlines() if "provider" in line]
    assert row.split() == ["provider", "ollama", "default"]


def test_saved_preferences_never_write_the_key(private_config: Path, db_path: Path) -> None:
    settings = make_settings(
        db_path, provider="openai", api_key=KEY, config_path=private_config, lang="en"
    )
    services = Services(settings)
    services.save_preference("base_url", "http://gpu-box:8080/v1")
    services.save_preference("provider", "openai")
    written = private_config.read_text(encoding="utf-8")
    assert 'base_url = "http://gpu-box:8080/v1"' in written
    assert KEY not in written
    assert services.settings.api_key == KEY
