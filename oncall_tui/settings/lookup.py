"""Where :meth:`oncall_tui.settings.Settings.resolve` finds each setting: the flag, then the
environment variable, then the settings file, then the platform's default; and who the user is
when nothing says so."""

from __future__ import annotations

import getpass
import os
import pwd
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Literal, TypedDict

from platformdirs import user_config_path, user_data_path, user_log_path

from oncall_tui.errors import DetailOf, OncallError
from oncall_tui.inputs import require_utf8
from oncall_tui.settings.file import ConfigFile, FileValue, read_config
from oncall_tui.settings.mcp import McpServer, expand_servers
from oncall_tui.settings.values import (
    DEFAULT_DEADLINE,
    DEFAULT_MODEL,
    normalize_base_url,
    normalize_ollama_url,
    parse_log_level,
    parse_num_ctx,
    parse_provider,
    parse_request_timeout,
    parse_seconds,
    parse_switch,
    seconds_value,
    to_file_value,
    whole_number,
)

APP_NAME = "oncall-tui"
API_KEY_ENV = "OPENAI_API_KEY"
"""The OpenAI-compatible server's key, when it wants one: from the environment only, never an
option (a process list shows options) nor the settings file."""

Source = Literal["flag", "env", "file", "default"]


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _file_value_problem(path: Path, key: str, refused: OncallError) -> OncallError:
    """A file value its flag's rule refused, as the file's problem naming the key."""
    return OncallError(
        "CONFIG_INVALID", "config_bad_value", path=str(path), key=key, problem=DetailOf(refused)
    )


def default_db_path() -> Path:
    return user_data_path(APP_NAME, appauthor=False) / "oncall.db"


def default_config_path() -> Path:
    """Where the settings file is looked for unless ``--config`` or ``ONCALL_TUI_CONFIG``
    says otherwise: ``config.toml`` in the platform's user config directory."""
    return user_config_path(APP_NAME, appauthor=False) / "config.toml"


def default_config_value() -> str:
    return require_utf8(str(default_config_path()), "XDG_CONFIG_HOME or HOME")


def default_log_path() -> Path:
    return user_log_path(APP_NAME, appauthor=False) / "oncall-tui.log"


def default_log_value() -> str:
    return require_utf8(str(default_log_path()), "XDG_STATE_HOME or HOME")


def default_db_value() -> str:
    return require_utf8(str(default_db_path()), "XDG_DATA_HOME or HOME")


def os_login(env: Mapping[str, str]) -> str:
    """The login name, as ``getpass.getuser`` finds it: the first of its variables that is
    set (read through ``env``, so a value that is not UTF-8 is refused by its name), else
    the password database."""
    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        value = env.get(name)
        if value:
            return value
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "user"


def uid_login() -> str | None:
    """The login name of the process's real user id: what no variable can change."""
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except (KeyError, OSError):
        return None


class Lookup:
    """Where :meth:`Settings.resolve` finds each setting: the flag, then the environment
    variable, then the settings file; :attr:`sources` records which one gave it."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.env = env
        self.sources: dict[str, Source] = {}
        self.file_values: dict[str, FileValue] = {}

    def given(self, name: str, flag: object, variable: str) -> object:
        """The flag if given, else the environment variable if set, else ``None``."""
        if flag is not None and flag != "":
            self.sources[name] = "flag"
            return flag
        value = self.env.get(variable)
        if value:
            self.sources[name] = "env"
            return value
        self.sources[name] = "default"
        return None

    def setting(self, name: str, flag: object, variable: str) -> object:
        """:meth:`given`, else the settings file's value if it has one, else ``None``."""
        value = self.given(name, flag, variable)
        if value is None and name in self.file_values:
            self.sources[name] = "file"
            return self.file_values[name]
        return value

    def read_file(self, path: Path) -> tuple[ConfigFile, tuple[McpServer, ...], OncallError | None]:
        """The settings file, its tool servers and its problem: each value is checked by its
        flag's rule, and a file wrong anywhere gives no values, no servers and no keys."""
        read = read_config(path)
        problem = read.problem
        file_values: dict[str, FileValue] = {}
        for key, raw in read.values.items():
            try:
                file_values[key] = to_file_value(key, raw)
            except OncallError as refused:
                file_values, problem = {}, _file_value_problem(path, key, refused)
                break
        servers: tuple[McpServer, ...] = ()
        if problem is None:
            try:
                servers = expand_servers(path, read.mcp_servers, self.env)
            except OncallError as missing:
                file_values, problem = {}, missing
        self.file_values = file_values
        self.sources["keys"] = "file" if problem is None and read.has_keymap else "default"
        return read, servers, problem

    def preferences(
        self,
        *,
        ollama_url: str | None,
        provider: str | None,
        base_url: str | None,
        model: str | None,
        num_ctx: str | int | None,
        request_timeout: str | float | None,
        deadline: str | float | None,
        log_level: str | None,
    ) -> Preferences:
        """The model server, the model, its limits, the log level and the theme, by field."""
        setting = self.setting
        return {
            "ollama_url": normalize_ollama_url(
                str(setting("ollama_url", ollama_url, "OLLAMA_HOST") or "")
            ),
            "provider": parse_provider(_text(setting("provider", provider, "ONCALL_TUI_PROVIDER"))),
            "base_url": normalize_base_url(
                str(setting("base_url", base_url, "ONCALL_TUI_BASE_URL") or "")
            ),
            "api_key": self.env.get(API_KEY_ENV) or None,
            "model": str(setting("model", model, "ONCALL_TUI_MODEL") or DEFAULT_MODEL).strip(),
            "num_ctx": parse_num_ctx(
                whole_number(setting("num_ctx", num_ctx, "ONCALL_TUI_NUM_CTX"))
            ),
            "request_timeout": parse_request_timeout(
                seconds_value(setting("timeout", request_timeout, "ONCALL_TUI_TIMEOUT"))
            ),
            "deadline": parse_seconds(
                seconds_value(setting("deadline", deadline, "ONCALL_TUI_DEADLINE")),
                "deadline",
                DEFAULT_DEADLINE,
            ),
            "recover_tool_calls": parse_switch(
                setting("recover_tool_calls", None, "ONCALL_TUI_RECOVER_TOOL_CALLS"),
                "recover_tool_calls",
            ),
            "log_level": parse_log_level(
                _text(setting("log_level", log_level, "ONCALL_TUI_LOG_LEVEL"))
            ),
            "theme": _text(setting("theme", None, "ONCALL_TUI_THEME")),
        }


class Preferences(TypedDict):
    """:meth:`Lookup.preferences`, typed as the :class:`Settings` fields they become."""

    ollama_url: str
    provider: str
    base_url: str
    api_key: str | None
    model: str
    num_ctx: int | None
    request_timeout: float
    deadline: float
    recover_tool_calls: bool
    log_level: str
    theme: str | None


class Utf8Environ(Mapping[str, str]):
    """The environment as the settings read it: a variable whose value is not UTF-8 (Python
    hands such bytes over as surrogates, which SQLite and the terminal refuse) is refused by
    name as soon as it is read, instead of failing later with a traceback."""

    def __init__(self, environ: Mapping[str, str]) -> None:
        self._environ = environ

    def __getitem__(self, name: str) -> str:
        return require_utf8(self._environ[name], name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._environ)

    def __len__(self) -> int:
        return len(self._environ)
