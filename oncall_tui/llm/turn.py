"""One agent turn as plain data, and what a run of it yields.

A :class:`Turn` is everything a model run needs besides the model: the system prompt, the
history, the selected skills (from which the tools are built), whether the model can call
tools at all, and the context budget every request of the turn must fit. What a run yields is
an :data:`AgentStreamItem`. This module imports neither LangChain nor anything that does:
services build turns without loading the model stack.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from oncall_tui.core.events import ThinkingStarted, TokenDelta, ToolFinished, ToolStarted
from oncall_tui.core.memory import ContextBudget

if TYPE_CHECKING:
    from langchain_core.tools import BaseTool


@dataclass(frozen=True)
class ModelUsage:
    """What the server reported for one run. ``None`` where it reported nothing.

    ``input_tokens`` is the prompt of the run's *last* model call (Ollama's
    ``prompt_eval_count``), ``first_input_tokens`` that of its first: exactly the request the
    memory rules measured, so it calibrates the estimate, and the next turn's requests start
    with it. ``output_tokens`` is summed over all calls. ``truncated``: the server ended the
    reply at its length limit (``done_reason: "length"``).
    """

    input_tokens: int | None
    output_tokens: int | None
    first_input_tokens: int | None = None
    truncated: bool = False


AgentStreamItem = ThinkingStarted | TokenDelta | ToolStarted | ToolFinished | ModelUsage


@dataclass(frozen=True)
class Summary:
    """A model-written summary, and whether the server cut it at its length limit."""

    text: str
    truncated: bool = False


@dataclass(frozen=True)
class Turn:
    """One user turn: ``history`` holds ``("user" | "assistant", content)`` pairs ending with
    the new user message; ``skills`` maps each selected skill's name to its ``SKILL.md``.

    ``tools`` is false for a model that cannot call tools: it then gets none. ``budget``, when
    given, is what every request of the turn must fit (see :mod:`oncall_tui.llm.guard`).
    ``server_tools`` are the tool servers' allowed tools, bound after the built-in ones;
    ``tool_names`` maps their model names to the names people see (``logs.search_logs``).
    """

    system_prompt: str
    history: tuple[tuple[str, str], ...]
    skills: Mapping[str, str] = field(default_factory=dict)
    tools: bool = True
    text_tools: bool = False
    """The model has no native tool calls: the tools are in the system prompt, the request
    carries none, and the calls it writes as text are made (:mod:`oncall_tui.llm.recovery`)."""
    budget: ContextBudget | None = None
    server_tools: tuple[BaseTool, ...] = ()
    tool_names: Mapping[str, str] = field(default_factory=dict)
