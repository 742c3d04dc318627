"""Entry point ``oncall-tui``: no subcommand opens the TUI; subcommands are headless clients
of the same services, for scripts and checks. Exit status 0 on success, 2 for any
user-facing error (message from the catalog on stderr, JSON with ``--json``).

No input makes it print a traceback: an argument that is not UTF-8 is refused by name, and a
database that fails under a command (damaged pages, a full disk) is reported once, here,
through the catalog (``DATABASE_UNAVAILABLE``). A reader of the output that goes away
(``| head -1``) ends the command quietly with :data:`EXIT_BROKEN_PIPE` once its work is done.
The console script starts in :mod:`oncall_tui.entry`, which also covers Ctrl-C while this
package is still being imported. A settings file that cannot be used is no error: a command
prints why once on stderr, as a warning, and goes on with the defaults (the TUI shows it on
its status line).

Quick for scripts: importing the CLI and parsing its arguments loads neither the database
layer (SQLAlchemy, SQLModel) nor the model stack (LangChain): ``--version`` and ``--help`` end
there. The settings, the services and the store are imported once a command is known, inside
:func:`main`; the model stack only by a command that talks to a model."""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn

from oncall_tui import __version__
from oncall_tui.cli import assets, chat, doctor, search, tools
from oncall_tui.cli.output import (
    EXIT_BROKEN_PIPE,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_USER_ERROR,
    Handler,
    frames_of,
    output_failure,
    reader_safe_output,
    report_defect,
    report_error,
    report_warning,
)
from oncall_tui.core.text import terminal_safe
from oncall_tui.errors import Language, OncallError, resolve_language
from oncall_tui.inputs import is_terminal, require_utf8
from oncall_tui.redaction import redact
from oncall_tui.texts import text

if TYPE_CHECKING:
    from oncall_tui.services.container import Services
    from oncall_tui.settings import Settings


ARGPARSE_ZH: tuple[tuple[str, str], ...] = (
    (r"the following arguments are required: (.+)", "缺少必需的参数：{0}"),
    (r"unrecognized arguments: (.+)", "无法识别的参数：{0}"),
    (r"one of the arguments (.+) is required", "以下参数必须给出其一：{0}"),
    (r"ambiguous option: (\S+) could match (.+)", "选项 {0} 有歧义，可能是：{1}"),
    (
        r"argument (.+?): invalid choice: (.+) \(choose from (.+)\)",
        "参数 {0}：无效的选项 {1}（可选：{2}）",
    ),
    (r"argument (.+?): invalid (\S+) value: (.+)", "参数 {0}：无效的 {1} 值：{2}"),
    (r"argument (.+?): expected (one|\d+) arguments?", "参数 {0}：缺少它的值"),
    (r"argument (.+?): not allowed with argument (.+)", "参数 {0}：不能与参数 {1} 同时使用"),
    (r"argument (.+?): ignored explicit argument (.+)", "参数 {0}：不接受值 {1}"),
)
"""argparse's own messages (English only), as the Chinese CLI says them: a pattern of the
English message, and the Chinese with its parts (argument names, values) kept as typed."""


class _UsageError(Exception):
    """A command line argparse could not parse; reported through the catalog by ``main``, after
    the usage of the command it was parsing (``sessions`` lists its actions), not the app's."""

    def __init__(self, message: str, parser: _Parser) -> None:
        super().__init__(message)
        self.parser = parser


class _Parser(argparse.ArgumentParser):
    groups_actions = False
    """A command made of actions (``sessions``, ``skills``): its help lists them."""

    def add_subparsers(self, **kwargs: Any) -> Any:
        self.groups_actions = True
        return super().add_subparsers(**kwargs)

    def error(self, message: str) -> NoReturn:
        raise _UsageError(message, self)


def _said(message: str, lang: Language) -> str:
    """argparse's message in ``lang`` (it speaks English only): one of the messages a command
    line can meet, its argument names and values kept; any other as it is."""
    if lang == "zh":
        for pattern, chinese in ARGPARSE_ZH:
            if found := re.fullmatch(pattern, message):
                return chinese.format(*found.groups())
    return message


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
    parser.add_argument(
        "--config", metavar="PATH", help="settings file (env ONCALL_TUI_CONFIG; see README)"
    )
    parser.add_argument("--db", metavar="PATH", help="database file (env ONCALL_TUI_DB)")
    parser.add_argument("--user", metavar="NAME", help="owner of the data (env ONCALL_TUI_USER)")
    parser.add_argument("--lang", choices=("en", "zh"), help="message language")
    parser.add_argument("--ollama-url", metavar="URL", help="Ollama address (env OLLAMA_HOST)")
    parser.add_argument(
        "--provider",
        metavar="NAME",
        help="model server's API: ollama (default) or openai (env ONCALL_TUI_PROVIDER)",
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1 (env ONCALL_TUI_BASE_URL;"
        " key from OPENAI_API_KEY)",
    )
    parser.add_argument("--model", metavar="NAME", help="model to chat with (env ONCALL_TUI_MODEL)")
    parser.add_argument(
        "--num-ctx", metavar="N", help="context window in tokens (env ONCALL_TUI_NUM_CTX)"
    )
    parser.add_argument(
        "--timeout", metavar="SECONDS", help="fail a model call after this long without data"
    )
    parser.add_argument(
        "--log-level",
        choices=("debug", "info", "warning", "error"),
        help="what the log file records (env ONCALL_TUI_LOG_LEVEL; default info)",
    )
    parser.add_argument(
        "--deadline",
        metavar="SECONDS",
        help="fail a model call that takes this long in all (env ONCALL_TUI_DEADLINE)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON (a command's option too)")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    assets.register(commands)
    chat.register(commands)
    doctor.register(commands)
    search.register(commands)
    tools.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    with reader_safe_output() as stdout_gone:
        status = _run(arguments)
    return EXIT_BROKEN_PIPE if status == EXIT_OK and stdout_gone() else status


def _run(arguments: list[str]) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(arguments)
        _require_utf8_arguments(parser, args)
    except _UsageError as usage:
        as_json = "--json" in arguments
        lang = resolve_language(_peek_lang(arguments))
        error = _misencoded(arguments)
        if error is None:
            if not as_json:
                said = usage.parser
                group = said is not parser and said.groups_actions
                (said.print_help if group else said.print_usage)(sys.stderr)
            error = OncallError("VALIDATION_INVALID_ARGUMENT", detail=_said(str(usage), lang))
        return report_error(error, lang, as_json)
    except OncallError as error:  # an argument's own type refused it (an id, a skill ref)
        lang = resolve_language(_peek_lang(arguments))
        return report_error(error, lang, "--json" in arguments)
    lang = resolve_language(args.lang)
    direct: Callable[[argparse.Namespace, Language], int] | None = getattr(args, "direct", None)
    if direct is not None:  # a command that needs no settings (the example tool server)
        return direct(args, lang)
    as_json = bool(getattr(args, "json", False))
    from oncall_tui.settings import Settings  # a command is known: now load what it needs

    try:
        settings = Settings.resolve(
            db=args.db,
            user=args.user,
            lang=args.lang,
            ollama_url=args.ollama_url,
            provider=args.provider,
            base_url=args.base_url,
            model=args.model,
            num_ctx=args.num_ctx,
            request_timeout=args.timeout,
            deadline=args.deadline,
            log_level=args.log_level,
            config=args.config,
        )
    except OncallError as error:
        return report_error(error, lang, as_json)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is not None:  # the TUI shows its own
        for problem in (settings.config_problem, settings.config_slips):
            if problem is not None:
                report_warning(problem, settings.lang, as_json)
    from oncall_tui.logs import configure_logging

    configure_logging(settings.log_path, settings.log_level)
    if handler is None:
        if as_json:  # the TUI prints no document: said, not ignored
            refused = OncallError("VALIDATION_INVALID_ARGUMENT", "json_needs_command")
            return report_error(refused, settings.lang, as_json)
        return _run_tui(settings)
    return _run_command(settings, handler, args, as_json)


def _run_tui(settings: Settings) -> int:
    """The TUI, when no command is given; a failure to start is reported here. Without a
    terminal to read keys from and draw on (``ssh HOST oncall-tui`` without ``-t``, a script,
    cron) it does not start: it would draw escape codes into a pipe and wait for keys that
    never come."""
    if not (is_terminal(sys.stdin) and is_terminal(sys.stderr)):  # Textual's two streams
        refused = OncallError("VALIDATION_INVALID_ARGUMENT", "tui_needs_terminal")
        return report_error(refused, settings.lang, as_json=False)
    from oncall_tui.tui.program import run_tui

    failure, unsent, defect = run_tui(settings)
    if defect is not None and (said := defect.error) is not None:  # under the text handed back
        return report_defect(said, defect.places, settings.lang, settings.log_path, app=True)
    if failure is None:
        return 0
    status = report_error(failure, settings.lang, as_json=False)
    if unsent.strip():  # typed while the app was starting: given back, not lost
        sys.stderr.write(text("cli.tui.unsent", settings.lang) + "\n")
        sys.stderr.write(terminal_safe(redact(unsent)) + "\n")  # masked: it stays in scrollback
    return status


def _run_command(
    settings: Settings, handler: Handler, args: argparse.Namespace, as_json: bool
) -> int:
    """A command on the services, its failures reported (an output that could not be written
    too, once its work is done); the services closed after it."""
    from oncall_tui.services.container import Services

    context = Services(settings)
    try:
        _save_held_replies(context, as_json)
        status = handler(context, args)
        if (unwritten := output_failure()) is None:
            return status
        problem = unwritten.strerror or str(unwritten)
        said = report_error(OncallError("OUTPUT_FAILED", problem=problem), settings.lang, as_json)
        return said if status == EXIT_OK else status
    except OncallError as error:
        return report_error(error, settings.lang, as_json)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except Exception as exc:
        failure = context.database_failure(exc)  # found once, here, not around every query
        if failure is None:
            words = f"{type(exc).__name__}: {exc}"
            places, lang = frames_of(exc), settings.lang
            return report_defect(words, places, lang, settings.log_path, app=False, as_json=as_json)
        return report_error(failure, settings.lang, as_json)
    finally:
        context.close()


def _save_held_replies(context: Services, as_json: bool) -> None:
    """Replies held while the database was away are saved before the command runs, and said
    on stderr; with none held, nothing is opened. A database still away is left to the
    command, which says so itself (or does not need it)."""
    from oncall_tui.errors import held_saved_note

    try:
        saved = context.save_held_replies()
    except OncallError:
        return
    if not saved:
        return
    if as_json:
        sys.stderr.write(json.dumps({"held_saved": saved}) + "\n")
    else:
        line = f"oncall-tui: {held_saved_note(saved, context.settings.lang)}"
        sys.stderr.write(line + "\n")


def _require_utf8_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse, by its option or argument name, a value that came from bytes that are not
    UTF-8: Python hands them over as surrogates, which SQLite and the terminal refuse."""
    names = _argument_names(parser, args)
    for dest, value in vars(args).items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                require_utf8(item, names.get(dest, dest))


def _argument_names(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, str]:
    """How the user wrote each argument of the parsed command: ``--title`` or ``TITLE``."""
    names: dict[str, str] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            chosen = action.choices.get(getattr(args, action.dest, None) or "")
            if chosen is not None:
                names.update(_argument_names(chosen, args))
        elif action.option_strings:
            names[action.dest] = max(action.option_strings, key=len)
        else:
            metavar = action.metavar if isinstance(action.metavar, str) else None
            names[action.dest] = metavar or action.dest.upper()
    return names


def _misencoded(arguments: Sequence[str]) -> OncallError | None:
    """For a command line argparse refused: the first argument that is not UTF-8, named by
    its option if it has one, else shown (its bad bytes as U+FFFD)."""
    for index, token in enumerate(arguments):
        if _is_utf8(token):
            continue
        option = token.split("=", 1)[0] if token.startswith("--") else ""
        previous = arguments[index - 1] if index else ""
        if option and option != token and _is_utf8(option):
            name = option
        elif previous.startswith("-") and "=" not in previous and _is_utf8(previous):
            name = previous
        else:
            name = f"'{terminal_safe(token)}'"
        return OncallError("VALIDATION_INVALID_ARGUMENT", "value_not_utf8", name=name)
    return None


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


__all__ = ["EXIT_USER_ERROR", "build_parser", "main"]
