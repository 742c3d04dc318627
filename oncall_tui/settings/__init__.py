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

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from platformdirs import user_data_path

from oncall_tui.errors import Language, OncallError, resolve_language
from oncall_tui.redaction import register_secret
from oncall_tui.settings.file import EMPTY, FILE_KEYS, slips
from oncall_tui.settings.lookup import (
    API_KEY_ENV,
    APP_NAME,
    Lookup,
    Source,
    Utf8Environ,
    default_config_path,
    default_config_value,
    default_db_path,
    default_db_value,
    default_log_path,
    default_log_value,
    os_login,
    uid_login,
)
from oncall_tui.settings.mcp import McpServer, secret_values
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
    to_file_value,
    url_passwords,
)

CONFIG_ENV = "ONCALL_TUI_CONFIG"
PG_PASSWORD_ENV = "PGPASSWORD"
"""libpq's password variable: the app never reads it for itself, but redacts it all the same."""

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
        env = Utf8Environ(os.environ if environ is None else environ)
        look = Lookup(env)
        config_value = look.given("config", config, CONFIG_ENV)
        config_path = Path(str(config_value or default_config_value())).expanduser()
        db_file, db_url = parse_database(str(look.given("db", db, "ONCALL_TUI_DB") or ""))
        user_value = str(look.given("user", user, "ONCALL_TUI_USER") or os_login(env)).strip()
        if not user_value:
            raise OncallError("VALIDATION_INVALID_ARGUMENT", "user_empty")
        log_value = look.given("log_file", None, "ONCALL_TUI_LOG_FILE") or default_log_value()
        read, servers, problem = look.read_file(config_path)
        register_secret(  # from now on, no output or log line shows them
            env.get(API_KEY_ENV),
            (os.environ if environ is None else environ).get(PG_PASSWORD_ENV),
            *url_passwords(db_url or ""),
            *(secret_values(read.mcp_servers, env) if servers else ()),
        )
        lang_value = look.setting("lang", lang, "ONCALL_TUI_LANG")
        return cls(
            db_path=Path(db_file or default_db_value()).expanduser(),
            spool_dir=user_data_path(APP_NAME, appauthor=False) / "spool",
            user=user_value,
            db_url=db_url,
            login=uid_login(),
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
    def config_slips(self) -> OncallError | None:
        """A warning naming the ignored keys of the settings file that look like slips of
        ones it reads (``nmu_ctx (num_ctx?)``), or ``None``."""
        keys = self.ignored_said(slips_only=True)
        return (
            OncallError("CONFIG_KEY_IGNORED", path=str(self.config_path), keys=keys)
            if keys
            else None
        )

    def ignored_said(self, *, slips_only: bool = False) -> str:
        """The settings file's ignored keys, each slip with the key it is near: ``nmu_ctx
        (num_ctx?), future_key``."""
        near = dict(slips(self.config_ignored))
        return ", ".join(
            f"{key} ({near[key]}?)" if key in near else key
            for key in self.config_ignored
            if key in near or not slips_only
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
