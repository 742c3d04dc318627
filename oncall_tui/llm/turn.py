"""One agent turn as plain data, and its wire form between processes.

A :class:`Turn` is everything a model run needs besides the model: the system prompt, the
history and the selected skills (from which the tools are built). What a run yields is an
:data:`AgentStreamItem`. Both cross the pipe to the agent host (``llm/host.py``) as JSON
lines, so this module imports neither LangChain nor anything that does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from oncall_tui.core.events import TokenDelta, ToolFinished, ToolStarted
from oncall_tui.errors import OncallError


@dataclass(frozen=True)
class ModelUsage:
    """Token counts the server reported for one run.

    ``input_tokens`` is the prompt of the run's *last* model call (Ollama's
    ``prompt_eval_count``): the best measure of how full the window now is.
    ``output_tokens`` is summed over all calls of the run. ``None`` when not reported.
    """

    input_tokens: int | None
    output_tokens: int | None


AgentStreamItem = TokenDelta | ToolStarted | ToolFinished | ModelUsage


@dataclass(frozen=True)
class Turn:
    """One user turn: ``history`` holds ``("user" | "assistant", content)`` pairs ending with
    the new user message; ``skills`` maps each selected skill's name to its ``SKILL.md``."""

    system_prompt: str
    history: tuple[tuple[str, str], ...]
    skills: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, object]:
        return {
            "system_prompt": self.system_prompt,
            "history": [list(pair) for pair in self.history],
            "skills": dict(self.skills),
        }

    @classmethod
    def from_json(cls, document: Mapping[str, Any]) -> Turn:
        history = tuple((str(role), str(content)) for role, content in document["history"])
        return cls(str(document["system_prompt"]), history, dict(document["skills"]))


_ITEMS: dict[str, type[TokenDelta | ToolStarted | ToolFinished]] = {
    TokenDelta.type: TokenDelta,
    ToolStarted.type: ToolStarted,
    ToolFinished.type: ToolFinished,
}


def item_to_json(item: AgentStreamItem) -> dict[str, object]:
    if isinstance(item, ModelUsage):
        return {"type": "usage", "input": item.input_tokens, "output": item.output_tokens}
    return item.to_json()


def item_from_json(document: Mapping[str, Any]) -> AgentStreamItem:
    kind = document["type"]
    if kind == "usage":
        return ModelUsage(document["input"], document["output"])
    fields = {key: value for key, value in document.items() if key not in ("type", "id")}
    return _ITEMS[kind](**fields)


def error_to_json(error: OncallError) -> dict[str, object]:
    params = json.loads(json.dumps(error.params, default=str))  # anything else as text
    return {"type": "error", "code": error.code, "reason": error.reason, "params": params}


def error_from_json(document: Mapping[str, Any]) -> OncallError:
    return OncallError(document["code"], document.get("reason"), **document["params"])
