"""``oncall-tui doctor``: is everything in place to chat, and if not, what to do."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from oncall_tui.cli.output import (
    EXIT_MODEL_ERROR,
    EXIT_OK,
    add_command,
    emit_json,
    emit_line,
    exit_status,
    pad,
)
from oncall_tui.errors import Language, note
from oncall_tui.texts import text

if TYPE_CHECKING:
    from oncall_tui.services.container import Services
    from oncall_tui.services.diagnostics import Diagnosis, WindowSource
    from oncall_tui.services.tools import ToolServerView


def register(commands: argparse._SubParsersAction[Any]) -> None:
    add_command(
        commands, "doctor", "check Ollama, the model, the window and the database", doctor_report
    )


WINDOW_SOURCES: dict[WindowSource, str] = {
    "flag": "cli.doctor.window_flag",
    "modelfile": "cli.doctor.window_modelfile",
    "trained": "cli.doctor.window_trained",
    "llama.cpp /props": "cli.doctor.window_props",
    "vLLM /v1/models": "cli.doctor.window_models",
    "default": "cli.doctor.window_default",
}
"""The words for each rule that gives the window."""


def doctor_report(ctx: Services, args: argparse.Namespace) -> int:
    report = ctx.diagnose()
    servers = ctx.tools.servers()  # each registered tool server started, its tools listed
    lang = ctx.settings.lang
    if args.json:
        emit_json({**report.to_json(), "tool_servers": [s.to_json(lang) for s in servers]})
        return _status(report, servers)

    def row(label: str, key: str | None, /, **fields: object) -> None:
        """One check: its label padded to a column, then the catalog's line (or the value)."""
        value = text(key, lang, **fields) if key is not None else str(fields["value"])
        emit_line(f"{pad(text(label, lang), 9)} {value}")

    if report.wording == "server":
        _server_rows(report, row)
    else:
        _ollama_rows(report, row, lang)
    window = report.context_window
    row(
        "cli.doctor.context",
        "cli.doctor.window",
        tokens=f"{window.tokens:,}",
        source=text(WINDOW_SOURCES[window.source], lang, trained=f"{window.trained or 0:,}"),
    )
    _database_row(report, row)
    row("cli.doctor.user", None, value=report.user)
    row("cli.doctor.log", None, value=report.log_file or text("cli.none", lang))
    recovery = "cli.doctor.recovery_on" if report.recover_tool_calls else "cli.doctor.recovery_off"
    row("cli.doctor.recovery", recovery)
    _tool_server_rows(servers, row)
    problems = [*report.problems, *(s.error for s in servers if s.error is not None)]
    for problem in problems:
        emit_line()
        emit_line(problem.message(lang))
    return _status(report, servers)


def _status(report: Diagnosis, servers: list[ToolServerView]) -> int:
    """4 when the model cannot be used; else, as ``tools list``, 2 when a registered tool
    server cannot start (the chat would lack its tools); else 0."""
    if not report.ok:
        return EXIT_MODEL_ERROR
    failed = next((server.error for server in servers if server.error is not None), None)
    return EXIT_OK if failed is None else exit_status(failed.code)


def _server_rows(report: Diagnosis, row: Callable[..., None]) -> None:
    """The server and model lines for an OpenAI-compatible server."""
    if not _reached(report, row, "cli.doctor.server", "cli.doctor.model_unchecked_server"):
        return
    if report.model_pulled:
        row("cli.doctor.model", "cli.doctor.served", model=report.model)
    elif report.model_pulled is None:
        row("cli.doctor.model", "cli.doctor.not_listed", model=report.model)
    else:
        served = ", ".join(report.installed_models)
        row("cli.doctor.model", "cli.doctor.not_served", model=report.model, served=served)


def _ollama_rows(report: Diagnosis, row: Callable[..., None], lang: Language) -> None:
    """The server and model lines for Ollama."""
    if not _reached(report, row, "cli.doctor.ollama", "cli.doctor.model_unchecked"):
        return
    if report.model_pulled:
        row("cli.doctor.model", "cli.doctor.pulled", model=report.model)
    else:
        row(
            "cli.doctor.model",
            "cli.doctor.not_pulled",
            model=report.model,
            command=report.pull_command,
        )
    if report.model_tools is False:
        said = "tools_by_text" if report.recover_tool_calls else "tools_unavailable"
        emit_line(f"          {note(said, lang, model=report.model)}")


def _reached(report: Diagnosis, row: Callable[..., None], label: str, unchecked: str) -> bool:
    """The server's line under ``label``: reachable with its version, or unreachable, and then
    the model's line too (``unchecked``); or it answered, but not as its API (the key refused,
    another service there), with the HTTP status. Whether the server answered as its API."""
    answer = next((p for p in report.problems if p.server_answered), None)
    if not report.server_reachable or answer is not None:
        if answer is None:
            row(label, "cli.doctor.unreachable", url=report.server_url)
        else:
            key = "key_refused" if answer.reason == "openai_refused_key" else "not_the_api"
            row(label, f"cli.doctor.{key}", **{**answer.params, "url": report.server_url})
        row("cli.doctor.model", unchecked, model=report.model)
        return False
    row(label, "cli.doctor.reachable", url=report.server_url, version=report.server_version)
    return True


def _database_row(report: Diagnosis, row: Callable[..., None]) -> None:
    """The database line: the server's schema or why it is unreachable, or the file's mode."""
    database = report.database
    if database["engine"] == "postgresql":
        if database["exists"]:
            key, values = "cli.doctor.db_server", {"version": database["schema_version"]}
        else:
            key, values = "cli.doctor.db_unreachable", {"detail": database["error"]}
        row("cli.doctor.database", key, path=database["path"], **values)
    elif database["mode"] is None:
        row("cli.doctor.database", "cli.doctor.db_new", path=database["path"])
    else:
        row(
            "cli.doctor.database",
            "cli.doctor.db_mode",
            path=database["path"],
            mode=database["mode"],
        )


def _tool_server_rows(servers: Sequence[ToolServerView], row: Callable[..., None]) -> None:
    """One line per registered tool server: its tools allowed and offered, or that it failed."""
    for server in servers:
        if server.error is None:
            allowed = sum(1 for tool in server.tools if tool.allowed and tool.offered)
            offered = sum(1 for tool in server.tools if tool.offered)
            key = "cli.doctor.tools_ready"
            row("cli.doctor.tools", key, server=server.name, count=allowed, offered=offered)
        else:
            row("cli.doctor.tools", "cli.doctor.tools_failed", server=server.name)
