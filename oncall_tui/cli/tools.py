"""``oncall-tui tools list``: the registered tool servers, their state and their tools.

Starts each server (as a chat would) and shows what it offers: allowed tools with their
policy (``auto`` runs at once, ``confirm`` asks first), and the tools that are never bound.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from oncall_tui.cli.output import EXIT_OK, add_json_flag, emit_json, emit_line, emit_table
from oncall_tui.texts import text

if TYPE_CHECKING:
    from oncall_tui.services.container import Services


def register(commands: argparse._SubParsersAction[Any]) -> None:
    tools = commands.add_parser("tools", help="the tool servers (MCP) and their tools")
    actions = tools.add_subparsers(dest="action", required=True, metavar="ACTION")
    p = actions.add_parser("list", help="servers, state, allowed tools and their policy")
    add_json_flag(p).set_defaults(handler=tools_list)


def tools_list(ctx: Services, args: argparse.Namespace) -> int:
    servers = ctx.tools.servers()
    lang = ctx.settings.lang
    if args.json:
        emit_json({"servers": [server.to_json(lang) for server in servers]})
        return EXIT_OK
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
    return EXIT_OK
