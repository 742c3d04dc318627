"""Session memory policy: when to compact, when to refuse, and how usage is reported.

Pure rules (DESIGN.md "Session memory"); the service applies them to stored sessions.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

AUTO_COMPACT_TURNS = 30
"""``every_30_turns``: compact once this many assistant replies lie after the boundary."""
COMPACT_RATIO = 0.70
"""``context_70_percent``: compact when the candidate context reaches this share of the window."""
LIMIT_RATIO = 0.95
"""No send at or above this share of the window, whatever the mode."""
MAX_SUMMARY_CHARS = 1200

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
    """How full the model's context window is for a session's next request."""

    context_tokens: int
    context_window_tokens: int

    @property
    def ratio(self) -> float:
        return self.context_tokens / self.context_window_tokens

    @property
    def percent(self) -> float:
        """One decimal, capped at 100."""
        return min(100.0, round(self.ratio * 100, 1))

    @property
    def at_limit(self) -> bool:
        return self.ratio >= LIMIT_RATIO

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
    compacted_message_count: int
    usage: ContextUsage
    can_compact: bool
    last_compacted_at: datetime | None

    def to_json(self) -> dict[str, object]:
        return {
            "session_id": self.session_id,
            "memory_mode": self.memory_mode.value,
            "memory_summary": self.memory_summary,
            "compacted_message_count": self.compacted_message_count,
            **self.usage.to_json(),
            "can_compact": self.can_compact,
            "last_compacted_at": None
            if self.last_compacted_at is None
            else self.last_compacted_at.isoformat(),
        }


def should_auto_compact(
    mode: MemoryMode, *, assistant_after_boundary: int, candidate: ContextUsage
) -> bool:
    """Step 2 of a send: compact first? ``manual`` never compacts by itself."""
    if mode is MemoryMode.EVERY_30_TURNS:
        return assistant_after_boundary >= AUTO_COMPACT_TURNS
    if mode is MemoryMode.CONTEXT_70_PERCENT:
        return candidate.ratio >= COMPACT_RATIO
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


def render_transcript(messages: list[tuple[str, str]]) -> str:
    """The transcript handed to the summariser: one block per message, role first."""
    labels = {"user": "User", "assistant": "Assistant"}
    return "\n\n".join(f"{labels.get(role, role)}: {content}" for role, content in messages)


def summary_request(existing_summary: str | None, messages: list[tuple[str, str]]) -> str:
    previous = existing_summary.strip() if existing_summary else "(none yet)"
    return (
        f"Existing summary:\n{previous}\n\nNew transcript to merge:\n{render_transcript(messages)}"
    )
