"""What a search query means, and the one-line snippet a hit shows. Pure rules, no I/O.

A query is a list of *terms*: words separated by whitespace, or a phrase in double quotes
(``"connection refused"``). A quote left open runs to the end of the query, so a phrase being
typed finds what it will find once closed (``"connection ref`` finds ``connection refused``: the
search runs as the user types). A message matches when it contains every term, each as a
literal substring, ignoring case. Nothing in a query is an operator: ``AND``, ``OR``, ``NOT``,
``*`` and ``NEAR(`` are text like any other, as is a quote inside a word (``say"hi``), so no
query can be a syntax error (a NUL character separates terms, as a space does).
Substrings, not words: ``time`` finds ``timeout`` and ``超时`` finds ``上游超时`` (what a
prefix search would give, and more). So a ``*`` at either end of a word, the shell's "anything",
is dropped (``timeout*`` is ``timeout``, which it means), unless the word is only stars; inside
a word or a phrase it is text (``a*b``, ``"SELECT *"``).

Limits: a query is 1..:data:`MAX_QUERY_CHARS` characters after trimming, and at least one of
its terms has :data:`MIN_INDEXED_CHARS` characters or more (a one-character term alone would
match nearly everything; beside a longer term it narrows the hits).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from oncall_tui.core.text import one_line
from oncall_tui.errors import OncallError
from oncall_tui.inputs import at_most

MAX_QUERY_CHARS = 200
MIN_INDEXED_CHARS = 2
"""The shortest term the index answers; shorter ones only filter what longer ones found."""
SNIPPET_CHARS = 160
ELLIPSIS = "…"
_CONTEXT_BEFORE = 40
"""Characters shown before the first match, when the text is cut."""
_TERM = re.compile(r'"([^"]*)(?:"|$)|(\S+)')


@dataclass(frozen=True, slots=True)
class SearchQuery:
    """A parsed query: its terms, whitespace inside phrases collapsed, duplicates dropped."""

    terms: tuple[str, ...]

    @property
    def indexed(self) -> tuple[str, ...]:
        """The terms the index can answer."""
        return tuple(term for term in self.terms if len(term) >= MIN_INDEXED_CHARS)

    @property
    def filters(self) -> tuple[str, ...]:
        """The one-character terms, checked on what the indexed terms found."""
        return tuple(term for term in self.terms if len(term) < MIN_INDEXED_CHARS)


def parse_query(text: str) -> SearchQuery:
    """The query's terms; ``VALIDATION_INVALID_ARGUMENT`` for a blank or too long query, or one
    without a term of two characters or more."""
    trimmed = text.replace("\x00", " ").strip()  # SQLite ends an FTS5 expression at a NUL
    if not trimmed:
        raise OncallError("VALIDATION_INVALID_ARGUMENT", "search_query_empty")
    at_most(trimmed, MAX_QUERY_CHARS, "search_query_too_long")
    query = SearchQuery(query_terms(trimmed))
    if not query.indexed:
        raise OncallError(
            "VALIDATION_INVALID_ARGUMENT", "search_query_too_short", minimum=MIN_INDEXED_CHARS
        )
    return query


def query_terms(text: str) -> tuple[str, ...]:
    """The terms of ``text`` as a query reads them, no limit checked (the sessions list's
    filter takes these too): words and quoted phrases (one left open runs to the end),
    whitespace in a phrase collapsed, a star at either end of a word dropped, a term said twice
    taken once."""
    terms: list[str] = []
    for match in _TERM.finditer(text):
        phrase, word = match.groups()
        written = phrase if phrase is not None else word.strip("*") or word
        term = " ".join(written.split())
        if term and term not in terms:
            terms.append(term)
    return tuple(terms)


def fold(text: str) -> str:
    """``text`` lower-cased one character for one, so positions in it are positions in ``text``
    (a character whose lower case is longer, such as ``İ``, stays as it is)."""
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(low if len(low := char.lower()) == 1 else char for char in text)


@dataclass(frozen=True, slots=True)
class Snippet:
    text: str
    """One line, at most :data:`SNIPPET_CHARS` characters, ``…`` where the text was cut."""
    highlights: tuple[tuple[int, int], ...]
    """``[start, end)`` spans of the terms in :attr:`text`, in order, not overlapping."""


def snippet(text: str, terms: tuple[str, ...], width: int = SNIPPET_CHARS) -> Snippet:
    """The part of ``text`` around the first match of a term, as one line of at most ``width``
    characters, with every match of every term in it marked."""
    line = one_line(text)
    folded = fold(line)
    needles = [fold(term) for term in terms]
    found = [index for needle in needles if (index := folded.find(needle)) >= 0]
    first = min(found, default=0)
    if len(line) <= width:
        start, end = 0, len(line)
    else:
        start = max(0, first - _CONTEXT_BEFORE)
        room = width - (1 if start > 0 else 0)
        if start + room >= len(line):  # the window reaches the end: show the whole tail
            room = width - 1
            start = len(line) - room
        else:
            room -= 1  # the closing ellipsis
        end = start + room
    prefix = ELLIPSIS if start > 0 else ""
    suffix = ELLIPSIS if end < len(line) else ""
    shown = line[start:end]
    spans = _spans(folded[start:end], needles, offset=len(prefix))
    return Snippet(prefix + shown + suffix, spans)


def _spans(haystack: str, needles: list[str], offset: int) -> tuple[tuple[int, int], ...]:
    """Every occurrence of each needle in ``haystack``, merged where they overlap or touch."""
    spans: list[tuple[int, int]] = []
    for needle in needles:
        at = haystack.find(needle)
        while at >= 0:
            spans.append((at, at + len(needle)))
            at = haystack.find(needle, at + 1)
    merged: list[tuple[int, int]] = []
    for begin, finish in sorted(spans):
        if merged and begin <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], finish))
        else:
            merged.append((begin, finish))
    return tuple((begin + offset, finish + offset) for begin, finish in merged)
