"""Keeping a tool call the model writes as text off the screen while it streams.

The reply streams token by token, and only once a model call has ended does recovery
(:mod:`oncall_tui.llm.recovery`) know whether its text wrote a call. So :class:`CallHold`
holds back, from the moment a candidate begins (``<tool_call>``, ``[TOOL_CALLS]``,
``<|python_tag|>``, a fence whose body starts like JSON or a bound tool's call, and at a line's
start a bare ``{``/``[`` or ``name(`` of a bound tool), and lets it through as soon as it is
closed and is not a call. Once a closed candidate is a call, everything after it is held to
the end of the model call; :meth:`CallHold.finish` then lets through what the user is to see:
the reply without the recovered calls and without what the model wrote after the last one (a
guess at a result it had not seen yet). What the user saw and what is stored stay the same
text, since both are made of what this lets through.

Most replies never hold anything: prose and code fences that do not start like a call pass
through piece by piece as they arrive.
"""

from __future__ import annotations

from collections.abc import Sequence

from oncall_tui.llm.text_calls import (
    FENCE,
    TAGS,
    Tools,
    opener_at,
    parse_body,
    segment_end,
    without_calls,
)


class CallHold:
    """One model call's text, held where it may be a tool call; see the module's docstring."""

    def __init__(self, tools: Tools) -> None:
        self._tools = tools
        self._text = ""
        self._released = 0
        """How much of ``_text`` has been let through."""
        self._held_call = False
        """A closed candidate held back is a call: hold everything to the end."""
        self._scan = 0
        """Where the next candidate is looked for: everything before it is settled."""

    def feed(self, piece: str) -> str:
        """What of the reply so far may be shown, given one more piece of it."""
        if not self._tools.bound:
            return piece
        self._text += piece
        if not self._held_call:
            self._advance()
        return self._release(self._held_from())

    def finish(self, recovered: Sequence[str]) -> str:
        """The rest of this model call's text that the user is to see, once it has ended and
        recovery found ``recovered`` (the texts of the calls it read, in order); then ready
        for the next model call."""
        rest = self._text[self._released :]
        if recovered:
            rest = without_calls(rest, recovered).rstrip()
        self._text, self._released, self._held_call, self._scan = "", 0, False, 0
        return rest

    def _advance(self) -> None:
        """Move ``_scan`` past everything that is settled not to be a call, stopping at the
        first candidate still open (or the one that is a call)."""
        text = self._text
        while self._scan < len(text):
            position = self._scan
            line_start = position == 0 or text[position - 1] == "\n"
            if line_start:
                position += len(text[position:]) - len(text[position:].lstrip(" \t"))
                if position == len(text):
                    return  # an indent so far: what follows decides
            begins = self._begins(text, position, line_start=line_start)
            if begins is None:
                self._scan = position
                return  # may still become a candidate
            if not begins:
                self._scan = position + 1
                continue
            closed = segment_end(text, position, self._tools)
            if closed is None:
                self._scan = position
                return  # open: held until it closes or the call ends
            end, body = closed
            if parse_body(body, self._tools):
                self._scan = position
                self._held_call = True
                return
            self._scan = end

    def _begins(self, text: str, position: int, *, line_start: bool) -> bool | None:
        """Whether a candidate begins at ``position``; a fence only when its body starts like
        a call (JSON, or a bound tool's name), so a shell snippet streams as it comes."""
        begins = opener_at(text, position, self._tools, line_start=line_start)
        if not begins or not text.startswith(FENCE, position):
            return begins
        newline = text.find("\n", position)
        if newline < 0:
            return None  # the fence's first line is not complete yet
        body = text[newline + 1 :].lstrip()
        if not body:
            return None
        if body[0] in "{[" or any(body.startswith(tag) for tag, _ in TAGS):
            return True
        return opener_at(body, 0, self._tools, line_start=True)

    def _held_from(self) -> int:
        """Where the held text begins: the candidate at ``_scan``, if any is open there."""
        return self._scan if self._scan < len(self._text) else len(self._text)

    def _release(self, upto: int) -> str:
        if upto <= self._released:
            return ""
        shown = self._text[self._released : upto]
        self._released = upto
        return shown
