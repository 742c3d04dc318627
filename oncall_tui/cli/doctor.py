"""``oncall-tui doctor``: is everything in place to chat, and if not, what to do."""

from __future__ import annotations

import argparse
import contextlib
import sqlite3
import stat
from typing import Any

from oncall_tui.cli.output import EXIT_MODEL_ERROR, EXIT_OK, emit_json, emit_line
from oncall_tui.errors import OncallError
from oncall_tui.services.container import Services


def register(commands: argparse._SubParsersAction[Any]) -> None:
    doctor = commands.add_parser(
        "doctor", help="check Ollama, the model, the window and the database"
    )
    doctor.add_argument("--json", action="store_true", help="print one JSON document")
    doctor.set_defaults(handler=doctor_report)


def doctor_report(ctx: Services, args: argparse.Namespace) -> int:
    from oncall_tui.llm.ollama_api import DEFAULT_WINDOW_CAP, ModelDetails, OllamaApi

    settings = ctx.settings
    lang = settings.lang
    api = OllamaApi(settings.ollama_url)
    report: dict[str, object] = {"ollama_url": settings.ollama_url, "model": settings.model}
    problems: list[str] = []
    details: ModelDetails | None = None
    try:
        report["ollama_version"] = api.version()
        report["ollama_reachable"] = True
    except OncallError as error:
        report["ollama_reachable"] = False
        problems.append(error.message(lang))
    if report["ollama_reachable"]:
        installed = api.list_models()
        report["installed_models"] = installed
        try:
            details = api.show(settings.model)
        except OncallError as error:
            problems.append(error.message(lang))
        report["model_pulled"] = details is not None
        if details is None:
            report["pull_command"] = f"ollama pull {settings.model}"
    window, source = _window(settings.num_ctx, details, DEFAULT_WINDOW_CAP)
    report.update(context_window_tokens=window, context_window_source=source)
    report["database"] = _database(ctx)
    report["user"] = ctx.owner
    report["ok"] = not problems
    if args.json:
        emit_json(report)
    else:
        _print(report, problems)
    return EXIT_OK if not problems else EXIT_MODEL_ERROR


def _window(configured: int | None, details: Any, cap: int) -> tuple[int, str]:
    if configured is not None:
        return configured, "--num-ctx / ONCALL_TUI_NUM_CTX"
    if details is not None and details.modelfile_num_ctx:
        return int(details.modelfile_num_ctx), "the model's Modelfile num_ctx"
    if details is not None and details.context_length:
        trained = int(details.context_length)
        return min(trained, cap), f"trained length {trained:,}, capped at {cap:,}"
    return cap, "default (model details unavailable)"


def _database(ctx: Services) -> dict[str, object]:
    path = ctx.settings.db_path
    info: dict[str, object] = {"path": str(path), "exists": path.exists()}
    if path.exists():
        info["mode"] = oct(stat.S_IMODE(path.stat().st_mode))
        with (
            contextlib.suppress(sqlite3.Error),
            contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection,
        ):
            info["schema_version"] = connection.execute("PRAGMA user_version").fetchone()[0]
    return info


def _print(report: dict[str, object], problems: list[str]) -> None:
    reachable = report["ollama_reachable"]
    version = report.get("ollama_version", "")
    emit_line(
        f"Ollama    {report['ollama_url']}  "
        + (f"reachable, version {version}" if reachable else "NOT reachable")
    )
    if reachable:
        pulled = report.get("model_pulled")
        emit_line(
            f"Model     {report['model']}  "
            + ("pulled" if pulled else f"NOT pulled: run `{report.get('pull_command')}`")
        )
    else:
        emit_line(f"Model     {report['model']}  (cannot check while Ollama is down)")
    emit_line(
        f"Context   {report['context_window_tokens']:,} tokens "
        f"(from {report['context_window_source']})"
    )
    database = report["database"]
    assert isinstance(database, dict)
    extra = f", mode {database['mode']}" if "mode" in database else " (created on first use)"
    emit_line(f"Database  {database['path']}{extra}")
    emit_line(f"User      {report['user']}")
    for problem in problems:
        emit_line(f"\n{problem}")
