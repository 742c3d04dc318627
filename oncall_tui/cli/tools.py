"""``oncall-tui tools``: the registered tool servers, and the example server to try them with.

``tools list`` starts each server (as a chat would) and shows what it offers: allowed tools with
their policy (``auto`` runs at once, ``confirm`` asks first), and the tools that are never
bound. A server that cannot start is said, and the command exits 2, so a script (or an
engineer trying the example) sees at once that the chat will go without its tools.

``tools example-server`` is the example log-search server (``examples/mcp/log_search.py``, in a
wheel ``oncall_tui/mcp_example/``) run with this oncall-tui's own Python, which has the MCP SDK
whatever ``python3`` is on the PATH; without ``--root`` it searches the sample incident logs
that come with it. A settings file registers it as ``command = "oncall-tui"`` with
``args = ["tools", "example-server"]``, and that works from any directory, in a pipx or uv tool
install as in a virtual environment that is not activated.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import oncall_tui
from oncall_tui.cli.output import (
    EXIT_OK,
    EXIT_USER_ERROR,
    add_command,
    emit_json,
    emit_line,
    emit_table,
    exit_status,
)
from oncall_tui.errors import Language
from oncall_tui.texts import text

if TYPE_CHECKING:
    from oncall_tui.services.container import Services

_PACKAGE = Path(oncall_tui.__file__).resolve().parent
EXAMPLE_PLACES = (_PACKAGE / "mcp_example", _PACKAGE.parent / "examples" / "mcp")
"""Where the example server is: inside the installed package (a wheel carries
``examples/mcp`` there, see ``pyproject.toml``), else in a source checkout."""
EXAMPLE_SCRIPT = "log_search.py"
SAMPLE_LOGS = "sample-logs"


def register(commands: argparse._SubParsersAction[Any]) -> None:
    tools = commands.add_parser("tools", help="the tool servers (MCP) and their tools")
    actions = tools.add_subparsers(dest="action", required=True, metavar="ACTION")
    add_command(actions, "list", "servers, state, allowed tools and their policy", tools_list)
    example = actions.add_parser(
        "example-server",
        help="run the example log-search tool server (MCP over stdio) with this Python",
    )
    example.add_argument(
        "--root", metavar="DIR", help="the directory it searches (default: the sample logs)"
    )
    example.add_argument(
        "--http", metavar="PORT", help="serve Streamable HTTP on 127.0.0.1:PORT instead"
    )
    example.set_defaults(direct=example_server)  # needs no settings, log or database


def tools_list(ctx: Services, args: argparse.Namespace) -> int:
    servers = ctx.tools.servers()
    lang = ctx.settings.lang
    failed = next((server.error for server in servers if server.error is not None), None)
    status = EXIT_OK if failed is None else exit_status(failed.code)
    if args.json:
        emit_json({"servers": [server.to_json(lang) for server in servers]})
        return status
    if not servers:
        emit_line(text("cli.tools.none", lang))
        return EXIT_OK
    rows: list[tuple[object, ...]] = []
    for server in servers:
        state = text(f"cli.tools.state.{server.state}", lang)
        for tool in server.tools:
            policy = tool.policy if tool.policy is not None else text("cli.tools.not_bound", lang)
            if not tool.offered:
                policy = text("cli.tools.not_offered", lang, policy=policy)
            rows.append((server.name, server.transport, state, tool.name, policy))
        if not server.tools:
            rows.append((server.name, server.transport, state, "", ""))
    columns = ("server", "transport", "state", "tool", "policy")
    emit_table(tuple(text(f"cli.tools.header.{c}", lang) for c in columns), rows)
    for server in servers:
        if server.error is not None:
            emit_line()
            emit_line(server.error.message(lang))
    return status


def example_place() -> Path | None:
    """The directory of the example server and its sample logs, if this install has it."""
    return next((place for place in EXAMPLE_PLACES if (place / EXAMPLE_SCRIPT).is_file()), None)


def example_server(args: argparse.Namespace, lang: Language) -> int:
    """Become the example server: its standard input and output are the MCP client's. Run
    before any setting is read (a tool server's environment is not the app's: the SDK passes
    on only a few variables), and nothing is printed on stdout, which is the protocol."""
    place = example_place()
    if place is None:
        sys.stderr.write(text("cli.tools.no_example", lang) + "\n")
        return EXIT_USER_ERROR
    root = args.root if args.root is not None else str(place / SAMPLE_LOGS)
    argv = [sys.executable, str(place / EXAMPLE_SCRIPT), "--root", root]
    if args.http is not None:
        argv += ["--http", args.http]
    sys.stdout.flush()
    sys.stderr.flush()
    if os.name == "posix":
        os.execv(sys.executable, argv)  # the process is the server from here on
    return subprocess.call(argv)  # no exec that keeps the process: run it, pass its status on
