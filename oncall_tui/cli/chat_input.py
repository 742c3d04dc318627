"""What ``oncall-tui chat`` sends: its words, and standard input when it is a pipe or a file.

``kubectl logs … | oncall-tui chat "why"`` sends the question and the log, as ``ollama run``
does; a ``-`` among the words puts the input there instead. A terminal, ``/dev/null`` and a
file someone has begun to read are not read (:func:`~oncall_tui.inputs.stdin_is_piped`).
"""

from __future__ import annotations

import sys

from oncall_tui.cli.output import emit_text
from oncall_tui.errors import Language, OncallError
from oncall_tui.inputs import is_terminal, read_stdin_text, stdin_is_piped
from oncall_tui.texts import counted, text

STDIN_HINT_SECONDS = 2.0
"""How long a pipe on standard input may stay silent before its end, before the chat says it
is reading it."""


def read_message(parts: list[str], lang: Language, *, quiet: bool = False) -> tuple[str, int]:
    """The message: its words, with standard input where a ``-`` stands among them, or after
    them when standard input is a pipe or a file and no ``-`` is given (``kubectl logs … |
    oncall-tui chat "why"`` sends the log too, as ``ollama run`` does; it is not left out
    unsaid). Words and input are a blank line apart. Standard input is read to at most a
    message's limit (an endless or huge input is refused without being read whole); a pipe
    that stays silent before its end (from its start, or after some lines: a followed log) is
    said to be read, and with how many lines so far, unless ``quiet`` (``--json``).

    Also returns how many lines of input went after the words unasked (no ``-``), to be said
    as the message is stored: input meant for a ``while read`` loop is seen going."""
    if parts.count("-") > 1:
        raise OncallError("VALIDATION_INVALID_ARGUMENT", detail=text("cli.chat.one_dash", lang))
    piped_in = stdin_is_piped()
    if "-" not in parts and not piped_in:
        return " ".join(parts), 0
    from oncall_tui.services.chat import MAX_MESSAGE_CHARS  # off the start-up path

    def silent(so_far: str) -> None:  # what it waits for, said instead of hanging unexplained
        lines = len(so_far.splitlines())
        said = counted("cli.chat.stdin_open", lines, lang) if lines else None
        emit_text((said or text("cli.chat.reading_stdin", lang)) + "\n", sys.stderr)

    if not piped_in and not quiet and is_terminal(sys.stdin):  # "-" asks for it to be typed
        emit_text(text("cli.chat.typing_stdin", lang) + "\n", sys.stderr)
    on_silence = silent if piped_in and not quiet else None
    piped = read_stdin_text(MAX_MESSAGE_CHARS, on_silence=on_silence, silence=STDIN_HINT_SECONDS)
    if parts == ["-"]:
        return piped, 0  # exactly as given
    if "-" in parts:
        at = parts.index("-")
        before, after = parts[:at], parts[at + 1 :]
    else:  # the words first: the question names the session, not the log's first line
        before, after = parts, []
    added = piped.strip("\n")
    pieces = (" ".join(before), added, " ".join(after))
    message = "\n\n".join(piece for piece in pieces if piece.strip())
    unasked = "-" not in parts and bool(parts) and bool(added.strip())
    return message, len(added.splitlines()) if unasked else 0
