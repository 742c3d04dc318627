"""How the headless CLI prints: one JSON document with ``--json``, aligned text otherwise."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TextIO

from oncall_tui.errors import Language, OncallError

EXIT_OK = 0
EXIT_USER_ERROR = 2
EXIT_CONTEXT_LIMIT = 3
EXIT_MODEL_ERROR = 4
EXIT_INTERRUPTED = 130
"""Ctrl-C, as shells report a process ended by SIGINT."""

_EXIT_BY_CODE = {
    "CHAT_CONTEXT_LIMIT_REACHED": EXIT_CONTEXT_LIMIT,
    "MODEL_UNAVAILABLE": EXIT_MODEL_ERROR,
    "MODEL_NOT_FOUND": EXIT_MODEL_ERROR,
    "STREAM_FAILED": EXIT_MODEL_ERROR,
    "MEMORY_COMPACTION_FAILED": EXIT_MODEL_ERROR,
    "MEMORY_MODE_UNCHANGED": EXIT_MODEL_ERROR,
}


def exit_status(code: str) -> int:
    """0 ok; 2 user error; 3 context limit; 4 the model could not be used; 130 Ctrl-C."""
    return _EXIT_BY_CODE.get(code, EXIT_USER_ERROR)


def add_json_flag(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Every listing/show command takes ``--json`` and then prints one JSON document."""
    parser.add_argument("--json", action="store_true", help="print JSON")
    return parser


def emit_json(document: object, stream: TextIO | None = None) -> None:
    out = stream or sys.stdout
    out.write(json.dumps(document, ensure_ascii=False, indent=2) + "\n")


def emit_line(text: str = "", stream: TextIO | None = None) -> None:
    (stream or sys.stdout).write(text + "\n")


def emit_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    cells = [[str(c) for c in headers], *([str(c) for c in row] for row in rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for row in cells:
        emit_line("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))


def report_error(error: OncallError, lang: Language, as_json: bool) -> int:
    if as_json:
        sys.stderr.write(json.dumps({"error": error.to_json(lang)}, ensure_ascii=False) + "\n")
    else:
        sys.stderr.write(f"oncall-tui: {error.message(lang)}\n")
    return exit_status(error.code)


def one_line(text: str, width: int = 60) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"
