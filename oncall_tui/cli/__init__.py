"""Entry point ``oncall-tui``: no subcommand opens the TUI; subcommands are headless clients
of the same services, for scripts and checks. Exit status 0 on success, 2 for any
user-facing error (message from the catalog on stderr, JSON with ``--json``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from oncall_tui import __version__
from oncall_tui.cli import assets, chat, doctor
from oncall_tui.cli.output import EXIT_USER_ERROR, report_error
from oncall_tui.errors import OncallError, resolve_language
from oncall_tui.services.container import Services
from oncall_tui.settings import Settings

Handler = Callable[[Services, argparse.Namespace], int]


class _UsageError(Exception):
    """A command line argparse could not parse; reported through the catalog by ``main``."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def _peek_lang(argv: Sequence[str]) -> str | None:
    for index, token in enumerate(argv):
        if token.startswith("--lang="):
            return token.split("=", 1)[1]
        if token == "--lang" and index + 1 < len(argv):
            return argv[index + 1]
    return None


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="oncall-tui",
        description="A terminal chat workbench for on-call engineers, on local Ollama models.",
    )
    parser.add_argument("--version", action="version", version=f"oncall-tui {__version__}")
    parser.add_argument("--db", metavar="PATH", help="database file (env ONCALL_TUI_DB)")
    parser.add_argument("--user", metavar="NAME", help="owner of the data (env ONCALL_TUI_USER)")
    parser.add_argument("--lang", choices=("en", "zh"), help="message language")
    parser.add_argument("--ollama-url", metavar="URL", help="Ollama address (env OLLAMA_HOST)")
    parser.add_argument("--model", metavar="NAME", help="model to chat with (env ONCALL_TUI_MODEL)")
    parser.add_argument(
        "--num-ctx", metavar="N", help="context window in tokens (env ONCALL_TUI_NUM_CTX)"
    )
    parser.add_argument(
        "--timeout", metavar="SECONDS", help="fail a model call after this long without data"
    )
    parser.add_argument(
        "--deadline",
        metavar="SECONDS",
        help="fail a model call that takes this long in all (env ONCALL_TUI_DEADLINE)",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    assets.register(commands)
    chat.register(commands)
    doctor.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(arguments)
    except _UsageError as usage:
        as_json = "--json" in arguments
        if not as_json:
            parser.print_usage(sys.stderr)
        error = OncallError("VALIDATION_INVALID_ARGUMENT", detail=str(usage))
        return report_error(error, resolve_language(_peek_lang(arguments)), as_json)
    lang = resolve_language(args.lang)
    as_json = bool(getattr(args, "json", False))
    try:
        settings = Settings.resolve(
            db=args.db,
            user=args.user,
            lang=args.lang,
            ollama_url=args.ollama_url,
            model=args.model,
            num_ctx=args.num_ctx,
            request_timeout=args.timeout,
            deadline=args.deadline,
        )
    except OncallError as error:
        return report_error(error, lang, as_json)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        from oncall_tui.tui.app import run_tui

        run_tui(settings)
        return 0
    context = Services(settings)
    try:
        return handler(context, args)
    except OncallError as error:
        return report_error(error, settings.lang, as_json)
    except KeyboardInterrupt:
        return 130
    finally:
        context.close()


__all__ = ["EXIT_USER_ERROR", "build_parser", "main"]
