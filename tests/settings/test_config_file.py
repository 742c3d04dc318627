"""The settings file: precedence per setting (flag > environment > file > default), a file
that cannot be used (defaults and a named problem, never a failed start), ``config paths``,
and writes that keep the rest of the file and change nothing when they fail."""

from __future__ import annotations

import json
import stat
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

from oncall_tui.errors import OncallError
from oncall_tui.services.container import Services
from oncall_tui.settings import (
    DEFAULT_DEADLINE,
    DEFAULT_MODEL,
    DEFAULT_OLLAMA_URL,
    DEFAULT_REQUEST_TIMEOUT,
    Settings,
)
from oncall_tui.settings.file import MAX_CONFIG_BYTES, read_config, slips
from tests.conftest import RunCli


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def resolve(config: Path, environ: dict[str, str] | None = None, **flags: str) -> Settings:
    return Settings.resolve(user="alice", config=str(config), environ=environ or {}, **flags)


@dataclass(frozen=True)
class Case:
    key: str
    """The file's key (and the name in ``sources``)."""
    attribute: str
    variable: str
    flag: str | None
    """The ``Settings.resolve`` argument; ``None``: the setting has no flag."""
    values: tuple[str, str, str]
    """What the file, the environment and the flag give, as TOML / text."""
    expected: tuple[object, object, object, object]
    """The value with none of them, from the file, from the environment, from the flag."""


CASES = [
    Case(
        "model",
        "model",
        "ONCALL_TUI_MODEL",
        "model",
        ('"file-model"', "env-model", "flag-model"),
        (DEFAULT_MODEL, "file-model", "env-model", "flag-model"),
    ),
    Case(
        "theme",
        "theme",
        "ONCALL_TUI_THEME",
        None,
        ('"nord"', "gruvbox", ""),
        (None, "nord", "gruvbox", None),
    ),
    Case(
        "num_ctx",
        "num_ctx",
        "ONCALL_TUI_NUM_CTX",
        "num_ctx",
        ("4096", "8192", "16384"),
        (None, 4096, 8192, 16384),
    ),
    Case(
        "timeout",
        "request_timeout",
        "ONCALL_TUI_TIMEOUT",
        "request_timeout",
        ("30", "40", "50.5"),
        (DEFAULT_REQUEST_TIMEOUT, 30.0, 40.0, 50.5),
    ),
    Case(
        "deadline",
        "deadline",
        "ONCALL_TUI_DEADLINE",
        "deadline",
        ("300.0", "400", "500"),
        (DEFAULT_DEADLINE, 300.0, 400.0, 500.0),
    ),
    Case(
        "ollama_url",
        "ollama_url",
        "OLLAMA_HOST",
        "ollama_url",
        ('"10.0.0.1"', "10.0.0.2:9999", "http://10.0.0.3"),
        (DEFAULT_OLLAMA_URL, "http://10.0.0.1:11434", "http://10.0.0.2:9999", "http://10.0.0.3:80"),
    ),
    Case(
        "lang",
        "lang",
        "ONCALL_TUI_LANG",
        "lang",
        ('"zh"', "en", "zh"),
        ("en", "zh", "en", "zh"),
    ),
    Case(
        "log_level",
        "log_level",
        "ONCALL_TUI_LOG_LEVEL",
        "log_level",
        ('"debug"', "warning", "error"),
        ("info", "debug", "warning", "error"),
    ),
    Case(
        "recover_tool_calls",
        "recover_tool_calls",
        "ONCALL_TUI_RECOVER_TOOL_CALLS",
        None,
        ("false", "on", ""),
        (True, False, True, None),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[case.key for case in CASES])
def test_a_flag_beats_the_environment_which_beats_the_file_which_beats_the_default(
    case: Case, tmp_path: Path
) -> None:
    config = tmp_path / "config.toml"
    file_value, env_value, flag_value = case.values
    none, from_file, from_env, from_flag = case.expected

    def check(settings: Settings, expected: object, source: str) -> None:
        assert getattr(settings, case.attribute) == expected
        assert settings.sources[case.key] == source
        assert settings.config_problem is None

    check(resolve(config), none, "default")
    write(config, f"{case.key} = {file_value}\n")
    check(resolve(config), from_file, "file")
    environ = {case.variable: env_value}
    check(resolve(config, environ), from_env, "env")
    if case.flag is not None:
        check(resolve(config, environ, **{case.flag: flag_value}), from_flag, "flag")


def test_the_config_flag_beats_its_variable_which_beats_the_user_config_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    write(tmp_path / "xdg" / "oncall-tui" / "config.toml", 'model = "from-default-place"\n')
    write(tmp_path / "env.toml", 'model = "from-variable"\n')
    write(tmp_path / "flag.toml", 'model = "from-flag"\n')
    environ = {"ONCALL_TUI_CONFIG": str(tmp_path / "env.toml")}

    by_default = Settings.resolve(user="alice", environ={})
    by_variable = Settings.resolve(user="alice", environ=environ)
    by_flag = Settings.resolve(user="alice", config=str(tmp_path / "flag.toml"), environ=environ)

    assert (by_default.model, by_default.sources["config"]) == ("from-default-place", "default")
    assert by_default.config_path == tmp_path / "xdg" / "oncall-tui" / "config.toml"
    assert (by_variable.model, by_variable.sources["config"]) == ("from-variable", "env")
    assert (by_flag.model, by_flag.sources["config"]) == ("from-flag", "flag")


def test_a_missing_file_is_no_problem_and_is_not_created_by_reading(tmp_path: Path) -> None:
    config = tmp_path / "nowhere" / "config.toml"
    settings = resolve(config)
    assert settings.config_problem is None
    assert settings.config_path == config
    assert not config.parent.exists()


def test_a_syntax_error_names_the_file_and_line_and_the_file_gives_nothing(
    tmp_path: Path,
) -> None:
    config = write(tmp_path / "config.toml", 'model = "qwen3:8b"\n\nnum_ctx = \n')
    settings = resolve(config, num_ctx="2048")
    problem = settings.config_problem
    assert problem is not None
    assert (problem.code, problem.reason, problem.params["line"]) == (
        "CONFIG_INVALID",
        "config_syntax",
        3,
    )
    assert str(config) in problem.message("en")
    assert "line 3, column 11" in problem.message("en")
    assert "第 3 行" in problem.message("zh")
    assert settings.model == DEFAULT_MODEL  # line 1 was fine, but the file is not used at all
    assert settings.sources["model"] == "default"
    assert settings.num_ctx == 2048  # flags still apply


def test_a_syntax_error_at_the_end_of_the_file_names_its_last_line(tmp_path: Path) -> None:
    config = write(tmp_path / "config.toml", 'model = "qwen3:8b"\n[keys')
    problem = resolve(config).config_problem
    assert problem is not None
    assert problem.reason == "config_syntax"
    assert problem.params["line"] == 2


@pytest.mark.parametrize(
    ("text", "key", "kind"),
    [
        ('num_ctx = "big"', "num_ctx", "whole_number"),
        ("num_ctx = 4096.5", "num_ctx", "whole_number"),
        ("timeout = true", "timeout", "number"),
        ('recover_tool_calls = "no"', "recover_tool_calls", "boolean"),
        ("recover_tool_calls = 0", "recover_tool_calls", "boolean"),
        ("model = 3", "model", "text"),
        ("[model]\nname = 'x'", "model", "text"),
        ('keys = "ctrl+n"', "keys", "table"),
        ("[keys]\nnew_session = 1", "keys.new_session", "text"),
        ("[keys.new_session]\nkey = 'ctrl+n'", "keys.new_session", "text"),
    ],
)
def test_a_value_of_the_wrong_type_names_its_key(
    tmp_path: Path, text: str, key: str, kind: str
) -> None:
    config = write(tmp_path / "config.toml", f'theme = "nord"\n{text}\n')
    settings = resolve(config)
    problem = settings.config_problem
    assert problem is not None
    assert (problem.reason, problem.params["key"], problem.params["kind"]) == (
        "config_wrong_type",
        key,
        kind,
    )
    assert f"'{key}'" in problem.message("en")
    assert str(config) in problem.message("en")
    assert settings.theme is None
    assert settings.keymap == {}


def test_recovery_is_switched_by_words_in_the_environment_and_refuses_others(
    tmp_path: Path,
) -> None:
    config = tmp_path / "config.toml"
    for word, expected in [("off", False), ("FALSE", False), ("0", False), ("yes", True)]:
        environ = {"ONCALL_TUI_RECOVER_TOOL_CALLS": word}
        assert resolve(config, environ).recover_tool_calls is expected
    with pytest.raises(OncallError) as refused:
        resolve(config, {"ONCALL_TUI_RECOVER_TOOL_CALLS": "maybe"})
    assert "recover_tool_calls 'maybe' is not true or false" in refused.value.message("en")


@pytest.mark.parametrize(
    ("value", "used"),
    [("512", 512), ("511", None), ("1048576", 1_048_576), ("1048577", None)],
)
def test_a_window_in_the_file_meets_the_flags_bounds(
    tmp_path: Path, value: str, used: int | None
) -> None:
    settings = resolve(write(tmp_path / "config.toml", f"num_ctx = {value}\n"))
    assert settings.num_ctx == used
    if used is None:
        problem = settings.config_problem
        assert problem is not None
        assert (problem.reason, problem.params["key"]) == ("config_bad_value", "num_ctx")
        assert "'num_ctx' is refused: num_ctx must be between 512 and 1,048,576" in str(problem)
        said = problem.message("zh")  # the rule in the user's language, said once
        assert "'num_ctx' 的值无效：num_ctx 必须在 512 到 1,048,576 之间（实际 " in said, said
        assert "参数无效" not in said
    else:
        assert settings.config_problem is None


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('ollama_url = "a b"', "ollama_url"),
        ('lang = "fr"', "lang"),
        ('log_level = "loud"', "log_level"),
        ("timeout = 0", "timeout"),
        ("deadline = -1", "deadline"),
        ('model = "  "', "model"),
        ('[keys]\nnew_session = ""', "keys.new_session"),
    ],
)
def test_a_value_its_flag_would_refuse_is_the_files_problem(
    tmp_path: Path, text: str, key: str
) -> None:
    problem = resolve(write(tmp_path / "config.toml", text + "\n")).config_problem
    assert problem is not None
    assert problem.code == "CONFIG_INVALID"
    assert problem.params["key"] == key


def test_the_keys_table_maps_action_ids_to_key_strings_and_cannot_be_changed(
    tmp_path: Path,
) -> None:
    config = write(
        tmp_path / "config.toml",
        '[keys]\nnew_session = "ctrl+n"\nany_id_at_all = "f2,ctrl+r"\n',
    )
    settings = resolve(config)
    assert dict(settings.keymap) == {"new_session": "ctrl+n", "any_id_at_all": "f2,ctrl+r"}
    assert settings.sources["keys"] == "file"
    with pytest.raises(TypeError):
        settings.keymap["new_session"] = "f1"  # type: ignore[index]


def test_unknown_keys_and_tables_are_ignored_and_listed_not_a_problem(tmp_path: Path) -> None:
    config = write(
        tmp_path / "config.toml",
        'modle = "typo"\nmodel = "m"\n[[future_servers]]\nname = "files"\n',
    )
    settings = resolve(config)
    assert settings.config_problem is None
    assert settings.model == "m"
    assert settings.config_ignored == ("modle", "future_servers")


@pytest.mark.parametrize(
    ("written", "near"),
    [
        ("nmu_ctx", "num_ctx"),
        ("timout", "timeout"),
        ("Model", "model"),
        ("mcp_server", "mcp_servers"),
        ("key", "keys"),
        ("ollama", "ollama_url"),  # at the bound: difflib's ratio is 0.75
        ("ollam", None),  # one letter less: 0.67, another key
        ("future_servers", None),
        ("compact_every", None),
    ],
)
def test_an_ignored_key_near_a_setting_is_taken_for_a_slip(written: str, near: str | None) -> None:
    assert slips((written,)) == (() if near is None else ((written, near),))


def test_slips_are_warned_of_together_and_config_paths_names_every_ignored_key(
    cli: RunCli, tmp_path: Path
) -> None:
    """A slip changes nothing without a word (``nmu_ctx = 16384``: the window as before);
    a newer version's key is rightly passed over, and said only by ``config paths``."""
    config = write(
        tmp_path / "slips.toml", 'nmu_ctx = 16384\ntimout = 3\nfuture_key = 1\nmodel = "m"\n'
    )
    result = cli("--config", str(config), "prompts", "list")
    assert result.code == 0
    assert "On-call assistant" in result.out
    (warning,) = result.err.splitlines()
    assert warning == (
        f"oncall-tui: warning: Ignored in the settings file {config}, as no setting has the "
        "name: nmu_ctx (num_ctx?), timout (timeout?). The rest of the file applies."
    )
    as_json = cli("--config", str(config), "--lang", "zh", "prompts", "list", "--json")
    (line,) = as_json.err.splitlines()
    said = json.loads(line)["warning"]
    assert said["code"] == "CONFIG_KEY_IGNORED"
    assert "nmu_ctx (num_ctx?), timout (timeout?)" in said["message"]
    assert "被忽略" in said["message"]
    paths = cli("--config", str(config), "config", "paths")
    assert (
        "Ignored in the settings file: nmu_ctx (num_ctx?), timout (timeout?), future_key"
        in paths.out
    )
    only_new = write(tmp_path / "newer.toml", "future_key = 1\n")
    assert cli("--config", str(only_new), "prompts", "list").err == ""


@pytest.mark.parametrize(("extra", "too_large"), [(0, False), (1, True)])
def test_a_file_is_read_up_to_its_limit_and_not_one_byte_more(
    tmp_path: Path, extra: int, too_large: bool
) -> None:
    head = 'model = "m"\n#'
    text = head + "x" * (MAX_CONFIG_BYTES - len(head) - 1) + "\n" + " " * extra
    config = write(tmp_path / "config.toml", text)
    assert config.stat().st_size == MAX_CONFIG_BYTES + extra
    settings = resolve(config)
    problem = settings.config_problem
    assert (problem is not None and problem.reason == "config_too_large") is too_large
    assert settings.model == (DEFAULT_MODEL if too_large else "m")


def test_a_file_that_is_not_utf8_or_not_a_file_is_a_problem(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_bytes(b'model = "\xff"\n')
    problem = read_config(config).problem
    assert problem is not None
    assert problem.reason == "config_not_utf8"
    problem = resolve(tmp_path).config_problem  # a directory
    assert problem is not None
    assert problem.reason == "config_not_regular"


# -- the CLI ----------------------------------------------------------------------------------


def test_the_cli_warns_once_on_stderr_and_the_command_still_works(
    cli: RunCli, tmp_path: Path
) -> None:
    config = write(tmp_path / "bad.toml", "model = \n")
    result = cli("--config", str(config), "prompts", "list")
    assert result.code == 0
    assert "On-call assistant" in result.out
    assert result.err.count("warning") == 1
    assert f"The settings file {config} was not used" in result.err
    assert "line 1" in result.err

    as_json = cli("--config", str(config), "prompts", "list", "--json")
    assert as_json.code == 0
    assert isinstance(as_json.json_list(), list)
    (line,) = as_json.err.splitlines()
    assert json.loads(line)["warning"]["code"] == "CONFIG_INVALID"


def test_a_good_file_prints_no_warning(cli: RunCli, private_config: Path) -> None:
    write(private_config, 'model = "qwen3:8b"\n')
    result = cli("prompts", "list")
    assert (result.code, result.err) == (0, "")


def test_config_paths_lists_the_files_and_each_setting_with_its_source(
    cli: RunCli, private_config: Path, db_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(
        private_config,
        '# mine\nmodel = "qwen3:8b"\nextra = 1\nrecover_tool_calls = false\n'
        '[keys]\nnew_session = "f2"\n',
    )
    monkeypatch.setenv("ONCALL_TUI_TIMEOUT", "45")
    document = cli("--num-ctx", "4096", "config", "paths", "--json").json_object()
    assert document["config_file"] == {
        "path": str(private_config),
        "exists": True,
        "source": "env",
    }
    assert document["db_file"] == {"path": str(db_path), "exists": False, "source": "flag"}
    assert set(document["log_file"]) == {"path", "exists", "source"}
    settings = document["settings"]
    assert settings["user"] == {"value": "alice", "source": "flag"}
    assert settings["model"] == {"value": "qwen3:8b", "source": "file"}
    assert settings["num_ctx"] == {"value": 4096, "source": "flag"}
    assert settings["timeout"] == {"value": 45.0, "source": "env"}
    assert settings["deadline"] == {"value": DEFAULT_DEADLINE, "source": "default"}
    assert settings["keys"] == {"value": {"new_session": "f2"}, "source": "file"}
    assert settings["recover_tool_calls"] == {"value": False, "source": "file"}  # was left out
    assert set(settings) == {
        "user",
        "lang",
        "ollama_url",
        "provider",
        "base_url",
        "model",
        "theme",
        "num_ctx",
        "timeout",
        "deadline",
        "log_level",
        "recover_tool_calls",
        "keys",
    }
    assert (document["ignored_keys"], document["problem"]) == (["extra"], None)
    assert not db_path.exists()  # it reads no data

    human = cli("config", "paths")
    assert human.code == 0
    lines = human.out.splitlines()
    assert lines[0].split() == ["Config", "file", str(private_config), "(env)"]
    assert any(line.split() == ["model", "qwen3:8b", "file"] for line in lines)
    assert any(line.split() == ["timeout", "45.0", "env"] for line in lines)
    assert any(line.split() == ["recover_tool_calls", "false", "file"] for line in lines)
    assert "Ignored in the settings file: extra" in human.out


def test_config_paths_shows_a_file_not_created_yet_and_a_files_problem(
    cli: RunCli, tmp_path: Path
) -> None:
    missing = cli("--config", str(tmp_path / "new.toml"), "config", "paths")
    assert "(flag, not created yet)" in missing.out.splitlines()[0]
    config = write(tmp_path / "bad.toml", "num_ctx = 1\n")
    document = cli("--config", str(config), "config", "paths", "--json").json_object()
    assert document["problem"]["reason"] == "config_bad_value"
    assert document["settings"]["num_ctx"] == {"value": None, "source": "default"}


# -- writing ----------------------------------------------------------------------------------


def services_for(config: Path, built: list[Services], tmp_path: Path) -> Services:
    settings = Settings.resolve(
        db=str(tmp_path / "data" / "t.db"), user="alice", config=str(config), environ={}
    )
    services = Services(settings)
    built.append(services)
    return services


def test_choosing_a_model_creates_a_private_file_that_the_next_start_reads(
    tmp_path: Path, built: list[Services]
) -> None:
    config = tmp_path / "cfg" / "deeper" / "config.toml"
    services = services_for(config, built, tmp_path)
    services.use_model("qwen3:8b")
    assert services.settings.model == "qwen3:8b"
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert stat.S_IMODE(config.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(config.parent.parent.stat().st_mode) == 0o700
    assert tomllib.loads(config.read_text(encoding="utf-8")) == {"model": "qwen3:8b"}
    again = resolve(config)
    assert (again.model, again.sources["model"]) == ("qwen3:8b", "file")


def test_a_write_keeps_comments_unknown_tables_and_other_keys(
    tmp_path: Path, built: list[Services]
) -> None:
    original = (
        "# my settings\n"
        'model = "llama3.1:8b"  # the small one\n'
        "num_ctx = 8192\n"
        "\n"
        "[keys]\n"
        'new_session = "ctrl+n"\n'
        "\n"
        "[[mcp_servers]]\n"
        'name = "files"  # keep me\n'
        'command = "mcp-files"\n'
        'args = ["--root", "/srv"]\n'
        'allow = ["read_file"]\n'
    )
    config = write(tmp_path / "config.toml", original)
    config.chmod(0o644)
    services = services_for(config, built, tmp_path)
    services.use_model("qwen3:8b")
    services.save_preference("theme", "nord")
    text = config.read_text(encoding="utf-8")
    assert text == original.replace(
        '"llama3.1:8b"  # the small one\n', '"qwen3:8b"  # the small one\n'
    ).replace("num_ctx = 8192\n", 'num_ctx = 8192\ntheme = "nord"\n')
    assert stat.S_IMODE(config.stat().st_mode) == 0o600
    assert services.settings.theme == "nord"

    services.save_preference("theme", None)
    assert "theme" not in config.read_text(encoding="utf-8")
    assert "# keep me" in config.read_text(encoding="utf-8")
    after_removal: Settings = services.settings
    assert after_removal.theme is None
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp left


def test_a_number_is_kept_as_a_toml_number(tmp_path: Path, built: list[Services]) -> None:
    config = tmp_path / "config.toml"
    services = services_for(config, built, tmp_path)
    services.save_preference("num_ctx", "4096")
    services.save_preference("timeout", 30)
    assert tomllib.loads(config.read_text(encoding="utf-8")) == {"num_ctx": 4096, "timeout": 30.0}
    assert (services.settings.num_ctx, services.settings.request_timeout) == (4096, 30.0)


@pytest.mark.parametrize(
    ("name", "value", "reason"),
    [
        ("num_ctx", 511, "setting_num_ctx_range"),
        ("num_ctx", 1_048_577, "setting_num_ctx_range"),
        ("theme", "  ", "config_empty"),
        ("ollama_url", "a b", "bad_ollama_address"),
        ("colour", "blue", "config_unknown_setting"),
    ],
)
def test_a_refused_value_changes_neither_the_file_nor_the_settings(
    tmp_path: Path, built: list[Services], name: str, value: str | int, reason: str
) -> None:
    config = write(tmp_path / "config.toml", "# mine\nnum_ctx = 4096\n")
    services = services_for(config, built, tmp_path)
    before = services.settings
    with pytest.raises(OncallError) as refused:
        services.save_preference(name, value)
    assert (refused.value.code, refused.value.reason) == ("VALIDATION_INVALID_ARGUMENT", reason)
    assert config.read_text(encoding="utf-8") == "# mine\nnum_ctx = 4096\n"
    assert services.settings is before


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('model = "m"\ntheme = \n', "config_syntax"),
        ("[model]\nname = 'x'\n", "config_wrong_type"),
    ],
)
def test_a_file_that_cannot_be_read_back_is_never_overwritten(
    tmp_path: Path, built: list[Services], text: str, reason: str
) -> None:
    config = write(tmp_path / "config.toml", text)
    services = services_for(config, built, tmp_path)
    with pytest.raises(OncallError) as refused:
        services.use_model("qwen3:8b")
    error = refused.value
    assert (error.code, error.reason) == ("CONFIG_NOT_SAVED", reason)
    assert error.message("en").startswith(f"The model setting was not saved in {config}: ")
    assert error.message("en").endswith("The file is unchanged.")
    assert config.read_text(encoding="utf-8") == text
    assert services.settings.model == DEFAULT_MODEL


def test_a_file_that_cannot_be_written_raises_and_changes_nothing(
    tmp_path: Path, built: list[Services]
) -> None:
    blocker = write(tmp_path / "not-a-directory", "")
    services = services_for(blocker / "config.toml", built, tmp_path)
    with pytest.raises(OncallError) as refused:
        services.use_model("qwen3:8b")
    assert (refused.value.code, refused.value.reason) == ("CONFIG_NOT_SAVED", "config_unwritable")
    assert services.settings.model == DEFAULT_MODEL
    assert blocker.read_text(encoding="utf-8") == ""


def test_a_linked_file_stays_a_link_and_its_target_is_written(
    tmp_path: Path, built: list[Services]
) -> None:
    target = write(tmp_path / "dotfiles" / "oncall.toml", "# kept in dotfiles\n")
    link = tmp_path / "cfg" / "config.toml"
    link.parent.mkdir()
    link.symlink_to(target)
    services_for(link, built, tmp_path).use_model("qwen3:8b")
    assert link.is_symlink()
    assert target.read_text(encoding="utf-8") == '# kept in dotfiles\nmodel = "qwen3:8b"\n'


def test_settings_without_a_file_change_in_memory_only(
    tmp_path: Path, built: list[Services]
) -> None:
    services = Services(Settings(db_path=tmp_path / "t.db", user="alice"))
    built.append(services)
    services.use_model("qwen3:8b")
    services.save_preference("theme", "nord")
    assert (services.settings.model, services.settings.theme) == ("qwen3:8b", "nord")
    assert list(tmp_path.iterdir()) == []
