"""The rule each setting's value must meet, whoever gives it: a flag, an environment variable
or the settings file. Every refusal is ``VALIDATION_INVALID_ARGUMENT`` naming the value; the
settings turn one from the file into the file's problem.

Also what the settings file keeps for a key (:func:`to_file_value`): the checked value in its
TOML type, so that what is written reads back the same.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from urllib.parse import parse_qsl, unquote, urlsplit

from oncall_tui.errors import Language, OncallError
from oncall_tui.redaction import redact
from oncall_tui.settings.file import FILE_KEYS, FileValue

DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"
PROVIDERS = ("ollama", "openai")
"""Who serves the model: Ollama's own API, or any server of the OpenAI chat-completions API
(llama.cpp's ``llama-server``, vLLM, LM Studio, Ollama's ``/v1``)."""
DEFAULT_PROVIDER = "ollama"
DEFAULT_BASE_URL = "http://127.0.0.1:8080/v1"
"""Where ``llama-server`` answers by default; only the ``openai`` provider uses it."""
DEFAULT_MODEL = "llama3.1:8b"
NUM_CTX_MIN = 512
NUM_CTX_MAX = 1_048_576
DEFAULT_REQUEST_TIMEOUT = 120.0
LOG_LEVELS = ("debug", "info", "warning", "error")
DEFAULT_LOG_LEVEL = "info"
DEFAULT_DEADLINE = 600.0
"""Seconds a single model call may take in all, however steadily its data trickles in."""
DEFAULT_RECOVER_TOOL_CALLS = True
"""Tool calls a model writes as text are read from its reply (:mod:`oncall_tui.llm.recovery`)."""
_SWITCH_WORDS = {"true": True, "on": True, "yes": True, "1": True}
_SWITCH_WORDS |= {"false": False, "off": False, "no": False, "0": False}


def to_file_value(name: str, value: str | int | float) -> FileValue:
    """``value`` as the settings file keeps it for ``name``: checked by the rule of the
    setting's flag (``VALIDATION_INVALID_ARGUMENT`` if refused), in its TOML type (a window
    an integer, seconds a number, the rest trimmed strings)."""
    parsed = PARSERS[name](value)
    if parsed is None or (isinstance(value, str) and not value.strip()):
        raise OncallError("VALIDATION_INVALID_ARGUMENT", "config_empty", key=name)
    if FILE_KEYS[name] == "text":
        if not isinstance(value, str):
            raise OncallError("VALIDATION_INVALID_ARGUMENT", "setting_not_text", name=name)
        return value.strip()
    if isinstance(parsed, int | float):
        return parsed
    raise TypeError(f"the rule for {name} gave {type(parsed).__name__}")


def parse_lang(value: object) -> Language:
    text = str(value).strip().lower()
    if text not in ("en", "zh"):
        raise OncallError("VALIDATION_INVALID_ARGUMENT", "setting_lang", value=value)
    return "zh" if text == "zh" else "en"


def _parse_text(value: object) -> str | None:
    text = str(value).strip()
    return text or None


def _parse_seconds(name: str, default: float) -> Callable[[object], float]:
    return lambda value: parse_seconds(seconds_value(value), name, default)


PARSERS: Mapping[str, Callable[[object], object]] = MappingProxyType(
    {
        "model": _parse_text,
        "theme": _parse_text,
        "ollama_url": lambda value: normalize_ollama_url(str(value)),
        "lang": parse_lang,
        "provider": lambda value: parse_provider(str(value)),
        "base_url": lambda value: normalize_base_url(str(value)),
        "log_level": lambda value: parse_log_level(str(value)),
        "num_ctx": lambda value: parse_num_ctx(whole_number(value)),
        "timeout": _parse_seconds("timeout", DEFAULT_REQUEST_TIMEOUT),
        "deadline": _parse_seconds("deadline", DEFAULT_DEADLINE),
        "recover_tool_calls": lambda value: parse_switch(value, "recover_tool_calls"),
    }
)
"""Each settings-file key's rule: the same as its flag's."""


DEFAULTS: Mapping[str, object] = MappingProxyType(
    {
        "model": DEFAULT_MODEL,
        "theme": None,
        "ollama_url": DEFAULT_OLLAMA_URL,
        "lang": "en",
        "provider": DEFAULT_PROVIDER,
        "base_url": DEFAULT_BASE_URL,
        "log_level": DEFAULT_LOG_LEVEL,
        "num_ctx": None,
        "timeout": DEFAULT_REQUEST_TIMEOUT,
        "deadline": DEFAULT_DEADLINE,
        "recover_tool_calls": DEFAULT_RECOVER_TOOL_CALLS,
    }
)


def parse_switch(value: object, name: str, default: bool = True) -> bool:
    """On or off: ``true``/``false`` (TOML's, or as words: ``on``, ``off``, ``yes``, ``no``,
    ``1``, ``0``); ``None`` is ``default``."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    word = _SWITCH_WORDS.get(str(value).strip().lower())
    if word is None:
        raise OncallError("VALIDATION_INVALID_ARGUMENT", "setting_switch", name=name, value=value)
    return word


def whole_number(value: object) -> str | int | None:
    """A window as given; a float only if it is whole (4096.0), else refused by its rule."""
    if isinstance(value, float):
        return int(value) if value.is_integer() else str(value)
    if value is None or isinstance(value, str | int):
        return value
    return str(value)


def seconds_value(value: object) -> str | float | None:
    if value is None or isinstance(value, str | int | float):
        return value
    return str(value)


def parse_log_level(value: str | None) -> str:
    level = (value or DEFAULT_LOG_LEVEL).strip().lower()
    if level not in LOG_LEVELS:
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT",
            "setting_log_level",
            value=value,
            levels=", ".join(LOG_LEVELS),
        )
    return level


POSTGRES_SCHEMES = ("postgresql", "postgresql+psycopg", "postgres")
"""How a ``--db`` URL names a PostgreSQL server (psycopg 3 is the driver whichever is given)."""


def is_database_url(value: str) -> bool:
    """Whether ``--db`` names a database by URL rather than by a file's path."""
    return "://" in value


def parse_database(value: str) -> tuple[str | None, str | None]:
    """``--db`` as ``(file path, None)`` for SQLite (a path, or ``sqlite:///PATH``) or
    ``(None, url)`` for PostgreSQL (``postgresql://user@host:5432/name``);
    ``VALIDATION_INVALID_ARGUMENT`` for any other URL, named without its password."""
    if not is_database_url(value):
        return value, None
    scheme = value.split("://", 1)[0].lower()
    if scheme == "sqlite" and value.startswith("sqlite:///") and len(value) > len("sqlite:///"):
        return value[len("sqlite:///") :], None
    if scheme in POSTGRES_SCHEMES and urlsplit(value).hostname:
        return None, value
    raise OncallError(
        "VALIDATION_INVALID_ARGUMENT", "database_url_unsupported", value=masked_url(value)
    )


def masked_url(url: str) -> str:
    """``url`` without the password it may hold (``user:***@``, ``?password=***``, or any
    registered secret), for messages and logs (it need not parse)."""
    return redact(url)


def url_passwords(url: str) -> set[str]:
    """The passwords a database URL holds, for the redactor: its userinfo's (as written and
    decoded), its ``password`` query parameters (libpq takes either) and ``sslpassword``
    (the client key's)."""
    found: set[str] = set()
    with contextlib.suppress(ValueError):
        parts = urlsplit(url)
        if parts.password:
            found.update({parts.password, unquote(parts.password)})
        for name, value in parse_qsl(parts.query, keep_blank_values=False):
            if name.lower() in ("password", "sslpassword"):
                found.add(value)
    return found


def normalize_ollama_url(raw: str) -> str:
    """Accept what ``OLLAMA_HOST`` accepts: ``host``, ``host:port`` or a full URL.

    Without a scheme the port defaults to 11434 like the Ollama CLI, and a port alone
    (``:11435``) is on loopback, as the Ollama CLI reads it; a bind-all address (``0.0.0.0``)
    is reached through loopback. Surrounding spaces are trimmed. A host
    that cannot be one (``[::1`` unclosed, ``256.256.256.256``, spaces or symbols inside) is
    refused here, with the catalog's message, rather than by the HTTP client later.
    """
    value = raw.strip()
    if not value:
        return DEFAULT_OLLAMA_URL
    has_scheme = "://" in value
    if not has_scheme and value.startswith(":"):
        value = "127.0.0.1" + value
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
        raise OncallError("VALIDATION_INVALID_ARGUMENT", "setting_port", value=raw) from None
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


def parse_provider(value: str | None) -> str:
    """One of :data:`PROVIDERS` (case and surrounding spaces ignored); unset is Ollama."""
    provider = (value or DEFAULT_PROVIDER).strip().lower()
    if provider not in PROVIDERS:
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT",
            "bad_provider",
            value=value,
            names=", ".join(PROVIDERS),
        )
    return provider


def normalize_base_url(raw: str) -> str:
    """An OpenAI-compatible server's base URL, as its clients take it: a full
    ``http(s)://host[:port][/path]`` (``/v1`` usually ends it), trailing slashes dropped, a
    bind-all address reached through loopback. Unset is :data:`DEFAULT_BASE_URL`. No query,
    no fragment, no user name or password in it: a key goes in ``OPENAI_API_KEY``."""
    value = raw.strip()
    if not value:
        return DEFAULT_BASE_URL
    try:
        parts = urlsplit(value)
        host = parts.hostname
        port = parts.port
    except ValueError:  # an unclosed [IPv6] address, a port past 65535
        raise _bad_base_url(value) from None
    if (
        parts.scheme not in ("http", "https")
        or not host
        or not _valid_host(host)
        or parts.query
        or parts.fragment
        or "@" in parts.netloc
    ):
        raise _bad_base_url(value)
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    where = host if port is None else f"{host}:{port}"
    return f"{parts.scheme}://{where}{parts.path.rstrip('/')}"


def _bad_base_url(value: str) -> OncallError:
    return OncallError("VALIDATION_INVALID_ARGUMENT", "bad_base_url", value=value)


def _bad_address(value: str) -> OncallError:
    return OncallError("VALIDATION_INVALID_ARGUMENT", "bad_ollama_address", value=value)


def parse_num_ctx(value: str | int | None) -> int | None:
    if value is None or value == "":
        return None
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT", "setting_num_ctx_number", value=value
        ) from None
    if not NUM_CTX_MIN <= number <= NUM_CTX_MAX:
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT",
            "setting_num_ctx_range",
            minimum=NUM_CTX_MIN,
            maximum=NUM_CTX_MAX,
            value=f"{number:,}",
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
            "VALIDATION_INVALID_ARGUMENT", "setting_seconds_number", name=name, value=value
        ) from None
    if not 0 < seconds < float("inf"):
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT", "setting_seconds_positive", name=name, value=value
        )
    return seconds
