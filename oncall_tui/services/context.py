"""What the model sees of a session, and how full it makes the window.

A request is assembled from the owner's configuration (the system prompt in its fixed order,
the selected skills) and the session's memory (summary, boundary, the messages after it).
:class:`SessionSnapshot` is one consistent read of the session; :class:`Assembly` the prompt
and tools; :func:`budget_of` the :class:`ContextBudget` that turns a raw estimate into the
gauge's reading. No I/O happens here but through the owner-scoped repositories.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from sqlmodel import Session

from oncall_tui.core.memory import (
    DEFAULT_MEMORY_MODE,
    ContextBudget,
    ContextUsage,
    MemoryMode,
    longest_that_fits,
    sent_back,
)
from oncall_tui.core.prompts import build_chat_system_prompt
from oncall_tui.core.skills import SkillCatalogEntry
from oncall_tui.errors import OncallError
from oncall_tui.llm.tokens import estimate_tokens, message_tokens
from oncall_tui.llm.tool_specs import ToolSchema, tool_schemas
from oncall_tui.services.configuration import ActiveContext
from oncall_tui.store.sessions import MessageRepository, SessionRepository
from oncall_tui.store.tables import MessageRow, SessionRow

History = list[tuple[str, str]]

UNSENT_STATUSES = frozenset({"failed", "interrupted"})
"""Replies kept in the history but never sent back to the model: they are not answers."""
ANSWER_STATUSES = frozenset({"complete", "truncated"})


def sendable(message: MessageRow) -> bool:
    """Does the model see this message again in later requests?"""
    if not message.content:
        return False
    return message.role != "assistant" or message.status not in UNSENT_STATUSES


@dataclass(frozen=True, slots=True)
class Assembly:
    """What one model request is built from: the system prompt (with summary), the selected
    skills (name to ``SKILL.md``), and whether the model can call tools at all."""

    system_prompt: str
    skills: dict[str, str]
    tools_enabled: bool = True
    server_tools: tuple[ToolSchema, ...] = ()
    """The schemas of the tool servers' allowed tools, bound after the built-in ones."""
    tools_in_prompt: bool = False
    """The tools are described in the system prompt, not sent as the request's tools: the
    model has no native tool calls, and the calls it writes as text are made."""

    @property
    def tools(self) -> tuple[ToolSchema, ...]:
        """The schemas of the tools the request offers, as plain data: the turn builds the
        tools themselves from :attr:`skills` when it runs (:mod:`oncall_tui.llm.tools`)."""
        if not self.tools_enabled or self.tools_in_prompt:
            return ()
        return self.bound_tools

    @property
    def bound_tools(self) -> tuple[ToolSchema, ...]:
        """The schemas of the tools the turn runs, offered in the request or in the prompt."""
        if not self.tools_enabled:
            return ()
        return (*tool_schemas(skills_selected=bool(self.skills)), *self.server_tools)

    def estimate(self, history: Sequence[tuple[str, str]]) -> int:
        """The raw estimate of a request of this assembly with ``history``."""
        return estimate_tokens(self.system_prompt, history, self.tools)


def assembly_of(
    context: ActiveContext,
    summary: str | None,
    *,
    tools: bool,
    tool_form: bool = False,
    server_tools: tuple[ToolSchema, ...] = (),
    in_prompt: bool = False,
) -> Assembly:
    """The system prompt in its fixed order (docs/ARCHITECTURE.md "System prompt assembly")
    and the skills of ``context``, with ``summary``; without tools when the model cannot call
    them; with ``tool_form``, the rules say how to write a call as text, and with
    ``in_prompt`` they list the tools too (which the request then does not carry)."""
    catalog = [SkillCatalogEntry(s.skill.name, s.skill.description) for s in context.skills]
    assembly = Assembly(
        system_prompt="",
        skills={s.skill.name: s.content for s in context.skills},
        tools_enabled=tools,
        server_tools=server_tools if tools else (),
        tools_in_prompt=in_prompt and tools,
    )
    listed = assembly.bound_tools if assembly.tools_in_prompt else ()
    prompt = build_chat_system_prompt(
        context.prompt.content,
        catalog,
        summary,
        tools_available=tools,
        tool_form=tool_form or assembly.tools_in_prompt,
        tool_list=listed,
    )
    return replace(assembly, system_prompt=prompt)


@dataclass(frozen=True, slots=True)
class SessionSnapshot:
    """A session read in one transaction: its row and the messages after the boundary.

    ``row`` is ``None`` for a session that does not exist yet (a first message)."""

    row: SessionRow | None
    messages: tuple[MessageRow, ...] = ()
    stored: int = 0
    """How many messages the session held when it was read."""

    @classmethod
    def read(cls, session: Session, owner: str, session_id: int | None) -> SessionSnapshot:
        if session_id is None:
            return cls(row=None)
        row = SessionRepository(session).require(owner, session_id)
        messages = MessageRepository(session).from_position(row, row.compacted_message_count)
        return cls(row, tuple(messages), row.compacted_message_count + len(messages))

    def changed_in(self, row: SessionRow, message_count: int) -> str | None:
        """How ``row`` (read again, holding ``message_count`` messages) differs from the session
        this snapshot read, in words; ``None`` when it is the same."""
        if row.clear_generation != self.existing_row().clear_generation:
            return "its messages were cleared"
        if row.compacted_message_count != self.boundary:
            return "it was compacted meanwhile"
        if message_count != self.stored:
            return "messages were added"
        return None

    def existing_row(self) -> SessionRow:
        """The session's row, for a snapshot of a stored session (not of a first message's
        session-to-be, which has none: asking that one is a bug)."""
        if self.row is None:
            raise RuntimeError("this snapshot is of a session not created yet: it has no row")
        return self.row

    @property
    def session_id(self) -> int | None:
        return None if self.row is None else self.row.id

    @property
    def summary(self) -> str | None:
        return None if self.row is None else self.row.memory_summary

    @property
    def boundary(self) -> int:
        return 0 if self.row is None else self.row.compacted_message_count

    @property
    def mode(self) -> MemoryMode:
        return DEFAULT_MEMORY_MODE if self.row is None else MemoryMode(self.row.memory_mode)

    @property
    def history(self) -> History:
        """The messages after the boundary that the model sees again, as stored."""
        return [(m.role, m.content) for m in self.messages if sendable(m)]

    def sent_history(self, window: int) -> History:
        """What a request in a window of ``window`` tokens carries of them: :attr:`history`,
        with a reply too long to send back whole shortened (:func:`sent_back`)."""
        return [
            (role, sent_back(content, window) if role == "assistant" else content)
            for role, content in self.history
        ]

    @property
    def assistant_after_boundary(self) -> int:
        """Every assistant message after the boundary, empty and failed ones included."""
        return sum(1 for m in self.messages if m.role == "assistant")

    def unanswered(self) -> MessageRow | None:
        """The last user message after the boundary, if no answer to it has been stored."""
        for message in reversed(self.messages):
            if message.role == "user":
                return message
            if message.status in ANSWER_STATUSES:
                return None
        return None

    def before(self, position: int | None) -> SessionSnapshot:
        """The same session with only the messages before ``position`` (all for ``None``)."""
        if position is None:
            return self
        kept = tuple(m for m in self.messages if m.position < position)
        return SessionSnapshot(self.row, kept, self.stored)


def budget_of(row: SessionRow | None, window: int) -> ContextBudget:
    """The session's budget: the window, its calibration, and the model's last count of a
    prompt that the next request starts with."""
    if row is None:
        return ContextBudget(window)
    return ContextBudget(window, row.token_calibration, row.reported_prompt_tokens or 0)


@dataclass(frozen=True, slots=True)
class Request:
    """A model request, assembled and measured: what the turn's first call will send."""

    assembly: Assembly
    history: History
    """Messages after the boundary, ending with the user message to answer."""
    budget: ContextBudget
    """What every request of the turn must fit."""
    estimated_tokens: int
    """The uncalibrated estimate, compared with the model's own count after the reply; the one
    estimate of this request (the usage stored with the user message is read from it)."""

    @property
    def usage(self) -> ContextUsage:
        return self.budget.reading(self.estimated_tokens)


class ContextLimitError(OncallError):
    """The candidate context is at or past 95% even after the one automatic compaction."""

    def __init__(
        self,
        usage: ContextUsage,
        reason: str,
        compaction_error: OncallError | None = None,
        **params: object,
    ) -> None:
        super().__init__(
            "CHAT_CONTEXT_LIMIT_REACHED",
            reason,
            percent=usage.percent,
            window=usage.context_window_tokens,
            **params,
        )
        self.usage = usage
        self.compaction_error = compaction_error

    @classmethod
    def of_message(
        cls,
        request: Request,
        text: str,
        compaction_error: OncallError | None,
        *,
        earlier: bool,
    ) -> ContextLimitError:
        """The refusal of the new message ``text`` that ``request`` ends with, saying what
        would help: how much of it fits, and compacting or a new session only when the session
        has ``earlier`` messages or a summary to drop."""
        before = request.assembly.estimate(request.history[:-1])
        fit = characters_that_fit(request.budget, before, text)
        if fit:
            reason = "limit_message" if earlier else "limit_message_new"
            return cls(request.usage, reason, compaction_error, fit=fit, length=len(text))
        if earlier:
            return cls(request.usage, "limit_message_full", compaction_error)
        base = request.budget.reading(before).percent
        return cls(request.usage, "limit_message_base", compaction_error, base=base)


def characters_that_fit(budget: ContextBudget, before: int, text: str) -> int:
    """How many of ``text``'s first characters a request whose raw estimate is ``before``
    without it can take as its last message and stay under the limit (0: none): the search
    the cut of a tool result makes (:func:`~oncall_tui.core.memory.longest_that_fits`), on the
    estimate itself; about 10 ms for 100,000 characters (``bench/token_accuracy.py``)."""

    def fits(length: int) -> bool:
        return not budget.reading(before + message_tokens(text[:length])).at_limit

    return longest_that_fits(fits, len(text))
