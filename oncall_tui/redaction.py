"""Secrets never leave the process in text: one redactor for every place text goes out.

Two parts, applied together by :func:`redact`:

- **The registry**: the secret values this process holds, registered when the settings are
  resolved (:func:`register_secret`): the model server's key (``OPENAI_API_KEY``), the
  PostgreSQL passwords of ``--db`` (``user:pw@``, ``?password=``, the client key's
  ``?sslpassword=``) and ``PGPASSWORD``, and the ``${NAME}`` values expanded into tool
  servers' headers and env. Each is found as written, JSON-escaped (``\\"``, ``\\\\``,
  ``\\u0041`` for ``A``), percent-encoded, and with spaces, line breaks or escaped ``\\n``
  inserted between its characters (a wrapped line, a server's joined body).
  Values shorter than :data:`MIN_SECRET_CHARS` are not registered (they would mask ordinary
  words); the rules below still catch them where they are labelled.
- **The rules**, for secrets the registry never saw (a proxy's own token, another user's
  password echoed back): the password of a URL's userinfo (``scheme://user:***@``),
  ``password=…`` and ``sslpassword=…`` (a URL's query, a libpq keyword string,
  ``PGPASSWORD=``), a quoted ``"password": "…"``, ``Bearer …`` and ``Basic …`` credentials,
  and the value of an ``Authorization``, ``X-Api-Key``, ``api_key`` or ``access_token``
  field; but not a value that only names one (a variable, a command, a template's field, a
  placeholder: :data:`_REFERENCE`).

Where it applies: the error catalog's rendering (``OncallError.message``, so every message and
its JSON), the UI catalog's filled texts (``texts.text``: the TUI's status line and
notifications, the CLI's lines), the CLI's printers (human and JSON; a reply as ``chat``
streams it, through :class:`StreamRedactor`), a session's export, the log file's formatter, and
``masked_url``. Pure text work, standard library only; the registry is the one piece of
state, process-wide and thread-safe. Nothing here logs or prints.
"""

from __future__ import annotations

import functools
import json
import re
import threading
from collections.abc import Iterable
from urllib.parse import quote, quote_plus

MASK = "***"
MIN_SECRET_CHARS = 4
"""The shortest value the registry takes: a two-letter password would mask every ``pw``."""

_GAP = r"(?:\s|\\[nrt])*"
"""What may come between a registered secret's characters: whitespace, or its JSON escape."""

_REFERENCE = r"(?:\$\{|\$\(|\$[A-Z_][A-Z0-9_]*\b|\{\{|<)"
"""What names a value without being it, in a command or a template a reply suggests:
``${DB_PASS}``, ``$(vault read …)``, ``$PGPASSWORD`` (a variable's name in capitals),
``{{ .Values.password }}``, ``<your key>``. Masked, it would be copied as ``***``."""

_URL_USERINFO = (
    rf"(?i)\b([a-z][a-z0-9+.\-]*://[^\s:/?#@\"'<>]*):(?-i:(?!{_REFERENCE}))[^\s/?#\"'<>]*@"
)
_KEY_VALUE = (
    r"(?i)(?<![A-Za-z0-9])((?:ssl)?password|passwd|pgpassword)(\s*=\s*)"
    r"(?!\*\*\*:?(?:[\s&;,'\"]|$))"  # masked already (a sentence's colon after it stays)
    rf"(?-i:(?![\"']?{_REFERENCE}))"
    r"('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|[^\s&;,'\"]+)"
)
_QUOTED_PASSWORD = (
    r"(?i)([\"']?(?:password|passwd)[\"']?\s*:\s*)"
    rf"(?-i:(?![\"']{_REFERENCE}))"
    r"(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')"
)
_CREDENTIAL = r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9\-._~+/]+=*"
_HEADER = (
    r"(?i)(?<![A-Za-z0-9])((?:proxy-)?authorization|x-api-key|api[_-]?key|access[_-]?token)"
    r"([\"']?\s*[:=]\s*[\"']?)(?!bearer\b|basic\b|\*\*\*)"
    rf"(?-i:(?!{_REFERENCE}))([^\s\"',;&]+)"
)


def redact_patterns(text: str) -> str:
    """``text`` with the labelled credentials the rules know masked (no registry)."""
    for rule, masked in _rules():
        text = rule.sub(masked, text)
    return text


@functools.cache
def _rules() -> tuple[tuple[re.Pattern[str], str], ...]:
    """The rules, compiled when first used: not on the way to the app's first frame."""
    return (
        (re.compile(_URL_USERINFO), rf"\1:{MASK}@"),
        (re.compile(_KEY_VALUE), rf"\1\2{MASK}"),
        (re.compile(_QUOTED_PASSWORD), rf'\1"{MASK}"'),
        (re.compile(_CREDENTIAL), rf"\1\2{MASK}"),
        (re.compile(_HEADER), rf"\1\2{MASK}"),
    )


def secret_pattern(secrets: Iterable[str]) -> re.Pattern[str] | None:
    """One pattern matching any of ``secrets`` in every form the registry promises; ``None``
    for none (values shorter than :data:`MIN_SECRET_CHARS` are left out)."""
    forms: set[str] = set()
    for secret in secrets:
        if len(secret) < MIN_SECRET_CHARS:
            continue
        forms.update(
            (
                secret,
                json.dumps(secret, ensure_ascii=False)[1:-1],
                json.dumps(secret)[1:-1],
                quote(secret, safe=""),
                quote_plus(secret, safe=""),
            )
        )
    if not forms:
        return None
    ordered = sorted(forms, key=len, reverse=True)  # the longest form wins at a position
    return re.compile("|".join(_GAP.join(re.escape(c) for c in form) for form in ordered))


def scrub(text: str, pattern: re.Pattern[str] | None) -> str:
    """``text`` with what ``pattern`` (from :func:`secret_pattern`) matches masked, then the
    rules applied."""
    if pattern is not None:
        text = pattern.sub(MASK, text)
    return redact_patterns(text)


class _Registry:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._secrets: set[str] = set()
        self.pattern: re.Pattern[str] | None = None

    def add(self, values: Iterable[str | None]) -> None:
        with self._lock:
            fresh = {v for v in values if v and len(v) >= MIN_SECRET_CHARS} - self._secrets
            if not fresh:
                return
            self._secrets |= fresh
            self.pattern = secret_pattern(self._secrets)


_REGISTRY = _Registry()


def register_secret(*values: str | None) -> None:
    """Mask each of ``values`` in all text :func:`redact` sees from now on (``None``, empty and
    short values are ignored)."""
    _REGISTRY.add(values)


def redact(text: str) -> str:
    """``text`` without any registered secret or labelled credential: what may be shown,
    printed, written as JSON or logged."""
    if not text:
        return text
    return scrub(text, _REGISTRY.pattern)


class StreamRedactor:
    """Redacts text that comes in pieces (a reply's tokens), so that a secret split over
    pieces is seen whole: each line is redacted from its start, and its last run of ASCII
    letters, digits and punctuation (what a secret or a label's value is made of) is held
    until something else follows it, or :meth:`end`. Text of other scripts flows as it comes.

    What is let out is not taken back: a registered secret with white space inserted into it
    (a wrapped line) is masked only where no piece of it was let out before. A line longer
    than :data:`HELD_LINE_CHARS` is let out up to its last white space and read on from there
    (a longer run without one, minified JSON, is let out whole).
    """

    HELD_LINE_CHARS = 4096

    _TAIL = re.compile(r"[!-~]*\Z")

    def __init__(self) -> None:
        self._line = ""
        """The line so far, as it came."""
        self._raw_out = 0
        """Characters of :attr:`_line` let out."""
        self._shown = ""
        """What was let out of the line: its first :attr:`_raw_out` characters, redacted."""

    def feed(self, piece: str) -> str:
        """What of the text so far may be shown now, redacted."""
        released: list[str] = []
        *lines, rest = (self._line + piece).split("\n")
        for line in lines:
            self._line = line
            released.append(self._release(len(line)) + "\n")
            self._raw_out, self._shown = 0, ""
        self._line = rest
        if len(rest) > self.HELD_LINE_CHARS:  # read on from its last white space, or anew
            space = max(rest.rfind(" "), rest.rfind("\t")) + 1
            upto = max(space, self._raw_out)  # never before what was let out already
            if len(rest) - upto > self.HELD_LINE_CHARS:
                upto = len(rest)
            released.append(self._release(upto))
            self._line, self._raw_out, self._shown = rest[upto:], 0, ""
        cut = self._TAIL.search(self._line).start()  # type: ignore[union-attr]  # always matches
        if cut > self._raw_out:
            released.append(self._release(cut))
        return "".join(released)

    def end(self) -> str:
        """The rest, redacted: the text is over (or stops here, before a tool's line)."""
        rest = self._release(len(self._line))
        self._line, self._raw_out, self._shown = "", 0, ""
        return rest

    def _release(self, upto: int) -> str:
        """The line's characters from what was let out up to ``upto``, redacted in the light
        of the line before them."""
        shown = redact(self._line[:upto])
        if shown.startswith(self._shown):
            released = shown[len(self._shown) :]
        else:  # a match reaches into what was let out: mask what can be of the rest
            released = redact(self._line[self._raw_out : upto])
        self._raw_out, self._shown = upto, shown
        return released


def redact_tree(document: object) -> object:
    """``document`` (JSON-shaped: dicts, lists, strings, numbers) with every string value
    redacted; keys are the program's own and stay."""
    if isinstance(document, str):
        return redact(document)
    if isinstance(document, dict):
        return {key: redact_tree(value) for key, value in document.items()}
    if isinstance(document, list | tuple):
        return [redact_tree(value) for value in document]
    return document


__all__ = [
    "MASK",
    "MIN_SECRET_CHARS",
    "StreamRedactor",
    "redact",
    "redact_patterns",
    "redact_tree",
    "register_secret",
    "scrub",
    "secret_pattern",
]
