"""One agent turn as plain data, and its wire form between processes.

A :class:`Turn` is everything a model run needs besides the model: the system prompt, the
history, the selected skills (from which the tools are built), whether the model can call
tools at all, and the context budget every request of the turn must fit. What a run yields is
an :data:`AgentStreamItem`. Both cross the pipe to the agent host (``llm/host.py``) as JSON
lines, so this module imports neither LangChain nor anything that does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from oncall_tui.core.events import TokenDelta, ToolFinished, ToolStarted
from oncall_tui.core.memory import ContextBudget
from oncall_tui.errors import OncallError


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


AgentStreamItem = TokenDelta | ToolStarted | ToolFinished | ModelUsage


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
    """

    system_prompt: str
    history: tuple[tuple[str, str], ...]
    skills: Mapping[str, str] = field(default_factory=dict)
    tools: bool = True
    budget: ContextBudget | None = None

    def to_json(self) -> dict[str, object]:
        budget = self.budget
        return {
            "system_prompt": self.system_prompt,
            "history": [list(pair) for pair in self.history],
            "skills": dict(self.skills),
            "tools": self.tools,
            "budget": None
            if budget is None
            else {
                "window": budget.window,
                "calibration": budget.calibration,
                "floor": budget.floor,
            },
        }

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> Turn:
        history = tuple((str(role), str(content)) for role, content in document["history"])
        budget = document.get("budget")
        return cls(
            str(document["system_prompt"]),
            history,
            dict(document["skills"]),
            tools=bool(document.get("tools", True)),
            budget=None
            if budget is None
            else ContextBudget(
                int(budget["window"]), float(budget["calibration"]), int(budget["floor"])
            ),
        )


_ITEMS: dict[str, type[TokenDelta | ToolStarted | ToolFinished]] = {
    TokenDelta.type: TokenDelta,
    ToolStarted.type: ToolStarted,
    ToolFinished.type: ToolFinished,
}


def item_to_json(item: AgentStreamItem) -> dict[str, object]:
    if isinstance(item, ModelUsage):
        return {
            "type": "usage",
            "input": item.input_tokens,
            "output": item.output_tokens,
            "first_input": item.first_input_tokens,
            "truncated": item.truncated,
        }
    return item.to_json()


_DERIVED = frozenset({"type", "id", "ok"})
"""Keys of an item's JSON that are not constructor arguments."""


def item_from_json(document: Mapping[str, Any]) -> AgentStreamItem:
    kind = document["type"]
    if kind == "usage":
        return ModelUsage(
            document["input"], document["output"], document["first_input"], document["truncated"]
        )
    fields = {key: value for key, value in document.items() if key not in _DERIVED}
    return _ITEMS[kind](**fields)


def error_to_json(error: OncallError) -> dict[str, object]:
    params = json.loads(json.dumps(error.params, default=str))  # anything else as text
    return {"type": "error", "code": error.code, "reason": error.reason, "params": params}


def error_from_json(document: Mapping[str, Any]) -> OncallError:
    return OncallError(document["code"], document.get("reason"), **document["params"])
