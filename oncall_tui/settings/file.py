"""The settings file: a TOML file of preferences, read at start and changed one key at a time.

Never required: a missing file is an empty one, and is created by the first change. Reading
never raises: what is wrong with the file (not TOML, a value of the wrong type, unreadable,
too large) comes back as a ``CONFIG_INVALID`` problem naming the file and the line or the key,
and the caller uses none of the file. Top-level keys this version does not know are ignored
and listed (a newer version's keys must not stop an older one); ``[[mcp_servers]]`` tables are
checked by :mod:`oncall_tui.settings.mcp`.

Writing changes one key and keeps the rest of the file as it was, comments and unknown tables
included (``tomlkit``). It is atomic (a private temporary file in the
same directory, then ``os.replace``), creates the directory 0700 and the file 0600, and
refuses, changing nothing, a file it could not read back: the user would lose it. A link to
the file (dotfiles kept elsewhere) stays a link: its target is written.

The shapes are checked here; what a value means (a window in range, an address) is the
settings' rule. Standard library, the catalog and :mod:`oncall_tui.private_files` only:
every start reads this, and the TUI's start-up path stays light (``tomllib`` is imported
only when there is a file, ``tempfile`` and ``tomlkit`` only by a write).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time
from pathlib import Path
from types import MappingProxyType

from oncall_tui.errors import OncallError
from oncall_tui.inputs import read_file, unreadable
from oncall_tui.private_files import make_private_directories, write_privately
from oncall_tui.settings.mcp import TABLE as MCP_TABLE
from oncall_tui.settings.mcp import McpServer, parse_servers

MAX_CONFIG_BYTES = 262_144
"""A settings file past this is not read (nor written): preferences and a few server tables
are a few kilobytes."""
KEYS_TABLE = "keys"
"""The table of key bindings: action id -> key string, e.g. ``new_session = "ctrl+n"``."""
FILE_KEYS: Mapping[str, str] = MappingProxyType(
    {
        "model": "text",
        "theme": "text",
        "ollama_url": "text",
        "lang": "text",
        "provider": "text",
        "base_url": "text",
        "log_level": "text",
        "num_ctx": "whole_number",
        "timeout": "number",
        "deadline": "number",
        "recover_tool_calls": "boolean",
    }
)
"""The top-level keys the file keeps, and the kind of TOML value each must be."""

FileValue = str | int | float
EMPTY: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """What a settings file holds, its shapes checked. With a ``problem``, nothing else is
    filled: a file that is wrong anywhere is not used at all."""

    path: Path
    exists: bool
    values: Mapping[str, FileValue] = field(default_factory=lambda: MappingProxyType({}))
    # (A mapping proxy cannot be a plain default: dataclasses refuse what cannot be hashed.)
    """The known top-level keys that are set, as TOML gave them."""
    keymap: Mapping[str, str] = field(default_factory=lambda: EMPTY)
    """The ``[keys]`` table, as written (action ids are the TUI's to check)."""
    has_keymap: bool = False
    mcp_servers: tuple[McpServer, ...] = ()
    """The ``[[mcp_servers]]`` tables, checked, ``${NAME}`` not yet expanded."""
    ignored: tuple[str, ...] = ()
    """Top-level keys and tables this version does not know, in file order."""
    problem: OncallError | None = None


def read_config(path: Path) -> ConfigFile:
    """The file at ``path``, or what is wrong with it; a missing file is an empty one."""
    try:
        text = _load(path)
        if text is None:
            return ConfigFile(path, exists=False)
        document = _parse(path, text)
        values, keymap, servers, ignored = _shapes(path, document)
    except OncallError as problem:
        return ConfigFile(path, exists=True, problem=problem)
    return ConfigFile(
        path,
        exists=True,
        values=MappingProxyType(values),
        keymap=MappingProxyType(keymap),
        has_keymap=KEYS_TABLE in document,
        mcp_servers=servers,
        ignored=ignored,
    )


SLIP_SIMILARITY = 0.75
"""How alike (``difflib``'s ratio) an ignored key and a known one must be for the first to be
read as a slip of the second: ``nmu_ctx``, ``timout``, ``Model``, ``mcp_server``."""


def slips(ignored: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    """Each ignored key that looks like a slip of a key this version reads, with that key. A
    slip changes nothing without a word, where a newer version's key is rightly passed over;
    so a slip is said at every start, and other ignored keys only where the file is shown."""
    if not ignored:
        return ()
    import difflib  # only for a file that has a key it does not know

    known = [*FILE_KEYS, KEYS_TABLE, MCP_TABLE]
    found: list[tuple[str, str]] = []
    for key in ignored:
        near = difflib.get_close_matches(key.lower(), known, n=1, cutoff=SLIP_SIMILARITY)
        if near:
            found.append((key, near[0]))
    return tuple(found)


def write_setting(path: Path, name: str, value: FileValue | None) -> None:
    """Set the top-level ``name`` to ``value`` in the file at ``path`` (``None`` removes it),
    keeping everything else; the file and its directory are created by the first change.

    Raises ``CONFIG_NOT_SAVED`` (naming the setting, the file and why) and changes nothing
    when the file cannot be read back as it is or cannot be written."""
    target = Path(os.path.realpath(path))  # a link stays a link: its target is replaced
    try:
        text = _load(target)
        if text is not None:
            _shapes(path, _parse(path, text))
    except OncallError as problem:
        raise _not_saved(problem, name) from None
    import tomlkit
    from tomlkit.exceptions import ParseError

    try:
        document = tomlkit.parse(text) if text is not None else tomlkit.document()
    except ParseError as exc:  # tomllib read it, but the editor cannot keep it
        raise _not_saved(_syntax(path, exc.line, exc.col, str(exc)), name) from None
    if value is None:
        if name in document:
            del document[name]
    else:
        document[name] = value
    data = tomlkit.dumps(document).encode("utf-8")
    if len(data) > MAX_CONFIG_BYTES:
        too_large = _invalid(path, "config_too_large", limit=MAX_CONFIG_BYTES)
        raise _not_saved(too_large, name)
    try:
        _replace_atomically(target, data)
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise OncallError(
            "CONFIG_NOT_SAVED",
            "config_unwritable",
            setting=name,
            path=str(path),
            problem=reason.lower(),
        ) from None


def _replace_atomically(target: Path, data: bytes) -> None:
    make_private_directories(target.parent)
    write_privately(target, data, prefix=f".{target.name}.")


def _not_saved(problem: OncallError, name: str) -> OncallError:
    return OncallError("CONFIG_NOT_SAVED", problem.reason, setting=name, **problem.params)


def _load(path: Path) -> str | None:
    """The file's text, ``None`` when there is no file; ``CONFIG_INVALID`` for one that is
    not a readable regular file of UTF-8 within :data:`MAX_CONFIG_BYTES`."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ENOTDIR:  # a parent is a file: there is no such file
            return None
        raise _invalid(path, "config_unreadable", problem=_problem(path, exc)) from None
    except ValueError:  # a NUL in the path
        raise _invalid(path, "config_unreadable", problem="no such file") from None
    if not stat.S_ISREG(mode):
        raise _invalid(path, "config_not_regular")
    try:
        read = read_file(path, MAX_CONFIG_BYTES)
    except OncallError as exc:  # replaced by something else, or unreadable, since the stat
        if exc.reason == "not_regular_file":
            raise _invalid(path, "config_not_regular") from None
        raise _invalid(path, "config_unreadable", problem=exc.params.get("problem")) from None
    if read.too_large:
        raise _invalid(path, "config_too_large", limit=MAX_CONFIG_BYTES)
    try:
        return read.data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _invalid(path, "config_not_utf8", position=exc.start) from None


def _problem(path: Path, exc: OSError) -> object:
    return unreadable(path, exc).params.get("problem")


_TOMLLIB_WHERE = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


def _parse(path: Path, text: str) -> dict[str, object]:
    import tomllib  # only when there is a file: most starts have none

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        where = _TOMLLIB_WHERE.search(message)
        if where is not None:
            line, column = int(where[1]), int(where[2])
            message = message[: where.start()]
        else:  # "(at end of document)": the last line, past its end
            lines = text.split("\n")
            line, column = len(lines), len(lines[-1]) + 1
            message = message.replace(" (at end of document)", "")
        raise _syntax(path, line, column, message) from None


def _syntax(path: Path, line: int, column: int, message: str) -> OncallError:
    problem = message.rstrip(".").split(" at line ", 1)[0]  # tomlkit says where, in English
    return _invalid(path, "config_syntax", line=line, column=column, problem=problem)


def _shapes(
    path: Path, document: Mapping[str, object]
) -> tuple[dict[str, FileValue], dict[str, str], tuple[McpServer, ...], tuple[str, ...]]:
    values: dict[str, FileValue] = {}
    servers: tuple[McpServer, ...] = ()
    keymap: dict[str, str] = {}
    ignored: list[str] = []
    for key, value in document.items():
        if key == KEYS_TABLE:
            if not isinstance(value, dict):
                raise _wrong_type(path, key, "table", value)
            keymap = _keymap(path, value)
        elif key in FILE_KEYS:
            values[key] = _value(path, key, FILE_KEYS[key], value)
        elif key == MCP_TABLE:
            servers = parse_servers(path, value)
        else:
            ignored.append(key)
    return values, keymap, servers, tuple(ignored)


def _value(path: Path, key: str, kind: str, value: object) -> FileValue:
    if kind == "boolean" and isinstance(value, bool):
        return value
    if isinstance(value, bool):  # TOML's true and false: never a number here
        raise _wrong_type(path, key, kind, value)
    if kind == "text" and isinstance(value, str):
        if not value.strip():
            raise _invalid(path, "config_empty", key=key)
        return value
    if kind == "whole_number" and isinstance(value, int):
        return value
    if kind == "number" and isinstance(value, int | float):
        return value
    raise _wrong_type(path, key, kind, value)


def _keymap(path: Path, table: Mapping[str, object]) -> dict[str, str]:
    keymap: dict[str, str] = {}
    for action, keys in table.items():
        name = f"{KEYS_TABLE}.{action}"
        if not isinstance(keys, str):
            raise _wrong_type(path, name, "text", keys)
        if not keys.strip():
            raise _invalid(path, "config_empty", key=name)
        keymap[action] = keys
    return keymap


def _wrong_type(path: Path, key: str, kind: str, value: object) -> OncallError:
    return _invalid(path, "config_wrong_type", key=key, kind=kind, got=_toml_type(value))


def _toml_type(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    for kind, name in (
        (int, "integer"),
        (float, "float"),
        (str, "string"),
        (dict, "table"),
        (list, "array"),
        (datetime | date | time, "date-time"),
    ):
        if isinstance(value, kind):
            return name
    return type(value).__name__


def _invalid(path: Path, reason: str, **params: object) -> OncallError:
    return OncallError("CONFIG_INVALID", reason, path=str(path), **params)
