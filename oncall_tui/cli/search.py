"""``oncall-tui search QUERY…``: find your messages and session titles, newest first.

The words of the command line are one query (quote a phrase for the shell and for the search:
``'"connection refused"'``). One line per hit: session, time, role (``title`` for a title hit),
title and the snippet; with ``--json`` a list of hits.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from oncall_tui.cli.output import (
    EXIT_OK,
    add_command,
    emit_json,
    emit_line,
    emit_table,
    utc_minute,
)
from oncall_tui.core.text import one_line
from oncall_tui.texts import stored_word, text

if TYPE_CHECKING:
    from oncall_tui.services.container import Services


def register(commands: argparse._SubParsersAction[Any]) -> None:
    search = add_command(
        commands, "search", "find your messages and session titles", search_messages
    )
    search.add_argument(
        "query",
        nargs="+",
        metavar="QUERY",
        help='words that must all appear (substrings, any case); "a phrase" in quotes',
    )
    search.add_argument(
        "--limit", type=int, default=50, metavar="N", help="at most N hits (1-500, default 50)"
    )


def search_messages(ctx: Services, args: argparse.Namespace) -> int:
    hits = ctx.search.search(ctx.owner, " ".join(args.query), limit=args.limit)
    if args.json:
        emit_json([hit.to_json() for hit in hits])
        return EXIT_OK
    lang = ctx.settings.lang
    if not hits:
        emit_line(text("cli.search.none", lang))
        return EXIT_OK
    rows = [
        (
            hit.session_id,
            utc_minute(hit.created_at),
            stored_word("role", hit.role or "title", lang),
            one_line(hit.session_title, 30),
            hit.snippet,
        )
        for hit in hits
    ]
    columns = ("session", "time", "role", "title", "match")
    emit_table(tuple(text(f"cli.search.header.{column}", lang) for column in columns), rows)
    return EXIT_OK
