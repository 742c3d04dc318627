"""The ``[[mcp_servers]]`` tables of the settings file: the only way a tool server comes to be.

A tool exists only because the user's settings file registers its server and names the tool
in ``allow``; nothing a model, a skill or a prompt says can add or widen one. So the entries
are checked strictly, each failure a ``CONFIG_INVALID`` naming the server and the rule:

- ``name``: unique, ``[a-z0-9_-]+`` (tools are shown as ``name.tool``);
- exactly one of ``command`` (a stdio server: ``args``, ``env``, ``cwd``) and ``url`` (a
  Streamable HTTP server: ``headers``);
- ``allow``: a non-empty list of tool names, no wildcard; ``confirm`` a subset of ``allow``;
- no other key (a misspelt ``alow`` must not silently bind nothing, or everything).

``${NAME}`` in ``args``, ``env`` and ``headers`` is taken from the environment when the
settings are resolved (:func:`expand_servers`), so secrets stay out of the file; a variable
that is not set is the file's problem, naming server and variable. Standard library and the
catalog only: this runs on every start.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType

from oncall_tui.errors import OncallError

TABLE = "mcp_servers"
"""The settings file's array of tables that registers tool servers."""

_NAME = re.compile(r"[a-z0-9_-]+")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_KEYS = frozenset({"name", "command", "args", "env", "cwd", "url", "headers", "allow", "confirm"})
_NO_TEXT: Mapping[str, str] = MappingProxyType({})


@dataclass(frozen=True, slots=True)
class McpServer:
    """One registered tool server, as the settings file declares it (checked)."""

    name: str
    command: str | None = None
    """A stdio server's program; ``None`` for a Streamable HTTP server."""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=lambda: _NO_TEXT, hash=False)
    """Added to the SDK's small default environment (``PATH``, ``HOME``, …), not to ours:
    the app's own variables do not leak into a server."""
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=lambda: _NO_TEXT, hash=False)
    allow: tuple[str, ...] = ()
    """The only tools of this server bound to the model."""
    confirm: tuple[str, ...] = ()
    """Allowed tools that ask the user before every call."""

    @property
    def transport(self) -> str:
        """``stdio`` or ``streamable_http``."""
        return "stdio" if self.command is not None else "streamable_http"

    def policy(self, tool: str) -> str | None:
        """``confirm``, ``auto`` (allowed, runs at once) or ``None`` (never bound)."""
        if tool in self.confirm:
            return "confirm"
        return "auto" if tool in self.allow else None


def parse_servers(path: Path, value: object) -> tuple[McpServer, ...]:
    """The file's ``mcp_servers`` value as checked entries, ``${NAME}`` left as written."""
    if not isinstance(value, list):
        raise _invalid(path, "config_mcp_not_array")
    servers: list[McpServer] = []
    seen: set[str] = set()
    for index, entry in enumerate(value, start=1):
        if not isinstance(entry, dict):
            raise _invalid(path, "config_mcp_not_array")
        server = _server(path, index, entry)
        if server.name in seen:
            raise _invalid(path, "config_mcp_duplicate", server=server.name)
        seen.add(server.name)
        servers.append(server)
    return tuple(servers)


def expand_servers(
    path: Path, servers: tuple[McpServer, ...], environ: Mapping[str, str]
) -> tuple[McpServer, ...]:
    """``servers`` with ``${NAME}`` in ``args``, ``env`` and ``headers`` replaced from
    ``environ``; a variable that is not set is ``CONFIG_INVALID`` naming server and variable."""
    expanded: list[McpServer] = []
    for server in servers:

        def fill(text: str, server: McpServer = server) -> str:
            def variable(match: re.Match[str]) -> str:
                value = environ.get(match[1])
                if value is None:
                    raise _invalid(
                        path, "config_mcp_variable", server=server.name, variable=match[1]
                    )
                return value

            return _VARIABLE.sub(variable, text)

        expanded.append(
            replace(
                server,
                args=tuple(fill(arg) for arg in server.args),
                env=MappingProxyType({k: fill(v) for k, v in server.env.items()}),
                headers=MappingProxyType({k: fill(v) for k, v in server.headers.items()}),
            )
        )
    return tuple(expanded)


def secret_values(servers: tuple[McpServer, ...], environ: Mapping[str, str]) -> set[str]:
    """The values ``${NAME}`` brings into ``servers``' headers, env and args (not yet
    expanded): the secrets the redactor must know (``--token=${OPS_TOKEN}`` in args was said
    whole when the server failed to start). A whole number or an absolute path (``${PORT}``,
    ``${HOME}``) is no secret, and masking it would hide ports and paths everywhere."""
    values: set[str] = set()
    for server in servers:
        for text in (*server.headers.values(), *server.env.values(), *server.args):
            for match in _VARIABLE.finditer(text):
                value = environ.get(match[1])
                if value and not value.isdigit() and not value.startswith(("/", "~")):
                    values.add(value)
    return values


def _server(path: Path, index: int, entry: Mapping[str, object]) -> McpServer:
    name = entry.get("name")
    if not isinstance(name, str) or _NAME.fullmatch(name) is None:
        shown = name if isinstance(name, str) else ""
        raise _invalid(path, "config_mcp_name", index=index, name=shown)
    for key in entry:
        if key not in _KEYS:
            raise _invalid(path, "config_mcp_unknown_key", server=name, key=key)
    command = _text(path, name, entry, "command")
    url = _text(path, name, entry, "url")
    if (command is None) == (url is None):
        raise _invalid(path, "config_mcp_transport", server=name)
    if url is not None and not url.startswith(("http://", "https://")):
        raise _invalid(path, "config_mcp_url", server=name, url=url)
    stdio_only = ("args", "env", "cwd") if url is not None else ("headers",)
    for key in stdio_only:
        if key in entry:
            raise _invalid(path, "config_mcp_wrong_transport", server=name, key=key)
    allow = _names(path, name, entry, "allow")
    if not allow:
        raise _invalid(path, "config_mcp_allow_empty", server=name)
    confirm = _names(path, name, entry, "confirm")
    for tool in confirm:
        if tool not in allow:
            raise _invalid(path, "config_mcp_confirm_not_allowed", server=name, tool=tool)
    return McpServer(
        name=name,
        command=command,
        args=_texts(path, name, entry, "args"),
        env=MappingProxyType(_table(path, name, entry, "env")),
        cwd=_text(path, name, entry, "cwd"),
        url=url,
        headers=MappingProxyType(_table(path, name, entry, "headers")),
        allow=allow,
        confirm=confirm,
    )


def _text(path: Path, server: str, entry: Mapping[str, object], key: str) -> str | None:
    value = entry.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise _invalid(path, "config_mcp_wrong_type", server=server, key=key, kind="text")
    return value


def _texts(path: Path, server: str, entry: Mapping[str, object], key: str) -> tuple[str, ...]:
    value = entry.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _invalid(path, "config_mcp_wrong_type", server=server, key=key, kind="text_list")
    return tuple(value)


def _names(path: Path, server: str, entry: Mapping[str, object], key: str) -> tuple[str, ...]:
    names = _texts(path, server, entry, key)
    for tool in names:
        if "*" in tool:
            raise _invalid(path, "config_mcp_wildcard", server=server, key=key, tool=tool)
        if not tool.strip():
            raise _invalid(path, "config_mcp_wrong_type", server=server, key=key, kind="text_list")
    return tuple(dict.fromkeys(names))


def _table(path: Path, server: str, entry: Mapping[str, object], key: str) -> dict[str, str]:
    value = entry.get(key, {})
    if not isinstance(value, dict) or not all(isinstance(item, str) for item in value.values()):
        raise _invalid(path, "config_mcp_wrong_type", server=server, key=key, kind="text_table")
    return dict(value)


def _invalid(path: Path, reason: str, **params: object) -> OncallError:
    return OncallError("CONFIG_INVALID", reason, path=str(path), **params)
