"""A small, read-only log-search MCP server: the example tool for oncall-tui.

It searches text files under one directory, given at start (`--root`), and nothing else:
a pattern matched line by line, an optional time range read from the timestamp at the start
of each line, and a line limit. Every answer ends with a line that says what was searched
(pattern, parameters, time range) and whether the limit cut the result, so the model can
state its query as the house rules ask.

Safe by construction: paths are relative globs under the root (absolute globs and `..` are
refused), a file whose real path leaves the root (a symlink, or a symlinked directory) is
never opened, only regular files are read, a file with a NUL byte in its first block is not
text and is skipped, and at most `MAX_BYTES_PER_FILE` bytes of a file and `MAX_FILES` files are
read per call. A bad regular expression, time or glob is a tool error the model reads, never a
crash. Python's `re` cannot be interrupted, so patterns and searched lines are bounded in length
(`MAX_PATTERN_CHARS`, `MAX_LINE_CHARS`); the client's own call timeout is the last guard.

    python3 examples/mcp/log_search.py --root examples/mcp/sample-logs            # stdio
    python3 examples/mcp/log_search.py --root /var/log/app --http 8931            # Streamable HTTP

Needs only the `mcp` SDK (a dependency of oncall-tui).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import stat
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Annotated

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

MIN_LIMIT = 1
MAX_LIMIT = 1000
DEFAULT_LIMIT = 100
DEFAULT_GLOB = "**/*.log"
MAX_PATTERN_CHARS = 512
MAX_GLOB_CHARS = 256
MAX_FILES = 2000
MAX_BYTES_PER_FILE = 8 * 1024 * 1024
MAX_LINE_CHARS = 4096  # a longer line is matched on its first MAX_LINE_CHARS characters
SHOWN_LINE_CHARS = 500  # a matching line is shown up to this many characters
TEXT_SNIFF_BYTES = 8192

# A timestamp at the very start of a line, optionally in brackets: 2026-11-30T02:51:03Z,
# 2026-11-30T02:51:03.120+00:00, 2026-11-30 02:51:03,120 (Python logging).
LINE_TIMESTAMP = re.compile(
    r"\[?(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?)"
)

DESCRIPTION = f"""\
Search log files under the server's log directory, line by line, read-only.

- pattern: a Python regular expression, searched in each line (not anchored; put a backslash
  before . [ ( to match them literally). Case-sensitive unless ignore_case is true.
- since / until: an optional time range, inclusive, in ISO 8601 / RFC 3339
  (2026-11-30T02:51:03Z; a time without a zone is UTC). Lines are dated by the timestamp at
  their start; a line without one (a stack trace) takes the time of the line above it. With a
  range, lines before the first timestamp of a file are left out.
- limit: at most this many lines are returned ({MIN_LIMIT}..{MAX_LIMIT}, default {DEFAULT_LIMIT}).
- path_glob: which files, a glob relative to the log directory (default "{DEFAULT_GLOB}");
  absolute paths and ".." are refused.

Each result line is "path:line: text". The last line states the query, its parameters, the
time range used and whether the limit cut the result: quote it when you answer."""


@dataclass
class SearchReport:
    """What one search found and what it had to leave out."""

    lines: list[str] = field(default_factory=list)
    matches: int = 0
    files_searched: int = 0
    skipped_not_text: int = 0
    cut_files: int = 0
    file_limit_reached: bool = False


def parse_time(name: str, value: str | None) -> datetime | None:
    """An ISO 8601 / RFC 3339 time given by the model, in UTC; a time without a zone is UTC."""
    if value is None or not value.strip():
        return None
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise ToolError(
            f"{name} {value!r} is not an ISO 8601 time; use e.g. 2026-11-30T02:51:03Z"
        ) from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def line_time(line: str) -> datetime | None:
    """The time of the timestamp a log line starts with, in UTC, or None."""
    found = LINE_TIMESTAMP.match(line)
    if found is None:
        return None
    try:
        return parse_time("timestamp", found.group(1).replace(",", "."))
    except ToolError:
        return None


def compile_pattern(pattern: str, ignore_case: bool) -> re.Pattern[str]:
    if not pattern:
        raise ToolError("pattern is empty; give a regular expression such as 'ERROR|502'")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ToolError(f"pattern is {len(pattern)} characters; at most {MAX_PATTERN_CHARS}")
    try:
        return re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as error:
        raise ToolError(f"pattern {pattern!r} is not a valid regular expression: {error}") from None


def check_glob(path_glob: str) -> str:
    """A glob that can only name paths under the root, or a tool error saying why not."""
    if not path_glob.strip():
        raise ToolError(f"path_glob is empty; the default is {DEFAULT_GLOB!r}")
    if len(path_glob) > MAX_GLOB_CHARS:
        raise ToolError(f"path_glob is {len(path_glob)} characters; at most {MAX_GLOB_CHARS}")
    posix = PurePosixPath(path_glob.replace("\\", "/"))
    if posix.is_absolute() or Path(path_glob).is_absolute() or Path(path_glob).drive:
        raise ToolError(f"path_glob {path_glob!r} is absolute; give a glob relative to the logs")
    if ".." in posix.parts:
        raise ToolError(f"path_glob {path_glob!r} leaves the log directory ('..' is refused)")
    return str(posix)


def files_under(root: Path, path_glob: str, report: SearchReport) -> list[Path]:
    """Regular files matching the glob whose real path is inside the root, sorted by path."""
    found: list[Path] = []
    try:
        for candidate in root.glob(path_glob):
            if len(found) >= MAX_FILES:
                report.file_limit_reached = True
                break
            try:
                if candidate.is_symlink() or not candidate.resolve().is_relative_to(root):
                    continue
                if not stat.S_ISREG(candidate.lstat().st_mode):
                    continue
            except OSError:
                continue
            found.append(candidate)
    except (ValueError, NotImplementedError) as error:
        raise ToolError(f"path_glob {path_glob!r} is not a usable glob: {error}") from None
    return sorted(found)


def read_text(path: Path, report: SearchReport) -> str | None:
    """The file's first MAX_BYTES_PER_FILE bytes as text, or None when it is not text."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        descriptor = os.open(path, flags)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        data = handle.read(MAX_BYTES_PER_FILE + 1)
    if b"\0" in data[:TEXT_SNIFF_BYTES]:
        report.skipped_not_text += 1
        return None
    if len(data) > MAX_BYTES_PER_FILE:
        report.cut_files += 1
        data = data[:MAX_BYTES_PER_FILE]
    return data.decode("utf-8", errors="replace")


def matching_lines(
    text: str, regex: re.Pattern[str], since: datetime | None, until: datetime | None
) -> Iterator[tuple[int, str]]:
    """(line number, line) of each line that matches and falls in the time range."""
    ranged = since is not None or until is not None
    current: datetime | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if ranged:
            current = line_time(line) or current
            if current is None:
                continue
            if (since is not None and current < since) or (until is not None and current > until):
                continue
        if regex.search(line[:MAX_LINE_CHARS]):
            yield number, line


def shown(line: str) -> str:
    if len(line) <= SHOWN_LINE_CHARS:
        return line
    return f"{line[:SHOWN_LINE_CHARS]}… [{len(line)} characters]"


def search(
    root: Path,
    pattern: str,
    since: str | None,
    until: str | None,
    limit: int,
    path_glob: str,
    ignore_case: bool,
) -> str:
    """The search itself, synchronous: the tool runs it in a worker thread."""
    if not MIN_LIMIT <= limit <= MAX_LIMIT:
        raise ToolError(f"limit {limit} is out of range; give {MIN_LIMIT}..{MAX_LIMIT}")
    regex = compile_pattern(pattern, ignore_case)
    start, end = parse_time("since", since), parse_time("until", until)
    if start is not None and end is not None and start > end:
        raise ToolError(f"since {since!r} is after until {until!r}")
    glob = check_glob(path_glob)
    report = SearchReport()
    for path in files_under(root, glob, report):
        text = read_text(path, report)
        if text is None:
            continue
        report.files_searched += 1
        name = path.relative_to(root).as_posix()
        for number, line in matching_lines(text, regex, start, end):
            report.matches += 1
            if len(report.lines) < limit:
                report.lines.append(f"{name}:{number}: {shown(line)}")
    body = report.lines or ["No matching lines."]
    return "\n".join([*body, summary(pattern, ignore_case, glob, start, end, limit, report)])


def files(count: int) -> str:
    return f"{count} file" if count == 1 else f"{count} files"


def summary(
    pattern: str,
    ignore_case: bool,
    path_glob: str,
    since: datetime | None,
    until: datetime | None,
    limit: int,
    report: SearchReport,
) -> str:
    """The last line: the query, its parameters, the time range used, what was cut."""
    case = "case-insensitive" if ignore_case else "case-sensitive"

    def iso(moment: datetime | None, open_end: str) -> str:
        return moment.isoformat().replace("+00:00", "Z") if moment else open_end

    if since is None and until is None:
        time_range = "time range: none (all lines)"
    else:
        time_range = (
            f"time range: {iso(since, 'the start')} to {iso(until, 'the end')} "
            "(UTC, inclusive, by each line's leading timestamp)"
        )
    shown_count = len(report.lines)
    if report.matches > shown_count:
        outcome = (
            f"{report.matches} matching lines, the first {shown_count} shown "
            "(limit reached: narrow the pattern or the time range)"
        )
    else:
        outcome = f"{report.matches} matching lines, all shown (limit not reached)"
        if report.matches == 1:
            outcome = "1 matching line, shown (limit not reached)"
    notes = [f"{files(report.files_searched)} searched", outcome]
    if report.skipped_not_text:
        notes.append(f"{files(report.skipped_not_text)} skipped (not text)")
    if report.cut_files:
        notes.append(f"{files(report.cut_files)} read only to {MAX_BYTES_PER_FILE} bytes")
    if report.file_limit_reached:
        notes.append(f"only the first {MAX_FILES} files were searched")
    return (
        f"[searched: pattern {pattern!r} (regular expression, {case}), "
        f"path_glob {path_glob!r}, {time_range}, limit {limit}; {'; '.join(notes)}]"
    )


def build_server(root: Path, port: int = 8000) -> FastMCP:
    """The server with its one tool, reading only under `root` (resolved here, once)."""
    base = root.resolve()
    server = FastMCP(
        "log-search",
        instructions=f"Read-only search of the log files under one directory ({base.name}).",
        log_level="WARNING",
        host="127.0.0.1",
        port=port,
    )

    @server.tool(
        description=DESCRIPTION,
        annotations=ToolAnnotations(readOnlyHint=True, openWorldHint=False),
        structured_output=False,
    )
    async def search_logs(
        pattern: Annotated[str, Field(description="Python regular expression, per line.")],
        since: Annotated[
            str | None, Field(description="Start of the time range, ISO 8601, inclusive.")
        ] = None,
        until: Annotated[
            str | None, Field(description="End of the time range, ISO 8601, inclusive.")
        ] = None,
        limit: Annotated[
            int,
            Field(
                description=f"Most lines returned, {MIN_LIMIT}..{MAX_LIMIT}.",
                json_schema_extra={"minimum": MIN_LIMIT, "maximum": MAX_LIMIT},
            ),
        ] = DEFAULT_LIMIT,
        path_glob: Annotated[
            str, Field(description="Files to search, a glob relative to the log directory.")
        ] = DEFAULT_GLOB,
        ignore_case: Annotated[bool, Field(description="Match case-insensitively.")] = False,
    ) -> str:
        return await asyncio.to_thread(
            search, base, pattern, since, until, limit, path_glob, ignore_case
        )

    return server


def parse_arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="log_search.py", description="A read-only log-search MCP server (stdio by default)."
    )
    parser.add_argument("--root", required=True, type=Path, help="the only directory it reads")
    parser.add_argument(
        "--http",
        type=int,
        metavar="PORT",
        help="serve Streamable HTTP on http://127.0.0.1:PORT/mcp instead of stdio",
    )
    arguments = parser.parse_args(argv)
    if not arguments.root.is_dir():
        parser.error(f"--root {arguments.root} is not a directory")
    if arguments.http is not None and not 1 <= arguments.http <= 65535:
        parser.error(f"--http {arguments.http} is not a port (1..65535)")
    return arguments


def main(argv: Sequence[str] | None = None) -> int:
    arguments = parse_arguments(argv)
    if arguments.http is None:
        build_server(arguments.root).run("stdio")
    else:
        build_server(arguments.root, port=arguments.http).run("streamable-http")
    return 0


if __name__ == "__main__":
    sys.exit(main())
