"""A thinking model's ``<think>...</think>`` text: kept out of replies and summaries.

Models such as qwen3 or deepseek-r1 open their output with their reasoning between ``<think>``
tags (or ``<thinking>``). It is neither the answer nor something to store and send back in the
history. :func:`strip_thinking` removes it from a whole text; :class:`ThinkingFilter` does the
same for a stream whose pieces may cut a tag anywhere, and says when an output is seen to
reason (:meth:`ThinkingFilter.thinks`), so that a client can say so while nothing shows. Only a
block at the start of an output counts: a reply that mentions ``<think>`` further on is left as
written.
"""

from __future__ import annotations

import re

_OPENERS = ("<think>", "<thinking>")
QUIET_PIECES = 2
"""Pieces of an output with nothing to show before the model is said to think (a server's
first piece may carry only the role: one is not reasoning)."""
_THINKING = re.compile(r"<(think|thinking)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_UNCLOSED_THINKING = re.compile(r"<(think|thinking)>.*\Z", re.DOTALL | re.IGNORECASE)


def strip_thinking(text: str) -> str:
    """Drop ``<think>...</think>`` blocks (and an unclosed trailing one) from a whole text."""
    without = _UNCLOSED_THINKING.sub("", _THINKING.sub("", text))
    return without.strip()


class ThinkingFilter:
    """Streamed pieces in, visible text out: a leading thinking block is dropped.

    Text is held back only while it could still be the start of an opening tag, while it is
    inside the block, or while it is the blank lines after it; everything after that passes
    straight through.
    """

    def __init__(self) -> None:
        self._held = ""
        self._closer = ""
        """The closing tag while inside a thinking block."""
        self._state = "start"  # start -> (inside -> after ->) passing
        self._quiet = 0
        """Pieces of this output with nothing to show; -1 once it has shown something, or
        been said to think (:meth:`thinks`)."""

    def feed(self, piece: str) -> str:
        if self._state == "passing":
            return piece
        self._held += piece
        if self._state == "start":
            return self._at_start()
        if self._state == "inside":
            return self._inside()
        return self._after()

    def _at_start(self) -> str:
        text = self._held.lstrip()
        lowered = text.lower()
        for opener in _OPENERS:
            if lowered.startswith(opener):
                self._state, self._closer = "inside", "</" + opener[1:]
                self._held = text[len(opener) :]
                return self._inside()
        if not text or any(opener.startswith(lowered) for opener in _OPENERS):
            return ""  # only blanks, or perhaps the start of a tag: wait for more
        return self._pass(self._held)

    def _inside(self) -> str:
        end = self._held.lower().find(self._closer)
        if end < 0:
            self._held = self._held[-(len(self._closer) - 1) :]  # a closer may be cut in two
            return ""
        self._state, self._held = "after", self._held[end + len(self._closer) :]
        return self._after()

    def _after(self) -> str:
        text = self._held.lstrip()
        if not text:
            self._held = ""
            return ""
        return self._pass(text)

    def _pass(self, text: str) -> str:
        self._state, self._held, self._quiet = "passing", "", -1
        return text

    def thinks(self, piece: str, *, ended: bool) -> bool:
        """For a piece that gave nothing to show (``ended``: it carried a tool call, or the
        output's end): whether the model is now seen to reason, said once an output. So it
        is at the :data:`QUIET_PIECES`-th piece that is inside a thinking block, or empty:
        reasoning a server streams apart (Ollama's ``thinking`` field, which a request that
        sets no ``think`` gets and LangChain drops) comes as pieces without text."""
        if self._quiet < 0 or ended:
            self._quiet = -1
            return False
        if piece and self._state != "inside":
            return False  # blank lines, or perhaps the start of a tag
        self._quiet += 1
        if self._quiet < QUIET_PIECES:
            return False
        self._quiet = -1
        return True

    def finish(self) -> str:
        """The end of one output: what is still held back, unless it is (or follows) a
        thinking block. The filter is then ready for the next output."""
        held = self._held if self._state == "start" else ""
        self._held, self._closer, self._state, self._quiet = "", "", "start", 0
        return held
