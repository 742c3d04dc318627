"""Settings: where data lives, who the user is, which Ollama and model to use.

Precedence for every value: command-line option, then environment variable, then default.
The object is built once by the entry point and passed down explicitly.
"""

from __future__ import annotations

import getpass
import ipaddress
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from platformdirs import user_data_path, user_log_path

from oncall_tui.errors import Language, OncallError, resolve_language
from oncall_tui.inputs import require_utf8

APP_NAME = "oncall-tui"
DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"
DEFAULT_MODEL = "llama3.1:8b"
NUM_CTX_MIN = 512
NUM_CTX_MAX = 1_048_576
DEFAULT_REQUEST_TIMEOUT = 120.0
DEFAULT_MAX_REPLY_CHARS = 200_000
"""A reply past this is stopped there and stored ``truncated``: a runaway model must not fill
the database, and every later request, with one answer."""
LOG_LEVELS = ("debug", "info", "warning", "error")
DEFAULT_LOG_LEVEL = "info"
DEFAULT_DEADLINE = 600.0
"""Seconds a single model call may take in all, however steadily its data trickles in."""


@dataclass(frozen=True, slots=True)
class Settings:
    db_path: Path
    user: str
    lang: Language = "en"
    ollama_url: str = DEFAULT_OLLAMA_URL
    model: str = DEFAULT_MODEL
    num_ctx: int | None = None
    """Context window forced by the user; ``None`` means discover it from Ollama."""
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    """Seconds without data from Ollama before a model call fails instead of hanging."""
    deadline: float = DEFAULT_DEADLINE
    """Seconds a whole model call may take: a server that trickles still ends."""
    max_reply_chars: int = DEFAULT_MAX_REPLY_CHARS
    log_path: Path | None = None
    """Where the log goes; ``None`` (tests, benches) logs nowhere."""
    log_level: str = DEFAULT_LOG_LEVEL

    @classmethod
    def resolve(
        cls,
        *,
        db: str | None = None,
        user: str | None = None,
        lang: str | None = None,
        ollama_url: str | None = None,
        model: str | None = None,
        num_ctx: str | int | None = None,
        request_timeout: str | float | None = None,
        deadline: str | float | None = None,
        log_level: str | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> Settings:
        env = _Utf8Environ(os.environ if environ is None else environ)
        db_value = db or env.get("ONCALL_TUI_DB") or _default_db_value()
        user_value = (user or env.get("ONCALL_TUI_USER") or _os_login(env)).strip()
        if not user_value:
            raise OncallError("VALIDATION_INVALID_ARGUMENT", detail="the user name is empty")
        ctx_value = num_ctx if num_ctx is not None else env.get("ONCALL_TUI_NUM_CTX") or None
        timeout_value = (
            request_timeout
            if request_timeout is not None
            else env.get("ONCALL_TUI_TIMEOUT") or None
        )
        deadline_value = deadline if deadline is not None else env.get("ONCALL_TUI_DEADLINE")
        return cls(
            db_path=Path(db_value).expanduser(),
            user=user_value,
            lang=resolve_language(lang, env),
            ollama_url=normalize_ollama_url(ollama_url or env.get("OLLAMA_HOST") or ""),
            model=(model or env.get("ONCALL_TUI_MODEL") or DEFAULT_MODEL).strip(),
            num_ctx=parse_num_ctx(ctx_value),
            request_timeout=parse_request_timeout(timeout_value),
            deadline=parse_seconds(deadline_value, "deadline", DEFAULT_DEADLINE),
            log_path=Path(env.get("ONCALL_TUI_LOG_FILE") or _default_log_value()).expanduser(),
            log_level=parse_log_level(log_level or env.get("ONCALL_TUI_LOG_LEVEL")),
        )


def default_db_path() -> Path:
    return user_data_path(APP_NAME, appauthor=False) / "oncall.db"


def default_log_path() -> Path:
    return user_log_path(APP_NAME, appauthor=False) / "oncall-tui.log"


def _default_log_value() -> str:
    return require_utf8(str(default_log_path()), "XDG_STATE_HOME or HOME")


def parse_log_level(value: str | None) -> str:
    level = (value or DEFAULT_LOG_LEVEL).strip().lower()
    if level not in LOG_LEVELS:
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT",
            detail=f"log level '{value}' is not one of {', '.join(LOG_LEVELS)}",
        )
    return level


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


def normalize_ollama_url(raw: str) -> str:
    """Accept what ``OLLAMA_HOST`` accepts: ``host``, ``host:port`` or a full URL.

    Without a scheme the port defaults to 11434 like the Ollama CLI; a bind-all
    address (``0.0.0.0``) is reached through loopback. Surrounding spaces are trimmed. A host
    that cannot be one (``[::1`` unclosed, ``256.256.256.256``, spaces or symbols inside) is
    refused here, with the catalog's message, rather than by the HTTP client later.
    """
    value = raw.strip()
    if not value:
        return DEFAULT_OLLAMA_URL
    has_scheme = "://" in value
    try:
        parts = urlsplit(value if has_scheme else f"http://{value}")
        host = parts.hostname
    except ValueError:  # an unclosed or invalid [IPv6] address
        raise _bad_address(value) from None
    if parts.scheme not in ("http", "https") or not host or not _valid_host(host):
        raise _bad_address(value)
    try:
        explicit_port = parts.port
    except ValueError:
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT", detail=f"'{raw}' has an invalid port"
        ) from None
    default_port = 11434 if not has_scheme else (443 if parts.scheme == "https" else 80)
    port = explicit_port or default_port
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}:{port}{parts.path.rstrip('/')}"


_HOST_NAME = re.compile(r"[\w-]+(\.[\w-]+)*\.?")
"""A host name: letters (any script), digits, hyphens and underscores, in dotted labels."""
_NUMERIC_HOST = re.compile(r"[0-9.]+")


def _valid_host(host: str) -> bool:
    """An IPv6 address, a dotted-quad IPv4 address, or a name that is not all digits."""
    if ":" in host:
        try:
            ipaddress.IPv6Address(host.split("%", 1)[0])
        except ValueError:
            return False
        return True
    if _NUMERIC_HOST.fullmatch(host):  # digits and dots: it means an IPv4 address
        try:
            ipaddress.IPv4Address(host)
        except ValueError:
            return False
        return True
    return _HOST_NAME.fullmatch(host) is not None


def _bad_address(value: str) -> OncallError:
    return OncallError("VALIDATION_INVALID_ARGUMENT", "bad_ollama_address", value=value)


def parse_num_ctx(value: str | int | None) -> int | None:
    if value is None or value == "":
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT", detail=f"num_ctx '{value}' is not a whole number"
        ) from None
    if not NUM_CTX_MIN <= number <= NUM_CTX_MAX:
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT",
            detail=f"num_ctx must be between {NUM_CTX_MIN} and {NUM_CTX_MAX} (got {number})",
        )
    return number


def parse_request_timeout(value: str | float | None) -> float:
    """Seconds, a positive number; unset means :data:`DEFAULT_REQUEST_TIMEOUT`."""
    return parse_seconds(value, "timeout", DEFAULT_REQUEST_TIMEOUT)


def parse_seconds(value: str | float | None, name: str, default: float) -> float:
    """A positive, finite number of seconds; unset means ``default``."""
    if value is None or value == "":
        return default
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT", detail=f"{name} '{value}' is not a number of seconds"
        ) from None
    if not 0 < seconds < float("inf"):
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT", detail=f"{name} must be positive (got {value})"
        )
    return seconds
