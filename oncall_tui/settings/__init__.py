"""Settings: where data lives, who the user is, which Ollama and model to use, and the
preferences of the settings file.

Precedence, per setting: command-line option, then environment variable, then the settings
file (:mod:`oncall_tui.settings.file`), then the default; :attr:`Settings.sources` records
which one gave each. A bad option or variable is refused (``VALIDATION_INVALID_ARGUMENT``);
a settings file that is wrong anywhere is not used at all, and the reason, naming the file
and the line or key, is kept in :attr:`Settings.config_problem` for the clients to show:
the app starts all the same. The object is built once by the entry point and passed down
explicitly.
"""

from __future__ import annotations

import getpass
import os
import pwd
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, TypedDict

from platformdirs import user_config_path, user_data_path, user_log_path

from oncall_tui.errors import Language, OncallError, resolve_language
from oncall_tui.inputs import require_utf8
from oncall_tui.redaction import register_secret
from oncall_tui.settings.file import EMPTY, FILE_KEYS, ConfigFile, FileValue, read_config
from oncall_tui.settings.mcp import McpServer, expand_servers, secret_values
from oncall_tui.settings.values import (
    DEFAULT_BASE_URL,
    DEFAULT_DEADLINE,
    DEFAULT_LOG_LEVEL,
    DEFAULT_MODEL,
    DEFAULT_OLLAMA_URL,
    DEFAULT_PROVIDER,
    DEFAULT_REQUEST_TIMEOUT,
    DEFAULTS,
    LOG_LEVELS,
    NUM_CTX_MAX,
    NUM_CTX_MIN,
    PARSERS,
    PROVIDERS,
    normalize_base_url,
    normalize_ollama_url,
    parse_database,
    parse_lang,
    parse_log_level,
    parse_num_ctx,
    parse_provider,
    parse_request_timeout,
    parse_seconds,
    parse_switch,
    seconds_value,
    to_file_value,
    url_passwords,
    whole_number,
)

APP_NAME = "oncall-tui"
CONFIG_ENV = "ONCALL_TUI_CONFIG"
API_KEY_ENV = "OPENAI_API_KEY"
"""The OpenAI-compatible server's key, when it wants one: from the environment only, never an
option (a process list shows options) nor the settings file."""
PG_PASSWORD_ENV = "PGPASSWORD"
"""libpq's password variable: the app never reads it for itself, but redacts it all the same."""

Source = Literal["flag", "env", "file", "default"]
NO_SOURCES: Mapping[str, Source] = MappingProxyType({})
PREFERENCE_FIELDS: Mapping[str, str] = MappingProxyType(
    {name: "request_timeout" if name == "timeout" else name for name in FILE_KEYS}
)
"""The settings file's keys and the :class:`Settings` field each sets."""


@dataclass(frozen=True, slots=True)
class Settings:
    db_path: Path
    """The SQLite file, unless :attr:`db_url` names a server."""
    user: str
    db_url: str | None = None
    """A PostgreSQL URL (``--db postgresql://...``): the store is that database, shared by a
    team, and :attr:`db_path` is not used."""
    login: str | None = None
    """The operating system's login of the process (from its uid, not the environment): on a
    shared database, :attr:`user` must be it unless the database's policy allows another."""
    lang: Language = "en"
    ollama_url: str = DEFAULT_OLLAMA_URL
    provider: str = DEFAULT_PROVIDER
    """Who serves the model: ``ollama`` (its own API at :attr:`ollama_url`) or ``openai`` (the
    OpenAI chat-completions API at :attr:`base_url`)."""
    base_url: str = DEFAULT_BASE_URL
    """The OpenAI-compatible server's base URL (``http://gpu-box:8080/v1``)."""
    api_key: str | None = field(default=None, repr=False, compare=False)
    """``OPENAI_API_KEY``, sent as ``Authorization: Bearer`` to that server; never shown,
    logged nor written to the settings file."""
    model: str = DEFAULT_MODEL
    num_ctx: int | None = None
    """Context window forced by the user; ``None`` means discover it from Ollama."""
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    """Seconds without data from Ollama before a model call fails instead of hanging."""
    deadline: float = DEFAULT_DEADLINE
    """Seconds a whole model call may take: a server that trickles still ends."""
    recover_tool_calls: bool = True
    """Tool calls a model writes as text are read from its reply and made
    (:mod:`oncall_tui.llm.recovery`); the settings file's ``recover_tool_calls = false`` stops
    it."""
    log_path: Path | None = None
    """Where the log goes; ``None`` (tests, benches) logs nowhere."""
    spool_dir: Path | None = None
    """Where replies the database did not take wait for it (:mod:`oncall_tui.services.spool`):
    the platform's user data directory; ``None`` (tests, benches) holds them in memory only."""
    log_level: str = DEFAULT_LOG_LEVEL
    theme: str | None = None
    """The TUI's theme by name; ``None`` is the app's own. The TUI checks the name."""
    keymap: Mapping[str, str] = field(default_factory=lambda: EMPTY, hash=False)
    """The settings file's ``[keys]`` table: action id -> key string(s). The TUI checks the
    ids and keys; here only the shape (string -> non-empty string) is checked."""
    mcp_servers: tuple[McpServer, ...] = ()
    """The tool servers the settings file registers (``[[mcp_servers]]``), ``${NAME}``
    expanded; none when the file has a problem."""
    config_path: Path | None = None
    """The settings file, which may not exist yet; ``None`` (tests, benches) keeps nothing."""
    config_ignored: tuple[str, ...] = ()
    """Top-level keys of the settings file this version does not know (ignored)."""
    config_problem: OncallError | None = field(default=None, compare=False)
    """Why the settings file was not used, or ``None``; the app runs on without it."""
    sources: Mapping[str, Source] = field(default_factory=lambda: NO_SOURCES, hash=False)
    """Where each setting came from at start: ``flag``, ``env``, ``file`` or ``default``,
    by name (``config``, ``db``, ``user``, ``log_file`` and the settings file's keys)."""

    @classmethod
    def resolve(
        cls,
        *,
        db: str | None = None,
        user: str | None = None,
        lang: str | None = None,
        ollama_url: str | None = None,
        provider: str | None = None,
        base_url: str | None = None,
        model: str | None = None,
        num_ctx: str | int | None = None,
        request_timeout: str | float | None = None,
        deadline: str | float | None = None,
        log_level: str | None = None,
        config: str | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> Settings:
        env = _Utf8Environ(os.environ if environ is None else environ)
        look = _Lookup(env)
        config_value = look.given("config", config, CONFIG_ENV)
        config_path = Path(str(config_value or _default_config_value())).expanduser()
        db_file, db_url = parse_database(str(look.given("db", db, "ONCALL_TUI_DB") or ""))
        user_value = str(look.given("user", user, "ONCALL_TUI_USER") or _os_login(env)).strip()
        if not user_value:
            raise OncallError("VALIDATION_INVALID_ARGUMENT", detail="the user name is empty")
        log_value = look.given("log_file", None, "ONCALL_TUI_LOG_FILE") or _default_log_value()
        read, servers, problem = look.read_file(config_path)
        register_secret(  # from now on, no output or log line shows them
            env.get(API_KEY_ENV),
            (os.environ if environ is None else environ).get(PG_PASSWORD_ENV),
            *url_passwords(db_url or ""),
            *(secret_values(read.mcp_servers, env) if servers else ()),
        )
        lang_value = look.setting("lang", lang, "ONCALL_TUI_LANG")
        return cls(
            db_path=Path(db_file or _default_db_value()).expanduser(),
            spool_dir=user_data_path(APP_NAME, appauthor=False) / "spool",
            user=user_value,
            db_url=db_url,
            login=_uid_login(),
            lang=parse_lang(lang_value) if lang_value else resolve_language(None, env),
            **look.preferences(
                ollama_url=ollama_url,
                provider=provider,
                base_url=base_url,
                model=model,
                num_ctx=num_ctx,
                request_timeout=request_timeout,
                deadline=deadline,
                log_level=log_level,
            ),
            log_path=Path(str(log_value)).expanduser(),
            keymap=read.keymap if problem is None else EMPTY,
            mcp_servers=servers,
            config_path=config_path,
            config_ignored=read.ignored if problem is None else (),
            config_problem=problem,
            sources=MappingProxyType(look.sources),
        )

    @property
    def server_url(self) -> str:
        """Where the model server is: Ollama's address, or the OpenAI-compatible base URL."""
        return self.base_url if self.provider == "openai" else self.ollama_url

    def with_preference(self, name: str, value: str | int | float | None) -> Settings:
        """These settings with the settings file's key ``name`` set to ``value`` (checked as
        the file's value would be); ``None`` puts the setting's default back."""
        field_name = PREFERENCE_FIELDS.get(name)
        if field_name is None:
            raise OncallError(
                "VALIDATION_INVALID_ARGUMENT",
                "config_unknown_setting",
                key=name,
                names=", ".join(PREFERENCE_FIELDS),
            )
        changes: dict[str, Any] = {
            field_name: DEFAULTS[name]
            if value is None
            else PARSERS[name](to_file_value(name, value))
        }
        return replace(self, **changes)


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _file_value_problem(path: Path, key: str, refused: OncallError) -> OncallError:
    """A file value its flag's rule refused, as the file's problem naming the key."""
    detail: object = refused.params.get("detail") if refused.reason is None else refused
    return OncallError(
        "CONFIG_INVALID", "config_bad_value", path=str(path), key=key, problem=detail
    )


def default_db_path() -> Path:
    return user_data_path(APP_NAME, appauthor=False) / "oncall.db"


def default_config_path() -> Path:
    """Where the settings file is looked for unless ``--config`` or ``ONCALL_TUI_CONFIG``
    says otherwise: ``config.toml`` in the platform's user config directory."""
    return user_config_path(APP_NAME, appauthor=False) / "config.toml"


def _default_config_value() -> str:
    return require_utf8(str(default_config_path()), "XDG_CONFIG_HOME or HOME")


def default_log_path() -> Path:
    return user_log_path(APP_NAME, appauthor=False) / "oncall-tui.log"


def _default_log_value() -> str:
    return require_utf8(str(default_log_path()), "XDG_STATE_HOME or HOME")


def _default_db_value() -> str:
    return require_utf8(str(default_db_path()), "XDG_DATA_HOME or HOME")


def _os_login(env: Mapping[str, str]) -> str:
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


def _uid_login() -> str | None:
    """The login name of the process's real user id: what no variable can change."""
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except (KeyError, OSError):
        return None


class _Lookup:
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
    ) -> _Preferences:
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


class _Preferences(TypedDict):
    """:meth:`_Lookup.preferences`, typed as the :class:`Settings` fields they become."""

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


class _Utf8Environ(Mapping[str, str]):
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


__all__ = [
    "API_KEY_ENV",
    "APP_NAME",
    "CONFIG_ENV",
    "DEFAULT_BASE_URL",
    "DEFAULT_DEADLINE",
    "DEFAULT_LOG_LEVEL",
    "DEFAULT_MODEL",
    "DEFAULT_OLLAMA_URL",
    "DEFAULT_PROVIDER",
    "DEFAULT_REQUEST_TIMEOUT",
    "LOG_LEVELS",
    "NUM_CTX_MAX",
    "NUM_CTX_MIN",
    "PREFERENCE_FIELDS",
    "PROVIDERS",
    "Settings",
    "Source",
    "default_config_path",
    "default_db_path",
    "default_log_path",
    "normalize_base_url",
    "normalize_ollama_url",
    "parse_lang",
    "parse_log_level",
    "parse_num_ctx",
    "parse_provider",
    "parse_request_timeout",
    "parse_seconds",
    "to_file_value",
]
