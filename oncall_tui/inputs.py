"""Reading what the user hands in, with its limit applied while reading.

Files named on the command line or typed in the TUI, and standard input, are read to at most
their limit and one byte or character more (so "too long" is told without reading the rest).
A path that is not a regular file (a named pipe, a device, a directory) is refused, naming
the path, before anything could block on it: it is looked at with ``os.stat`` first, then
opened without blocking and looked at again through the open descriptor, so a path swapped
in between is caught too. Every failure is a catalog error; nothing here raises anything else
for bad input.

Standard library and the error catalog only: both clients use this, and the TUI's start-up
path stays light.
"""

from __future__ import annotations

import codecs
import contextlib
import errno
import functools
import io
import os
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from oncall_tui.errors import OncallError

READ_CHUNK = 65_536
"""Bytes asked of the operating system per read."""

_PROBLEMS = {
    errno.ENOENT: "no such file",
    errno.ENOTDIR: "no such file",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.ELOOP: "too many symbolic links",
}


@dataclass(frozen=True, slots=True)
class BoundedRead:
    """The start of a regular file: at most ``limit + 1`` bytes of it, and its size."""

    path: Path
    data: bytes
    size: int
    """The file's size in bytes as it was opened (or as much as was read, if it grew)."""
    limit: int

    @property
    def too_large(self) -> bool:
        """Whether the file holds more than ``limit`` bytes (its rest was not read)."""
        return len(self.data) > self.limit


def unreadable(path: Path, exc: OSError) -> OncallError:
    """The catalog error for a file the operating system would not let us read."""
    problem = _PROBLEMS.get(exc.errno or 0) or (exc.strerror or type(exc).__name__).lower()
    return OncallError(
        "VALIDATION_INVALID_ARGUMENT", "unreadable_file", path=str(path), problem=problem
    )


def not_regular(path: Path) -> OncallError:
    return OncallError("VALIDATION_INVALID_ARGUMENT", "not_regular_file", path=str(path))


def open_regular_file(path: Path) -> int:
    """An open, blocking, read-only descriptor of the regular file at ``path``.

    Raises the catalog's ``not_regular_file`` for anything else without ever waiting on it
    (opening a named pipe for reading would wait for a writer; reading a device may never
    end), and ``unreadable_file`` when the file cannot be opened."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise not_regular(path)
        descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise unreadable(path, exc) from None
    except ValueError:  # a NUL in the path: no file can have that name
        raise unreadable(path, FileNotFoundError(errno.ENOENT, "no such file")) from None
    try:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise not_regular(path)  # swapped for something else since the stat above
        os.set_blocking(descriptor, True)
    except BaseException:
        os.close(descriptor)
        raise
    return descriptor


def read_file(path: Path, limit: int) -> BoundedRead:
    """At most ``limit + 1`` bytes of the regular file at ``path``, and its size."""
    descriptor = open_regular_file(path)
    try:
        size = os.fstat(descriptor).st_size
        chunks: list[bytes] = []
        wanted = limit + 1
        while wanted > 0:
            chunk = os.read(descriptor, min(wanted, READ_CHUNK))
            if not chunk:
                break
            chunks.append(chunk)
            wanted -= len(chunk)
    except OSError as exc:
        raise unreadable(path, exc) from None
    finally:
        os.close(descriptor)
    data = b"".join(chunks)
    return BoundedRead(path=path, data=data, size=max(size, len(data)), limit=limit)


def expanded_path(raw: str) -> Path:
    """A path a user typed, ``~`` expanded (``~user`` of no known user: taken as written)."""
    path = Path(raw)
    with contextlib.suppress(RuntimeError):
        path = path.expanduser()
    return path


def find_named_file(raw: str, default_name: str) -> Path:
    """The file a user named: ``~`` expanded, and a directory meaning ``default_name`` in it."""
    path = expanded_path(raw)
    try:
        is_directory = stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        is_directory = False  # reported when it is read
    return path / default_name if is_directory else path


def read_text_file(path: Path, byte_limit: int) -> str:
    """A UTF-8 text file of at most ``byte_limit`` bytes, newlines as Python reads text
    (``\\r\\n`` and ``\\r`` become ``\\n``). The limit is in bytes: callers choose one
    generous enough for their own rule (in characters, after trimming) to decide."""
    read = read_file(path, byte_limit)
    if read.too_large:
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT", "file_too_large", path=str(path), limit=byte_limit
        )
    try:
        return _decoder().decode(read.data, final=True)
    except UnicodeDecodeError:
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT", "unreadable_file", path=str(path), problem="not UTF-8"
        ) from None


def read_stdin_text(
    limit: int,
    stream: TextIO | None = None,
    *,
    on_silence: Callable[[str], None] | None = None,
    silence: float = 2.0,
) -> str:
    """Standard input as text, at most ``limit`` characters (``stdin_too_long`` past them).

    Bytes are decoded strictly as UTF-8 whatever the locale, so invalid input is a catalog
    error rather than a string of surrogates; newlines are read as Python reads text. A
    closed standard input reads as empty. The first time a pipe stays silent for ``silence``
    seconds before its end, ``on_silence`` is told what was read so far (a writer that never
    ends: ``ssh`` without ``-n``, a followed log)."""
    source = sys.stdin if stream is None else stream
    if source is None:
        return ""
    buffer = getattr(source, "buffer", None)
    if isinstance(buffer, io.BufferedIOBase | io.RawIOBase):
        told = on_silence

        def before_read(so_far: list[str]) -> None:
            nonlocal told
            if told is not None and stdin_waits(silence, source):
                told("".join(so_far))
                told = None

        text = _read_decoded(buffer, limit + 1, before_read if on_silence else None)
    else:  # a text stream only (a test's StringIO): its read counts characters
        text = source.read(limit + 1)
    if len(text) > limit:
        raise OncallError("VALIDATION_INVALID_ARGUMENT", "stdin_too_long", limit=limit)
    return text


def stdin_is_piped(stream: TextIO | None = None) -> bool:
    """Whether standard input is a pipe or a file (``… | oncall-tui chat``, ``< app.log``):
    not a terminal, not ``/dev/null``, not a socket, not a stream of a test. A file already
    read into is someone else's (``while read q; do oncall-tui chat "$q"; done < questions``:
    the shell's ``read`` leaves the offset past the line it took), and is left alone."""
    source = sys.stdin if stream is None else stream
    try:
        descriptor = source.fileno()
        mode = os.fstat(descriptor).st_mode
        return stat.S_ISFIFO(mode) or (
            stat.S_ISREG(mode) and os.lseek(descriptor, 0, os.SEEK_CUR) == 0
        )
    except (AttributeError, OSError, ValueError):  # None, closed, or no descriptor
        return False


def is_terminal(stream: TextIO | None) -> bool:
    """Whether ``stream`` is a terminal: standard input and error for the TUI, standard input
    for ``oncall-tui chat -``, which asks for the message to be typed there."""
    try:
        return stream is not None and stream.isatty()
    except (OSError, ValueError):  # closed
        return False


def stdin_waits(seconds: float, stream: TextIO | None = None) -> bool:
    """Whether a pipe on standard input still has nothing to read (not even its end) after
    ``seconds``: a writer that is slow, or one that never ends (``ssh`` without ``-n``)."""
    import select  # only a chat that reads a pipe comes here

    source = sys.stdin if stream is None else stream
    try:
        ready, _, _ = select.select([source.fileno()], [], [], seconds)
    except (AttributeError, OSError, ValueError):  # no descriptor, or no select for pipes
        return False
    return not ready


def _read_decoded(
    buffer: io.BufferedIOBase | io.RawIOBase,
    wanted: int,
    before_read: Callable[[list[str]], None] | None = None,
) -> str:
    """At least ``wanted`` characters of ``buffer`` (or all of it, if fewer), read in steps
    that never take more bytes than characters still wanted: each byte is at most one
    character, so no more than ``wanted`` bytes and a partial character are taken.
    ``before_read`` is given the text so far before each step."""
    utf8 = codecs.getincrementaldecoder("utf-8")(errors="strict")
    decoder = io.IncrementalNewlineDecoder(utf8, translate=True)
    parts: list[str] = []
    count = 0
    taken = 0
    # One read of the descriptor at a time: a terminal's ctrl+d is one empty read, which a
    # buffered read(n) takes as the end of that call only, so the next waited for a second.
    read = buffer.read1 if isinstance(buffer, io.BufferedIOBase) else buffer.read
    while count < wanted:
        if before_read is not None:
            before_read(parts)
        chunk = read(min(wanted - count, READ_CHUNK)) or b""
        pending = len(utf8.getstate()[0])
        try:
            part = decoder.decode(chunk, final=not chunk)
        except UnicodeDecodeError as exc:
            position = taken - pending + exc.start
            raise OncallError(
                "VALIDATION_INVALID_ARGUMENT", "stdin_not_utf8", position=position
            ) from None
        parts.append(part)
        if not chunk:
            break
        taken += len(chunk)
        count += len(part)
    return "".join(parts)


def _decoder() -> io.IncrementalNewlineDecoder:
    utf8 = codecs.getincrementaldecoder("utf-8")(errors="strict")
    return io.IncrementalNewlineDecoder(utf8, translate=True)


# -- values from the command line and the environment ------------------------------------------

MAX_ID = 2**63 - 1
"""The largest id SQLite can store (a signed 64-bit integer)."""


def require_utf8(value: str, name: str) -> str:
    """``value`` unchanged, unless it came from bytes that are not UTF-8.

    Python hands such bytes of an argument or an environment variable over as lone surrogates
    (``\\udcff``), which nothing downstream can store or print; ``name`` says where it came
    from (an option, an argument or a variable)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise OncallError("VALIDATION_INVALID_ARGUMENT", "value_not_utf8", name=name) from None
    return value


def at_most(text: str, limit: int, reason: str) -> str:
    """``text`` if it is at most ``limit`` characters, else the catalog's refusal ``reason``
    (a reason of ``{limit}`` and ``{length}``: a message, a title, a search)."""
    if len(text) > limit:
        raise OncallError("VALIDATION_INVALID_ARGUMENT", reason, limit=limit, length=len(text))
    return text


def parse_id(text: str, name: str) -> int:
    """An id the user typed: ASCII digits only (``str.isdigit`` also takes ``²``) and a
    value from 1 to :data:`MAX_ID`."""
    if is_storable_id(text) and int(text) >= 1:
        return int(text)
    raise OncallError(
        "VALIDATION_INVALID_ARGUMENT", "bad_id", name=name, value=text, highest=MAX_ID
    )


def id_type(name: str) -> Callable[[str], int]:
    """:func:`parse_id` for the argument ``name``, as argparse's ``type``: its catalog error
    passes through argparse untouched."""
    return functools.partial(parse_id, name=name)


def is_storable_id(text: str) -> bool:
    """``text`` is ASCII digits naming a number SQLite can store as an id."""
    return (
        text.isascii() and text.isdigit() and len(text) <= len(str(MAX_ID)) and int(text) <= MAX_ID
    )
