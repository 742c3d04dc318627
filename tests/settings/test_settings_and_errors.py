"""Settings precedence and parsing; the error catalog is complete in both languages."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from oncall_tui.errors import Language, OncallError, resolve_language
from oncall_tui.errors.catalog import CATALOG, KINDS, NOTES, REASONS
from oncall_tui.settings import (
    DEFAULT_MODEL,
    NUM_CTX_MAX,
    NUM_CTX_MIN,
    Settings,
    normalize_ollama_url,
    parse_num_ctx,
)


def test_every_catalog_entry_has_english_and_chinese_with_the_same_placeholders() -> None:
    for table in (CATALOG, REASONS, NOTES, KINDS):
        for key, messages in table.items():
            assert set(messages) == {"en", "zh"}, key
            en, zh = (set(re.findall(r"{(\w+)}", messages[lang])) for lang in ("en", "zh"))
            assert en == zh, key
            if re.sub(r"{\w+}", "", messages["zh"]).strip():  # more than a placeholder
                assert re.search(r"[\u4e00-\u9fff]", messages["zh"]), key


def test_codes_named_by_the_design_exist() -> None:
    for code in (
        "VALIDATION_INVALID_ARGUMENT",
        "PROMPT_INVALID",
        "SKILL_INVALID",
        "SKILL_DUPLICATE_NAME",
        "NOT_FOUND",
        "FORBIDDEN",
        "CHAT_CONTEXT_LIMIT_REACHED",
        "MEMORY_COMPACTION_FAILED",
        "MODEL_UNAVAILABLE",
        "MODEL_NOT_FOUND",
        "STREAM_FAILED",
    ):
        assert code in CATALOG


def test_model_not_found_tells_the_exact_pull_command() -> None:
    error = OncallError("MODEL_NOT_FOUND", model="qwen3:8b")
    assert "ollama pull qwen3:8b" in error.message("en")
    assert "ollama pull qwen3:8b" in error.message("zh")


def test_unknown_codes_are_programming_errors() -> None:
    with pytest.raises(KeyError):
        OncallError("NO_SUCH_CODE")


@pytest.mark.parametrize(
    ("requested", "env", "expected"),
    [
        ("zh", {"LANG": "en_US.UTF-8"}, "zh"),
        ("en", {"LANG": "zh_CN.UTF-8"}, "en"),
        (None, {"LANG": "zh_CN.UTF-8"}, "zh"),
        (None, {"LC_ALL": "zh_TW.UTF-8", "LANG": "en_US"}, "zh"),
        (None, {"LC_ALL": "C", "LANG": "zh_CN"}, "en"),
        (None, {}, "en"),
    ],
)
def test_language_resolution(requested: str | None, env: dict[str, str], expected: str) -> None:
    assert resolve_language(requested, env) == expected


def test_options_win_over_environment_which_wins_over_defaults(tmp_path: Path) -> None:
    env = {
        "ONCALL_TUI_DB": str(tmp_path / "env.db"),
        "ONCALL_TUI_USER": "env-user",
        "OLLAMA_HOST": "10.0.0.5:9999",
        "ONCALL_TUI_MODEL": "qwen3:8b",
        "ONCALL_TUI_NUM_CTX": "16384",
    }
    from_env = Settings.resolve(environ=env)
    assert from_env.db_path == tmp_path / "env.db"
    assert (from_env.user, from_env.model, from_env.num_ctx) == ("env-user", "qwen3:8b", 16384)
    assert from_env.ollama_url == "http://10.0.0.5:9999"
    from_options = Settings.resolve(
        db=str(tmp_path / "opt.db"),
        user="opt-user",
        model="m",
        num_ctx="4096",
        ollama_url="localhost",
        environ=env,
    )
    assert (from_options.user, from_options.model, from_options.num_ctx) == ("opt-user", "m", 4096)
    assert from_options.ollama_url == "http://localhost:11434"
    defaults = Settings.resolve(environ={"USER": "x"})
    assert defaults.db_path.name == "oncall.db"
    assert (defaults.model, defaults.num_ctx) == (DEFAULT_MODEL, None)
    assert defaults.ollama_url == "http://127.0.0.1:11434"


@pytest.mark.parametrize(
    ("raw", "url"),
    [
        ("", "http://127.0.0.1:11434"),
        ("127.0.0.1", "http://127.0.0.1:11434"),
        ("0.0.0.0:11434", "http://127.0.0.1:11434"),
        (":11435", "http://127.0.0.1:11435"),  # a port alone: loopback, as Ollama reads it
        ("gpu-box:8080", "http://gpu-box:8080"),
        ("http://gpu-box", "http://gpu-box:80"),
        ("https://ollama.example/", "https://ollama.example:443"),
        ("http://[::1]:11434", "http://[::1]:11434"),
        ("https://proxy:8443/ollama", "https://proxy:8443/ollama"),
    ],
)
def test_ollama_host_forms(raw: str, url: str) -> None:
    assert normalize_ollama_url(raw) == url


@pytest.mark.parametrize("raw", ["ftp://host", "http://", "host:notaport", ":x"])
def test_bad_ollama_host_is_a_catalog_error(raw: str) -> None:
    with pytest.raises(OncallError) as caught:
        normalize_ollama_url(raw)
    assert caught.value.code == "VALIDATION_INVALID_ARGUMENT"


def test_num_ctx_bounds() -> None:
    assert parse_num_ctx(NUM_CTX_MIN) == 512
    assert parse_num_ctx(str(NUM_CTX_MAX)) == NUM_CTX_MAX
    for bad in (NUM_CTX_MIN - 1, NUM_CTX_MAX + 1, "lots", "8k"):
        with pytest.raises(OncallError):
            parse_num_ctx(bad)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_message_inside_another_does_not_double_its_stop(lang: Language) -> None:
    for inner in (
        OncallError("MODEL_UNAVAILABLE", url="http://127.0.0.1:11434"),
        OncallError("MODEL_NOT_FOUND", model="qwen3:8b"),
        OncallError("STREAM_FAILED", detail="the connection to Ollama dropped"),
    ):
        for outer in ("MEMORY_COMPACTION_FAILED", "VALIDATION_INVALID_ARGUMENT"):
            message = OncallError(outer, detail=inner).message(lang)
            assert ".." not in message
            assert "。。" not in message
            assert "。." not in message


def test_counts_in_messages_have_their_thousands_marked_and_ids_do_not() -> None:
    """The prompt editor's counter read 15,999/12,000 and its refusal '1 to 12000 … (got
    15999)'; an id keeps its digits, to be compared with what was typed."""
    too_long = OncallError("PROMPT_INVALID", "prompt_content_length", limit=12_000, length=15_999)
    assert "1 to 12,000 characters after trimming (got 15,999)" in too_long.message("en")
    assert "（实际 15,999）" in too_long.message("zh")
    no_id = OncallError(
        "VALIDATION_INVALID_ARGUMENT", "bad_id", name="ID", value="x", highest=2**63 - 1
    )
    assert "from 1 to 9223372036854775807 (got 'x')" in no_id.message("en")
