"""``oncall-tui doctor``: is everything in place to chat, and if not, what to do."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from oncall_tui.cli.output import EXIT_MODEL_ERROR, EXIT_OK, add_json_flag, emit_json, emit_line
from oncall_tui.errors import note

if TYPE_CHECKING:
    from oncall_tui.services.container import Services


def register(commands: argparse._SubParsersAction[Any]) -> None:
    doctor = commands.add_parser(
        "doctor", help="check Ollama, the model, the window and the database"
    )
    add_json_flag(doctor).set_defaults(handler=doctor_report)


def doctor_report(ctx: Services, args: argparse.Namespace) -> int:
    from oncall_tui.services.diagnostics import diagnose

    report = diagnose(ctx.settings)
    if args.json:
        emit_json(report.to_json())
        return EXIT_OK if report.ok else EXIT_MODEL_ERROR
    if report.ollama_reachable:
        emit_line(f"Ollama    {report.ollama_url}  reachable, version {report.ollama_version}")
        state = "pulled" if report.model_pulled else f"NOT pulled: run `{report.pull_command}`"
        emit_line(f"Model     {report.model}  {state}")
        if report.model_tools is False:
            emit_line(
                f"          {note('tools_unavailable', ctx.settings.lang, model=report.model)}"
            )
    else:
        emit_line(f"Ollama    {report.ollama_url}  NOT reachable")
        emit_line(f"Model     {report.model}  (cannot check while Ollama is down)")
    emit_line(
        f"Context   {report.context_window_tokens:,} tokens (from {report.context_window_source})"
    )
    database = report.database
    extra = " (created on first use)" if database["mode"] is None else f", mode {database['mode']}"
    emit_line(f"Database  {database['path']}{extra}")
    emit_line(f"User      {report.user}")
    emit_line(f"Log       {report.log_file or '(none)'}")
    for problem in report.problems:
        emit_line(f"\n{problem.message(ctx.settings.lang)}")
    return EXIT_OK if report.ok else EXIT_MODEL_ERROR
