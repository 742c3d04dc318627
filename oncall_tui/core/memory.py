"""Session memory policy: when to compact, when to refuse, and how usage is reported.

Pure rules (docs/ARCHITECTURE.md "Session memory"); the service applies them to stored sessions.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from oncall_tui.core.tokens import estimate_text_tokens

AUTO_COMPACT_TURNS = 30
"""``every_30_turns``: compact once this many assistant messages lie after the boundary."""
COMPACT_PERCENT = 70.0
"""``context_70_percent``: compact when the candidate context reaches this percent of the window."""
LIMIT_PERCENT = 95.0
"""No request at or above this percent of the window, whatever the mode."""
MAX_SUMMARY_CHARS = 1200
SUMMARY_ROOM_TOKENS = 500
"""What a summary request leaves of the window for the summary the model writes."""

SUMMARY_INSTRUCTIONS = f"""\
You maintain the running memory of an on-call chat session. Merge the existing summary (if any)
and the new transcript into one updated summary.
Keep: the user's goals, facts established, preferences, decisions, open items and next steps,
tool results (commands run and what they showed), and the skills or sources cited.
Drop: pleasantries, repetition, and anything superseded later.
Write at most {MAX_SUMMARY_CHARS} characters, as terse notes, in the language the conversation uses.
Output only the summary text."""


class MemoryMode(StrEnum):
    EVERY_30_TURNS = "every_30_turns"
    CONTEXT_70_PERCENT = "context_70_percent"
    MANUAL = "manual"


DEFAULT_MEMORY_MODE = MemoryMode.EVERY_30_TURNS


@dataclass(frozen=True, slots=True)
class ContextUsage:
    """How full the model's context window is for a session's next request.

    The thresholds compare :attr:`percent`, the figure users see, as the seed does: 1,433 of
    2,048 tokens is 70.0% and compacts; 1,945 of 2,048 is 95.0% and is refused.
    """

    context_tokens: int
    context_window_tokens: int

    @property
    def percent(self) -> float:
        """One decimal, never capped: 2,732 of 2,048 tokens is 133.4."""
        return round(self.context_tokens / self.context_window_tokens * 100, 1)

    @property
    def at_limit(self) -> bool:
        return self.percent >= LIMIT_PERCENT

    @property
    def past_compact_threshold(self) -> bool:
        return self.percent >= COMPACT_PERCENT

    def to_json(self) -> dict[str, object]:
        return {
            "context_tokens": self.context_tokens,
            "context_window_tokens": self.context_window_tokens,
            "context_usage_percent": self.percent,
        }


@dataclass(frozen=True, slots=True)
class MemoryState:
    """A session's memory as clients see it (``memory show``)."""

    session_id: int
    memory_mode: MemoryMode
    memory_summary: str | None
    memory_summary_status: str
    """``complete``, or ``truncated`` when the model stopped at its length limit."""
    compacted_message_count: int
    usage: ContextUsage
    can_compact: bool
    last_compacted_at: datetime | None

    def to_json(self) -> dict[str, object]:
        return {
            "session_id": self.session_id,
            "memory_mode": self.memory_mode.value,
            "memory_summary": self.memory_summary,
            "memory_summary_status": self.memory_summary_status,
            "compacted_message_count": self.compacted_message_count,
            **self.usage.to_json(),
            "can_compact": self.can_compact,
            "last_compacted_at": None
            if self.last_compacted_at is None
            else self.last_compacted_at.isoformat(),
        }


@dataclass(frozen=True, slots=True)
class ContextBudget:
    """How a raw token estimate becomes a gauge reading for one session.

    ``calibration`` (never below 1) scales estimates up when the model's own counts showed
    them low; ``floor`` is the model's count of a prompt that the measured request starts
    with, so no reading is below it. Every request of a turn is measured with one budget.
    """

    window: int
    calibration: float = 1.0
    floor: int = 0

    def tokens(self, raw: int) -> int:
        """A raw estimate, calibrated (no floor: for a part of a request)."""
        return math.ceil(raw * max(1.0, self.calibration))

    def reading(self, raw: int) -> ContextUsage:
        """The gauge reading of a whole request whose raw estimate is ``raw``."""
        return ContextUsage(max(self.tokens(raw), self.floor), self.window)

    @property
    def limit_tokens(self) -> int:
        """The most tokens a request may hold and stay under the limit."""
        tokens = math.floor(self.window * LIMIT_PERCENT / 100)
        while tokens > 0 and ContextUsage(tokens, self.window).at_limit:
            tokens -= 1
        return tokens


def longest_that_fits(fits: Callable[[int], bool], high: int) -> int:
    """The largest ``n`` in ``1..high`` with ``fits(n)``, or 0; ``fits`` is taken to hold up to
    some ``n`` and not past it. Probes grow from small ones: a result may be far longer than
    what fits, and each probe measures a text as long as it."""
    low, probe = 0, min(1024, high)
    while probe > low and fits(probe):
        low, probe = probe, min(probe * 2, high)
    high = probe - 1 if probe > low else low
    while low < high:
        middle = (low + high + 1) // 2
        if fits(middle):
            low = middle
        else:
            high = middle - 1
    return low


def should_auto_compact(
    mode: MemoryMode, *, assistant_after_boundary: int, candidate: ContextUsage
) -> bool:
    """Step 2 of a send: compact first? ``manual`` never compacts by itself.

    ``assistant_after_boundary`` counts every assistant message after the boundary, empty,
    failed and interrupted ones included, as the seed does.
    """
    if mode is MemoryMode.EVERY_30_TURNS:
        return assistant_after_boundary >= AUTO_COMPACT_TURNS
    if mode is MemoryMode.CONTEXT_70_PERCENT:
        return candidate.past_compact_threshold
    return False


def clean_summary(text: str) -> str:
    """Trim a model-written summary to the limit, cutting at a line or sentence end if possible."""
    summary = text.strip()
    if len(summary) <= MAX_SUMMARY_CHARS:
        return summary
    cut = summary[:MAX_SUMMARY_CHARS]
    boundary = max(cut.rfind("\n"), cut.rfind(". "), cut.rfind("。"))
    if boundary >= MAX_SUMMARY_CHARS // 2:
        cut = cut[: boundary + 1]
    return cut.rstrip()


_LABELS = {"user": "User", "assistant": "Assistant"}


def render_transcript(messages: Sequence[tuple[str, str]]) -> str:
    """The transcript handed to the summariser: one block per message, role first."""
    return "\n\n".join(_block(role, content) for role, content in messages)


def _block(role: str, content: str) -> str:
    return f"{_LABELS.get(role, role)}: {content}"


def take_transcript(
    messages: Sequence[tuple[str, str]], room: int
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The leading messages whose transcript fits in ``room`` tokens, and the rest.

    A compaction request must itself fit the window, so a long transcript is summarised a part
    at a time. At least one message is taken: one that does not fit alone is cut to fit, and
    says how much of it was left out.
    """
    taken: list[tuple[str, str]] = []
    used = 0
    for index, (role, content) in enumerate(messages):
        tokens = estimate_text_tokens(_block(role, content)) + 1  # and the blank line
        if used + tokens > room:
            if not taken:
                return [(role, _cut_to_fit(role, content, room))], list(messages[index + 1 :])
            return taken, list(messages[index:])
        taken.append((role, content))
        used += tokens
    return taken, []


def _cut_to_fit(role: str, content: str, room: int) -> str:
    """The longest start of ``content`` that fits in ``room`` with a note of what was cut."""

    def cut(length: int) -> str:
        return f"{content[:length]}\n[… {len(content) - length:,} more characters not summarised]"

    low, high = 0, len(content)
    while low < high:  # the longest length whose cut fits
        middle = (low + high + 1) // 2
        if estimate_text_tokens(_block(role, cut(middle))) <= room:
            low = middle
        else:
            high = middle - 1
    return cut(low)


def summary_request(existing_summary: str | None, messages: Sequence[tuple[str, str]]) -> str:
    previous = existing_summary.strip() if existing_summary else "(none yet)"
    return (
        f"Existing summary:\n{previous}\n\nNew transcript to merge:\n{render_transcript(messages)}"
    )


SENT_BACK_SHARE = 3
"""A reply is sent back to the model whole while it takes at most a third of the window."""


@functools.lru_cache(maxsize=16)  # every request of a session assembles its history again
def sent_back(content: str, window: int) -> str:
    """What later requests carry of an assistant reply in a window of ``window`` tokens.

    A reply the app cut at its size limit, or one huge line from the server, would fill the
    window of every request after it, and each would be refused at 95% until the user
    compacted by hand. So a reply past a third of the window is sent back as its beginning and
    its end, a third of the window in all, with a note of how much was left out in between.
    The stored reply, the screen and the exports keep all of it. A normal answer (a few
    hundred to two thousand tokens) is far under the bound and goes back as it is.
    """
    room = max(window // SENT_BACK_SHARE, 1)
    if len(content) <= room or estimate_text_tokens(content) <= room:
        return content

    def shortened(kept: int) -> str:
        head = kept * 2 // 3
        tail = kept - head
        left_out = len(content) - kept
        return (
            f"{content[:head]}\n\n[… {left_out:,} characters of this reply were left out "
            f"here: it was too long to send back whole …]\n\n{content[len(content) - tail :]}"
        )

    low, high = 0, len(content) - 1
    while low < high:  # the most characters kept whose shortened text fits
        middle = (low + high + 1) // 2
        if estimate_text_tokens(shortened(middle)) <= room:
            low = middle
        else:
            high = middle - 1
    return shortened(low)
