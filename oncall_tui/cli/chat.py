"""CLI commands for sessions, memory and chat (``sessions``, ``memory``, ``chat``).

``chat`` streams the answer to stdout as it arrives; tool lines, notices and the closing
status go to stderr so the answer can be piped, and a chat that produced no answer writes
nothing to stdout. With ``--json`` every event is one JSON line. Ctrl-C ends the answer's
line, keeps the partial reply (marked interrupted) and exits 130.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oncall_tui.cli.chat_input import read_message
from oncall_tui.cli.output import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    add_command,
    emit_deleted,
    emit_json,
    emit_line,
    emit_table,
    utc_minute,
)
from oncall_tui.core.memory import MemoryMode, MemoryState
from oncall_tui.core.text import one_line
from oncall_tui.errors import Language, OncallError
from oncall_tui.inputs import id_type
from oncall_tui.texts import stored_word, text

if TYPE_CHECKING:
    from oncall_tui.services.container import Services
    from oncall_tui.services.export import ExportFormat
    from oncall_tui.services.views import SessionView, ToolCallView


def register(commands: argparse._SubParsersAction[Any]) -> None:
    sessions = commands.add_parser("sessions", help="list, create, show and delete sessions")
    actions = sessions.add_subparsers(dest="action", required=True, metavar="ACTION")
    add_command(actions, "list", "your sessions, newest first", sessions_list)
    p = add_command(actions, "new", "start an empty session", sessions_new)
    p.add_argument("--title")
    add_command(actions, "show", "a session's full history and memory", sessions_show, "id")
    add_command(actions, "delete", "delete a session and its messages", sessions_delete, "id")
    p = add_command(actions, "rename", "give a session a title", sessions_rename, "id")
    p.add_argument("title")
    add_command(
        actions, "clear", "delete a session's messages and reset its memory", sessions_clear, "id"
    )
    p = add_command(
        actions, "export", "a session as Markdown or JSON, for a postmortem", sessions_export, "id"
    )
    p.add_argument(
        "--format",
        choices=("md", "json"),
        help="md or json (the document of show --json); default md, or json for a FILE "
        "ending .json",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write FILE (private, 0600) instead of stdout ('-': stdout)",
    )

    memory = commands.add_parser("memory", help="a session's summary, boundary and context usage")
    actions = memory.add_subparsers(dest="action", required=True, metavar="ACTION")
    add_command(actions, "show", "summary, boundary and context gauge", memory_show, "session")
    p = add_command(actions, "mode", "set when the session compacts", memory_mode, "session")
    p.add_argument("mode", choices=[mode.value for mode in MemoryMode])
    add_command(
        actions, "compact", "summarise everything after the boundary now", memory_compact, "session"
    )

    chat = add_command(commands, "chat", "send one message and stream the answer", chat_send)
    chat.add_argument(
        "--session", type=id_type("--session"), metavar="ID", help="default: a new session"
    )
    chat.add_argument(
        "--retry",
        action="store_true",
        help="answer the session's last message again (it failed or was interrupted)",
    )
    chat.add_argument(
        "--allow-tool",
        action="append",
        default=[],
        metavar="NAME",
        help="run this confirm tool (server.tool) without asking, for this run; repeatable",
    )
    chat.add_argument(
        "message",
        nargs="*",
        metavar="MESSAGE",
        help='a pipe or file on standard input follows the words; "-" puts it there instead',
    )


def sessions_list(ctx: Services, args: argparse.Namespace) -> int:
    sessions = ctx.sessions.list_sessions(ctx.owner)
    if args.json:
        emit_json([s.to_json() for s in sessions])
        return EXIT_OK
    lang = ctx.settings.lang
    rows = [
        (
            s.id,
            utc_minute(s.updated_at),
            s.message_count,
            s.memory_mode.value,
            one_line(shown_title(s, lang), 50),
        )
        for s in sessions
    ]
    columns = ("id", "updated", "messages", "memory", "title")
    emit_table(tuple(text(f"cli.sessions.header.{c}", lang) for c in columns), rows)
    return EXIT_OK


def sessions_new(ctx: Services, args: argparse.Namespace) -> int:
    _emit_session(ctx.sessions.create(ctx.owner, args.title), "cli.session.created", ctx, args)
    return EXIT_OK


def _only_read(ctx: Services, session_id: int) -> None:
    """Before a command that only reads a session: a database file that is not there holds
    none, and is not made (a typo in ``--db`` left an empty database behind)."""
    settings = ctx.settings
    if settings.db_url is None and not settings.db_path.exists():
        raise OncallError("NOT_FOUND", kind="session", ref=session_id)


def sessions_show(ctx: Services, args: argparse.Namespace) -> int:
    _only_read(ctx, args.id)
    if args.json:  # the JSON export: one function makes both
        sys.stdout.write(ctx.export.render(ctx.owner, args.id, "json"))
        return EXIT_OK
    transcript = ctx.export.transcript(ctx.owner, args.id)
    session, memory = transcript.session, transcript.memory
    lang = ctx.settings.lang
    title = shown_title(session, lang)
    emit_line(text("cli.session.heading", lang, title=title, id=session.id))
    for message in transcript.messages:
        if message.position == memory.compacted_message_count and message.position > 0:
            emit_line()
            emit_line(text("cli.session.summarised", lang, count=message.position))
        status = stored_word("reply", message.status, lang)
        marker = "" if message.status == "complete" else f" [{status}]"
        said = f"{stored_word('role', message.role, lang)} · {utc_minute(message.created_at)} UTC"
        model = f" · {message.model}" if message.model else ""
        emit_line(f"\n[{said}{model}]{marker}")
        if message.calls_placed:
            for part in message.in_order():  # each call between the words around it
                emit_line(
                    part.strip("\n") if isinstance(part, str) else _tool_call_line(part, lang)
                )
        else:  # as stored before calls kept their places: the calls, then the text
            for call in message.tool_calls:
                emit_line(_tool_call_line(call, lang))
            emit_line(message.content)
    emit_line()
    _print_memory(memory, lang)
    return EXIT_OK


def sessions_delete(ctx: Services, args: argparse.Namespace) -> int:
    ctx.sessions.delete(ctx.owner, args.id)
    line = text("cli.session.deleted", ctx.settings.lang, id=args.id)
    emit_deleted("session", args.id, line, args.json)
    return EXIT_OK


def sessions_rename(ctx: Services, args: argparse.Namespace) -> int:
    session = ctx.sessions.rename(ctx.owner, args.id, args.title)
    _emit_session(session, "cli.session.renamed", ctx, args)
    return EXIT_OK


def _emit_session(session: SessionView, key: str, ctx: Services, args: argparse.Namespace) -> None:
    """A session made or renamed: its document with ``--json``, the catalog's line ``key``
    (with its id and title) otherwise."""
    if args.json:
        emit_json(session.to_json())
    else:
        title = shown_title(session, ctx.settings.lang)
        emit_line(text(key, ctx.settings.lang, id=session.id, title=title))


def sessions_clear(ctx: Services, args: argparse.Namespace) -> int:
    ctx.sessions.clear(ctx.owner, args.id)
    state = ctx.memory.refresh_usage(ctx.owner, args.id)
    return _emit_memory(state, args.json, ctx.settings.lang)


def sessions_export(ctx: Services, args: argparse.Namespace) -> int:
    """The document on stdout, or written to ``-o FILE`` and its path said. With ``--json``
    stdout holds one JSON document, as for every command: the session's (``--format md``
    is refused), or with ``-o`` the ``exported`` report."""
    from oncall_tui.services.export import format_for

    _only_read(ctx, args.id)
    output: str | None = None if args.output in (None, "-") else args.output  # ``-o -``: stdout
    if args.json and output is None and args.format == "md":
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT",
            detail=text("cli.export.json_not_md", ctx.settings.lang),
        )
    if output is None:
        fmt: ExportFormat = args.format or ("json" if args.json else "md")
        sys.stdout.write(ctx.export.render(ctx.owner, args.id, fmt))
        return EXIT_OK
    fmt = args.format or format_for(Path(output))
    path = ctx.export.write(ctx.owner, args.id, fmt, output)
    if args.json:
        emit_json(
            {"exported": {"kind": "session", "id": args.id, "format": fmt, "path": str(path)}}
        )
    else:
        emit_line(text("cli.session.exported", ctx.settings.lang, id=args.id, path=path))
    return EXIT_OK


def shown_title(session: SessionView, lang: Language) -> str:
    """The session's title, or for an untitled one the catalog's name for it in ``lang``."""
    return session.title or text("session.untitled", lang)


def _tool_call_line(call: ToolCallView, lang: Language) -> str:
    """A tool call under its message: its name, how it ended unless it ran (declined, cut,
    interrupted, …), and what it gave."""
    name = call.name
    if call.status != "ok":
        name += f" [{stored_word('cli.tool_status', call.status, lang)}]"
    if not call.summary:
        return text("cli.session.tool_call_bare", lang, name=name)
    return text("cli.session.tool_call", lang, name=name, summary=call.summary)


def _print_memory(state: MemoryState, lang: Language) -> None:
    usage = state.usage
    emit_line(
        text(
            "cli.memory.context",
            lang,
            used=f"{usage.context_tokens:,}",
            window=f"{usage.context_window_tokens:,}",
            percent=usage.percent,
            mode=state.memory_mode.value,
            count=state.compacted_message_count,
        )
    )
    if state.memory_summary:
        truncated = state.memory_summary_status == "truncated"
        key = "cli.memory.summary_cut" if truncated else "cli.memory.summary"
        at = state.last_compacted_at  # a summary has its time; a row written by hand may not
        emit_line(text(key, lang, at=utc_minute(at) if at is not None else "?"))
        emit_line(state.memory_summary)
    else:
        emit_line(text("cli.memory.no_summary", lang))


def _emit_memory(state: MemoryState, as_json: bool, lang: Language) -> int:
    if as_json:
        emit_json(state.to_json())
    else:
        _print_memory(state, lang)
    return EXIT_OK


def memory_show(ctx: Services, args: argparse.Namespace) -> int:
    _only_read(ctx, args.session)
    return _emit_memory(ctx.memory.state(ctx.owner, args.session), args.json, ctx.settings.lang)


def memory_mode(ctx: Services, args: argparse.Namespace) -> int:
    import asyncio

    state = asyncio.run(ctx.memory.set_mode(ctx.owner, args.session, MemoryMode(args.mode)))
    return _emit_memory(state, args.json, ctx.settings.lang)


def memory_compact(ctx: Services, args: argparse.Namespace) -> int:
    import asyncio

    state = asyncio.run(ctx.memory.compact(ctx.owner, args.session))
    return _emit_memory(state, args.json, ctx.settings.lang)


def _allowed_tools_exist(ctx: Services, names: list[str]) -> None:
    """Each ``--allow-tool`` names a tool a server of the settings file allows (``server.tool``):
    a slip in one was taken silently, and the tool was then refused mid-reply."""
    allowed = {f"{s.name}.{tool}" for s in ctx.settings.mcp_servers for tool in s.allow}
    for name in names:
        if name not in allowed:
            raise OncallError("VALIDATION_INVALID_ARGUMENT", "allow_tool_unknown", name=name)


def chat_send(ctx: Services, args: argparse.Namespace) -> int:
    from oncall_tui.cli.chat_output import ChatOutput, allow_listed
    from oncall_tui.cli.interrupts import SignalInterruptError, run_until_signal

    lang = ctx.settings.lang
    _allowed_tools_exist(ctx, args.allow_tool)
    output = ChatOutput(args.json, args.session, lang)
    if not args.json:
        from oncall_tui.cli.waiting import WaitingLine, can_redraw

        if can_redraw(sys.stderr):
            output.waiting = WaitingLine(sys.stderr, lang)
    confirm = allow_listed(frozenset(args.allow_tool), lang, output.erase_waiting)
    if args.retry:
        if args.session is None or args.message:
            raise OncallError(
                "VALIDATION_INVALID_ARGUMENT", detail=text("cli.chat.retry_usage", lang)
            )
        events = ctx.chat.retry(ctx.owner, args.session, confirm=confirm)
    else:
        message, output.stdin_lines = read_message(args.message, lang, quiet=args.json)
        if not message.strip():  # bad input is refused before the engine loads
            detail = text("cli.chat.empty_message", lang)
            raise OncallError("VALIDATION_INVALID_ARGUMENT", detail=detail)
        events = ctx.chat.send(ctx.owner, args.session, message, confirm=confirm)
    try:
        return run_until_signal(output.consume(events))
    except KeyboardInterrupt:
        output.interrupted()
        return EXIT_INTERRUPTED
    except SignalInterruptError as signalled:  # SIGTERM, SIGHUP: the partial reply is stored
        output.interrupted()
        return signalled.exit_status
